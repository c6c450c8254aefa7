//! The match runner: engines.toml, engine processes, referee, results, statistics.
//!
//! `ryoshi match [CONFIG]` plays games between engine processes over USI, checks every move with
//! ryoshi's own rules (a [`Referee`] per variant), and keeps going whatever an engine does: an
//! illegal or garbled move, a flag fall, a crash, a hang or a closed pipe loses that game and the
//! engine is restarted for the next one. Each finished game is appended to the results file and
//! written as a game record at once; the summary follows cutechess-cli. See `protocol/match.md`.

pub(crate) mod clock;
pub mod config;
pub mod engine;
pub mod game;
pub mod gtp;
pub mod merge;
pub mod opening;
pub mod referee;
pub mod results;
pub mod resume;
pub(crate) mod signal;
pub mod stats;

pub use config::Config;
pub use referee::{GameEnd, GameView, Reason, Referee, RefereeFactory, Side, Verdict};

use crossbeam_channel::{bounded, unbounded, RecvTimeoutError};
use game::{Context, FinishedGame, Fixture};
use indicatif::{ProgressBar, ProgressStyle};
use opening::Opening;
use stats::{Sprt, SprtState, Tally};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// `ryoshi match CONFIG [--shard K/N] [--resume]`.
pub fn run_cli(config: &str, shard: Option<&str>, resume: bool) -> Result<(), String> {
    let mut config = Config::load(Path::new(config))?;
    config.play.shard = shard.map(config::Shard::parse).transpose()?;
    config.play.resume = resume;
    if let Some(shard) = config.play.shard {
        config.play.results = shard.results_path(&config.play.results);
    }
    let factory = referee_for_config(&config)?;
    signal::install();
    signal::ignore_sigpipe();
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted: &signal::interrupted,
        progress: std::io::stderr().is_terminal(),
    };
    let mut stdout = std::io::stdout();
    run_match(&config, factory, &hooks, &mut stdout).map(|_| ())
}

/// The rules for a variant, as a referee factory.
pub fn referee_for(variant: config::VariantName) -> Result<Arc<RefereeFactory>, String> {
    Ok(referee::factory(variant))
}

/// The rules of a configured match (Go's board size and komi), as a referee factory.
pub fn referee_for_config(config: &Config) -> Result<Arc<RefereeFactory>, String> {
    referee::factory_for(config.play.variant, config.board_size(), config.komi())
}

/// How the runner is watched and stopped from outside.
pub struct Hooks<'a> {
    /// Set to stop handing out games and to abandon the ones in progress.
    pub stop: Arc<AtomicBool>,
    /// Polled while games run; true = the user interrupted (Ctrl-C).
    pub interrupted: &'a (dyn Fn() -> bool + Sync),
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// One pair of engines and its score, from `a`'s side.
#[derive(Debug, Clone, PartialEq)]
pub struct PairScore {
    pub a: String,
    pub b: String,
    pub tally: Tally,
}

/// A match's counts so far, kept and played games alike: each pair's score, and per GTP engine
/// its `final_score` checks (the scored games where it agreed with the referee, and all).
struct Standing {
    pairs: Vec<PairScore>,
    checks: std::collections::BTreeMap<String, (usize, usize)>,
}

impl Standing {
    fn new(names: &[String]) -> Standing {
        let pairs = pairs(names.len()).into_iter().map(|(a, b)| PairScore {
            a: names[a].clone(),
            b: names[b].clone(),
            tally: Tally::default(),
        });
        Standing {
            pairs: pairs.collect(),
            checks: Default::default(),
        }
    }

    /// Counts one game of `job`: its verdict, and the `final_score` checks (engine, agrees).
    fn count<'a>(
        &mut self,
        job: &Fixture,
        names: &[String],
        verdict: Verdict,
        checks: impl Iterator<Item = (&'a str, bool)>,
    ) {
        let score = &mut self.pairs[job.pair];
        score.tally.add(verdict, names[job.first] == score.a);
        for (engine, agrees) in checks {
            let tally = self.checks.entry(engine.to_string()).or_default();
            tally.0 += usize::from(agrees);
            tally.1 += 1;
        }
    }
}

/// What a match ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub pairs: Vec<PairScore>,
    pub finished: usize,
    pub scheduled: usize,
    pub interrupted: bool,
    pub sprt: Option<SprtState>,
}

/// The engine pairs of a round robin, in the order the engines are listed.
pub fn pairs(n: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            v.push((i, j));
        }
    }
    v
}

