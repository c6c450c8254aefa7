//! A real USI client drives the engine: cshogi (PyPI) connects, sets an option, starts a game,
//! sends a position and `go` with byoyomi, and reads `bestmove` and the info score; on a forced
//! king capture its `InfoListener` reads the mate score that its `--mate_win` acts on; a bare
//! SFEN (its caller forgot the word `sfen`) is refused and the next `go` does not search.
//! Needs cshogi, so it is #[ignore]d in the quick run; the full run (README, `.ci/run`) includes
//! it, and then a missing cshogi is a failure.

use ryoshi::quantum::{Position, Record, Ruleset};
use std::process::Command;

#[test]
#[ignore = "needs cshogi: python3 -m pip install cshogi"]
fn cshogi_usi_client_plays_against_ryoshi() {
    let have = Command::new("python3")
        .args(["-c", "import cshogi.usi"])
        .output()
        .map(|o| o.status.success());
    assert!(
        matches!(have, Ok(true)),
        "this test needs python3 with cshogi: python3 -m pip install cshogi"
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/usi_client.py");
    let out = Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_ryoshi")])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cshogi client failed:\n{stdout}\n{stderr}"
    );
    let best = stdout
        .lines()
        .find_map(|l| l.strip_prefix("go byoyomi 300: bestmove "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no bestmove line: {stdout}"));
    // The answer must be legal in the position the client sent.
    let mut record = Record::new(Position::start(), Ruleset::default());
    for mv in ["7g7f", "3c3d", best] {
        record.play_str(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    // cshogi read the forced capture as a mate (its --mate_win ends the game there).
    assert!(stdout.contains("mate: bestmove G*5b"), "{stdout}");
    // A bare SFEN (the word `sfen` forgotten) is refused, and `go` then resigns at once
    // rather than search the mate position before it.
    assert!(stdout.contains("bare sfen: bestmove resign"), "{stdout}");
    assert!(stdout.contains("accepted again: bestmove G*5b"), "{stdout}");
    assert!(stdout.contains("quit: ok"), "{stdout}");
}
