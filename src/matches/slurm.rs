//! `ryoshi match CONFIG --slurm N`: the match as one Slurm job array of N tasks, each the shard
//! `--shard K/N --resume` of it, submitted with `sbatch`, watched with `squeue` and merged here.
//!
//! Slurm schedules; this only submits, waits in the foreground showing the merged progress, and
//! at the end adds the shards' games to the match's results file. The tasks share the SPRT
//! through their results files ([`super::joint`]), so the configuration's folder (results,
//! records, openings) must be one folder for every node: a cluster's shared file system.

use super::config::{Config, ConfigError, Override, SprtConfig};
use super::error::MatchError;
use super::joint::{self, Joint};
use super::merge::{self, Row};
use super::schedule::Plan;
use super::stats::{Llr, SprtState};
use super::summary::{llr_text, PairScore};
use super::{referee_for_config, signal};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Most tasks of one array (Slurm's own default `MaxArraySize` is 1001).
pub const MAX_TASKS: usize = 1000;

/// `[slurm]`: how the job array is submitted. Every key is optional; each becomes an `#SBATCH`
/// line of the batch script (`--dry-run` prints it).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlurmConfig {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--time`, the limit of each task (`2:00:00`, `1-00:00:00`).
    pub time: Option<String>,
    /// `--account`.
    pub account: Option<String>,
    /// `--qos`.
    pub qos: Option<String>,
    /// `--mem`, each task's memory (`2G`).
    pub mem: Option<String>,
    /// `--cpus-per-task`; default the match's `concurrency` (a game's two engines take turns).
    pub cpus_per_task: Option<u32>,
    /// At most this many tasks at once (`--array=1-N%M`).
    pub max_running: Option<u32>,
    /// Any other `sbatch` options, one per item (`"--constraint=avx2"`, `"--exclusive"`).
    #[serde(default)]
    pub sbatch: Vec<String>,
    /// Shell lines each task runs before the match (`"module load python"`).
    #[serde(default)]
    pub setup: Vec<String>,
    /// The ryoshi program on the nodes (default: the one submitting, which must then be on
    /// the shared file system too).
    pub ryoshi: Option<PathBuf>,
    /// The folder of the batch script and the tasks' logs (default `slurm` beside the results
    /// file).
    pub logs: Option<PathBuf>,
    /// How often the waiting command asks `squeue` and reads the results, in ms.
    #[serde(default = "default_poll_ms")]
    pub poll_ms: u64,
}

fn default_poll_ms() -> u64 {
    2000
}

/// No `[slurm]` table: every key at its default.
impl Default for SlurmConfig {
    fn default() -> SlurmConfig {
        SlurmConfig {
            partition: None,
            time: None,
            account: None,
            qos: None,
            mem: None,
            cpus_per_task: None,
            max_running: None,
            sbatch: Vec::new(),
            setup: Vec::new(),
            ryoshi: None,
            logs: None,
            poll_ms: default_poll_ms(),
        }
    }
}

/// Why `--slurm` does not submit, or ends without the whole match.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    #[error("--slurm: expected 1 to {MAX_TASKS} tasks, got {0}")]
    Tasks(usize),
    #[error("--slurm {tasks}: the match has {pairs} game pairs, and a task plays whole pairs: at most {pairs} tasks")]
    TooManyTasks { tasks: usize, pairs: usize },
    #[error("[slurm] {0}: no line breaks or other control characters")]
    Control(&'static str),
    #[error("[slurm] poll_ms must be at least 100")]
    Poll,
    #[error("`{0}` not found on PATH: submit from a Slurm login node (Debian: apt-get install slurm-client)")]
    NoCommand(&'static str),
    #[error("engine `{name}`: {why}")]
    Engine { name: String, why: String },
    #[error("the tasks cannot write the results folder {}: {why}", .path.display())]
    Folder { path: PathBuf, why: String },
    #[error(
        "{0} exist: results of an earlier run. `--resume` goes on with them; or move them away"
    )]
    Earlier(String),
    #[error("{0} is from a run of {1} tasks: go on with `--slurm {1} --resume`, or move it away")]
    OtherCount(String, usize),
    #[error("cannot run `{cmd}`: {why}")]
    Command { cmd: String, why: String },
    #[error("sbatch refused the job: {0}")]
    Sbatch(String),
    #[error("{0}")]
    Unfinished(String),
}

