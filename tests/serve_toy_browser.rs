//! A game added by following docs/adding-a-game.md (its toy, tic-tac-toe) is played in a real
//! browser on the pages the registry gives a game without a page of its own: the index's link,
//! the generic engine page and a room for two (tests/browser/test_toy.py drives Debian's
//! chromium through playwright). The toy is in the registry only with the `toy` feature, never
//! in the shipped binary: .ci/run builds it first and keeps it as `target/toy/ryoshi`.

mod serve_support;

use std::ffi::OsStr;
use std::path::PathBuf;

/// `target/toy/ryoshi`, beside the tests' own `target/release/ryoshi`.
fn toy_binary() -> PathBuf {
    let bin = PathBuf::from(serve_support::BIN);
    let target = bin
        .parent()
        .and_then(|release| release.parent())
        .expect("target/release/ryoshi");
    target.join("toy").join("ryoshi")
}

#[test]
#[ignore = "needs chromium and playwright (apt-get install chromium; pip install playwright) and the toy build: cargo build --release --features toy --bin ryoshi && mkdir -p target/toy && cp target/release/ryoshi target/toy/ (.ci/run does it)"]
fn toy_game_on_the_generic_pages_in_chromium() {
    let toy = toy_binary();
    assert!(
        toy.exists(),
        "{} is missing: build it as the ignore reason says",
        toy.display()
    );
    let bin = toy.to_str().expect("a UTF-8 path");
    let server = serve_support::Server::start_bin(bin, 8);
    let args = [server.url.as_ref(), OsStr::new(bin)];
    let stdout = serve_support::browser_script("test_toy.py", &args);
    assert!(stdout.contains("ok toy"), "{stdout}");
}
