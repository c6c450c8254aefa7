//! Draw, takeback and rematch offers between a room's players in a real browser:
//! tests/browser/test_offers.py plays them with two players and a spectator, each offer left
//! waiting across a `kill -9` and restart of the server, then answered.

mod serve_support;

use std::ffi::OsStr;

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn offers_are_answered_across_a_restart_in_chromium() {
    let folder = serve_support::temp_dir();
    let args = [OsStr::new(serve_support::BIN), folder.as_os_str()];
    let stdout = serve_support::browser_script("test_offers.py", &args);
    let _ = std::fs::remove_dir_all(&folder);
    for done in ["ok draw", "ok takeback", "ok rematch"] {
        assert!(stdout.contains(done), "{done}: {stdout}");
    }
}
