//! The review board in a real browser: tests/browser/test_review.py drives Debian's chromium
//! through playwright against `ryoshi serve` (stepping, the graph, download and upload, playing
//! on, the archive's games opened on it).

mod serve_support;

use std::process::Command;

#[test]
#[ignore = "needs chromium and playwright: apt-get install chromium; pip install playwright"]
fn review_in_chromium() {
    let server = serve_support::Server::start(8);
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tests/browser/test_review.py"))
        .arg(&server.url)
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
    assert!(stdout.contains("ok review"));
}
