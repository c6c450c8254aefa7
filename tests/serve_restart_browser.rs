//! `kill -9` and a restart of `ryoshi serve` in a real browser: tests/browser/test_restart.py
//! starts the server on a temporary database, kills it mid-game and restarts it on the same
//! file and port; the engine page and the room's two players go on with their games.

mod serve_support;

use std::ffi::OsStr;

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn games_go_on_after_kill_9_in_chromium() {
    let folder = serve_support::temp_dir();
    let args = [OsStr::new(serve_support::BIN), folder.as_os_str()];
    let stdout = serve_support::browser_script("test_restart.py", &args);
    let _ = std::fs::remove_dir_all(&folder);
    assert!(
        stdout.contains("ok engine page") && stdout.contains("ok room"),
        "{stdout}"
    );
}
