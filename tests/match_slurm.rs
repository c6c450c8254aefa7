//! `ryoshi match CONFIG --slurm N` on a real Slurm: a single-node cluster started (and stopped)
//! through `scripts/slurm-cluster`, ryoshi playing Othello against itself. A whole match of two
//! tasks merges into the results file; a match whose task 1 is cancelled mid-run (`scancel`)
//! fails naming it and the missing games, and `--resume` plays exactly those.

mod common;
mod match_support;

use match_support::scratch;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const NEEDS: &str = "needs slurm: apt-get install slurm-wlm munge (root; the test starts its own \
                     cluster with scripts/slurm-cluster)";

/// A cluster of its own, stopped when dropped.
struct Cluster {
    conf: String,
}

impl Cluster {
    fn start() -> Cluster {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-cluster");
        let out = Command::new(&script).arg("start").output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{NEEDS}\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let conf = stdout
            .lines()
            .find_map(|l| l.strip_prefix("export SLURM_CONF="))
            .expect("the export line")
            .to_string();
        Cluster { conf }
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf);
        command
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-cluster");
        let folder = Path::new(&self.conf).parent().unwrap().to_path_buf();
        let _ = Command::new(script).arg("stop").arg(folder).output();
    }
}

/// Othello, ryoshi against itself at `ms` a move, `games` games.
fn config(dir: &Path, games: u32, ms: u32) -> PathBuf {
    let bin = std::path::absolute(common::BIN).unwrap();
    let engine = |name: &str| {
        format!(
            "[[engine]]\nname = \"{name}\"\ncmd = {:?}\noptions = {{ Threads = 1 }}\n\n",
            bin.display().to_string()
        )
    };
    let text = format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"x\", \"y\"]\ngames = {games}\n\
         movetime_ms = {ms}\nmargin_ms = 500\nopening_plies = 2\nopening_plies_max = 6\nseed = 7\n\
         [slurm]\npartition = \"ryoshi\"\ntime = \"0:10:00\"\npoll_ms = 300\n",
        engine("x"),
        engine("y")
    );
    let path = dir.join("engines.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn ryoshi(cluster: &Cluster, config: &Path, args: &[&str]) -> Command {
    let mut command = cluster.command(common::BIN);
    command.arg("match").arg(config).args(args);
    command
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The game numbers of a results file, each line's (repeats kept).
fn numbers(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["game"].as_u64().unwrap())
        .collect()
}

#[test]
#[ignore = "needs slurm: apt-get install slurm-wlm munge (run as root)"]
fn a_slurm_match_merges_its_tasks_and_resumes_a_cancelled_one() {
    let cluster = Cluster::start();

    // A whole match of two tasks.
    let dir = scratch("slurm-whole");
    let path = config(&dir, 8, 20);
    let dry = ryoshi(&cluster, &path, &["--slurm", "2", "--dry-run"])
        .output()
        .unwrap();
    assert!(dry.status.success(), "{}", text(&dry));
    assert!(
        text(&dry).contains("#SBATCH --array=1-2\n"),
        "{}",
        text(&dry)
    );
    assert!(!dir.join("slurm").exists(), "a dry run submits nothing");
    let out = ryoshi(&cluster, &path, &["--slurm", "2"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Submitted job "), "{said}");
    assert!(
        said.contains("8 games added from the 2 tasks' files"),
        "{said}"
    );
    assert!(said.contains("Merged 8 games from 1 files"), "{said}");
    // The collection of all the tasks' games, one GGF game a line.
    let collection = said
        .lines()
        .find_map(|l| l.strip_prefix("Collection: ")?.strip_suffix(" (8 games)"))
        .unwrap_or_else(|| panic!("no collection of 8 games: {said}"));
    let games = std::fs::read_to_string(collection).unwrap();
    assert_eq!(games.lines().count(), 8, "{games}");
    let results = dir.join("results.jsonl");
    assert_eq!(numbers(&results), (1..=8).collect::<Vec<_>>());
    for shard in ["results-shard1of2.jsonl", "results-shard2of2.jsonl"] {
        assert_eq!(numbers(&dir.join(shard)).len(), 4, "{shard}");
    }
    // Run again without --resume: refused, nothing submitted.
    let again = ryoshi(&cluster, &path, &["--slurm", "2"]).output().unwrap();
    assert!(!again.status.success());
    assert!(
        text(&again).contains("--resume` goes on with them"),
        "{}",
        text(&again)
    );

    // Task 1 cancelled once it has finished a game.
    let dir = scratch("slurm-cancel");
    let games = 16;
    let path = config(&dir, games, 40);
    let log = dir.join("waiting.out");
    let waiting: Child = ryoshi(&cluster, &path, &["--slurm", "2"])
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let shard1 = dir.join("results-shard1of2.jsonl");
    let t0 = Instant::now();
    while numbers(&shard1).is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(120), "no game in task 1");
        std::thread::sleep(Duration::from_millis(100));
    }
    let said = std::fs::read_to_string(&log).unwrap();
    let id = said
        .split("Submitted job ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .expect("the job id")
        .to_string();
    let cancel = cluster
        .command("scancel")
        .arg(format!("{id}_1"))
        .output()
        .unwrap();
    assert!(cancel.status.success(), "{}", text(&cancel));
    let out = waiting.wait_with_output().unwrap();
    let said = std::fs::read_to_string(&log).unwrap() + &text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("task 1 CANCELLED"), "{said}");
    let missing: usize = said
        .split(" games missing: `ryoshi match")
        .next()
        .and_then(|s| s.rsplit("; ").next())
        .and_then(|s| s.split(" of ").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("the missing games: {said}"));
    let results = dir.join("results.jsonl");
    let before = numbers(&results);
    assert_eq!(before.len() + missing, games as usize, "{said}");
    assert!(missing > 0, "{said}");

    // Resumed: exactly the missing games are played, none twice.
    let out = ryoshi(&cluster, &path, &["--slurm", "2", "--resume"])
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!("{missing} games added from the 2 tasks' files")),
        "{said}"
    );
    let after = numbers(&results);
    assert_eq!(after.len(), games as usize, "{said}");
    let distinct: BTreeSet<u64> = after.iter().copied().collect();
    assert_eq!(distinct, (1..=games as u64).collect::<BTreeSet<_>>());
    // Each shard's file holds each of its games once: the resumed tasks played only the
    // missing ones (a game cut off by the cancel left at most a set-aside partial line).
    for shard in ["results-shard1of2.jsonl", "results-shard2of2.jsonl"] {
        let played = numbers(&dir.join(shard));
        let once: BTreeSet<u64> = played.iter().copied().collect();
        assert_eq!(once.len(), played.len(), "{shard}: {played:?}");
    }
    assert_eq!(
        numbers(&dir.join("results-shard1of2.jsonl")).len()
            + numbers(&dir.join("results-shard2of2.jsonl")).len(),
        games as usize
    );
}

