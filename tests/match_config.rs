//! `ryoshi match CONFIG` through the real binary: configuration errors name the problem and the
//! runner exits with a failure before starting any engine.

mod common;

use std::process::Command;

fn run_match(config: &str, name: &str) -> (bool, String, String) {
    let dir =
        std::env::temp_dir().join(format!("ryoshi-match-config-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("engines.toml");
    std::fs::write(&path, config).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(&path)
        .output()
        .expect("run ryoshi match");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const GOOD: &str = r#"
[[engine]]
name = "a"
cmd = "ryoshi"

[[engine]]
name = "b"
cmd = "ryoshi"

[match]
variant = "quantumshogi"
engines = ["a", "b"]
byoyomi_ms = 100
"#;

#[test]
fn unknown_keys_are_errors_that_name_the_key() {
    for (name, text, key) in [
        (
            "match-key",
            GOOD.replace("byoyomi_ms = 100", "byoyomi_ms = 100\nponder = true"),
            "`ponder`",
        ),
        (
            "engine-key",
            GOOD.replace(
                "cmd = \"ryoshi\"\n\n[[engine]]",
                "cmd = \"ryoshi\"\nopts = 1\n\n[[engine]]",
            ),
            "`opts`",
        ),
        (
            "sprt-key",
            format!("{GOOD}\n[match.sprt]\nelo0 = 0\nelo1 = 5\nlimit = 3\n"),
            "`limit`",
        ),
        ("top-key", format!("title = \"x\"\n{GOOD}"), "`title`"),
    ] {
        let (ok, stdout, stderr) = run_match(&text, name);
        assert!(!ok, "{name}: accepted");
        assert!(stdout.is_empty(), "{name}: {stdout}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.starts_with("ryoshi: ") && stderr.contains(": line "),
            "{name}: {stderr}"
        );
        assert!(
            stderr.contains("unknown field") && stderr.contains(key),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn semantic_errors_are_reported() {
    for (name, text, words) in [
        (
            "no-tc",
            GOOD.replace("byoyomi_ms = 100", ""),
            "no time control",
        ),
        (
            "two-tc",
            GOOD.replace("byoyomi_ms = 100", "byoyomi_ms = 100\nnodes = 5"),
            "exactly one time control",
        ),
        (
            "unknown-engine",
            GOOD.replace("[\"a\", \"b\"]", "[\"a\", \"c\"]"),
            "`c`",
        ),
        (
            "bad-variant",
            GOOD.replace("quantumshogi", "chess"),
            "chess",
        ),
    ] {
        let (ok, _, stderr) = run_match(&text, name);
        assert!(!ok, "{name}: accepted");
        assert!(stderr.contains(words), "{name}: {stderr}");
    }
    let out = Command::new(common::BIN)
        .args(["match", "/nonexistent/engines.toml"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

/// A game count the runner cannot schedule is a configuration error: one line naming `games`,
/// exit status 1, no allocation failure.
#[test]
fn a_game_count_beyond_the_schedule_is_a_config_error() {
    for games in ["4294967295", "1000001"] {
        let text = GOOD.replace("byoyomi_ms", &format!("games = {games}\nbyoyomi_ms"));
        let dir = std::env::temp_dir().join(format!("ryoshi-match-games-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("engines.toml"), text).unwrap();
        let out = Command::new(common::BIN)
            .arg("match")
            .arg(dir.join("engines.toml"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{games}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].contains(&format!("[match]: `games = {games}` makes {games} games"))
                && lines[0].ends_with("the runner schedules at most 1000000"),
            "{stderr}"
        );
        assert!(!dir.join("results.jsonl").exists());
    }
}
