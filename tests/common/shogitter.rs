//! The ten Shogitter-refereed quantum shogi games of tests/data (provenance in
//! tests/data/README.md), and their action notation.

use flate2::read::GzDecoder;
use ryoshi::quantum::types::{mask_letters, square_name};
use ryoshi::quantum::{origin_of, Action, Position};
use serde_json::Value;
use std::io::Read;

/// The games, one JSON object each.
pub fn games() -> Vec<Value> {
    let bytes = super::read_data("quantum/shogitter-games-151-160.jsonl.gz");
    let mut text = String::new();
    GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .expect("gunzip to utf-8");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// An action in the fixture's notation (`D:<origin>:<candidates>*<square>` for drops).
pub fn action_name(pos: &Position, action: Action) -> String {
    match action {
        Action::Drop { piece, to } => format!(
            "D:{}:{}*{}",
            origin_of(piece as usize).letter(),
            mask_letters(pos.piece(piece as usize).mask),
            square_name(to)
        ),
        other => pos.action_name(other),
    }
}
