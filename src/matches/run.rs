//! The games of a run: the workers that play them, and the runner's side that writes each
//! finished game, counts it, shows it and decides when the match stops.

use super::collection::{self, Collection, Entry};
use super::config::Config;
use super::engine::Failure;
use super::error::MatchError;
use super::game::{self, Context, FinishedGame, Fixture, Slots};
use super::joint::Joint;
use super::referee::Side;
use super::results::{self, ResultsFile};
use super::schedule::Plan;
use super::stats::{Sprt, SprtState};
use super::summary::{finished_line, progress_message, report, summary_text, Standing, Summary};
use super::Hooks;
use crossbeam_channel::{bounded, unbounded, RecvTimeoutError};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Starts every engine once before the first game (see [`game::start_all`]); an engine that
/// cannot start or finish its handshake is the error. A stop (Ctrl-C) meanwhile is no error:
/// the run then plays nothing.
pub fn start_engines(ctx: &Context) -> Result<Slots, MatchError> {
    match game::start_all(ctx) {
        Ok(slots) => Ok(slots),
        Err((_, Failure::Stopped)) => Ok(Vec::new()),
        Err((idx, failure)) => {
            let (reason, why) = game::failure_reason(&failure, false);
            let (name, cmd) = name_and_cmd(&ctx.config, idx);
            Err(MatchError::EngineStart {
                name,
                cmd,
                why: format!("{reason}: {why}"),
            })
        }
    }
}

/// Engine `idx`'s name and its command line, as the errors quote them.
fn name_and_cmd(config: &Config, idx: usize) -> (String, String) {
    let name = config.play.engines[idx].clone();
    let cmd = config.engine(&name).map_or_else(String::new, |e| {
        std::iter::once(&e.cmd)
            .chain(&e.args)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    });
    (name, cmd)
}

/// The progress bar: games done, the time left at the pace so far, the first pair's score.
const PROGRESS: &str = "{bar:30} {pos}/{len} games  ETA {eta}  {msg}";

/// Where the finished games go: the results file and the records folder, with the run's name,
/// and the run's collection file (for a game with a record format).
struct Outputs {
    results: ResultsFile,
    records_dir: PathBuf,
    run: String,
    collection: Option<Collection>,
}

/// The runner's side of a run: what it has counted, printed and written so far.
pub struct Runner<'a, 'o> {
    config: &'a Config,
    hooks: &'a Hooks<'a>,
    out: &'o mut dyn Write,
    standing: Standing,
    summary: Summary,
    sprt: Option<Sprt>,
    outputs: Option<Outputs>,
    bar: ProgressBar,
    /// Per engine, the games in a row in which its process was lost.
    lost_in_a_row: Vec<u32>,
    error: Option<MatchError>,
    /// A shard's SPRT over all the shards' results files (see [`super::joint`]).
    joint: Option<Joint>,
    /// When this run's first game was handed out, and the games it has finished: the report's
    /// pace.
    started: Instant,
    played: usize,
    /// The games of the run's collection: the kept ones, then each written as it finished.
    collected: Vec<Entry>,
}

impl<'a, 'o> Runner<'a, 'o> {
    /// The standing after the games `plan` keeps (`--resume`).
    pub fn new(
        config: &'a Config,
        plan: &Plan,
        hooks: &'a Hooks<'a>,
        out: &'o mut dyn Write,
    ) -> Self {
        let names = &config.play.engines;
        let mut standing = Standing::new(names, &config.pairs());
        for k in &plan.kept {
            let job = &plan.scheduled[k.job];
            standing.count(job, names, k.row.result, k.row.final_scores());
        }
        let sprt = config.play.sprt.map(Sprt::new);
        let joint = config
            .play
            .shard
            .zip(config.play.sprt)
            .and_then(|(shard, sprt)| {
                Joint::new(&config.resolve(&config.play.results), shard, sprt)
            });
        let summary = Summary {
            pairs: Vec::new(),
            finished: plan.kept.len(),
            scheduled: plan.scheduled.len(),
            interrupted: false,
            stopped: false,
            sprt: sprt.map(|_| SprtState::Continue),
        };
        Runner {
            config,
            hooks,
            out,
            standing,
            summary,
            sprt,
            outputs: None,
            bar: ProgressBar::hidden(),
            lost_in_a_row: vec![0; names.len()],
            error: None,
            joint,
            started: Instant::now(),
            played: 0,
            collected: plan.kept.iter().map(|k| Entry::of(&k.row)).collect(),
        }
    }

