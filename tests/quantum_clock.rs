//! Time management with clocks through the real binary: one minute of sudden death is not spent
//! a tenth at a time (it used to take 6 s on the first move).

mod common;
use common::Engine;
use std::time::{Duration, Instant};

fn think_time(position: &str, go: &str) -> Duration {
    let mut engine = Engine::start();
    engine.send(position);
    engine.send("isready");
    engine.read_until(Duration::from_secs(20), |l| l == "readyok");
    let t0 = Instant::now();
    engine.send(go);
    let lines = engine.read_until(Duration::from_secs(20), |l| l.starts_with("bestmove"));
    assert!(lines.last().unwrap().starts_with("bestmove"), "{lines:?}");
    t0.elapsed()
}

#[test]
fn sudden_death_spends_a_share_of_the_clock() {
    for position in [
        "position startpos",
        "position startpos moves 7g7f 3c3d 2g2f",
    ] {
        let t = think_time(position, "go btime 60000 wtime 60000");
        // The plan: start no iteration after 0.75 s, stop at 3 s (less MoveOverhead).
        assert!(t < Duration::from_millis(3400), "{position}: {t:?}");
    }
    let t = think_time(
        "position startpos",
        "go btime 10000 wtime 10000 binc 1000 winc 1000",
    );
    assert!(t < Duration::from_millis(2400), "{t:?}");
}

#[test]
fn main_time_and_byoyomi_spend_the_documented_share() {
    // cshogi's clock at ply 3 took 3.77 s where usi.md's share is 10000 / 40 + 1000 = 1.25 s
    // (issue 44 item 6). The plan now stops at the share, so 2 s is a generous bound.
    for position in [
        "position startpos moves 7g7f 3c3d 2g2f",
        "position startpos",
    ] {
        let t = think_time(position, "go btime 10000 wtime 10000 byoyomi 1000");
        assert!(t < Duration::from_millis(2000), "{position}: {t:?}");
    }
}
