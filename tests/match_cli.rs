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
