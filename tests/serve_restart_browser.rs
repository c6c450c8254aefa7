//! `kill -9` and a restart of `ryoshi serve` in a real browser: tests/browser/test_restart.py
//! starts the server on a temporary database, kills it mid-game and restarts it on the same
//! file and port; the engine page and the room's two players go on with their games.

mod serve_support;

use std::process::Command;

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn games_go_on_after_kill_9_in_chromium() {
    let folder = serve_support::temp_dir();
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tests/browser/test_restart.py"))
        .arg(serve_support::BIN)
        .arg(&folder)
        .output()
        .expect("run python3");
    let _ = std::fs::remove_dir_all(&folder);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("ok engine page") && stdout.contains("ok room"),
        "{stdout}"
    );
}
