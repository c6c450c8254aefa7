//! A simple, deterministic move chooser for `genmove` and `go`: good enough for a GUI to play a
//! game through. It never fills its own eyes, never plays in territory the extended analysis
//! has already settled, and passes when nothing useful is left.

use crate::go::analysis::{extended, Status};
use crate::go::board::{Color, EMPTY};
use crate::go::eye::is_own_eye;
use crate::go::Position;
use crate::rng::mix;

/// The move `color` plays (`None` = pass), and the number of candidate points examined.
pub fn choose(game: &Position, color: Color, seed: u64) -> (Option<usize>, u64) {
    choose_within(game, color, seed, &mut || true)
}

/// [`choose`] under a time budget: `keep_going` is asked before each candidate point is
/// examined; once it says no, the best point examined so far is played (the first legal
/// candidate is always examined, so a move is never given up for lack of time).
pub fn choose_within(
    game: &Position,
    color: Color,
    seed: u64,
    keep_going: &mut dyn FnMut() -> bool,
) -> (Option<usize>, u64) {
    let board = &game.board;
    let ko = if color == game.to_move { game.ko } else { None };
    let settled = extended(board, ko);
    let mut best: Option<(i64, usize)> = None;
    let mut examined = 0u64;
    let size = board.size() as i64;
    let salt = mix(seed ^ board.cells().iter().fold(0u64, |h, &c| mix(h ^ c as u64)));
    for p in board.points() {
        if best.is_some() && !keep_going() {
            break;
        }
        if board.get(p) != EMPTY || is_own_eye(board, p, color) {
            continue;
        }
        if settled.status[p] != Status::Undecided {
            continue;
        }
        let mut after = board.clone();
        let Ok(played) = after.play(p, color, ko) else {
            continue;
        };
        examined += 1;
        let (stones, libs) = after.block(p);
        let mut score: i64 = 0;
        score += 200 * played.captured as i64;
        // Saving own stones that were in atari.
        for n in board.neighbors(p) {
            if board.get(n) == color.cell() && board.block(n).1.len() == 1 && libs.len() >= 2 {
                score += 150 * board.block(n).0.len() as i64;
            }
        }
        // Putting opponent blocks in atari.
        for n in after.neighbors(p) {
            if after.get(n) == color.other().cell() && after.block(n).1.len() == 1 {
                score += 40;
            }
        }
        if libs.len() == 1 && played.captured == 0 {
            // Self-atari: never worth it for this simple player.
            continue;
        }
        let _ = stones;
        score += 5 * libs.len().min(4) as i64;
        let (row, col) = board.row_col(p);
        let line = (row as i64)
            .min(col as i64)
            .min(size - 1 - row as i64)
            .min(size - 1 - col as i64);
        // Third and fourth lines first on open boards.
        score += match line {
            0 => -15,
            1 => -5,
            2 | 3 => 10,
            _ => 5,
        };
        score = score * 1024 + (mix(salt ^ p as u64) % 1024) as i64;
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, p));
        }
    }
    (best.map(|(_, p)| p), examined)
}
