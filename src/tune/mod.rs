//! Tuning: fitting an evaluation's weights to played games.
//!
//! The floor above `matches/` (it reads the runner's results files and openings) and below the
//! front ends; `search/` holds only the weights it writes, never the tuner.

pub mod othello;
pub mod quantum;
