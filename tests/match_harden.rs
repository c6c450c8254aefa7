//! Issue 10, rows 12 and 13: the match runner holds bounded memory when an engine floods its
//! output, and leaves no process of an engine behind, also when the engine exits normally.
//! (Its own test binary: the flood test reads this process's peak memory.)

mod match_support;

use match_support::*;
use std::time::{Duration, Instant};

fn config(dir: &std::path::Path, players: &[(&str, &str, u32)]) -> String {
    let engines: String = players
        .iter()
        .map(|&(n, m, k)| fake(dir, n, m, k))
        .collect();
    let names: Vec<String> = players.iter().map(|p| format!("{:?}", p.0)).collect();
    format!(
        "{engines}[match]\nvariant = \"othello\"\nengines = [{}]\ngames = 2\nmovetime_ms = 2000\n",
        names.join(", ")
    )
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_flooding_engine_cannot_make_the_runner_hoard_memory() {
    // Row 12: the runner kept every line (1.9 GB for a 2-game match). The flooder writes `info`
    // lines without end from its first `go` (also while its opponent thinks, 400 ms a move),
    // and a 5 MiB line (over the cap) before each move.
    let dir = scratch("flood");
    let run = run(
        &dir,
        &config(&dir, &[("flood", "flood", 5), ("slow", "slow", 400)]),
    );
    assert_eq!(run.results.len(), 2, "{}", run.output);
    for r in &run.results {
        // Nim from 21 with perfect play: the first player wins; nothing was lost to the flood.
        assert_eq!(r["result"], "first", "{r}");
        assert_ne!(r["first"], r["second"]);
        assert_eq!(r["reason"], "last token", "{r}");
    }
    if let Some(kib) = peak_rss_kib() {
        eprintln!("peak {kib} KiB");
        assert!(kib < 60_000, "peak {kib} KiB");
    }
}

#[test]
fn an_engine_that_exits_normally_leaves_no_child_behind() {
    // Row 13: a child (`sleep 600`) of an engine that quit outlived the match.
    let dir = scratch("children");
    let run = run(
        &dir,
        &config(&dir, &[("parent", "child", 0), ("good", "good", 0)]),
    );
    assert_eq!(run.results.len(), 2, "{}", run.output);
    let pids: Vec<i32> = std::fs::read_to_string(dir.join("parent.starts.child"))
        .expect("the engine wrote its child's pid")
        .lines()
        .map(|l| l.parse().expect("a pid"))
        .collect();
    assert!(!pids.is_empty());
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in pids {
        let alive = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| !s.contains(") Z"))
                .unwrap_or(false)
        };
        while alive() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(), "sleep 600 (pid {pid}) outlived its engine");
    }
}
