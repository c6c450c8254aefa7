//! Ctrl-C through the real binary: SIGINT to `ryoshi match` prints the summary of the finished
//! games, every one of them is complete in the results file and the records, and no engine
//! process is left behind.

mod common;
mod match_support;

use match_support::{fake, read_results, scratch, text_records};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigint_prints_the_summary_of_finished_games() {
    stops_and_prints_the_summary("INT");
}

#[test]
fn sigterm_stops_the_match_as_sigint_does() {
    // It ended the runner at once, its engines (in their own process groups) left running.
    stops_and_prints_the_summary("TERM");
}

/// `kill -<signal>` to a running match: the summary of the finished games, each complete in
/// the results and the records, and no engine left.
fn stops_and_prints_the_summary(signal: &str) {
    let dir = scratch(&format!("match-sig{signal}"));
    // Each fake answers after 300 ms with a Nim move, which the quantum referee rejects: a game
    // lasts about 300 ms and ends by an illegal move.
    let text = fake(&dir, "a", "slow", 300)
        + &fake(&dir, "b", "slow", 300)
        + "[match]\nvariant = \"quantumshogi\"\nengines = [\"a\", \"b\"]\ngames = 40\n\
           concurrency = 2\nbyoyomi_ms = 5000\n";
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let mut child = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once a game has finished (on a loaded machine that takes longer than 300 ms).
    let results_file = dir.join("results.jsonl");
    let t0 = Instant::now();
    while std::fs::read_to_string(&results_file).map_or(true, |t| t.lines().count() == 0) {
        assert!(t0.elapsed() < Duration::from_secs(30), "no game finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "runner did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();

    let results = read_results(&dir.join("results.jsonl"));
    let n = results.len();
    assert!((1..40).contains(&n), "{n} games finished");
    assert!(
        stdout.contains(&format!(
            "Interrupted: summary of the {n} finished games of 40"
        )),
        "{stdout}"
    );
    assert_eq!(stdout.matches("Finished game ").count(), n);
    assert!(
        stdout.contains(&format!("] {n}\nElo difference")),
        "{stdout}"
    );
    assert!(!stdout.contains("Finished match"));
    for r in &results {
        assert_eq!(r["reason"], "illegal move", "{r}");
        let record = std::fs::read_to_string(r["record"].as_str().unwrap()).unwrap();
        assert!(record.contains("Result: "), "complete record: {record}");
    }
    assert_eq!(text_records(dir.join("records")), n);

    // Every engine process (their command lines name the scratch folder) is gone.
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let marker = dir.display().to_string();
    let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| l.contains(&marker) && l.contains("fake_engine"))
        .map(String::from)
        .collect();
    assert!(left.is_empty(), "engines left running: {left:?}");
}
