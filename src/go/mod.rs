//! Go rules and analysis: board, blocks, captures, suicide, simple ko, notation, SGF,
//! Benson's unconditional life and the extended unconditional analysis.
//! Rules only: no I/O, no threads, no clocks.

pub mod analysis;
pub mod bench;
pub mod benson;
pub mod benson_reference;
pub(crate) mod bits;
pub mod board;
pub mod eye;
pub mod gtp;
pub(crate) mod handicap;
pub mod katago;
pub mod marking;
pub mod notation;
pub mod perft;
pub(crate) mod position;
pub mod record;
pub mod rules;
pub mod score;
pub mod search;
pub mod serve;
pub(crate) mod session;
pub mod tune;
pub mod unconditional;
pub mod unconditional_reference;

pub use board::{Board, Color, Illegal, SizeError};
pub use position::{HandicapError, Position};
pub use rules::Record;
