//! Go players: the Monte Carlo tree search behind `genmove` and `go`, its playout board and
//! policy, and the simple move chooser kept for free handicap placement.

pub mod bench;
pub mod fast;
pub mod mcts;
pub mod patterns;
pub mod player;
pub mod playout;
pub mod policy;
pub mod tree;
pub mod usi;
