//! Othello rules on bitboards: moves, flips, passes, perft and counting. (The endgame solver is a
//! search: `othello::search::solve`.)

pub mod bench;
pub(crate) mod board;
pub(crate) mod count;
pub mod ggf;
pub mod nboard;
pub mod obf;
pub mod perft;
pub mod position;
pub mod record;
pub(crate) mod rules;
pub mod search;
pub mod serve;
pub(crate) mod session;
pub mod tune;

pub use board::{flips, moves, square_name, squares, Board};
pub use position::Position;
