//! ryoshi: a USI engine for quantum shogi, with Othello and Go analysis.

pub mod bench;
pub mod games;
pub mod gtp;
pub mod matches;
pub(crate) mod memory;
pub mod nboard;
pub mod progress;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod serve;
pub mod session;
pub mod stop;
pub mod text;
pub mod tune;
