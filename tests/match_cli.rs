//! `ryoshi match` as a process: an engine that dies while it is not its turn (so the runner's
//! next write meets a closed pipe) loses the game and the runner carries on.

mod common;
mod match_support;

use match_support::{fake, read_results, scratch, starts};
use std::process::Command;

#[test]
fn engine_dying_while_idle_does_not_stop_the_runner() {
    let dir = scratch("match-cli-leave");
    let text = fake(&dir, "good", "good", 0)
        + &fake(&dir, "leaver", "leave", 1)
        + "[match]\nvariant = \"quantumshogi\"\nengines = [\"good\", \"leaver\"]\ngames = 4\n\
           byoyomi_ms = 2000\n";
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}\n{stdout}", out.status);
    assert!(stdout.ends_with("Finished match\n"), "{stdout}");
    let results = read_results(&dir.join("results.jsonl"));
    assert_eq!(results.len(), 4);
    // The fakes answer with Nim moves, which quantum shogi rejects: whoever moves first loses by
    // an illegal move. The leaver moves first in games 2 and 4, and exits after answering; the
    // runner then meets its closed pipe when readying game 3, and starts it afresh.
    for r in &results {
        assert_eq!(r["reason"], "illegal move", "{r}");
        assert_eq!(r["result"], "second", "{r}");
    }
    assert_eq!(starts(&dir, "leaver"), 2);
}

/// The runner says where it writes before the first game; a second run appends its results and
/// keeps the first run's records, to which the first run's results still point.
#[test]
fn the_runner_says_where_it_writes_and_keeps_earlier_runs() {
    let dir = scratch("match-cli-where");
    let text = fake(&dir, "a", "good", 0)
        + &fake(&dir, "b", "good", 1)
        + "[match]\nvariant = \"quantumshogi\"\nengines = [\"a\", \"b\"]\ngames = 2\n\
           byoyomi_ms = 2000\n";
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let results_path = std::path::absolute(dir.join("results.jsonl")).unwrap();
    let records_dir = std::path::absolute(dir.join("records")).unwrap();
    let mut prefixes = Vec::new();
    for earlier in [0, 2] {
        let out = Command::new(common::BIN)
            .arg("match")
            .arg(dir.join("engines.toml"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        let mut lines = stdout.lines();
        assert_eq!(
            lines.next().unwrap(),
            format!(
                "Results: {} (appended; {earlier} earlier results kept)",
                results_path.display()
            )
        );
        let records = lines.next().unwrap().strip_prefix("Records: ").unwrap();
        let prefix = records.strip_suffix("-game-NNNNN.txt").expect(records);
        assert!(
            prefix.starts_with(&format!("{}/", records_dir.display())),
            "{records}"
        );
        prefixes.push(prefix.to_string());
    }
    assert_ne!(prefixes[0], prefixes[1]);
    let results = read_results(&dir.join("results.jsonl"));
    assert_eq!(results.len(), 4);
    for (i, r) in results.iter().enumerate() {
        let record = r["record"].as_str().unwrap();
        let run = &prefixes[i / 2];
        assert!(record.starts_with(run.as_str()), "{record} {run}");
        let text = std::fs::read_to_string(record).unwrap();
        assert!(text.contains("Result: "), "{text}");
    }
    assert_eq!(std::fs::read_dir(&records_dir).unwrap().count(), 4);
}
