//! Go players: the Monte Carlo tree search behind `genmove` and `go`, its playout board and
//! policy, and the simple move chooser kept for free handicap placement.

use crate::go::board::{Board, EMPTY};

pub mod bench;
pub mod fast;
pub mod mcts;
pub mod patterns;
pub mod player;
pub mod playout;
pub mod policy;
pub mod tree;
pub mod usi;

/// The moves a side is expected to have left on `board` (its main time is shared over them): a
/// third of the empty points, at least 12. Games end with about a third of the board still
/// empty, and each side plays half of the rest.
pub fn moves_to_go(board: &Board) -> u64 {
    let empty = board.points().filter(|&p| board.get(p) == EMPTY).count();
    (empty as u64 / 3).max(12)
}
