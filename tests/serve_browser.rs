//! The browser front end in a real browser: tests/browser/test_pages.py drives Debian's chromium
//! through playwright against `ryoshi serve`, and saves the screenshots under docs/screenshots/.

mod serve_support;

use std::process::Command;

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn pages_in_chromium() {
    // 32 sessions, 24 of them for one client address: the hostile test opens 20 tabs at once.
    let server = serve_support::Server::start(32);
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tests/browser/test_pages.py"))
        .arg(&server.url)
        .arg(format!("{root}/docs/screenshots"))
        .arg(serve_support::BIN)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ok hostile"));
}

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium fonts-ipafont-gothic; pip install playwright"]
fn page_defects_in_chromium() {
    let server = serve_support::Server::start(32);
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tests/browser/test_defects.py"))
        .arg(&server.url)
        .arg(format!("{root}/docs/screenshots"))
        .arg(serve_support::BIN)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ok all"));
}
