//! `ryoshi match --shard K/N` and `--merge`: four shards of a match, merged, are the whole match
//! game by game (same numbers, openings, colours, moves and results), and the merged summary is
//! the whole match's.

mod match_support;

use match_support::*;
use ryoshi::matches::config::{Shard, SprtConfig};
use ryoshi::matches::{self, merge, Config, Hooks};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn text(dir: &Path) -> String {
    format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 22\n\
         concurrency = 2\nmovetime_ms = 1000\nopening_plies = 1\nopening_plies_max = 3\nseed = 4\n",
        fake(dir, "a", "good", 0),
        fake(dir, "b", "good", 0)
    )
}

fn run_shard(dir: &Path, shard: Option<Shard>) -> matches::Summary {
    std::fs::write(dir.join("engines.toml"), text(dir)).unwrap();
    let mut config = Config::load(&dir.join("engines.toml")).unwrap();
    config.play.shard = shard;
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted: &|| false,
        progress: false,
    };
    matches::run_match(&config, nim_factory(), &hooks, &mut Vec::new()).expect("match runs")
}

/// What must agree between a game played whole and the same game played in a shard.
fn game_facts(v: &Value) -> Value {
    let mut v = v.clone();
    for volatile in ["move_ms", "time_ms", "record", "detail"] {
        v.as_object_mut().unwrap().remove(volatile);
    }
    v
}

#[test]
fn four_shards_merged_are_the_whole_match_game_by_game() {
    let whole_dir = scratch("shards-whole");
    let whole = run_shard(&whole_dir, None);
    let mut whole_games = read_results(&whole_dir.join("results.jsonl"));
    // Games finish in any order under concurrency; the file is in finishing order.
    whole_games.sort_by_key(|g| g["game"].as_u64());
    assert_eq!(whole_games.len(), 22);

    let mut paths = Vec::new();
    let mut files = Vec::new();
    for k in 1..=4 {
        let dir = scratch(&format!("shards-{k}"));
        let summary = run_shard(&dir, Some(Shard { index: k, count: 4 }));
        let path = dir.join("results.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        let games = merge::read(&text, "shard").unwrap();
        // Disjoint slices: game numbers k, k + 4, ...
        assert_eq!(summary.finished, games.len());
        assert!(games.iter().all(|g| (g.game as usize - 1) % 4 == k - 1));
        files.push(games);
        paths.push(path.display().to_string());
    }
    let merged = merge::union(files).unwrap();
    assert_eq!(merged.len(), whole_games.len());
    for (m, w) in merged.iter().zip(&whole_games) {
        assert_eq!(game_facts(&m.line), game_facts(w), "game {}", m.game);
    }
    // Results differ between openings, so the comparison above means something.
    let results: std::collections::BTreeSet<&str> =
        merged.iter().map(|g| g.result.as_str()).collect();
    assert!(results.len() > 1, "{results:?}");

    let sprt = SprtConfig {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let mut out = Vec::new();
    let summary = merge::run(&paths, sprt, &mut out).unwrap();
    assert_eq!(summary.pairs, whole.pairs);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with("Merged 22 games from 4 files (0 duplicates skipped)"),
        "{out}"
    );
    assert!(
        out.contains("Elo difference:") && out.contains("SPRT (elo0 0"),
        "{out}"
    );
}

/// Runs the binary, which must succeed; its stdout.
fn ryoshi(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ryoshi"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn merging_a_file_twice_skips_the_duplicates_and_the_binary_prints_the_summary() {
    let dir = scratch("shards-cli");
    run_shard(&dir, Some(Shard { index: 2, count: 3 }));
    let path = dir.join("results.jsonl");
    let path = path.to_str().unwrap();
    let text = ryoshi(&[
        "match", "--merge", path, path, "--elo0", "-5", "--elo1", "5",
    ]);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("Merged 7 games from 2 files (7 duplicates skipped)"),
        "{text}"
    );
    assert!(text.contains("Score of a vs b:"), "{text}");
    assert!(text.contains("SPRT (elo0 -5"), "{text}");
}

#[test]
fn the_binary_writes_each_shard_to_its_own_results_file() {
    let dir = scratch("shards-files");
    std::fs::write(dir.join("engines.toml"), text(&dir)).unwrap();
    let config = dir.join("engines.toml");
    for k in ["1/2", "2/2"] {
        ryoshi(&["match", config.to_str().unwrap(), "--shard", k]);
    }
    let one = read_results(&dir.join("results-shard1of2.jsonl"));
    let two = read_results(&dir.join("results-shard2of2.jsonl"));
    assert_eq!((one.len(), two.len()), (11, 11));
    assert!(!dir.join("results.jsonl").exists());
}

#[test]
fn bad_shards_and_foreign_results_are_refused() {
    for bad in ["0/4", "5/4", "4", "a/b", "1/0"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
    assert_eq!(
        Shard { index: 3, count: 8 }.results_path(Path::new("out/r.jsonl")),
        Path::new("out/r-shard3of8.jsonl")
    );
    let a = r#"{"game":1,"first":"x","second":"y","result":"first"}"#;
    let b = r#"{"game":1,"first":"y","second":"z","result":"draw"}"#;
    let files = vec![merge::read(a, "a").unwrap(), merge::read(b, "b").unwrap()];
    assert!(merge::union(files).is_err());
    assert!(merge::read(r#"{"game":1,"first":"x","second":"y","result":"won"}"#, "c").is_err());
}
