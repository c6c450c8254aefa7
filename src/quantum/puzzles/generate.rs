//! `ryoshi puzzles`: plays seeded self-play games with short searches, looks at every position
//! with df-pn, and keeps those whose side to move has a forced king capture within
//! [`MAX_LENGTH`] plies with a unique first action. `ryoshi puzzles check FILE` re-checks a
//! file. Everything follows from the seed and the arguments: the games are searched to a fixed
//! depth with one thread and a table cleared per game, so the output does not depend on the
//! number of worker threads.

// SAFETY: allowed for the thread CPU clock of `puzzles check` (libc's pthread_getcpuclockid
// and clock_gettime). Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::solve::{solve, Rejected};
use super::{body, check, order, parse_file, uncertain, Puzzle, PuzzleError, MAX_LENGTH};
use crate::quantum::search::{think, Player, QGame};
use crate::quantum::{qsfen, Position, Record, Ruleset};
use crate::rng::{mix, SplitMix64};
use crate::search::{Control, Limits, Searcher};
use ahash::AHashSet;
use std::io::Write;
use std::time::{Duration, Instant};

/// Games longer than this stop (a draw by the move limit).
const MAX_PLIES: usize = 300;
/// Seconds any one df-pn judgement may take before the position is given up (and, of CPU time,
/// one puzzle's check: [`check_within`]). Far above what positions of 7 plies need, so that no
/// result depends on the machine; the generator says so when it ever happens.
pub const JUDGEMENT_SECONDS: u64 = 60;

/// `ryoshi puzzles`' arguments.
#[derive(clap::Args, Clone, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Seed of the games' random openings
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Self-play games to play
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Search depth of every self-play move
    #[arg(long, default_value_t = 3)]
    pub depth: u32,
    /// Random legal actions (no king capture) that open each game
    #[arg(long, default_value_t = 4)]
    pub opening: u32,
    /// Longest puzzle, in plies (1 to 7)
    #[arg(long, default_value_t = MAX_LENGTH, value_parser = clap::value_parser!(u32).range(1..=MAX_LENGTH as i64))]
    pub max_length: u32,
    /// Most puzzles kept from one game for one length
    #[arg(long, default_value_t = 1)]
    pub per_length: u32,
    /// Worker threads (the output is the same for any number)
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

#[derive(clap::Subcommand, Clone, Debug)]
pub enum Command {
    /// Re-check every puzzle of a file against df-pn (exit status 1 if any fails)
    Check {
        /// A puzzle file (`data/puzzles/quantum.txt`)
        file: std::path::PathBuf,
        /// CPU seconds one puzzle's check may take before it is reported not decided
        #[arg(long, default_value_t = JUDGEMENT_SECONDS)]
        seconds: u64,
    },
    /// Write a puzzle file's puzzles to stdout in the order `ryoshi puzzles` writes them
    Order {
        /// A puzzle file (`data/puzzles/quantum.txt`)
        file: std::path::PathBuf,
    },
}

/// The command line that reproduces `args` (the file's header).
fn command_line(args: &Args) -> String {
    format!(
        "ryoshi puzzles --seed {} --games {} --depth {} --opening {} --max-length {} --per-length {}",
        args.seed, args.games, args.depth, args.opening, args.max_length, args.per_length
    )
}

/// The control of one judgement: no limit but a generous clock.
fn judgement_clock() -> Control {
    Control::new(
        Limits {
            movetime: Some(JUDGEMENT_SECONDS * 1000),
            ..Default::default()
        },
        0,
    )
}

/// What one game gave.
#[derive(Default)]
struct GameYield {
    puzzles: Vec<(Position, Vec<String>)>,
    positions: u64,
    timeouts: u64,
}

/// Plays game `game` and judges its positions.
fn play_and_judge(args: &Args, game: u64, searcher: &mut Searcher<QGame>) -> GameYield {
    let rules = Ruleset::default();
    let mut rng = SplitMix64::new(mix(args.seed ^ mix(game)));
    let mut record = Record::new(Position::start(), rules);
    searcher.clear();
    let mut positions = Vec::new();
    let mut ply = 0;
    while record.ending().is_none() && record.keys().len() <= MAX_PLIES {
        let pos = record.position().clone();
        let name = if ply < args.opening {
            let safe: Vec<_> = pos
                .legal_actions(&rules)
                .into_iter()
                .filter(|&a| pos.after(a).winner().is_none())
                .collect();
            if safe.is_empty() {
                break;
            }
            pos.action_name(safe[rng.index(safe.len())])
        } else {
            let control = Control::new(
                Limits {
                    depth: Some(args.depth),
                    ..Default::default()
                },
                0,
            );
            let keys = record.keys();
            let keys = keys[..keys.len() - 1].to_vec();
            let game = QGame::new(pos.clone(), rules);
            match think(
                Player::Search,
                &game,
                &keys,
                searcher,
                &control,
                &mut |_| {},
            )
            .best
            {
                Some(best) => best,
                None => break,
            }
        };
        positions.push(pos);
        if record.play_str(&name).is_err() {
            break;
        }
        ply += 1;
    }
    let mut out = GameYield {
        positions: positions.len() as u64,
        ..Default::default()
    };
    let mut kept = [0u32; MAX_LENGTH as usize + 1];
    for pos in positions {
        // Numbered as a reader of the file numbers it, so that df-pn's choices among equals
        // (the main line's attacker actions) are the ones a check of the file sees.
        let Ok(pos) = qsfen::read(&qsfen::write(&pos)) else {
            continue;
        };
        let control = judgement_clock();
        match solve(&pos, &rules, args.max_length, &control) {
            Ok(solution) => {
                let n = solution.line.len();
                if kept[n] >= args.per_length {
                    continue;
                }
                kept[n] += 1;
                let mut at = pos.clone();
                let mut names = Vec::with_capacity(n);
                for &a in &solution.line {
                    names.push(at.action_name(a));
                    at = at.after(a);
                }
                out.puzzles.push((pos, names));
            }
            Err(Rejected::Timeout) => out.timeouts += 1,
            Err(_) => {}
        }
    }
    out
}