crate::games::error_text!(derived: SlurmError);

impl SlurmConfig {
    /// Refuses what cannot go into a batch script line.
    fn check(&self) -> Result<(), SlurmError> {
        let bad = |text: &str| text.chars().any(char::is_control);
        let strings = [
            ("partition", &self.partition),
            ("time", &self.time),
            ("account", &self.account),
            ("qos", &self.qos),
            ("mem", &self.mem),
        ];
        for (key, value) in strings {
            if value.as_deref().is_some_and(bad) {
                return Err(SlurmError::Control(key));
            }
        }
        if self.sbatch.iter().any(|s| bad(s)) {
            return Err(SlurmError::Control("sbatch"));
        }
        if self.setup.iter().any(|s| bad(s)) {
            return Err(SlurmError::Control("setup"));
        }
        for (key, path) in [("ryoshi", &self.ryoshi), ("logs", &self.logs)] {
            if path.as_ref().is_some_and(|p| bad(&p.to_string_lossy())) {
                return Err(SlurmError::Control(key));
            }
        }
        if self.poll_ms < 100 {
            return Err(SlurmError::Poll);
        }
        Ok(())
    }
}

/// The command line's choices: `--slurm N`, `--dry-run`, `--resume`.
pub struct Args<'a> {
    pub config: &'a Path,
    /// `--set KEY=VALUE` overrides, applied here and passed on to every task.
    pub set: &'a [String],
    pub tasks: usize,
    pub dry_run: bool,
    pub resume: bool,
}

/// Everything the submission needs, worked out before anything is submitted.
struct Job {
    config: Config,
    /// The configuration file, absolute.
    config_path: PathBuf,
    /// The `--set` overrides, as given (each task reads them again).
    set: Vec<String>,
    slurm: SlurmConfig,
    tasks: usize,
    /// The match's results file (absolute) and the shards' files.
    results: PathBuf,
    shard_files: Vec<PathBuf>,
    logs: PathBuf,
    ryoshi: PathBuf,
    /// Each shard's scheduled game numbers (index 0 = shard 1).
    scheduled: Vec<Vec<u64>>,
}

/// `ryoshi match CONFIG --slurm N [--dry-run] [--resume]`.
pub fn run_cli(args: &Args, out: &mut dyn Write) -> Result<(), MatchError> {
    let job = prepare(args)?;
    let script = batch_script(&job);
    if args.dry_run {
        let _ = write!(out, "{script}");
        let _ = writeln!(
            out,
            "# --dry-run: nothing submitted. {} tasks, {} games; the cluster must share {}",
            job.tasks,
            job.scheduled.iter().map(Vec::len).sum::<usize>(),
            shared_folders(&job)
        );
        return Ok(());
    }
    for command in ["sbatch", "squeue", "scancel"] {
        if find_on_path(command).is_none() {
            return Err(SlurmError::NoCommand(command).into());
        }
    }
    check_folder(&job.logs)?;
    let script_path = job.logs.join(format!("{}-job.sh", stem(&job.results)));
    std::fs::write(&script_path, &script).map_err(|e| SlurmError::Folder {
        path: job.logs.clone(),
        why: e.to_string(),
    })?;
    signal::install();
    let id = submit(&script_path)?;
    let _ = writeln!(
        out,
        "Submitted job {id}: {} tasks, {} games; batch script {}; task logs {}\n\
         The cluster must share {}. Ctrl-C cancels the job; if this command is killed, \
         `scancel {id}` does.",
        job.tasks,
        job.scheduled.iter().map(Vec::len).sum::<usize>(),
        script_path.display(),
        job.logs
            .join(format!("{}-{id}_K.out", stem(&job.results)))
            .display(),
        shared_folders(&job)
    );
    let _ = out.flush();
    let ended = wait(&job, &id, out)?;
    finish(&job, &id, &ended, out)
}

