//! `ryoshi match --shard K/N`, `--merge` and `--resume`: four shards of a match, merged, are the
//! whole match game by game (same numbers, openings, colours, moves and results), and the merged
//! summary is the whole match's; so is a match resumed after a cut.

mod match_support;

use match_support::*;
use ryoshi::matches::config::{Shard, SprtConfig};
use ryoshi::matches::{self, merge, Config, Hooks};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// The match of these tests. Run by the binary, it is refereed as Othello, whose moves the Nim
/// fakes cannot read: they crash in every game there, so no crash limit stops it.
fn text(dir: &Path) -> String {
    format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 22\n\
         concurrency = 2\nmovetime_ms = 1000\nopening_plies = 1\nopening_plies_max = 3\nseed = 4\n\
         crash_limit = 0\n",
        fake(dir, "a", "good", 0),
        fake(dir, "b", "good", 0)
    )
}

fn run_shard(dir: &Path, shard: Option<Shard>) -> matches::Summary {
    run_config(dir, shard, false).0.expect("match runs")
}

/// Runs the match of [`text`] in `dir`; its summary (or error) and its output.
fn run_config(
    dir: &Path,
    shard: Option<Shard>,
    resume: bool,
) -> (Result<matches::Summary, String>, String) {
    std::fs::write(dir.join("engines.toml"), text(dir)).unwrap();
    let mut config = Config::load(&dir.join("engines.toml")).unwrap();
    config.play.shard = shard;
    config.play.resume = resume;
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted: &|| false,
        progress: false,
    };
    let mut out = Vec::new();
    let summary = matches::run_match(&config, nim_factory(), &hooks, &mut out);
    (
        summary.map_err(String::from),
        String::from_utf8(out).unwrap(),
    )
}

/// The whole match of [`text`], played once for the resume tests: its summary and its games'
/// lines in game order.
fn whole_match() -> &'static (matches::Summary, Vec<Value>) {
    static WHOLE: OnceLock<(matches::Summary, Vec<Value>)> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let dir = scratch("resume-whole");
        let summary = run_shard(&dir, None);
        let mut games = read_results(&dir.join("results.jsonl"));
        games.sort_by_key(|g| g["game"].as_u64());
        (summary, games)
    })
}

/// The lines of `games` numbered in `numbers`, as a results file holds them.
fn lines_of(games: &[Value], numbers: &[u64]) -> String {
    games
        .iter()
        .filter(|g| numbers.contains(&g["game"].as_u64().unwrap()))
        .map(|g| format!("{g}\n"))
        .collect()
}

