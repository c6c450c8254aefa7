//! The extended analysis against the definitions themselves, by exhaustive search on small
//! boards: the defender C passes forever and the opponent O may play any number of moves.
//!
//! - every C stone the analysis keeps standing (the survivors of its step 1) is never captured;
//! - on every point it gives C (territory, dead O stones), O never gets a block that Benson's
//!   algorithm proves alive, in any position O can reach.
//!
//! Positions come from seeded random games that never fill their own eyes, so they are full of
//! settled shapes; only those with few empty points are searched exhaustively.

#[path = "support/go_positions.rs"]
mod go_positions;

use go_positions::{random_board, random_game};
use ryoshi::go::benson::Benson;
use ryoshi::go::board::EMPTY;
use ryoshi::go::unconditional::unconditional_life;
use ryoshi::go::{Board, Color};
use ryoshi::rng::SplitMix64 as Rng;
use std::collections::HashSet;

/// All positions O reaches alone from `start` (ko does not bind consecutive moves of one side
/// against a passing opponent), up to `limit`; None when there are more.
fn reachable(start: &Board, o: Color, limit: usize) -> Option<Vec<Board>> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut stack = vec![start.clone()];
    let mut out = Vec::new();
    seen.insert(start.cells().to_vec());
    while let Some(b) = stack.pop() {
        for p in b.points() {
            if b.get(p) != EMPTY {
                continue;
            }
            let mut next = b.clone();
            if next.play(p, o, None).is_ok() && seen.insert(next.cells().to_vec()) {
                if seen.len() > limit {
                    return None;
                }
                stack.push(next);
            }
        }
        out.push(b);
    }
    Some(out)
}

#[test]
fn extended_claims_hold_under_exhaustive_search() {
    let mut rng = Rng(2024);
    let mut checked = 0;
    let mut claims = 0;
    let mut benson = Benson::new();
    let mut safe = Vec::new();
    // RYOSHI_SOUNDNESS_GAMES raises the number of games for a longer local run.
    let games: usize = std::env::var("RYOSHI_SOUNDNESS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    for i in 0..games {
        let size = [4, 5, 5, 6, 6, 7][i % 6];
        let board = if i % 2 == 0 {
            random_game(size, size * size * 6, &mut rng).0.board
        } else {
            // Dense stones, so that few points stay empty.
            random_board(size, 60 + rng.next() % 35, &mut rng)
        };
        let empties = board.points().filter(|&p| board.get(p) == EMPTY).count();
        if empties > 14 {
            continue;
        }
        for c in Color::BOTH {
            let marks = unconditional_life(&board, None, c);
            let survivors: Vec<usize> = board
                .points()
                .filter(|&p| marks[p] == 1 && board.get(p) == c.cell())
                .collect();
            let given: Vec<usize> = board.points().filter(|&p| marks[p] == 2).collect();
            if survivors.is_empty() && given.is_empty() {
                continue;
            }
            let Some(states) = reachable(&board, c.other(), 200_000) else {
                continue;
            };
            checked += 1;
            claims += survivors.len() + given.len();
            for s in &states {
                for &p in &survivors {
                    assert_eq!(s.get(p), c.cell(), "survivor captured: {board:?} -> {s:?}");
                }
                benson.safe_points(s, c.other(), &mut safe);
                for &p in &given {
                    assert!(
                        !safe[p],
                        "O lives on a point given to C: {board:?} -> {s:?}"
                    );
                }
            }
        }
    }
    println!("searched {checked} analyses exhaustively, {claims} claims upheld");
    assert!(
        checked > 50 && claims > 500,
        "enough positions were searched ({checked}, {claims})"
    );
}
