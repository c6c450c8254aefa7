//! Text only: lines to typed commands, and the shape of error replies. No game rules.

pub mod args;
pub(crate) mod command;
pub mod driver;
pub mod lines;
pub mod parse;

pub use args::Args;
pub use command::{Command, GameOutcome, GoParams, StartSpec};
pub use parse::{parse_line, ParseError};