/// Plays the games on `args.threads` threads; the yields come back in game order.
fn play_all(args: &Args) -> Vec<GameYield> {
    let threads = args.threads.clamp(1, 64);
    let next = std::sync::atomic::AtomicU64::new(0);
    let done = parking_lot::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut searcher = Searcher::<QGame>::new(16);
                loop {
                    let game = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if game >= args.games {
                        break;
                    }
                    let y = play_and_judge(args, game, &mut searcher);
                    eprintln!(
                        "game {}: {} positions, {} puzzles",
                        game + 1,
                        y.positions,
                        y.puzzles.len()
                    );
                    done.lock().push((game, y));
                }
            });
        }
    });
    let mut done = done.into_inner();
    done.sort_by_key(|(g, _)| *g);
    done.into_iter().map(|(_, y)| y).collect()
}

/// Why `ryoshi puzzles` failed.
#[derive(Debug, thiserror::Error)]
pub enum PuzzlesError {
    #[error("writing the puzzles: {0}")]
    Write(std::io::Error),
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} is over {MAX_FILE_BYTES} bytes")]
    TooLarge { path: String },
    #[error("line {line}: {error}")]
    Line { line: usize, error: PuzzleError },
    #[error("{bad} of {total} puzzles fail, {undecided} not decided")]
    Fail {
        bad: usize,
        undecided: usize,
        total: usize,
    },
}

/// The largest puzzle file `puzzles check` reads (the shipped one is about 60 KiB).
const MAX_FILE_BYTES: u64 = 16 << 20;

/// Runs `ryoshi puzzles`: generates to stdout, or checks a file.
pub fn run_cli(args: &Args) -> Result<(), PuzzlesError> {
    match &args.command {
        Some(Command::Check { file, seconds }) => {
            return check_file(file, Duration::from_secs(*seconds))
        }
        Some(Command::Order { file }) => return order_file(file),
        None => {}
    }
    let t0 = Instant::now();
    let yields = play_all(args);
    let mut seen = AHashSet::new();
    let mut puzzles: Vec<Puzzle> = Vec::new();
    let (mut positions, mut timeouts) = (0, 0);
    for y in yields {
        positions += y.positions;
        timeouts += y.timeouts;
        for (pos, line) in y.puzzles {
            if !seen.insert(pos.key()) {
                continue;
            }
            puzzles.push(Puzzle {
                qsfen: qsfen::write(&pos),
                length: line.len() as u32,
                first: line[0].clone(),
                line,
                uncertain: uncertain(&pos),
            });
        }
    }
    order(&mut puzzles);
    let mut out = std::io::stdout().lock();
    let mut text = String::new();
    text.push_str("# Quantum shogi forced-capture puzzles: capture the king in N plies.\n");
    text.push_str(&format!("# Generated by: {}\n", command_line(args)));
    text.push_str(
        "# Fields: qsfen | length | first action | main line | uncertain pieces (of 40)\n",
    );
    text.push_str(
        "# Checked by: ryoshi puzzles check <file> (and tests/quantum_puzzles.rs) with df-pn.\n",
    );
    text.push_str(&body(&puzzles));
    out.write_all(text.as_bytes())
        .map_err(PuzzlesError::Write)?;
    eprintln!(
        "{} puzzles from {} games ({positions} positions) in {:.1} s",
        puzzles.len(),
        args.games,
        t0.elapsed().as_secs_f64()
    );
    eprintln!("{}", summary(&puzzles));
    if timeouts > 0 {
        eprintln!(
            "warning: {timeouts} positions were given up after {JUDGEMENT_SECONDS} s: \
             this output may differ on another machine"
        );
    }
    Ok(())
}

/// The uncertainty bands of the summary table: pieces of more than one type.
const BANDS: [(u32, u32); 4] = [(0, 9), (10, 19), (20, 29), (30, 40)];

