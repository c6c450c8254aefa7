//! Issue 68's mends in a real browser: tests/browser/test_mends.py drives Debian's chromium
//! through playwright against `ryoshi serve` (records that keep their passes and results, and
//! the small defects players met), and the `/learn` lessons.

mod serve_support;

use std::ffi::OsStr;

const SHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/screenshots");

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn mends_in_chromium() {
    let server = serve_support::Server::start(16);
    let args = [
        server.url.as_ref(),
        SHOTS.as_ref(),
        OsStr::new(serve_support::BIN),
    ];
    let stdout = serve_support::browser_script("test_mends.py", &args);
    assert!(stdout.contains("ok all"));
}

/// `/learn`: every lesson completed by clicks, and the links to it (tests/browser/test_learn.py).
#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn learn_in_chromium() {
    let server = serve_support::Server::start(8);
    let args = [
        server.url.as_ref(),
        SHOTS.as_ref(),
        OsStr::new(serve_support::BIN),
    ];
    let stdout = serve_support::browser_script("test_learn.py", &args);
    assert!(stdout.contains("ok all"));
}