    /// The games still to play: none when the kept games already decided the SPRT.
    pub fn left_to_play(&mut self, jobs: Vec<Fixture>) -> Vec<Fixture> {
        if let Some(sprt) = &self.sprt {
            let state = sprt.state(&self.standing.pairs[0].penta);
            self.summary.sprt = Some(state);
            if self.config.play.resume
                && state != SprtState::Continue
                && self.config.play.shard.is_none()
            {
                return Vec::new();
            }
        }
        if self.joint_decided() {
            return Vec::new();
        }
        jobs
    }

    /// Whether the SPRT of all the shards' games has decided (reading what their files
    /// gained); false for a run that is no shard or has no SPRT. Files that belong to two
    /// matches stop the run with the error.
    fn joint_decided(&mut self) -> bool {
        let Some(joint) = self.joint.as_mut() else {
            return false;
        };
        match joint.refresh() {
            Ok(SprtState::Continue) => false,
            Ok(_) => {
                self.hooks.stop.store(true, Ordering::SeqCst);
                true
            }
            Err(error) => {
                self.error.get_or_insert(error.into());
                self.hooks.stop.store(true, Ordering::SeqCst);
                true
            }
        }
    }

    /// Opens the results file and says where everything goes, before the first game: results
    /// accumulate over runs (as cutechess and fastchess append to their PGN), each run's records
    /// carry its own name.
    pub fn open(&mut self, plan: &Plan, to_play: usize) -> Result<(), MatchError> {
        let config = self.config;
        let results_path = config.resolve(&config.play.results);
        let results = ResultsFile::open(&results_path)?;
        let records_dir = config.resolve(&config.play.records);
        let run = results::run_name(&records_dir);
        let full = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let _ = writeln!(
            self.out,
            "Results: {} (appended; {} earlier results kept)\nRecords: {}",
            full(&results_path).display(),
            results.earlier_results(),
            full(&records_dir)
                .join(format!("{run}-game-NNNNN.txt"))
                .display(),
        );
        if results.ended_cut_line {
            let _ = writeln!(
                self.out,
                "Its last line was cut off (a killed run?): ended, and set aside when read"
            );
        }
        let _ = write!(self.out, "{}", plan.notes);
        if config.play.resume {
            let _ = writeln!(
                self.out,
                "Resuming: {} of the {} games already played, {to_play} to play",
                plan.kept.len(),
                self.summary.scheduled
            );
        }
        let collection = match collection::Format::of(config.play.variant) {
            Some(format) => {
                self.collected.sort_by_key(|e| e.game);
                // Shards share the records folder and may start in the same second.
                let name = match config.play.shard {
                    Some(shard) => format!("{run}-shard{}of{}", shard.index, shard.count),
                    None => run.clone(),
                };
                let (collection, missing) =
                    Collection::create(&records_dir, &name, format, &self.collected)?;
                let _ = writeln!(self.out, "Collection: {}", full(&collection.path).display());
                let _ = write!(self.out, "{}", missing.note());
                Some(collection)
            }
            None => None,
        };
        self.outputs = Some(Outputs {
            results,
            records_dir,
            run,
            collection,
        });
        if self.hooks.progress {
            self.bar = ProgressBar::new(to_play as u64);
            if let Ok(style) = ProgressStyle::with_template(PROGRESS) {
                self.bar.set_style(style);
            }
        }
        Ok(())
    }