#[test]
fn a_resumed_match_plays_only_the_missing_games_and_sums_up_the_whole() {
    let (whole, whole_games) = whole_match();
    assert_eq!(whole_games.len(), 22);
    // A run cut after four games, one of them in the file twice (run again without --resume).
    let dir = scratch("resume-cut");
    let cut = lines_of(whole_games, &[1, 2, 5, 9]) + &lines_of(whole_games, &[2]);
    std::fs::write(dir.join("results.jsonl"), cut).unwrap();

    let (summary, out) = run_config(&dir, None, true);
    let summary = summary.expect("resumed");
    assert!(
        out.contains("Resuming: 4 of the 22 games already played, 18 to play"),
        "{out}"
    );
    assert_eq!(summary.pairs, whole.pairs, "{out}");
    assert_eq!((summary.finished, summary.scheduled), (22, 22));
    assert_eq!(out.matches("Finished game ").count(), 18, "{out}");
    let path = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 5 + 18);
    let games = merge::union(vec![merge::read(&text, "resumed").unwrap()]).unwrap();
    assert_eq!(games.len(), 22);
    let lines = by_number(&text);
    for (g, w) in games.iter().zip(whole_games) {
        assert_eq!(
            game_facts(&lines[&g.game]),
            game_facts(w),
            "game {}",
            g.game
        );
    }

    // Resumed once more: nothing left to play, the same summary.
    let (again, out) = run_config(&dir, None, true);
    assert!(
        out.contains("Resuming: 22 of the 22 games already played, 0 to play"),
        "{out}"
    );
    assert_eq!(again.unwrap().pairs, whole.pairs);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_match_resumed_under_other_conditions_is_refused() {
    let (_, whole_games) = whole_match();
    let conditions = serde_json::json!({"movetime_ms": 1000, "max_plies": 512});
    assert!(whole_games.iter().all(|g| g["conditions"] == conditions));
    // Game 2 as if played at 500 ms a move: a changed time control is another match.
    let dir = scratch("resume-conditions");
    let mut two: Value = whole_games[1].clone();
    two["conditions"]["movetime_ms"] = 500.into();
    let file = lines_of(whole_games, &[1]) + &format!("{two}\n");
    std::fs::write(dir.join("results.jsonl"), &file).unwrap();
    let (summary, out) = run_config(&dir, None, true);
    let error = summary.expect_err("refused");
    assert!(
        error.contains(r#"game 2 was played under {"max_plies":512,"movetime_ms":500}, this match under {"max_plies":512,"movetime_ms":1000}"#),
        "{error}"
    );
    assert!(!out.contains("Finished game"), "{out}");
    // A line from before the conditions were recorded is taken as it is.
    two.as_object_mut().unwrap().remove("conditions");
    let file = lines_of(whole_games, &[1]) + &format!("{two}\n");
    std::fs::write(dir.join("results.jsonl"), &file).unwrap();
    let (summary, out) = run_config(&dir, None, true);
    assert_eq!(summary.expect("resumed").finished, 22, "{out}");
}

#[test]
fn one_run_at_a_time_appends_to_a_results_file() {
    let dir = scratch("results-lock");
    let path = dir.join("results.jsonl");
    let held = matches::results::ResultsFile::open(&path).expect("the first run's");
    let (summary, out) = run_config(&dir, None, false);
    let error = summary.expect_err("refused");
    assert!(
        error.contains("is in use by another run of the match"),
        "{error}"
    );
    assert!(!out.contains("Finished game"), "{out}");
    drop(held);
    let (summary, _) = run_config(&dir, None, false);
    assert_eq!(summary.expect("free again").finished, 22);
}

/// A run killed while writing a result leaves a cut last line: `--resume` reports it, sets it
/// aside, plays that game again and writes after the cut line, never onto it.
#[test]
fn a_resumed_match_sets_a_cut_last_line_aside() {
    let (whole, whole_games) = whole_match();
    let dir = scratch("resume-cut-line");
    let nine = lines_of(whole_games, &[9]);
    let cut = &nine[..nine.len() / 2];
    let file = lines_of(whole_games, &[1, 2, 5]) + cut;
    std::fs::write(dir.join("results.jsonl"), &file).unwrap();

    let (summary, out) = run_config(&dir, None, true);
    let summary = summary.expect("resumed");
    assert!(out.contains("Its last line was cut off"), "{out}");
    assert!(
        out.contains("Set aside (cut off by a killed run?): ") && out.contains("line 4: "),
        "{out}"
    );
    assert!(
        out.contains("Resuming: 3 of the 22 games already played, 19 to play"),
        "{out}"
    );
    assert_eq!(summary.pairs, whole.pairs, "{out}");
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert!(
        text.starts_with(&(file.clone() + "\n")),
        "the cut line was written onto"
    );
    let read = merge::read_games(&text, "resumed").unwrap();
    assert_eq!(read.set_aside.len(), 1);
    assert_eq!(merge::union(vec![read.rows]).unwrap().len(), 22);
}

#[test]
fn a_shard_resumes_from_its_own_file() {
    let (_, whole_games) = whole_match();
    let dir = scratch("resume-shard");
    // Shard 2 of 4 holds game pairs 2, 6 and 10: games 3, 4, 11, 12, 19, 20; two of them were
    // played. (Its results file is the configured one here; the command line names it
    // results-shard2of4.jsonl.)
    std::fs::write(dir.join("results.jsonl"), lines_of(whole_games, &[4, 12])).unwrap();
    let (summary, out) = run_config(&dir, Some(Shard { index: 2, count: 4 }), true);
    assert_eq!(summary.expect("resumed").finished, 6);
    assert!(
        out.contains("Resuming: 2 of the 6 games already played, 4 to play"),
        "{out}"
    );
    let mut numbers: Vec<u64> = read_results(&dir.join("results.jsonl"))
        .iter()
        .map(|g| g["game"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [3, 4, 11, 12, 19, 20]);
}

#[test]
fn resuming_another_matchs_results_is_refused_before_any_game() {
    let (_, whole_games) = whole_match();
    let line = |n: u64| whole_games[n as usize - 1].clone();
    let mut swapped = line(3);
    let first = swapped["first"].clone();
    swapped["first"] = swapped["second"].clone();
    swapped["second"] = first;
    let mut other_opening = line(4);
    other_opening["opening"] = "startpos moves f5".into();
    let mut beyond = line(5);
    beyond["game"] = 23.into();
    for (bad, why) in [
        (swapped, "game 3 was b vs a, this match plays a vs b"),
        (other_opening, "game 4 started from \"startpos moves f5\""),
        (beyond, "game 23 is not in this match's schedule"),
    ] {
        let dir = scratch("resume-other");
        let text = lines_of(whole_games, &[1]) + &format!("{bad}\n");
        std::fs::write(dir.join("results.jsonl"), &text).unwrap();
        let (summary, out) = run_config(&dir, None, true);
        let error = summary.expect_err("another match's results");
        assert!(
            error.starts_with("--resume: ") && error.contains(why),
            "{error}"
        );
        assert!(!out.contains("Finished game"), "{out}");
        assert_eq!(
            std::fs::read_to_string(dir.join("results.jsonl")).unwrap(),
            text
        );
    }
}

/// The whole lines of a results file by game number, the first of each number.
fn by_number(text: &str) -> std::collections::BTreeMap<u64, Value> {
    let mut lines = std::collections::BTreeMap::new();
    for (row, line) in merge::read_values(text, "file").unwrap() {
        lines.entry(row.game).or_insert(line);
    }
    lines
}

/// What must agree between a game played whole and the same game played in a shard.
fn game_facts(v: &Value) -> Value {
    let mut v = v.clone();
    for volatile in ["move_ms", "time_ms", "record", "detail"] {
        v.as_object_mut().unwrap().remove(volatile);
    }
    v
}

/// With an even number of shards each shard still plays both colours of each of its openings:
/// shards split the schedule by game pair, not by game number.
#[test]
fn each_shard_plays_both_colours_of_its_openings() {
    for k in 1..=2 {
        let dir = scratch(&format!("shards-colours-{k}"));
        run_shard(&dir, Some(Shard { index: k, count: 2 }));
        let games = read_results(&dir.join("results.jsonl"));
        let mut by_opening: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
        for g in &games {
            let index = g["opening_index"].as_u64().unwrap();
            by_opening
                .entry(index)
                .or_default()
                .push(g["first"].as_str().unwrap().to_string());
        }
        let want: Vec<u64> = (0..11).filter(|i| i % 2 == k as u64 - 1).collect();
        assert_eq!(by_opening.keys().copied().collect::<Vec<_>>(), want);
        for (index, mut firsts) in by_opening {
            firsts.sort();
            assert_eq!(firsts, ["a", "b"], "shard {k}, opening {index}");
        }
    }
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
    let mut lines = std::collections::BTreeMap::new();
    for k in 1..=4 {
        let dir = scratch(&format!("shards-{k}"));
        let summary = run_shard(&dir, Some(Shard { index: k, count: 4 }));
        let path = dir.join("results.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        let games = merge::read(&text, "shard").unwrap();
        lines.extend(by_number(&text));
        // Disjoint slices: game pairs k, k + 4, ... (one pair of engines: games 2p - 1 and 2p).
        assert_eq!(summary.finished, games.len());
        assert!(games.iter().all(|g| (g.game as usize - 1) / 2 % 4 == k - 1));
        files.push(games);
        paths.push(path.display().to_string());
    }
    let merged = merge::union(files).unwrap();
    assert_eq!(merged.len(), whole_games.len());
    for (m, w) in merged.iter().zip(&whole_games) {
        assert_eq!(
            game_facts(&lines[&m.game]),
            game_facts(w),
            "game {}",
            m.game
        );
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
        first.starts_with("Merged 8 games from 2 files (8 duplicates skipped)"),
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
    // 11 openings: shard 1 plays 6 of them, shard 2 five, each with both colours.
    assert_eq!((one.len(), two.len()), (12, 10));
    assert!(!dir.join("results.jsonl").exists());
    // Resumed, a shard reads its own file: all its games are there.
    let again = ryoshi(&[
        "match",
        config.to_str().unwrap(),
        "--shard",
        "2/2",
        "--resume",
    ]);
    assert!(
        again.contains("Resuming: 10 of the 10 games already played, 0 to play"),
        "{again}"
    );
    assert_eq!(read_results(&dir.join("results-shard2of2.jsonl")).len(), 10);
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
