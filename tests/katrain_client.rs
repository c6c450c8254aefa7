//! KaTrain's own analysis engine client (`KataGoEngine` from the `katrain` package, PyPI)
//! starts `ryoshi analysis` through its `altcommand` setting, headless, and analyses a game
//! as KaTrain does: its query with Japanese rules and its settings, the fields its
//! game_node.py reads, "find alternatives" (avoidMoves) and pondering stopped by `terminate`.
//! Needs katrain, so it is #[ignore]d in the quick run; the full run (README, `.ci/run`)
//! includes it, and then a missing katrain is a failure.

use std::process::Command;

#[test]
#[ignore = "needs katrain: python3 -m pip install katrain"]
fn katrain_s_engine_analyses_with_ryoshi() {
    let have = Command::new("python3")
        .args(["-c", "import katrain.core.engine"])
        .env("KIVY_NO_ARGS", "1")
        .env("KIVY_NO_CONSOLELOG", "1")
        .output()
        .map(|o| o.status.success());
    assert!(
        matches!(have, Ok(true)),
        "this test needs python3 with katrain: python3 -m pip install katrain"
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/katrain_client.py");
    let out = Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_ryoshi")])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "katrain client failed:\n{stdout}\n{stderr}"
    );
    for step in [
        "start: ",
        "query: ",
        "answer: ",
        "alternatives: ",
        "shutdown: ok",
    ] {
        assert!(stdout.contains(step), "{step}: {stdout}");
    }
    // KaTrain's query as sent: its rules, its forced point of view, its time limit.
    let query = stdout
        .lines()
        .find_map(|l| l.strip_prefix("query: "))
        .expect("the query");
    for field in [
        "\"rules\": \"japanese\"",
        "\"reportAnalysisWinratesAs\": \"BLACK\"",
        "\"maxTime\": 8.0",
        "\"includePolicy\": true",
    ] {
        assert!(query.contains(field), "{field}: {query}");
    }
}
