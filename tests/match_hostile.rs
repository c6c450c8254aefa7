//! The match runner against engines and configurations that misbehave (the runner audit of
//! stop 63): an engine that stops reading its input, one that declares options without end,
//! terminal escapes in an engine's words, option values that would be commands, relative
//! commands run in a `working_dir`, and the bounds of `concurrency`.

mod common;
mod match_support;

use match_support::{fake, run, scratch, try_run};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `ryoshi match engines.toml` in `dir` (from `cwd`), killed after `limit`: its exit
/// status (None: killed) and its output, both streams.
fn run_binary(cwd: &std::path::Path, config: &str, limit: Duration) -> (Option<i32>, String) {
    let mut child = Command::new(common::BIN)
        .args(["match", config])
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (status, text)
}

/// engines.toml in `dir`: a deaf engine (it never reads its input) whose option value (100 KB)
/// does not fit its 64 KiB input pipe, against a good one.
fn write_deaf_config(dir: &std::path::Path) {
    let text = fake(dir, "deaf", "deaf", 0).replace(
        "\n\n",
        &format!("\noptions = {{ Big = \"{}\" }}\n\n", "x".repeat(100_000)),
    ) + &fake(dir, "good", "good", 0)
        + "[match]\nvariant = \"othello\"\nengines = [\"deaf\", \"good\"]\ngames = 2\n\
           movetime_ms = 100\n";
    std::fs::write(dir.join("engines.toml"), text).unwrap();
}

#[test]
fn an_engine_that_does_not_read_is_given_up_on() {
    // The runner waited on the write for ever, and a first Ctrl-C could not stop it.
    let dir = scratch("match-deaf");
    write_deaf_config(&dir);
    let t0 = Instant::now();
    let (status, out) = run_binary(&dir, "engines.toml", Duration::from_secs(60));
    assert!(status.is_some(), "the runner hung: {out}");
    assert!(out.contains("did not read its input"), "{out}");
    println!("given up on after {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn an_engine_declaring_options_without_end_fails_its_handshake() {
    let dir = scratch("match-options");
    let text = fake(&dir, "many", "options", 5000)
        + &fake(&dir, "good", "good", 0)
        + "[match]\nvariant = \"othello\"\nengines = [\"many\", \"good\"]\ngames = 2\nmovetime_ms = 100\n";
    let (result, _) = try_run(&dir, &text);
    let Err(why) = result else {
        panic!("the handshake fails")
    };
    let why = why.to_string();
    assert!(why.contains("more than 1024 options"), "{why}");
    // As many as an engine has are fine.
    let text = fake(&dir, "many", "options", 300)
        + &fake(&dir, "good", "good", 0)
        + "[match]\nvariant = \"othello\"\nengines = [\"many\", \"good\"]\ngames = 2\nmovetime_ms = 100\n";
    assert_eq!(run(&dir, &text).results.len(), 2);
}

#[test]
fn an_engines_escapes_reach_the_terminal_escaped() {
    let dir = scratch("match-escape");
    let text = fake(&dir, "esc", "escape", 0)
        + &fake(&dir, "good", "good", 0)
        + "[match]\nvariant = \"othello\"\nengines = [\"esc\", \"good\"]\ngames = 2\nmovetime_ms = 100\n";
    let run = run(&dir, &text);
    assert!(!run.output.contains('\u{1b}') && !run.output.contains('\u{7}'));
    assert!(run.output.contains("\\u{1b}[2J"), "{}", run.output);
}

/// Why `dir`'s engines.toml is refused.
fn refusal(dir: &std::path::Path) -> String {
    match ryoshi::matches::Config::load(&dir.join("engines.toml")) {
        Ok(_) => panic!("the configuration is taken"),
        Err(why) => why.to_string(),
    }
}

#[test]
fn option_values_and_concurrency_are_checked() {
    let dir = scratch("match-values");
    let engines = fake(&dir, "a", "good", 0) + &fake(&dir, "b", "good", 0);
    let with_value = engines.replacen("\n\n", "\noptions = { Hash = \"16\\nquit\" }\n\n", 1);
    let text = with_value + "[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 2\nmovetime_ms = 100\n";
    std::fs::write(dir.join("engines.toml"), &text).unwrap();
    let why = refusal(&dir);
    assert!(why.contains("option `Hash` must be one line"), "{why}");
    let text = engines
        + "[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 2\nconcurrency = 257\n";
    std::fs::write(dir.join("engines.toml"), &text).unwrap();
    let why = refusal(&dir);
    assert!(why.contains("from 1 to 256"), "{why}");
}

#[test]
fn a_relative_command_runs_in_its_working_dir_from_a_relative_config() {
    // `cmd` is relative to the configuration's folder also when `working_dir` moves the engine
    // elsewhere and the configuration was named by a relative path.
    let dir = scratch("match-workdir");
    std::fs::create_dir_all(dir.join("conf/wd")).unwrap();
    let script = match_support::fake_script();
    std::fs::write(
        dir.join("conf/engine.sh"),
        format!("#!/bin/sh\nexec python3 {} good\n", script.display()),
    )
    .unwrap();
    let chmod = Command::new("chmod")
        .args(["+x", "conf/engine.sh"])
        .current_dir(&dir)
        .status();
    assert!(chmod.unwrap().success());
    let text = "[[engine]]\nname = \"a\"\ncmd = \"./engine.sh\"\nworking_dir = \"wd\"\n\n\
                [[engine]]\nname = \"b\"\ncmd = \"./engine.sh\"\n\n\
                [match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 2\nmovetime_ms = 100\n";
    std::fs::write(dir.join("conf/engines.toml"), text).unwrap();
    let (status, out) = run_binary(&dir, "conf/engines.toml", Duration::from_secs(60));
    assert_eq!(status, Some(0), "{out}");
    assert!(out.contains("Finished match"), "{out}");
}

#[test]
fn a_second_ctrl_c_ends_the_runner_and_its_engines_at_once() {
    // The runner is held up (a deaf engine's handshake) when Ctrl-C comes twice: it ends at
    // once, and the engine with it (it used to outlive the runner in its own process group).
    let dir = scratch("match-twice");
    write_deaf_config(&dir);
    let mut child = Command::new(common::BIN)
        .args(["match", "engines.toml"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The deaf engine has started when its start is logged.
    let t0 = Instant::now();
    while !dir.join("deaf.starts").exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the engine did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = child.id().to_string();
    for _ in 0..2 {
        assert!(Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success());
        std::thread::sleep(Duration::from_millis(100));
    }
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "the runner did not end at once"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130), "{status}");
    let marker = dir.display().to_string();
    let t0 = Instant::now();
    loop {
        let ps = Command::new("ps")
            .args(["-eo", "stat,args"])
            .output()
            .unwrap();
        let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
            .lines()
            .filter(|l| l.contains(&marker) && l.contains("fake_engine") && !l.starts_with('Z'))
            .map(String::from)
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "engines left running: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