/// The README's dry run, as written, from the checkout: the batch script of four tasks, each
/// resuming its shard of `engines.toml`; nothing submitted (no Slurm needed).
#[test]
fn the_readme_dry_run_prints_the_batch_script() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = "target/release/ryoshi match engines.toml --slurm 4 --dry-run";
    assert!(readme.lines().any(|l| l.trim_start().starts_with(line)));
    let out = Command::new(common::BIN)
        .args(["match", "engines.toml", "--slurm", "4", "--dry-run"])
        .current_dir(root)
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let config = std::path::absolute(root.join("engines.toml")).unwrap();
    assert!(said.starts_with("#!/bin/sh\n"), "{said}");
    for want in [
        "#SBATCH --array=1-4\n".to_string(),
        format!(
            "match '{}' --shard \"$SLURM_ARRAY_TASK_ID/4\" --resume\n",
            config.display()
        ),
        "# --dry-run: nothing submitted. 4 tasks, 8 games; the cluster must share ".into(),
    ] {
        assert!(said.contains(&want), "{want}\n{said}");
    }
    // A fifth task would have no game pair to play.
    let out = Command::new(common::BIN)
        .args(["match", "engines.toml", "--slurm", "5", "--dry-run"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out).contains("the match has 4 game pairs"),
        "{}",
        text(&out)
    );
}

/// Ctrl-C on the waiting command cancels the job: it says so, keeps the games finished so far in
/// the results file, and fails pointing at `--resume`; no task runs on.
#[test]
#[ignore = "needs slurm: apt-get install slurm-wlm munge (run as root)"]
fn an_interrupted_wait_cancels_its_job() {
    let cluster = Cluster::start();
    let dir = scratch("slurm-interrupt");
    let path = config(&dir, 16, 40);
    let log = dir.join("waiting.out");
    let waiting = ryoshi(&cluster, &path, &["--slurm", "2"])
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let shard2 = dir.join("results-shard2of2.jsonl");
    let t0 = Instant::now();
    while numbers(&shard2).is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(120), "no game in task 2");
        std::thread::sleep(Duration::from_millis(100));
    }
    let sent = Command::new("kill")
        .args(["-INT", &waiting.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = waiting.wait_with_output().unwrap();
    let said = std::fs::read_to_string(&log).unwrap() + &text(&out);
    assert!(!out.status.success(), "{said}");
    let id = said
        .split("Submitted job ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .expect("the job id")
        .to_string();
    assert!(
        said.contains(&format!("Interrupted: job {id} cancelled (scancel {id})")),
        "{said}"
    );
    assert!(said.contains("--slurm 2 --resume` plays them"), "{said}");
    assert!(!numbers(&dir.join("results.jsonl")).is_empty(), "{said}");
    // The tasks end within Slurm's kill wait.
    let t0 = Instant::now();
    loop {
        let queue = cluster
            .command("squeue")
            .args(["--noheader", "--states=RUNNING,PENDING"])
            .output()
            .unwrap();
        if String::from_utf8_lossy(&queue.stdout).trim().is_empty() {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "tasks still run");
        std::thread::sleep(Duration::from_millis(200));
    }
}
