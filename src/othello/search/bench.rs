//! Othello's `bench`: the strongest level searched to a fixed depth from a few openings; the
//! last line, `Nodes searched: <n>`, is the Othello search's signature.

use super::{think, Level};
use crate::othello::rules::{play_text, MoveError};
use crate::othello::Position;
use crate::search::{Control, Limits};

const BENCH_DEPTH: u32 = 8;

/// Openings for `bench`: midgame positions well above the solver's range.
const BENCH_LINES: &[&str] = &[
    "",
    "f5 d6 c3 d3 c4",
    "f5 f6 e6 f4 e3 c5 c4 d3",
    "f5 d6 c3 d3 c4 f4 f6 f3 e6 e7",
    "c4 e3 f6 e6 f5 c5 f4 g6 f7 d3 c6 g5",
];

/// Runs the bench, writing one line a position and the signature last; returns the nodes. An
/// opening that does not play is reported with its line number (from 1).
pub fn run(out: &mut dyn FnMut(&str)) -> Result<u64, (usize, MoveError)> {
    let mut total = 0u64;
    for (i, line) in BENCH_LINES.iter().enumerate() {
        let mut position = Position::START;
        for m in line.split_whitespace() {
            position = play_text(&position, m).map_err(|e| (i + 1, e))?.1;
        }
        let limits = Limits {
            depth: Some(BENCH_DEPTH),
            ..Default::default()
        };
        let control = Control::new(limits, 0);
        let outcome = think(&position.board, Level::new(3), 0, &control, &mut |_| {});
        total += outcome.info.nodes;
        out(&format!(
            "position {} bestmove {} score {} nodes {}",
            i + 1,
            outcome.best.as_deref().unwrap_or("resign"),
            outcome.info.score,
            outcome.info.nodes
        ));
    }
    out(&format!("Nodes searched: {total}"));
    Ok(total)
}
