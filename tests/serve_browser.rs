//! The browser front end in a real browser: tests/browser/test_pages.py drives Debian's chromium
//! through playwright against `ryoshi serve`, and saves the screenshots under docs/screenshots/.

mod serve_support;

use std::ffi::OsStr;

const SHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/screenshots");

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn pages_in_chromium() {
    // 32 sessions, 24 of them for one client address: the hostile test opens 20 tabs at once.
    let server = serve_support::Server::start(32);
    let args = [
        server.url.as_ref(),
        SHOTS.as_ref(),
        OsStr::new(serve_support::BIN),
    ];
    let stdout = serve_support::browser_script("test_pages.py", &args);
    assert!(stdout.contains("ok hostile"));
}

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn page_defects_in_chromium() {
    let server = serve_support::Server::start(32);
    let args = [
        server.url.as_ref(),
        SHOTS.as_ref(),
        OsStr::new(serve_support::BIN),
    ];
    let stdout = serve_support::browser_script("test_defects.py", &args);
    assert!(stdout.contains("ok all"));
}
