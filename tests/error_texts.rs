//! The error texts on the wire, pinned: bad positions, moves, SGF and GGF games and commands
//! for the three games through USI, NBoard and GTP. The expected lines were recorded from the
//! engine before its errors became typed (issue 11), so a refactor that changes a word fails.

mod common;

use common::{gtp_transcript, read_data_text, transcript};

/// The lines of `output` that report an error, in order.
fn errors(output: &str, marker: &str) -> Vec<String> {
    output
        .lines()
        .filter(|l| l.starts_with(marker))
        .map(str::to_string)
        .collect()
}

fn expected(name: &str) -> Vec<String> {
    read_data_text(&format!("errors/{name}.out"))
        .lines()
        .map(str::to_string)
        .collect()
}

fn check(name: &str, got: Vec<String>) {
    let want = expected(name);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: error line {}", i + 1);
    }
    assert_eq!(got.len(), want.len(), "{name}: {got:#?}");
}

#[test]
fn position_and_move_errors_of_the_three_games() {
    let out = transcript(read_data_text("errors/usi.in").as_bytes());
    check("usi", errors(&out, "info string error:"));
}

#[test]
fn sgf_errors() {
    let out = transcript(read_data_text("errors/sgf.in").as_bytes());
    check("sgf", errors(&out, "info string error:"));
}

#[test]
fn nboard_and_ggf_errors() {
    let out = transcript(read_data_text("errors/nboard.in").as_bytes());
    check("nboard", errors(&out, "status error:"));
}

#[test]
fn gtp_failures() {
    let out = gtp_transcript(&read_data_text("errors/gtp.in"));
    check("gtp", errors(&out, "? "));
}
