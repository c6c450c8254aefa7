//! KataGo's interfaces beyond GTP: its rules (`rules.rs`).

pub mod rules;