/// A table of the puzzles by length and band of uncertain pieces.
pub fn summary(puzzles: &[Puzzle]) -> String {
    let mut text = String::from("| length |");
    for (lo, hi) in BANDS {
        text.push_str(&format!(" {lo}-{hi} uncertain |"));
    }
    text.push_str(" all |\n|---|");
    text.push_str(&"---|".repeat(BANDS.len() + 1));
    for n in 1..=MAX_LENGTH {
        let of_length: Vec<_> = puzzles.iter().filter(|p| p.length == n).collect();
        if of_length.is_empty() {
            continue;
        }
        text.push_str(&format!("\n| {n} |"));
        for (lo, hi) in BANDS {
            let c = of_length
                .iter()
                .filter(|p| (lo..=hi).contains(&p.uncertain))
                .count();
            text.push_str(&format!(" {c} |"));
        }
        text.push_str(&format!(" {} |", of_length.len()));
    }
    text
}

/// A puzzle file's text, at most [`MAX_FILE_BYTES`].
fn read_file(file: &std::path::Path) -> Result<String, PuzzlesError> {
    let path = file.display().to_string();
    let read = |error| PuzzlesError::Read {
        path: path.clone(),
        error,
    };
    if std::fs::metadata(file).map_err(read)?.len() > MAX_FILE_BYTES {
        return Err(PuzzlesError::TooLarge { path });
    }
    std::fs::read_to_string(file).map_err(read)
}

/// `ryoshi puzzles order FILE`: the file on stdout with its puzzles in [`order`] (its header of
/// `#` lines kept, its other comments dropped); a line that does not read fails it.
fn order_file(file: &std::path::Path) -> Result<(), PuzzlesError> {
    let text = read_file(file)?;
    let mut puzzles = Vec::new();
    for (line, puzzle) in parse_file(&text) {
        puzzles.push(puzzle.map_err(|error| PuzzlesError::Line { line, error })?);
    }
    order(&mut puzzles);
    let mut out: String = text
        .lines()
        .take_while(|l| l.starts_with('#') && *l != super::CERTAIN_SECTION)
        .map(|l| format!("{l}\n"))
        .collect();
    out.push_str(&body(&puzzles));
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(PuzzlesError::Write)
}

/// `ryoshi puzzles check FILE`: one line per failing puzzle and per puzzle not decided within
/// `limit` of CPU time, then the counts.
fn check_file(file: &std::path::Path, limit: Duration) -> Result<(), PuzzlesError> {
    let text = read_file(file)?;
    let rules = Ruleset::default();
    let t0 = Instant::now();
    let (mut good, mut bad, mut undecided) = (0, 0, 0);
    let seconds = limit.as_secs();
    for (line, puzzle) in parse_file(&text) {
        match puzzle.and_then(|p| check_within(&p, &rules, limit)) {
            Ok(()) => good += 1,
            Err(PuzzleError::Timeout) => {
                undecided += 1;
                println!("{}:{line}: not decided in {seconds} s", file.display());
            }
            Err(e) => {
                bad += 1;
                println!("{}:{line}: {e}", file.display());
            }
        }
    }
    println!(
        "{good} puzzles hold, {bad} fail, {undecided} not decided in {seconds} s of CPU time \
         each ({:.1} s)",
        t0.elapsed().as_secs_f64()
    );
    if bad > 0 || undecided > 0 || good == 0 {
        return Err(PuzzlesError::Fail {
            bad,
            undecided,
            total: good + bad + undecided,
        });
    }
    Ok(())
}

/// [`check`], stopped once it has taken `limit` of this thread's CPU time. CPU time, not the
/// clock's: on a busy machine (both cores taken by others) a check takes longer, not another
/// verdict. A limit of 0 decides nothing.
pub fn check_within(p: &Puzzle, rules: &Ruleset, limit: Duration) -> Result<(), PuzzleError> {
    let control = Control::new(
        Limits {
            infinite: true,
            ..Default::default()
        },
        0,
    );
    if limit.is_zero() {
        control.stop();
    }
    let Some(clock) = ThreadClock::current() else {
        // No CPU clock to read: the wall clock's limit instead.
        let timed = Control::new(
            Limits {
                movetime: Some(limit.as_millis() as u64),
                ..Default::default()
            },
            0,
        );
        return check(p, rules, &timed);
    };
    let start = clock.used();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                if clock.used().saturating_sub(start) >= limit {
                    control.stop();
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let result = check(p, rules, &control);
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        result
    })
}

/// The CPU time one thread has used, readable from another thread.
struct ThreadClock(libc::clockid_t);

impl ThreadClock {
    /// The calling thread's clock.
    #[cfg(target_os = "linux")]
    fn current() -> Option<ThreadClock> {
        let mut id: libc::clockid_t = 0;
        // SAFETY: the calling thread's own handle, and a place for the clock's id.
        let ok = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) } == 0;
        ok.then_some(ThreadClock(id))
    }

    #[cfg(not(target_os = "linux"))]
    fn current() -> Option<ThreadClock> {
        None
    }

    fn used(&self) -> Duration {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id (its thread outlives every reader: see check_within) and a
        // timespec to fill.
        if unsafe { libc::clock_gettime(self.0, &mut t) } != 0 {
            return Duration::MAX;
        }
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }
}
