//! `ryoshi match` as a fastchess or cutechess-cli user drives it, through the real binary:
//! configuration keys set from the command line (`--set`), the report lines printed when stdout
//! is no terminal, and tournaments (round robin, gauntlet).
//!
//! The fake engines answer with Nim moves, which quantum shogi refuses: whoever moves first
//! loses by an illegal move, and one who resigns at once loses whatever its colour. So every
//! game's result is known before it is played.

mod common;
mod match_support;

use match_support::{fake, read_results, received, scratch};
use std::path::Path;
use std::process::Command;

/// Runs `ryoshi match dir/engines.toml ARGS` on `text`: exit code, stdout, stderr.
fn match_with(dir: &Path, text: &str, args: &[&str]) -> (Option<i32>, String, String) {
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A quantum shogi match of the engines `names` (fake engines in mode `good`), its `[match]`
/// table ending with `extra`.
fn config(dir: &Path, names: &[&str], extra: &str) -> String {
    let mut text = String::new();
    for name in names {
        text.push_str(&fake(dir, name, "good", 0));
    }
    let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    text + &format!(
        "[match]\nvariant = \"quantumshogi\"\nengines = [{}]\nbyoyomi_ms = 2000\n{extra}",
        list.join(", ")
    )
}

/// `--set` changes any key as the file would: the match's length, an engine's options, its
/// stderr file and its arguments; a wrong key or type is refused as in the file, before any
/// engine starts.
#[test]
fn set_overrides_any_key_and_is_refused_as_the_file_is() {
    let dir = scratch("match-runner-set");
    let text = config(&dir, &["a", "b"], "games = 2\n");
    let (code, stdout, stderr) = match_with(
        &dir,
        &text,
        &[
            "--set",
            "match.games=4",
            "--set",
            "engine.b.options.Threads=2",
            "--set",
            "engine.b.stderr=b.log",
            "--set",
            "match.results=\"set.jsonl\"",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(read_results(&dir.join("set.jsonl")).len(), 4);
    assert!(!dir.join("results.jsonl").exists());
    let sent = received(&dir, "b");
    assert!(
        sent.contains(&"setoption name Threads value 2".to_string()),
        "{sent:?}"
    );
    assert!(stdout.contains("Score of a vs b: 2 - 2 - 0"), "{stdout}");

    // The engine's arguments: `resign` makes b resign each game it starts (and lose the others
    // by the illegal move of a Nim move in quantum shogi).
    let fake_b = fake(&dir, "b", "resign", 0);
    let args = fake_b.lines().find(|l| l.starts_with("args")).unwrap();
    let set_args = format!("engine.b.{}", args.replace(" = ", "="));
    let (code, stdout, _) = match_with(&dir, &text, &["--set", &set_args]);
    assert_eq!(code, Some(0), "{stdout}");
    let results = read_results(&dir.join("results.jsonl"));
    assert_eq!(results.len(), 2);
    for r in &results {
        let resigned = r["first"] == "b";
        assert_eq!(r["reason"] != "illegal move", resigned, "{r}");
    }

    let config = dir.join("engines.toml");
    let in_file = format!("{}: ", config.display());
    for (set, want) in [
        (
            "match.gamez=3",
            format!("{in_file}with --set match.gamez=3: unknown field `gamez`, expected one of `variant`"),
        ),
        (
            "match.games=many",
            format!("{in_file}with --set match.games=many: invalid type: string \"many\", expected u32"),
        ),
        (
            "match.games=0",
            format!("{in_file}with --set match.games=0: [match]: `games` must be at least 1"),
        ),
        (
            "games=1",
            format!("{in_file}with --set games=1: unknown field `games`, expected one of `engine`, `match`, `slurm`"),
        ),
        (
            "engine.c.options.Threads=2",
            format!("{in_file}--set engine.c.options.Threads=2: no [[engine]] is named `c` (the engines: `a`, `b`)"),
        ),
        (
            "match.nodes=",
            format!("{in_file}--set match.nodes=: no `match.nodes` to remove"),
        ),
        ("match games=3", "--set match games=3: expected KEY=VALUE".to_string()),
    ] {
        let results = dir.join("refused.jsonl");
        let (code, stdout, stderr) = match_with(&dir, &text, &["--set", set, "--set", "match.results=\"refused.jsonl\""]);
        assert_eq!(code, Some(1), "{set}: {stdout}{stderr}");
        let line = stderr.trim_end().strip_prefix("ryoshi: ").unwrap_or_default();
        let line = line.replace(" --set match.results=\"refused.jsonl\"", "");
        assert!(line.starts_with(&want), "{set}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(!results.exists(), "{set}");
    }
}

/// The report lines of a run whose stdout is no terminal: one every `report_every` games, with
/// the score, Elo, game pairs, LLR (an SPRT) and ETA; the last one agrees with the summary.
#[test]
fn reports_come_every_report_every_games_off_a_terminal() {
    let dir = scratch("match-runner-reports");
    let text = config(&dir, &["a", "b"], "games = 12\n");
    let (code, stdout, stderr) = match_with(&dir, &text, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let reports: Vec<&str> = stdout.lines().filter(|l| l.starts_with("Report")).collect();
    // Every game is lost by the side that moves first: each opening's pair is 1 - 1.
    assert_eq!(reports.len(), 1, "{stdout}");
    let (head, score) = reports[0].split_once(": ").unwrap();
    assert!(
        head.starts_with("Report after 10 of 12 games, ETA "),
        "{stdout}"
    );
    assert!(
        score.starts_with("a vs b: 5 - 5 - 0 [0.500] Elo 0.0 +/- "),
        "{stdout}"
    );
    assert!(reports[0].ends_with(", Ptnml [0, 0, 5, 0, 0]"), "{stdout}");
    // It follows game 10's line.
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("Report")).unwrap();
    assert!(lines[at - 1].starts_with("Finished game 10 "), "{stdout}");

    // Every 4 games, with an SPRT: the match stops when it decides, at a pair's end, and the
    // last report is of the last game, its LLR the summary's.
    let (code, stdout, _) = match_with(
        &dir,
        &text,
        &[
            "--set",
            "match.report_every=4",
            "--set",
            "match.games=400",
            "--set",
            "match.sprt={ elo0 = 0, elo1 = 10 }",
        ],
    );
    assert_eq!(code, Some(0));
    let finished = stdout
        .lines()
        .filter(|l| l.starts_with("Finished game"))
        .count();
    let reports: Vec<&str> = stdout.lines().filter(|l| l.starts_with("Report")).collect();
    assert!(finished < 400, "{stdout}");
    assert_eq!(reports.len(), finished / 4, "{stdout}");
    for (i, r) in reports.iter().enumerate() {
        let head = format!("Report after {} of 400 games, ETA ", 4 * (i + 1));
        assert!(r.starts_with(&head), "{r}");
        assert!(r.contains(", LLR "), "{r}");
        assert!(r.ends_with(" (-2.94, 2.94)"), "{r}");
    }
    let llr = |text: &str, key: &str| -> f64 {
        let rest = &text[text.rfind(key).unwrap() + key.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    let summary_llr = llr(&stdout, "llr ");
    if finished % 4 == 0 {
        let last = reports.last().unwrap();
        assert_eq!(
            llr(last, "LLR "),
            (summary_llr * 100.0).round() / 100.0,
            "{stdout}"
        );
    }
    assert!(stdout.contains("H0 was accepted"), "{stdout}");

    // `report_every = 0`: none.
    let (_, stdout, _) = match_with(&dir, &text, &["--set", "match.report_every=0"]);
    assert!(!stdout.contains("Report"), "{stdout}");
}

/// The rows of the standings table (rank, name, ..., games, score) and of the crosstable.
fn tables(stdout: &str) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let rows = |head: &str| -> Vec<Vec<String>> {
        let at = stdout
            .find(head)
            .unwrap_or_else(|| panic!("no {head}: {stdout}"));
        stdout[at..]
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("Crosstable") && !l.starts_with("Finished"))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    (rows("Rank "), rows("Crosstable"))
}

/// A gauntlet: the first engine plays each other one, who do not meet; the standings and the
/// crosstable say so, at the end and in the merged summary of its shards.
#[test]
fn a_gauntlet_plays_the_first_engine_against_each_other() {
    let dir = scratch("match-runner-gauntlet");
    // Three games a pair: the first engine moves first in games 1 and 3 of each pair, and
    // loses them.
    let text = config(
        &dir,
        &["g", "x", "y"],
        "games = 3\ntournament = \"gauntlet\"\n",
    );
    let (code, stdout, stderr) = match_with(&dir, &text, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let results = read_results(&dir.join("results.jsonl"));
    assert_eq!(results.len(), 6);
    for r in &results {
        assert!(r["first"] == "g" || r["second"] == "g", "{r}");
    }
    let (standings, crosstable) = tables(&stdout);
    let short: Vec<Vec<&str>> = standings
        .iter()
        .map(|r| vec![r[0].as_str(), r[1].as_str(), r[4].as_str(), r[5].as_str()])
        .collect();
    assert_eq!(
        short,
        [
            ["1", "x", "3", "66.7%"],
            ["2", "y", "3", "66.7%"],
            ["3", "g", "6", "33.3%"]
        ]
    );
    assert_eq!(
        crosstable,
        [
            ["x", "-", ".", "2/3"],
            ["y", ".", "-", "2/3"],
            ["g", "1/3", "1/3", "-"]
        ]
    );
    assert!(stdout.contains("Score of g vs x: 1 - 2 - 0"), "{stdout}");
    assert!(stdout.contains("Score of g vs y: 1 - 2 - 0"), "{stdout}");
    assert!(!stdout.contains("x vs y"), "{stdout}");

    // Its shards, merged: the same tables.
    let shards = ["1/2", "2/2"];
    for shard in shards {
        let (code, _, stderr) = match_with(&dir, &text, &["--shard", shard]);
        assert_eq!(code, Some(0), "{stderr}");
    }
    let out = Command::new(common::BIN)
        .args(["match", "--merge"])
        .arg(dir.join("results-shard1of2.jsonl"))
        .arg(dir.join("results-shard2of2.jsonl"))
        .output()
        .unwrap();
    let merged = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{merged}");
    assert_eq!(tables(&merged), (standings, crosstable));

    // A round robin of the same engines: every pair meets.
    let text = config(
        &dir,
        &["g", "x", "y"],
        "games = 3\nresults = \"rr.jsonl\"\n",
    );
    let (_, stdout, _) = match_with(&dir, &text, &[]);
    assert_eq!(read_results(&dir.join("rr.jsonl")).len(), 9);
    let (_, crosstable) = tables(&stdout);
    assert!(crosstable.iter().flatten().all(|c| c != "."), "{stdout}");

    // The SPRT is for two engines.
    let text = config(
        &dir,
        &["g", "x", "y"],
        "tournament = \"gauntlet\"\n[match.sprt]\nelo0 = 0\nelo1 = 5\n",
    );
    let (code, stdout, stderr) = match_with(&dir, &text, &[]);
    assert_eq!(code, Some(1));
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("[match.sprt]: SPRT needs exactly two engines"),
        "{stderr}"
    );
}

/// The README's `--set` example, as written (from a copy of `engines.toml` whose engines are
/// this build): its overrides take, and through its pipe the report lines come.
#[test]
fn the_readme_set_example_reports_through_a_pipe() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .find(|l| l.starts_with("target/release/ryoshi match engines.toml --set"))
        .expect("the README's --set example");
    let command = line.strip_suffix(" | tee match.log").expect(line);
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let config = std::fs::read_to_string(root.join("engines.toml")).unwrap();
    let dir = scratch("match-runner-readme");
    std::fs::write(
        dir.join("engines.toml"),
        config.replace("target/release/ryoshi", common::BIN),
    )
    .unwrap();
    let out = Command::new(common::BIN)
        .args(&args)
        .current_dir(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(read_results(&dir.join("results.jsonl")).len(), 4);
    for n in [2, 4] {
        let head = format!("Report after {n} of 4 games, ETA ");
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&head) && l.contains(": search vs possibilityist: ")),
            "{stdout}"
        );
    }
    assert!(stdout.ends_with("Finished match\n"), "{stdout}");
}
