//! GTP v2 for Go (`ryoshi gtp`). (Placeholder until the Go analysis lands.)

use std::io::{BufRead, Write};

/// Runs the GTP loop until `quit` or the end of the input.
pub fn run<R: BufRead, W: Write>(_input: R, _output: W) -> Result<(), String> {
    Err("gtp is not implemented yet".to_string())
}
