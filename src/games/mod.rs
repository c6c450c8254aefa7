//! Rules only: no I/O, no threads, no clocks.

pub mod go;
pub mod othello;
pub mod quantum;
pub mod registry;
pub mod rules;
