//! KataGo's interfaces beyond GTP: its rules (`rules.rs`) and its analysis engine, `ryoshi
//! analysis` (a query read in `query.rs`, answered in `answer.rs`, the loop and its workers in
//! `engine.rs`; protocol/analysis.md).

pub mod answer;
pub mod engine;
pub mod query;
pub mod rules;

pub use engine::{run, Args};
