//! `ryoshi match` as a process: an engine that dies while it is not its turn (so the runner's
//! next write meets a closed pipe) loses the game and the runner carries on.

mod common;
mod match_support;

use match_support::{fake, read_results, scratch, starts, text_records};
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
        // The kifu beside it states the clock (no main time, a 2 s byoyomi).
        let kifu = std::fs::read_to_string(record.replace(".txt", ".kifu")).unwrap();
        assert!(kifu.contains("[TimeControl \"0b2\"]"), "{kifu}");
    }
    assert_eq!(text_records(&records_dir), 4);
}

/// Runs `ryoshi match` on `text` written as `dir/engines.toml`: exit code, stdout, stderr.
fn match_in(dir: &std::path::Path, text: &str) -> (Option<i32>, String, String) {
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A wrong `cmd`, for one engine or both, stops the match before its first game: one line on
/// stderr naming the engine, its command and why, exit status 1, and no result written.
#[test]
fn a_missing_engine_stops_the_match_before_its_first_game() {
    let dir = scratch("match-cli-missing");
    let ghost =
        |name: &str| format!("[[engine]]\nname = \"{name}\"\ncmd = \"./no-such-{name}\"\n\n");
    let tail =
        "[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 4\nbyoyomi_ms = 100\n";
    for (engines, missing) in [
        (fake(&dir, "a", "good", 0) + &ghost("b"), "b"),
        (ghost("a") + &ghost("b"), "a"),
    ] {
        let _ = std::fs::remove_file(dir.join("results.jsonl"));
        let (code, stdout, stderr) = match_in(&dir, &(engines + tail));
        assert_eq!(code, Some(1), "{stdout}{stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        let want = format!(
            "ryoshi: engine `{missing}` (cmd `./no-such-{missing}`) cannot play: crash: cannot start"
        );
        assert!(lines[0].starts_with(&want), "{stderr}");
        assert!(!stdout.contains("Finished"), "{stdout}");
        assert!(!stdout.contains("Elo"), "{stdout}");
        assert!(read_results(&dir.join("results.jsonl")).is_empty());
    }
}

/// An engine that cannot be restarted game after game stops the match at `crash_limit` with exit
/// status 1 and one line on stderr; the games played stay in the results file. The engine is a
/// shell script that passes the handshake at its first start, exits at the next command, and
/// exits at once at every later start.
#[test]
fn an_engine_failing_game_after_game_stops_the_match() {
    let dir = scratch("match-cli-crashes");
    let once = dir.join("crasher.once");
    let script = format!(
        "if [ -e '{0}' ]; then exit 3; fi; : > '{0}'; while read l; do case \"$l\" in \
         usi) echo usiok;; isready) echo readyok;; *) exit 3;; esac; done",
        once.display()
    );
    let text = fake(&dir, "good", "good", 0)
        + &format!("[[engine]]\nname = \"crasher\"\ncmd = \"sh\"\nargs = [\"-c\", {script:?}]\n\n")
        + "[match]\nvariant = \"othello\"\nengines = [\"good\", \"crasher\"]\ngames = 20\n\
           byoyomi_ms = 2000\ncrash_limit = 2\n";
    let (code, stdout, stderr) = match_in(&dir, &text);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("ryoshi: engine `crasher` (cmd `sh -c ")
            && lines[0].contains("failed in 2 games in a row"),
        "{stderr}"
    );
    // Game 1: the fakes' Nim move is illegal in Othello, so `good` loses before `crasher`
    // moves; games 2 and 3: `crasher` cannot be restarted. The worker may have begun game 4
    // before the runner saw game 3 (as after a decided SPRT); it is kept too.
    let results = read_results(&dir.join("results.jsonl"));
    let reasons: Vec<&str> = results
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert!(matches!(reasons.len(), 3 | 4), "{stdout}");
    assert_eq!(reasons[..3], ["illegal move", "crash", "crash"], "{stdout}");
    let head = format!(
        "Stopped: summary of the {} finished games of 20",
        reasons.len()
    );
    assert!(stdout.contains(&head), "{stdout}");
}

/// A results file whose last line was cut off (a killed run) is never written onto: the next
/// run ends that line first and says so, and `--merge` sets the cut line aside, reporting it,
/// instead of refusing every game in the file.
#[test]
fn a_cut_last_line_is_ended_and_set_aside() {
    let dir = scratch("match-cli-cut");
    let cut = "{\"game\":1,\"variant\":\"othello\",\"fir";
    std::fs::write(dir.join("results.jsonl"), cut).unwrap();
    let text = fake(&dir, "a", "good", 0)
        + &fake(&dir, "b", "good", 0)
        + "[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 2\n\
           byoyomi_ms = 2000\n";
    let (code, stdout, stderr) = match_in(&dir, &text);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("(appended; 0 earlier results kept)"),
        "{stdout}"
    );
    assert!(stdout.contains("Its last line was cut off"), "{stdout}");
    let path = dir.join("results.jsonl");
    let written = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 3, "{written}");
    assert_eq!(lines[0], cut);
    for line in &lines[1..] {
        let game: serde_json::Value = serde_json::from_str(line).expect(line);
        assert!(game["game"].is_u64(), "{line}");
    }

    let out = Command::new(common::BIN)
        .args(["match", "--merge"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("Set aside (cut off by a killed run?): ")
            && stdout.contains("results.jsonl: line 1: "),
        "{stdout}"
    );
    assert!(stdout.contains("Merged 2 games from 1 files"), "{stdout}");
}

/// `--log FILE` keeps every line to (`>`) and from (`<`) every engine, each with the UTC time to
/// the millisecond, the game's number (0 for the start before the first game) and the engine.
#[test]
fn the_log_holds_every_engine_line_with_time_and_game() {
    let dir = scratch("match-cli-log");
    let text = fake(&dir, "a", "good", 0)
        + &fake(&dir, "b", "good", 0)
        + "[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 2\n\
           byoyomi_ms = 2000\n";
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let log = dir.join("io.log");
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .arg("--log")
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let mut seen = Vec::new();
    for line in text.lines() {
        let (stamp, rest) = line.split_once(' ').unwrap();
        // 20261204T184001.123Z
        let digits: String = stamp.chars().filter(char::is_ascii_digit).collect();
        assert!(
            stamp.len() == 20 && digits.len() == 17 && stamp.ends_with('Z') && &stamp[8..9] == "T",
            "{line}"
        );
        seen.push(rest.to_string());
    }
    // The fakes' Nim move `1` is illegal in Othello: each game ends at its first move.
    for want in [
        "game 0 a > usi",
        "game 0 a < usiok",
        "game 0 b > isready",
        "game 0 b < readyok",
        "game 1 a > usinewgame",
        "game 1 a > position startpos",
        "game 1 a < bestmove 1",
        "game 1 b > gameover win",
        "game 2 b > position startpos",
        "game 2 b < bestmove 1",
        "game 2 a > quit",
    ] {
        assert!(seen.iter().any(|l| l == want), "{want} not in\n{text}");
    }
}