/// The openings the match needs, one per two games (colours swapped).
fn openings(
    config: &Config,
    factory: &RefereeFactory,
    count: usize,
) -> Result<Vec<Opening>, String> {
    let m = &config.play;
    if let Some(path) = &m.openings {
        let path = config.resolve(path);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let list =
            opening::parse_file(&text, factory).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((0..count).map(|k| list[k % list.len()].clone()).collect());
    }
    if let Some(min) = m.opening_plies {
        let max = m.opening_plies_max.unwrap_or(min);
        let random: Result<Vec<Opening>, _> = (0..count)
            .map(|k| {
                let plies = opening::random_length(min, max, m.seed, k);
                opening::random_opening(factory, plies, m.seed, k)
            })
            .collect();
        return Ok(random?);
    }
    Ok(vec![Opening::startpos(); count])
}

/// Writes out the start position where `startpos` would not say it: a Go board other than
/// 19×19 (USI engines read `startpos` as the empty 19×19 board). GTP engines cannot be given an
/// Othello position other than the start (GTP has no set-up command for it): an error.
fn start_explicitly(
    config: &Config,
    factory: &RefereeFactory,
    openings: &mut [Opening],
) -> Result<(), String> {
    let mut referee = factory();
    referee.set_start(None)?;
    let start = referee.position();
    if config.play.variant == config::VariantName::Go && config.board_size() != 19 {
        for opening in openings.iter_mut().filter(|o| o.sfen.is_none()) {
            opening.sfen = Some(start.clone());
        }
    }
    let gtp = config.play.engines.iter().any(|name| {
        config
            .engine(name)
            .is_some_and(|e| e.protocol == config::Protocol::Gtp)
    });
    if gtp && config.play.variant == config::VariantName::Othello {
        for opening in openings.iter() {
            if let Some(sfen) = &opening.sfen {
                referee.set_start(Some(sfen))?;
                if referee.position() != start {
                    return Err(format!(
                        "opening `{opening}`: GTP engines start Othello games from the start position only"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The games in the order they are handed out: round by round, each pair plays an opening
/// twice with colours swapped.
pub fn schedule(config: &Config, openings: &[Arc<Opening>]) -> Vec<Fixture> {
    let games = config.play.games as usize;
    let pairs = pairs(config.play.engines.len());
    let mut jobs = Vec::new();
    for (k, opening) in openings.iter().enumerate().take(games.div_ceil(2)) {
        for (p, &(a, b)) in pairs.iter().enumerate() {
            for g in [2 * k, 2 * k + 1] {
                if g >= games {
                    continue;
                }
                let (first, second) = if g % 2 == 0 { (a, b) } else { (b, a) };
                jobs.push(Fixture {
                    game: jobs.len() + 1,
                    pair: p,
                    first,
                    second,
                    opening_index: k,
                    opening: opening.clone(),
                });
            }
        }
    }
    jobs
}

/// Plays the match; returns the summary, which is also printed to `out`.
pub fn run_match(
    config: &Config,
    factory: Arc<RefereeFactory>,
    hooks: &Hooks,
    out: &mut dyn Write,
) -> Result<Summary, String> {
    let rounds = (config.play.games as usize).div_ceil(2);
    let mut openings = openings(config, factory.as_ref(), rounds)?;
    start_explicitly(config, factory.as_ref(), &mut openings)?;
    let openings: Vec<Arc<Opening>> = openings.into_iter().map(Arc::new).collect();
    let mut jobs = schedule(config, &openings);
    if let Some(shard) = config.play.shard {
        jobs.retain(|job| shard.holds(job.game));
    }
    let results_path = config.resolve(&config.play.results);
    let names = &config.play.engines;
    let kept = if config.play.resume {
        resume::kept(&results_path, &jobs, names)?
    } else {
        Vec::new()
    };
    let mut results = results::ResultsFile::open(&results_path)?;
    let records_dir = config.resolve(&config.play.records);
    let run = results::run_name(&records_dir);
    // Say where everything goes before the first game: results accumulate over runs (as
    // cutechess and fastchess append to their PGN), each run's records carry its own name.
    let full = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let _ = writeln!(
        out,
        "Results: {} (appended; {} earlier results kept)\nRecords: {}",
        full(&results_path).display(),
        results.earlier_results(),
        full(&records_dir)
            .join(format!("{run}-game-NNNNN.txt"))
            .display(),
    );

    let mut standing = Standing::new(names);
    let scheduled = jobs.len();
    let mut played = vec![false; jobs.len()];
    for k in &kept {
        played[k.job] = true;
        standing.count(&jobs[k.job], names, k.row.result, k.row.final_scores());
    }
    let mut jobs: Vec<Fixture> = jobs
        .into_iter()
        .zip(played)
        .filter_map(|(job, played)| (!played).then_some(job))
        .collect();
    let sprt = config.play.sprt.map(Sprt::new);
    let mut summary = Summary {
        pairs: Vec::new(),
        finished: kept.len(),
        scheduled,
        interrupted: false,
        sprt: sprt.map(|_| SprtState::Continue),
    };
    if config.play.resume {
        let _ = writeln!(
            out,
            "Resuming: {} of the {scheduled} games already played, {} to play",
            kept.len(),
            jobs.len()
        );
        // A match the kept games already decided plays no more.
        if let Some(sprt) = &sprt {
            let state = sprt.state(&standing.pairs[0].tally);
            summary.sprt = Some(state);
            if state != SprtState::Continue && config.play.shard.is_none() {
                jobs.clear();
            }
        }
    }

    let bar = if hooks.progress {
        let bar = ProgressBar::new(jobs.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };

    let ctx = Arc::new(Context {
        config: Arc::new(config.clone()),
        factory,
        stop: hooks.stop.clone(),
    });
    let (job_tx, job_rx) = unbounded::<Fixture>();
    // A rendezvous: a worker hands over a finished game before it starts another, so a stop
    // (a decided SPRT) is seen after at most one more game per worker.
    let (done_tx, done_rx) = bounded::<FinishedGame>(0);
    let workers = config.play.concurrency.min(jobs.len()).max(1);
    for job in jobs {
        let _ = job_tx.send(job);
    }
    drop(job_tx);
    let mut handles = Vec::new();
    for _ in 0..workers {
        let ctx = ctx.clone();
        let job_rx = job_rx.clone();
        let done_tx = done_tx.clone();
        handles.push(thread::spawn(move || {
            let mut slots: game::Slots = (0..ctx.config.play.engines.len()).map(|_| None).collect();
            for job in job_rx.iter() {
                if ctx.stop.load(Ordering::Relaxed) {
                    break;
                }
                match game::play(&ctx, &job, &mut slots) {
                    Some(finished) => {
                        if done_tx.send(finished).is_err() {
                            break;
                        }
                    }
                    None => break,
                }
            }
            for engine in slots.into_iter().flatten() {
                engine.quit();
            }
        }));
    }
    drop(done_tx);

    let mut error = None;
    loop {
        if !summary.interrupted && (hooks.interrupted)() {
            summary.interrupted = true;
            hooks.stop.store(true, Ordering::SeqCst);
            signal::restore_default();
        }
        let finished = match done_rx.recv_timeout(Duration::from_millis(50)) {
            Ok(finished) => finished,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let record = match results::write_record(&records_dir, &run, config, &finished) {
            Ok(path) => Some(path),
            Err(e) => {
                error.get_or_insert(e.to_string());
                None
            }
        };
        if let Err(e) = results.append(&results::json_line(config, &finished, record.as_deref())) {
            // The results file is the match's output: without it, stop.
            error.get_or_insert(e.to_string());
            hooks.stop.store(true, Ordering::SeqCst);
        }
        summary.finished += 1;
        let checks = finished.engine_scores.iter();
        let checks = checks.map(|c| (c.engine.as_str(), c.agrees));
        standing.count(&finished.job, names, finished.end.verdict, checks);
        let line = finished_line(&finished);
        bar.suspend(|| {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        });
        bar.inc(1);
        bar.set_message(progress_message(&standing.pairs));
        if let Some(sprt) = &sprt {
            let state = sprt.state(&standing.pairs[0].tally);
            summary.sprt = Some(state);
            // A shard plays all its games: only the merged results may decide.
            if state != SprtState::Continue && config.play.shard.is_none() {
                hooks.stop.store(true, Ordering::SeqCst);
            }
        }
    }
    for handle in handles {
        let _ = handle.join();
    }
    bar.finish_and_clear();
    for (engine, (agreed, scored)) in &standing.checks {
        let _ = writeln!(
            out,
            "final_score of {engine}: agrees with the referee in {agreed} of {scored} scored games"
        );
    }
    summary.pairs = standing.pairs;
    let _ = write!(out, "{}", summary_text(&summary, sprt.as_ref()));
    let _ = out.flush();
    match error {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// `Finished game 3 (a vs b): 1-0 {a wins by king capture}`.
fn finished_line(game: &FinishedGame) -> String {
    let what = match game.end.verdict {
        Verdict::Win(Side::First) => format!("{} wins by {}", game.first, game.end.reason),
        Verdict::Win(Side::Second) => format!("{} wins by {}", game.second, game.end.reason),
        Verdict::Draw => format!("draw by {}", game.end.reason),
    };
    let detail = match &game.detail {
        Some(d) if !d.is_empty() => format!(": {d}"),
        _ => String::new(),
    };
    format!(
        "Finished game {} ({} vs {}): {} {{{what}{detail}}}",
        game.job.game,
        game.first,
        game.second,
        game.end.verdict.score()
    )
}

fn progress_message(pairs: &[PairScore]) -> String {
    let Some(p) = pairs.first() else {
        return String::new();
    };
    let t = &p.tally;
    let elo = t
        .elo()
        .map(|e| match e.columns() {
            (bound, dash) if dash == "-" => bound,
            (diff, err) => format!("{diff} +/- {err}"),
        })
        .unwrap_or_default();
    format!(
        "{} vs {}: {} - {} - {}  Elo {elo}",
        p.a, p.b, t.wins, t.losses, t.draws
    )
}

/// The end-of-match text: per pair the score line and the Elo line, then the SPRT line.
pub fn summary_text(summary: &Summary, sprt: Option<&Sprt>) -> String {
    let mut s = String::new();
    if summary.interrupted {
        s.push_str(&format!(
            "Interrupted: summary of the {} finished games of {}\n",
            summary.finished, summary.scheduled
        ));
    }
    for p in &summary.pairs {
        s.push_str(&p.tally.score_line(&p.a, &p.b));
        s.push('\n');
        s.push_str(&p.tally.elo_line());
        s.push('\n');
    }
    if let (Some(sprt), Some(p)) = (sprt, summary.pairs.first()) {
        s.push_str(&sprt.line(&p.tally));
        s.push('\n');
    }
    if summary.pairs.len() > 1 {
        s.push_str(&standings(&summary.pairs));
    }
    if !summary.interrupted {
        s.push_str("Finished match\n");
    }
    s
}

/// A round robin's table: each engine's games against the whole field, best score first
/// (ties keep the listed order), with the Elo of that score and its 95% `+/-`.
pub fn standings(pairs: &[PairScore]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for p in pairs {
        for n in [p.a.as_str(), p.b.as_str()] {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let mut rows: Vec<(&str, Tally)> = names
        .iter()
        .map(|&name| {
            let mut t = Tally::default();
            for p in pairs {
                let (w, l) = if p.a == name {
                    (p.tally.wins, p.tally.losses)
                } else if p.b == name {
                    (p.tally.losses, p.tally.wins)
                } else {
                    continue;
                };
                t.wins += w;
                t.losses += l;
                t.draws += p.tally.draws;
            }
            (name, t)
        })
        .collect();
    rows.sort_by(|x, y| {
        let (a, b) = (x.1.score().unwrap_or(0.0), y.1.score().unwrap_or(0.0));
        b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal)
    });
    let width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    let mut s = format!(
        "Rank {:<width$} {:>7} {:>7} {:>6} {:>7} {:>6}\n",
        "Name", "Elo", "+/-", "Games", "Score", "Draw"
    );
    for (rank, (name, t)) in rows.iter().enumerate() {
        let (elo, err) = t.elo().map(|e| e.columns()).unwrap_or_default();
        s.push_str(&format!(
            "{:>4} {name:<width$} {elo:>7} {err:>7} {:>6} {:>6.1}% {:>5.1}%\n",
            rank + 1,
            t.games(),
            100.0 * t.score().unwrap_or(0.0),
            100.0 * t.draw_ratio()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(engines: &[&str], games: u32) -> Config {
        let mut text = String::new();
        for name in engines {
            text.push_str(&format!("[[engine]]\nname = \"{name}\"\ncmd = \"x\"\n\n"));
        }
        let names: Vec<String> = engines.iter().map(|n| format!("{n:?}")).collect();
        text.push_str(&format!(
            "[match]\nvariant = \"othello\"\nengines = [{}]\ngames = {games}\nnodes = 1\n",
            names.join(", ")
        ));
        Config::parse(&text, Path::new("")).unwrap()
    }

    #[test]
    fn schedule_swaps_colours_per_opening_and_interleaves_pairs() {
        let c = config(&["a", "b", "c"], 3);
        let openings: Vec<Arc<Opening>> = (0..2)
            .map(|k| Arc::new(Opening::parse(&format!("startpos moves m{k}")).unwrap()))
            .collect();
        let jobs = schedule(&c, &openings);
        let shape: Vec<(usize, usize, usize, usize)> = jobs
            .iter()
            .map(|j| (j.pair, j.first, j.second, j.opening_index))
            .collect();
        assert_eq!(
            shape,
            [
                (0, 0, 1, 0),
                (0, 1, 0, 0),
                (1, 0, 2, 0),
                (1, 2, 0, 0),
                (2, 1, 2, 0),
                (2, 2, 1, 0),
                (0, 0, 1, 1),
                (1, 0, 2, 1),
                (2, 1, 2, 1),
            ]
        );
        let numbers: Vec<usize> = jobs.iter().map(|j| j.game).collect();
        assert_eq!(numbers, (1..=9).collect::<Vec<_>>());
        assert_eq!(jobs[6].opening.moves, ["m1"]);
    }

    #[test]
    fn openings_files_as_documented() {
        let quantum = referee_for(config::VariantName::QuantumShogi).unwrap();
        let text = "# quantum shogi\nstartpos moves 7g7f 3c3d\n\nposition startpos moves 2g2f\n\
            sfen qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1 moves 5g5f\n";
        let list = opening::parse_file(text, quantum.as_ref()).unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list[1].to_string(), "startpos moves 2g2f");
        assert!(list[2].sfen.is_some());
        let err = opening::parse_file(
            "startpos moves 7g7f\nstartpos moves 7g7a\n",
            quantum.as_ref(),
        )
        .unwrap_err();
        assert!(err.starts_with("line 2: move 1 `7g7a`"), "{err}");

        let othello = referee_for(config::VariantName::Othello).unwrap();
        let text = "startpos moves f5 d6 c3\n\
            sfen ---------------------------OX------XO--------------------------- b\n";
        let list = opening::parse_file(text, othello.as_ref()).unwrap();
        assert_eq!(list[0].moves, ["f5", "d6", "c3"]);
        assert!(opening::parse_file("startpos moves f5 f5\n", othello.as_ref()).is_err());
        assert!(opening::parse_file("# nothing\n", othello.as_ref()).is_err());
    }

    #[test]
    fn random_openings_depend_on_seed_and_index_only() {
        let quantum = referee_for(config::VariantName::QuantumShogi).unwrap();
        let a = opening::random_opening(quantum.as_ref(), 4, 9, 3).unwrap();
        let b = opening::random_opening(quantum.as_ref(), 4, 9, 3).unwrap();
        let c = opening::random_opening(quantum.as_ref(), 4, 9, 4).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.moves.len(), 4);
        let mut referee = quantum();
        a.replay(referee.as_mut()).unwrap();
    }

    #[test]
    fn random_opening_lengths_cover_the_range_and_depend_on_seed_and_index() {
        let lengths: Vec<u32> = (0..200)
            .map(|k| opening::random_length(2, 4, 7, k))
            .collect();
        for plies in 2..=4 {
            assert!(lengths.contains(&plies), "{plies} never drawn");
        }
        assert!(lengths.iter().all(|&n| (2..=4).contains(&n)));
        let again: Vec<u32> = (0..200)
            .map(|k| opening::random_length(2, 4, 7, k))
            .collect();
        assert_eq!(lengths, again);
        assert_eq!(opening::random_length(3, 3, 7, 5), 3);
    }

    #[test]
    fn standings_add_each_engines_games() {
        let pair = |a: &str, b: &str, wins, losses, draws| PairScore {
            a: a.into(),
            b: b.into(),
            tally: Tally {
                wins,
                losses,
                draws,
            },
        };
        let table = standings(&[
            pair("a", "b", 1, 2, 1),
            pair("a", "c", 3, 0, 1),
            pair("b", "c", 2, 2, 0),
        ]);
        let rows: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            rows[0],
            ["Rank", "Name", "Elo", "+/-", "Games", "Score", "Draw"]
        );
        // a: 4 - 2 - 2 (62.5%, +88.7 Elo), b: 4 - 3 - 1 (56.25%), c: 2 - 5 - 1 (31.25%).
        assert_eq!(rows[1], ["1", "a", "88.7", "261.9", "8", "62.5%", "25.0%"]);
        assert_eq!(rows[2][..2], ["2", "b"]);
        assert_eq!(rows[2][4..], ["8", "56.2%", "12.5%"]);
        assert_eq!(rows[3][..2], ["3", "c"]);
        assert_eq!(rows[3][4..], ["8", "31.2%", "12.5%"]);
        assert_eq!(rows.len(), 4);
    }
}
