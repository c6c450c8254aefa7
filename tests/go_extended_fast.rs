//! The bitboard extended analysis against the plain one, on seeded random positions.

use ryoshi::games::go::board::{BLACK, EMPTY, WHITE};
use ryoshi::games::go::policy::is_own_eye;
use ryoshi::games::go::{unconditional, unconditional_reference, Board, Color, Game};
use ryoshi::rng::SplitMix64 as Rng;

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

fn played(size: usize, rng: &mut Rng) -> Game {
    let mut g = Game::empty(size).unwrap();
    let mut passes = 0;
    let mut moves = 0;
    let stop = size * size * (1 + rng.next() as usize % 4);
    while passes < 2 && moves < stop {
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
    g
}

#[test]
fn fast_extended_equals_the_reference() {
    let mut rng = Rng(7);
    let mut marked = 0;
    for i in 0..400 {
        let size = 2 + i % 24;
        let (board, ko) = if i % 2 == 0 {
            let g = played(size.min(19), &mut rng);
            (g.board, g.ko)
        } else {
            (random_board(size, 40 + rng.next() % 60, &mut rng), None)
        };
        for color in Color::BOTH {
            let fast = unconditional::unconditional_life(&board, ko, color);
            let slow = unconditional_reference::unconditional_life(&board, ko, color);
            assert_eq!(fast, slow, "position {i}, {color:?}: {board:?}");
            marked += fast.iter().filter(|&&m| m != 0).count();
        }
    }
    assert!(
        marked > 5_000,
        "the positions exercise the analysis ({marked})"
    );
}

#[test]
fn extended_covers_classic_on_random_positions() {
    use ryoshi::games::go::analysis::{classic, extended, Status};
    let mut rng = Rng(99);
    let mut decided = 0;
    for i in 0..600 {
        let size = 2 + i % 24;
        let (board, ko) = if i % 2 == 0 {
            let g = played(size.min(19), &mut rng);
            (g.board, g.ko)
        } else {
            (random_board(size, 40 + rng.next() % 60, &mut rng), None)
        };
        let c = classic(&board);
        let e = extended(&board, ko);
        for p in board.points() {
            if c.status[p] != Status::Undecided {
                decided += 1;
                assert_eq!(
                    e.status[p], c.status[p],
                    "position {i} point {p}: {board:?}"
                );
            }
        }
    }
    assert!(decided > 5_000, "classic decided enough points ({decided})");
}