/// Reads the configuration and checks what can be checked before submitting.
fn prepare(args: &Args) -> Result<Job, MatchError> {
    if args.tasks == 0 || args.tasks > MAX_TASKS {
        return Err(SlurmError::Tasks(args.tasks).into());
    }
    let config_path = std::path::absolute(args.config).map_err(|error| MatchError::Unreadable {
        path: args.config.to_path_buf(),
        error,
    })?;
    let overrides = args
        .set
        .iter()
        .map(|text| Override::parse(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(ConfigError::Override)?;
    let config = Config::load_with(&config_path, &overrides)?;
    let slurm = config.slurm.clone().unwrap_or_default();
    slurm.check()?;
    let factory = referee_for_config(&config)?;
    let plan = Plan::make(&config, factory.as_ref())?;
    let pairs = config.pairs().len();
    let game_pairs = plan
        .scheduled
        .iter()
        .map(|job| job.opening_index * pairs + job.pair)
        .max()
        .map_or(0, |p| p + 1);
    if args.tasks > game_pairs {
        return Err(SlurmError::TooManyTasks {
            tasks: args.tasks,
            pairs: game_pairs,
        }
        .into());
    }
    let mut scheduled = vec![Vec::new(); args.tasks];
    for job in &plan.scheduled {
        let pair = job.opening_index * pairs + job.pair;
        scheduled[pair % args.tasks].push(job.game as u64);
    }
    check_engines(&config)?;
    let results = absolute(&config.resolve(&config.play.results));
    let folder = results.parent().unwrap_or(Path::new("/")).to_path_buf();
    check_folder(&folder)?;
    let shard_files = joint::shard_files(&results, args.tasks);
    check_earlier(&results, &shard_files, args.tasks, args.resume)?;
    let logs = match &slurm.logs {
        Some(path) => absolute(&config.resolve(path)),
        None => folder.join("slurm"),
    };
    let ryoshi = match &slurm.ryoshi {
        Some(path) => absolute(&config.resolve(path)),
        None => std::env::current_exe().map_err(|e| SlurmError::Command {
            cmd: "ryoshi".into(),
            why: format!("its own path is unknown ({e}): set [slurm] ryoshi"),
        })?,
    };
    Ok(Job {
        config,
        config_path,
        set: args.set.to_vec(),
        slurm,
        tasks: args.tasks,
        results,
        shard_files,
        logs,
        ryoshi,
        scheduled,
    })
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The results file's name without its extension (`results` of `results.jsonl`).
fn stem(results: &Path) -> String {
    results
        .file_stem()
        .map_or_else(|| "results".into(), |s| s.to_string_lossy().into_owned())
}

/// The folders the nodes must see as this machine does.
fn shared_folders(job: &Job) -> String {
    let mut folders = vec![job.config_path.parent().unwrap_or(Path::new("/"))];
    for path in [&job.results, &job.logs, &job.ryoshi] {
        let folder = path.parent().unwrap_or(Path::new("/"));
        if !folders.iter().any(|f| folder.starts_with(f)) {
            folders.push(folder);
        }
    }
    let list: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    list.join(", ")
}

/// `name` on PATH, as a shell would find it.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Each engine's program exists here: a path (taken from the configuration's folder) or a
/// name on PATH. The nodes must have it at the same place; that cannot be checked from here.
fn check_engines(config: &Config) -> Result<(), SlurmError> {
    for name in &config.play.engines {
        let Some(engine) = config.engine(name) else {
            continue;
        };
        let bad = |why: String| SlurmError::Engine {
            name: name.clone(),
            why,
        };
        if engine.cmd.contains('/') {
            let path = config.resolve(Path::new(&engine.cmd));
            if !path.is_file() {
                return Err(bad(format!(
                    "`{}` is no file here; the nodes run it from the same path",
                    absolute(&path).display()
                )));
            }
        } else if find_on_path(&engine.cmd).is_none() {
            return Err(bad(format!(
                "`{}` is not on PATH here: give its absolute path (the nodes run it from the same path)",
                engine.cmd
            )));
        }
    }
    Ok(())
}

/// The folder exists (made if need be) and takes a new file.
fn check_folder(folder: &Path) -> Result<(), SlurmError> {
    let bad = |why: String| SlurmError::Folder {
        path: folder.to_path_buf(),
        why,
    };
    std::fs::create_dir_all(folder).map_err(|e| bad(e.to_string()))?;
    let probe = folder.join(format!(".ryoshi-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| bad(e.to_string()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// A fresh run finds no results of an earlier one (they would be merged with its games); a
/// resumed one finds no shard of another task count (its games would be played again).
fn check_earlier(
    results: &Path,
    shard_files: &[PathBuf],
    tasks: usize,
    resume: bool,
) -> Result<(), SlurmError> {
    let exists = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.len() > 0);
    if !resume {
        let earlier: Vec<String> = std::iter::once(results)
            .chain(shard_files.iter().map(PathBuf::as_path))
            .filter(|p| exists(p))
            .map(|p| p.display().to_string())
            .collect();
        if !earlier.is_empty() {
            return Err(SlurmError::Earlier(earlier.join(", ")));
        }
    }
    let folder = results.parent().unwrap_or(Path::new("."));
    let stem = stem(results);
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&format!("{stem}-shard")) else {
            continue;
        };
        let count = rest
            .split_once("of")
            .map(|(_, n)| n.split('.').next().unwrap_or(""))
            .and_then(|n| n.parse::<usize>().ok());
        if let Some(count) = count.filter(|&c| c != tasks) {
            if exists(&entry.path()) {
                return Err(SlurmError::OtherCount(
                    entry.path().display().to_string(),
                    count,
                ));
            }
        }
    }
    Ok(())
}

/// `'text'` for the shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The batch script: one array task per shard, each resuming its own results file (so a task
/// Slurm requeues goes on where it stopped).
fn batch_script(job: &Job) -> String {
    let s = &job.slurm;
    let stem = stem(&job.results);
    let mut text = String::from("#!/bin/sh\n");
    text.push_str(&format!(
        "# ryoshi match {} --slurm {}: task K plays --shard K/{}.\n",
        job.config_path.display(),
        job.tasks,
        job.tasks
    ));
    let mut option = |line: String| text.push_str(&format!("#SBATCH {line}\n"));
    option(format!("--job-name=ryoshi-{stem}"));
    option(match s.max_running {
        Some(m) => format!("--array=1-{}%{m}", job.tasks),
        None => format!("--array=1-{}", job.tasks),
    });
    option(format!(
        "--cpus-per-task={}",
        s.cpus_per_task
            .unwrap_or(job.config.play.concurrency.max(1) as u32)
    ));
    option(format!(
        "--output={}",
        job.logs.join(format!("{stem}-%A_%a.out")).display()
    ));
    option("--open-mode=append".into());
    for (key, value) in [
        ("partition", &s.partition),
        ("time", &s.time),
        ("account", &s.account),
        ("qos", &s.qos),
        ("mem", &s.mem),
    ] {
        if let Some(value) = value {
            option(format!("--{key}={value}"));
        }
    }
    for extra in &s.sbatch {
        option(extra.clone());
    }
    for line in &s.setup {
        text.push_str(line);
        text.push('\n');
    }
    let folder = job.config_path.parent().unwrap_or(Path::new("/"));
    text.push_str(&format!("cd {}\n", quote(&folder.to_string_lossy())));
    // Every task reads the configuration as this command did: the same overrides.
    let set: String = job
        .set
        .iter()
        .map(|s| format!(" --set {}", quote(s)))
        .collect();
    text.push_str(&format!(
        "exec {} match {}{set} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --resume\n",
        quote(&job.ryoshi.to_string_lossy()),
        quote(&job.config_path.to_string_lossy()),
        job.tasks
    ));
    text
}

/// Runs `cmd args`, its stdout or why not.
fn run(cmd: &str, args: &[&str]) -> Result<String, SlurmError> {
    let output = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| SlurmError::Command {
            cmd: cmd.into(),
            why: e.to_string(),
        })?;
    if !output.status.success() {
        return Err(SlurmError::Command {
            cmd: format!("{cmd} {}", args.join(" ")),
            why: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Submits the script; the job's id.
fn submit(script: &Path) -> Result<String, SlurmError> {
    let text = run("sbatch", &["--parsable", &script.to_string_lossy()])
        .map_err(|e| SlurmError::Sbatch(e.to_string()))?;
    // `--parsable` prints `id` or `id;cluster`.
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(SlurmError::Sbatch(format!(
            "no job id in `{}`",
            text.trim()
        )));
    }
    Ok(id)
}

/// States in which a task may still play.
const ACTIVE: [&str; 12] = [
    "PENDING",
    "CONFIGURING",
    "RUNNING",
    "COMPLETING",
    "SUSPENDED",
    "REQUEUED",
    "REQUEUE_HOLD",
    "REQUEUE_FED",
    "RESIZING",
    "SIGNALING",
    "STAGE_OUT",
    "STOPPED",
];

/// The job's tasks as `squeue` tells them: per task its state; pending tasks not yet split off
/// (`12_[3-8]`) are counted apart. `None` once Slurm has forgotten the job.
struct Queue {
    tasks: BTreeMap<usize, (String, String)>,
    unsplit: bool,
}

fn queue(id: &str) -> Result<Option<Queue>, SlurmError> {
    let jobs = format!("--jobs={id}");
    let text = match run(
        "squeue",
        &[
            "--noheader",
            "--array",
            "--states=all",
            &jobs,
            "--format=%i|%T|%r",
        ],
    ) {
        Ok(text) => text,
        Err(SlurmError::Command { why, .. }) if why.contains("Invalid job id") => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut queue = Queue {
        tasks: BTreeMap::new(),
        unsplit: false,
    };
    for line in text.lines() {
        let mut fields = line.split('|');
        let (Some(task), Some(state), reason) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Some((_, index)) = task.trim().split_once('_') else {
            continue;
        };
        match index.parse::<usize>() {
            Ok(index) => {
                queue.tasks.insert(
                    index,
                    (state.trim().to_string(), reason.unwrap_or("").trim().into()),
                );
            }
            Err(_) => queue.unsplit |= ACTIVE.contains(&state.trim()),
        }
    }
    if queue.tasks.is_empty() && !queue.unsplit {
        return Ok(None);
    }
    Ok(Some(queue))
}

/// How the wait ended: each task's last state seen, and whether the user interrupted.
struct Ended {
    states: BTreeMap<usize, (String, String)>,
    interrupted: bool,
}

/// Waits for every task to end, showing the merged progress; Ctrl-C cancels the job.
fn wait(job: &Job, id: &str, out: &mut dyn Write) -> Result<Ended, MatchError> {
    let mut joint = Joint::over(&job.shard_files, job.config.play.sprt);
    let total: usize = job.scheduled.iter().map(Vec::len).sum();
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut first_count = None;
    let mut last_line = Instant::now();
    let mut last_count = usize::MAX;
    let mut states = BTreeMap::new();
    let mut failures = 0;
    loop {
        if signal::interrupted() {
            let cancelled = run("scancel", &[id]);
            let _ = writeln!(
                out,
                "Interrupted: {}",
                match cancelled {
                    Ok(_) => format!("job {id} cancelled (scancel {id})"),
                    Err(e) => format!("cancelling job {id} failed ({e}): run `scancel {id}`"),
                }
            );
            return Ok(Ended {
                states,
                interrupted: true,
            });
        }
        let queue = match queue(id) {
            Ok(queue) => {
                failures = 0;
                queue
            }
            // A busy controller: asked again, up to a minute of failures in a row.
            Err(e) => {
                failures += 1;
                if failures * job.slurm.poll_ms > 60_000 {
                    return Err(SlurmError::Unfinished(format!(
                        "squeue fails ({e}); the job {id} may still run: `scancel {id}` stops it, \
                         `--resume` goes on"
                    ))
                    .into());
                }
                Some(Queue {
                    tasks: BTreeMap::new(),
                    unsplit: true,
                })
            }
        };
        let done = match &queue {
            None => true,
            Some(q) => {
                states.extend(q.tasks.clone());
                !q.unsplit && q.tasks.values().all(|(s, _)| !ACTIVE.contains(&s.as_str()))
            }
        };
        let _ = joint.refresh();
        let count = joint.games().len();
        let first = *first_count.get_or_insert(count);
        let running = states.values().filter(|(s, _)| s == "RUNNING").count();
        let line = progress_line(&joint, total, running, start.elapsed(), count - first);
        if terminal {
            eprint!("\r\x1b[2K{line}");
        } else if count != last_count && (last_line.elapsed() >= Duration::from_secs(30) || done) {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
            last_line = Instant::now();
            last_count = count;
        }
        if done {
            if terminal {
                eprintln!();
            }
            return Ok(Ended {
                states,
                interrupted: false,
            });
        }
        std::thread::sleep(Duration::from_millis(job.slurm.poll_ms));
    }
}

/// `Games 40/200, 2 tasks running: a vs b 20 - 12 - 8, Elo 70 +/- 95, Ptnml [..], LLR 1.2
/// (-2.94, 2.94), ETA 0:12:30`.
fn progress_line(
    joint: &Joint,
    total: usize,
    running: usize,
    elapsed: Duration,
    played: usize,
) -> String {
    let games = joint.games().len();
    let mut line = format!("Games {games}/{total}, {running} tasks running");
    let pairs: Vec<PairScore> = joint.pairs();
    if let [p] = pairs.as_slice() {
        let t = &p.tally;
        line.push_str(&format!(
            ": {} vs {} {} - {} - {}",
            p.a, p.b, t.wins, t.losses, t.draws
        ));
        if let Some(elo) = p.penta.elo().or_else(|| t.elo()) {
            let (diff, err) = elo.columns();
            line.push_str(&format!(", Elo {diff} +/- {err}"));
        }
        line.push_str(&format!(", Ptnml {:?}", p.penta.counts));
        if let Some(sprt) = joint.sprt() {
            let c = sprt.config;
            if let Some(llr) = p.penta.llr(c.elo0, c.elo1) {
                line.push_str(&llr_text(llr, sprt));
            }
        }
    }
    if played > 0 && games < total {
        let secs = elapsed.as_secs_f64() / played as f64 * (total - games) as f64;
        let secs = secs as u64;
        line.push_str(&format!(
            ", ETA {}:{:02}:{:02}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        ));
    }
    line
}

/// Adds the shards' games to the results file, prints the summary and judges the run: whole,
/// or decided by the SPRT, or which tasks failed and how many games are missing.
fn finish(job: &Job, id: &str, ended: &Ended, out: &mut dyn Write) -> Result<(), MatchError> {
    let added = merge_into(&job.results, &job.shard_files)?;
    let _ = writeln!(
        out,
        "Results: {} ({added} games added from the {} tasks' files)",
        job.results.display(),
        job.tasks
    );
    let sprt = job.config.play.sprt.unwrap_or(SprtConfig {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    });
    let summary = merge::run(&[job.results.display().to_string()], sprt, &mut *out)?;
    let decided =
        job.config.play.sprt.is_some() && summary.sprt.is_some_and(|s| s != SprtState::Continue);
    let text = std::fs::read_to_string(&job.results).unwrap_or_default();
    let have: ahash::AHashSet<u64> = merge::read_games(&text, "")
        .map(|f| f.rows.iter().map(|r: &Row| r.game).collect())
        .unwrap_or_default();
    let missing: Vec<usize> = job
        .scheduled
        .iter()
        .map(|games| games.iter().filter(|g| !have.contains(g)).count())
        .collect();
    let failed: Vec<String> = ended
        .states
        .iter()
        .filter(|(_, (state, _))| state != "COMPLETED" && !ACTIVE.contains(&state.as_str()))
        .map(|(task, (state, reason))| {
            let log = job
                .logs
                .join(format!("{}-{id}_{task}.out", stem(&job.results)));
            let why = if reason.is_empty() || reason == "None" {
                String::new()
            } else {
                format!(", {reason}")
            };
            format!(
                "task {task} {state}{why}, {} games missing (log {})",
                missing[task - 1],
                log.display()
            )
        })
        .collect();
    let _ = out.flush();
    let all_missing: usize = missing.iter().sum();
    if failed.is_empty() && !ended.interrupted && (decided || all_missing == 0) {
        return Ok(());
    }
    let scheduled: usize = job.scheduled.iter().map(Vec::len).sum();
    let mut why = if ended.interrupted {
        format!("job {id} interrupted")
    } else if failed.is_empty() {
        format!("job {id} ended")
    } else {
        format!("job {id}: {}", failed.join("; "))
    };
    if decided {
        why.push_str(" (the SPRT had decided)");
    } else {
        why.push_str(&format!(
            "; {all_missing} of {scheduled} games missing: `ryoshi match {} --slurm {} --resume` plays them",
            job.config_path.display(),
            job.tasks
        ));
    }
    Err(SlurmError::Unfinished(why).into())
}

/// Appends to `results` the lines of the shards' games it does not hold yet (by game number),
/// in game order: a resumed run adds only its new games, so no game is counted twice. Lines
/// cut off by a killed task are left out. How many were added.
fn merge_into(results: &Path, shard_files: &[PathBuf]) -> Result<usize, MatchError> {
    let known: ahash::AHashSet<u64> = match std::fs::metadata(results) {
        Ok(_) => merge::read_path(results)?
            .rows
            .iter()
            .map(|r| r.game)
            .collect(),
        Err(_) => Default::default(),
    };
    let mut lines: BTreeMap<u64, String> = BTreeMap::new();
    for path in shard_files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for line in text.lines() {
            let Ok(file) = merge::read(line, "") else {
                continue;
            };
            for row in file {
                if !known.contains(&row.game) {
                    lines.entry(row.game).or_insert_with(|| line.to_string());
                }
            }
        }
    }
    let mut file = super::results::ResultsFile::open(results)?;
    for line in lines.values() {
        file.append(line)?;
    }
    Ok(lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATCH: &str = "[[engine]]\nname = \"a\"\ncmd = \"/bin/true\"\n\n\
        [[engine]]\nname = \"b\"\ncmd = \"/bin/true\"\n\n\
        [match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 8\nnodes = 1\n";

    fn job(text: &str, tasks: usize) -> Job {
        let config = Config::read(text, Path::new("/data/m")).unwrap();
        let slurm = config.slurm.clone().unwrap_or_default();
        Job {
            config,
            config_path: "/data/m/engines.toml".into(),
            set: Vec::new(),
            slurm,
            tasks,
            results: "/data/m/results.jsonl".into(),
            shard_files: joint::shard_files(Path::new("/data/m/results.jsonl"), tasks),
            logs: "/data/m/slurm".into(),
            ryoshi: "/opt/ryoshi it's/ryoshi".into(),
            scheduled: vec![Vec::new(); tasks],
        }
    }

    #[test]
    fn the_batch_script_says_every_option_once() {
        let text = format!(
            "{MATCH}concurrency = 2\n[slurm]\npartition = \"short\"\ntime = \"1:00:00\"\n\
             account = \"go\"\nmax_running = 3\nsbatch = [\"--exclusive\"]\n\
             setup = [\"module load python\"]\n"
        );
        let script = batch_script(&job(&text, 4));
        let want = "#!/bin/sh\n\
            # ryoshi match /data/m/engines.toml --slurm 4: task K plays --shard K/4.\n\
            #SBATCH --job-name=ryoshi-results\n\
            #SBATCH --array=1-4%3\n\
            #SBATCH --cpus-per-task=2\n\
            #SBATCH --output=/data/m/slurm/results-%A_%a.out\n\
            #SBATCH --open-mode=append\n\
            #SBATCH --partition=short\n\
            #SBATCH --time=1:00:00\n\
            #SBATCH --account=go\n\
            #SBATCH --exclusive\n\
            module load python\n\
            cd '/data/m'\n\
            exec '/opt/ryoshi it'\\''s/ryoshi' match '/data/m/engines.toml' --shard \"$SLURM_ARRAY_TASK_ID/4\" --resume\n";
        assert_eq!(script, want);
    }

    #[test]
    fn every_task_gets_the_overrides_of_the_command() {
        let mut job = job(MATCH, 2);
        job.set = vec!["match.games=8".into(), "engine.a b.options.X=it's".into()];
        let script = batch_script(&job);
        let last = script.lines().last().unwrap_or_default();
        assert_eq!(
            last,
            "exec '/opt/ryoshi it'\\''s/ryoshi' match '/data/m/engines.toml' \
             --set 'match.games=8' --set 'engine.a b.options.X=it'\\''s' \
             --shard \"$SLURM_ARRAY_TASK_ID/2\" --resume"
        );
    }

    #[test]
    fn unknown_and_unsafe_slurm_keys_are_refused() {
        let error = Config::read(
            &format!("{MATCH}[slurm]\npartiton = \"x\"\n"),
            Path::new(""),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("unknown field `partiton`"), "{error}");
        let config = Config::read(
            &format!("{MATCH}[slurm]\ntime = \"1:00\\n#SBATCH --x\"\n"),
            Path::new(""),
        )
        .unwrap();
        let error = config.slurm.unwrap().check().unwrap_err().to_string();
        assert_eq!(
            error,
            "[slurm] time: no line breaks or other control characters"
        );
    }

    #[test]
    fn an_earlier_run_is_resumed_or_refused() {
        let dir = std::env::temp_dir().join(format!("ryoshi-slurm-earlier-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let results = dir.join("r.jsonl");
        let files = joint::shard_files(&results, 2);
        assert!(check_earlier(&results, &files, 2, false).is_ok());
        std::fs::write(&files[1], "x\n").unwrap();
        let error = check_earlier(&results, &files, 2, false)
            .unwrap_err()
            .to_string();
        assert!(error.contains("r-shard2of2.jsonl exist"), "{error}");
        assert!(check_earlier(&results, &files, 2, true).is_ok());
        let error = check_earlier(&results, &joint::shard_files(&results, 3), 3, true)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("run of 2 tasks: go on with `--slurm 2 --resume`"),
            "{error}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn merging_adds_each_game_once() {
        let dir = std::env::temp_dir().join(format!("ryoshi-slurm-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let results = dir.join("r.jsonl");
        let files = joint::shard_files(&results, 2);
        let line = |n: u32| format!(r#"{{"game":{n},"first":"x","second":"y","result":"first"}}"#);
        std::fs::write(&files[0], format!("{}\n{}\n{{\"ga\n", line(1), line(3))).unwrap();
        std::fs::write(&files[1], format!("{}\n", line(2))).unwrap();
        assert_eq!(merge_into(&results, &files).unwrap(), 3);
        // Resumed: shard 2 played game 4, and game 2 again (a requeued task).
        std::fs::write(
            &files[1],
            format!("{}\n{}\n{}\n", line(2), line(4), line(2)),
        )
        .unwrap();
        assert_eq!(merge_into(&results, &files).unwrap(), 1);
        let text = std::fs::read_to_string(&results).unwrap();
        let numbers: Vec<u64> = merge::read(&text, "r")
            .unwrap()
            .iter()
            .map(|r| r.game)
            .collect();
        assert_eq!(numbers, [1, 2, 3, 4]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
