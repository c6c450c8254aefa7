//! `ryoshi match` as a fastchess or cutechess-cli user drives it, through the real binary:
//! configuration keys set from the command line (`--set`).
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
            format!("{in_file}with --set games=1: unknown field `games`, expected `engine` or `match`"),
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
