//! A real USI client drives the engine: cshogi (PyPI) connects, sets an option, starts a game,
//! sends a position and `go` with byoyomi, and reads `bestmove` and the info score.
//! `.ci/run` installs cshogi; outside CI the test skips loudly when it is missing.

use ryoshi::games::quantum::{Position, Record, Rules};
use std::process::Command;

#[test]
fn cshogi_usi_client_plays_against_ryoshi() {
    let have = Command::new("python3")
        .args(["-c", "import cshogi.usi"])
        .output()
        .map(|o| o.status.success());
    if !matches!(have, Ok(true)) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install cshogi (pip install cshogi)"
        );
        eprintln!("SKIPPED: python3 with cshogi is not installed (pip install cshogi)");
        return;
    }
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
    let mut record = Record::new(Position::start(), Rules::default());
    for mv in ["7g7f", "3c3d", best] {
        record.play_str(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    assert!(stdout.contains("quit: ok"), "{stdout}");
}
