//! The review board in a real browser: tests/browser/test_review.py drives Debian's chromium
//! through playwright against `ryoshi serve` (stepping, the graph, download and upload, playing
//! on, the archive's games opened on it), and a room stepping back through its own game.

mod serve_support;

use std::ffi::OsStr;

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium; pip install playwright"]
fn review_in_chromium() {
    let server = serve_support::Server::start(8);
    let args = [server.url.as_ref(), OsStr::new(serve_support::BIN)];
    let stdout = serve_support::browser_script("test_review.py", &args);
    assert!(stdout.contains("ok review"));
}

/// A room steps back through its own game in place (tests/browser/test_room_review.py).
#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium; pip install playwright"]
fn room_review_in_chromium() {
    let server = serve_support::Server::start(8);
    let args = [server.url.as_ref(), OsStr::new(serve_support::BIN)];
    let stdout = serve_support::browser_script("test_room_review.py", &args);
    assert!(stdout.contains("ok room review"));
}