    /// Plays `jobs` on `concurrency` workers, the first of which starts with `slots`, and takes
    /// in each finished game as it comes.
    pub fn play(&mut self, ctx: &Arc<Context>, jobs: Vec<Fixture>, slots: Slots) {
        let (job_tx, job_rx) = unbounded::<Fixture>();
        // A rendezvous: a worker hands over a finished game before it starts another, so a stop
        // (a decided SPRT) is seen after at most one more game per worker.
        let (done_tx, done_rx) = bounded::<FinishedGame>(0);
        let workers = self.config.play.concurrency.min(jobs.len()).max(1);
        for job in jobs {
            let _ = job_tx.send(job);
        }
        drop(job_tx);
        self.started = Instant::now();
        let mut first = Some(slots);
        // A worker the system refuses is no worker: the others play its games. Only with none
        // at all does the match stop (the games stay unplayed, as after an interrupt).
        let mut handles = Vec::with_capacity(workers);
        let mut refused = None;
        for _ in 0..workers {
            let (ctx, job_rx, done_tx) = (ctx.clone(), job_rx.clone(), done_tx.clone());
            let slots = first.take().unwrap_or_default();
            match thread::Builder::new().spawn(move || work(&ctx, &job_rx, &done_tx, slots)) {
                Ok(handle) => handles.push(handle),
                Err(error) => refused = Some(error),
            }
        }
        if let (true, Some(error)) = (handles.is_empty(), refused) {
            self.error.get_or_insert(MatchError::NoWorker(error));
        }
        drop(done_tx);
        let mut idle = 0u32;
        loop {
            if !self.summary.interrupted && (self.hooks.interrupted)() {
                self.summary.interrupted = true;
                self.hooks.stop.store(true, Ordering::SeqCst);
            }
            match done_rx.recv_timeout(Duration::from_millis(50)) {
                Ok(finished) => self.take(finished),
                Err(RecvTimeoutError::Timeout) => {
                    // Another shard's decision stops this one within a second, its games in
                    // progress abandoned, however long they are.
                    idle += 1;
                    if idle.is_multiple_of(20) {
                        self.joint_decided();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        for handle in handles {
            let _ = handle.join();
        }
        self.bar.finish_and_clear();
    }

    /// One finished game: its record and its results line, counted, shown, and checked against
    /// the SPRT and the engines' failures in a row.
    fn take(&mut self, finished: FinishedGame) {
        let config = self.config;
        // A game finished after the shards' SPRT decided is not counted, as a single run
        // abandons the games in progress when its SPRT decides.
        if self.joint_decided() {
            return;
        }
        if let Some(outputs) = self.outputs.as_mut() {
            let written =
                results::write_record(&outputs.records_dir, &outputs.run, config, &finished);
            let game = finished.job.game as u64;
            let written = written.and_then(|(path, text)| {
                if let (Some(collection), Some(text)) = (outputs.collection.as_mut(), text) {
                    collection.append(game, &text)?;
                }
                Ok(path)
            });
            let record = match written {
                Ok(path) => {
                    self.collected.push(Entry {
                        game,
                        record: Some(path.clone()),
                    });
                    Some(path)
                }
                // The records are the match's output too (a full disk, a `records` that is a
                // file): the line is still written, then the match stops.
                Err(e) => {
                    self.error.get_or_insert(e.into());
                    self.hooks.stop.store(true, Ordering::SeqCst);
                    None
                }
            };
            let line = results::json_line(config, &finished, record.as_deref());
            if let Err(e) = outputs.results.append(&line) {
                // The results file is the match's output: without it, stop.
                self.error.get_or_insert(e.into());
                self.hooks.stop.store(true, Ordering::SeqCst);
            }
        }
        self.summary.finished += 1;
        self.played += 1;
        let checks = finished.engine_scores.iter();
        let checks = checks.map(|c| (c.engine.as_str(), c.agrees));
        let names = &config.play.engines;
        self.standing
            .count(&finished.job, names, finished.end.verdict, checks);
        let line = finished_line(&finished);
        let out = &mut *self.out;
        self.bar.suspend(|| {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        });
        self.bar.inc(1);
        self.bar.set_message(progress_message(&self.standing.pairs));
        self.count_lost(&finished);
        if let Some(sprt) = &self.sprt {
            let state = sprt.state(&self.standing.pairs[0].penta);
            self.summary.sprt = Some(state);
            // A shard's own games decide nothing: only all the shards' together may.
            if state != SprtState::Continue && config.play.shard.is_none() {
                self.hooks.stop.store(true, Ordering::SeqCst);
            }
        }
        self.joint_decided();
        let every = config.play.report_every as usize;
        if config.play.reports && every > 0 && self.summary.finished.is_multiple_of(every) {
            self.print_report();
        }
    }

    /// The report of `report_every`: the score so far and the time left at this run's pace.
    fn print_report(&mut self) {
        let left = self.summary.scheduled.saturating_sub(self.summary.finished);
        let per_game = self.started.elapsed() / self.played.max(1) as u32;
        let text = report(
            &self.standing.pairs,
            self.sprt.as_ref(),
            self.summary.finished,
            self.summary.scheduled,
            per_game.checked_mul(left as u32),
        );
        let _ = write!(self.out, "{text}");
        let _ = self.out.flush();
    }

    /// Counts the games in a row each engine's process was lost in; at `crash_limit` the match
    /// stops with [`MatchError::EngineDied`].
    fn count_lost(&mut self, game: &FinishedGame) {
        let limit = self.config.play.crash_limit;
        for side in [Side::First, Side::Second] {
            let idx = match side {
                Side::First => game.job.first,
                Side::Second => game.job.second,
            };
            if !game.lost[side.index()] {
                self.lost_in_a_row[idx] = 0;
                continue;
            }
            self.lost_in_a_row[idx] += 1;
            // An earlier error (a record not written) does not turn the limit off.
            if limit > 0 && self.lost_in_a_row[idx] >= limit && !self.summary.stopped {
                let (name, cmd) = name_and_cmd(self.config, idx);
                let why = format!(
                    "{}: {}",
                    game.end.reason,
                    game.detail.as_deref().unwrap_or("")
                );
                self.error.get_or_insert(MatchError::EngineDied {
                    name,
                    cmd,
                    count: self.lost_in_a_row[idx],
                    why,
                });
                self.summary.stopped = true;
                self.hooks.stop.store(true, Ordering::SeqCst);
            }
        }
    }

    /// Prints the summary; the match's error, if it had one, after it. The collection is made
    /// whole in game order first.
    pub fn finish(mut self) -> Result<Summary, MatchError> {
        if let Some(collection) = self.outputs.as_mut().and_then(|o| o.collection.take()) {
            self.collected.sort_by_key(|e| e.game);
            match collection.finish(&self.collected) {
                Ok(missing) => {
                    let _ = write!(self.out, "{}", missing.note());
                }
                Err(e) => {
                    self.error.get_or_insert(e.into());
                }
            }
        }
        for (engine, (agreed, scored)) in &self.standing.checks {
            let _ = writeln!(
                self.out,
                "final_score of {engine}: agrees with the referee in {agreed} of {scored} scored games"
            );
        }
        self.summary.pairs = self.standing.pairs;
        if let Some(joint) = &self.joint {
            let pairs = joint.pairs();
            if let ([pair], Some(sprt)) = (pairs.as_slice(), joint.sprt()) {
                let _ = writeln!(
                    self.out,
                    "All shards: {} games; {}",
                    joint.games().len(),
                    sprt.line(&pair.penta)
                );
            }
        }
        let _ = write!(
            self.out,
            "{}",
            summary_text(&self.summary, self.sprt.as_ref())
        );
        let _ = self.out.flush();
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.summary),
        }
    }
}

/// A worker: plays games from `jobs` until there are none or the runner stops, then quits its
/// engines.
fn work(
    ctx: &Context,
    jobs: &crossbeam_channel::Receiver<Fixture>,
    done: &crossbeam_channel::Sender<FinishedGame>,
    mut slots: Slots,
) {
    slots.resize_with(ctx.config.play.engines.len(), || None);
    for job in jobs.iter() {
        if ctx.stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(finished) = game::play(ctx, &job, &mut slots) else {
            break;
        };
        if done.send(finished).is_err() {
            break;
        }
    }
    for engine in slots.into_iter().flatten() {
        engine.quit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_shows_an_eta() {
        assert!(PROGRESS.contains("ETA {eta}"));
        assert!(ProgressStyle::with_template(PROGRESS).is_ok());
    }
}
