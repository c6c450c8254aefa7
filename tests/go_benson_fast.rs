//! The bitboard Benson against the plain one, on seeded random positions of every size.

use ryoshi::games::go::board::{BLACK, EMPTY, WHITE};
use ryoshi::games::go::policy::is_own_eye;
use ryoshi::games::go::{benson, benson_reference, Board, Color, Game};
use ryoshi::rng::SplitMix64 as Rng;

/// Random stones, then blocks without liberties removed until none is left.
fn random_board(size: usize, density: u64, rng: &mut Rng) -> Board {
    let mut b = Board::new(size).unwrap();
    let points: Vec<usize> = b.points().collect();
    for &p in &points {
        let r = rng.next() % 100;
        b.set(
            p,
            if r < density / 2 {
                BLACK
            } else if r < density {
                WHITE
            } else {
                EMPTY
            },
        );
    }
    loop {
        let dead: Vec<usize> = b
            .blocks()
            .into_iter()
            .filter(|(_, _, l)| l.is_empty())
            .flat_map(|(_, s, _)| s)
            .collect();
        if dead.is_empty() {
            return b;
        }
        for p in dead {
            b.set(p, EMPTY);
        }
    }
}

/// A random game that never fills its own eyes: ends full of living groups.
fn played_board(size: usize, rng: &mut Rng) -> Board {
    let mut g = Game::empty(size).unwrap();
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < size * size * 4 {
        let c = g.to_move;
        let cands: Vec<usize> = g
            .legal_points()
            .into_iter()
            .filter(|&p| !is_own_eye(&g.board, p, c))
            .collect();
        let mv = if cands.is_empty() {
            None
        } else {
            Some(cands[rng.next() as usize % cands.len()])
        };
        passes = if mv.is_none() { passes + 1 } else { 0 };
        g.play(mv).unwrap();
        moves += 1;
    }
    g.board
}

#[test]
fn fast_benson_equals_the_reference() {
    let mut rng = Rng(42);
    let mut fast = benson::Benson::new();
    let mut slow = benson_reference::Benson::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut safe_points = 0;
    for i in 0..1500 {
        let size = 2 + i % 24;
        let board = if i % 3 == 0 {
            played_board(size.min(13), &mut rng)
        } else {
            random_board(size, 40 + rng.next() % 60, &mut rng)
        };
        for color in Color::BOTH {
            fast.safe_points(&board, color, &mut a);
            slow.safe_points(&board, color, &mut b);
            assert_eq!(a, b, "position {i}, {color:?}: {board:?}");
            safe_points += a.iter().filter(|&&s| s).count();
        }
    }
    assert!(
        safe_points > 10_000,
        "the positions exercise the algorithm ({safe_points})"
    );
}
