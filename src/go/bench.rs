//! Benchmarks for go: `ryoshi bench benson [--oracle ORACLE.json] [ROUNDS] [PART]`,
//! `ryoshi bench go-playouts [SECONDS] [THREADS]` and `ryoshi bench go-judge`.

// SAFETY: allowed for getrusage for the process's CPU time (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use crate::go::analysis::extended;
use crate::go::benson::Benson;
use crate::go::notation::parse_position;
use crate::go::{Board, Color};
use std::time::Instant;

/// Why a Go benchmark cannot run or its check failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
    /// A data file (named `name`) that is not JSON.
    #[error("{name}: {error}")]
    Json {
        name: String,
        error: serde_json::Error,
    },
    #[error("the oracle file is not a list")]
    OracleNotList,
    #[error("missing rows")]
    MissingRows,
    #[error("missing size")]
    MissingSize,
    #[error(transparent)]
    GoPosition(crate::go::notation::PositionError),
    #[error("the built-in game: {0}")]
    Record(crate::games::record::RecordError),
}

/// Go's benchmarks. The doc comment of each is its line in `bench list`.
#[derive(clap::Subcommand)]
pub enum Which {
    /// us per 19x19 position, Benson classic and extended (default oracle built in)
    Benson(BensonArgs),
    /// Go playouts/s on empty 9x9 and 19x19 (1 and THREADS threads), search signature
    GoPlayouts(PlayoutsArgs),
    /// ms per end-of-game judgement (final_score) of a 19x19 game cut at 5 plies
    GoJudge,
}

impl Which {
    /// Runs the benchmark, printing its figures to stdout.
    pub fn run(self) -> Result<(), BenchError> {
        match self {
            Which::Benson(args) => benson(args),
            Which::GoPlayouts(args) => go_playouts(args),
            Which::GoJudge => go_judge(),
        }
    }
}

/// `bench benson`'s arguments.
#[derive(clap::Args)]
pub struct BensonArgs {
    /// A safety oracle file (JSON) instead of the built-in one
    #[arg(long, value_name = "ORACLE.json")]
    oracle: Option<String>,
    /// Passes over the boards, the fastest kept
    #[arg(default_value_t = 1000)]
    rounds: usize,
    /// Which counts to time
    #[arg(value_enum, default_value_t = Part::All)]
    part: Part,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Part {
    All,
    Classic,
    Reference,
    Extended,
}

/// `bench go-playouts`'s arguments.
#[derive(clap::Args)]
pub struct PlayoutsArgs {
    /// Seconds of playouts per measure (above 0, at most 3600)
    #[arg(default_value_t = 2.0, value_parser = seconds)]
    seconds: f64,
    /// Threads of the second measure (at most 256)
    #[arg(default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    threads: u64,
}

/// A measure's length out of range (clap shows it after the value).
#[derive(Debug, thiserror::Error)]
#[error("expected seconds above 0, at most 3600")]
struct SecondsError;

fn seconds(text: &str) -> Result<f64, SecondsError> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 3600.0)
        .ok_or(SecondsError)
}

/// The default oracle, built into the binary so that `bench benson` runs from any directory
/// (and from an installed binary); the file is the test fixture, so the two cannot drift apart.
const DEFAULT_ORACLE: &str = include_str!("../../tests/data/go/safety-oracle-105.json");
const DEFAULT_ORACLE_NAME: &str = "tests/data/go/safety-oracle-105.json (built in)";

/// The boards of the safety oracle file at `path`.
pub fn oracle_boards(path: &str) -> Result<Vec<Board>, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|error| BenchError::Unreadable {
        path: path.into(),
        error,
    })?;
    oracle_boards_from(&text, path)
}

/// The boards of a safety oracle text; `name` labels errors.
fn oracle_boards_from(text: &str, name: &str) -> Result<Vec<Board>, BenchError> {
    let data: serde_json::Value = serde_json::from_str(text).map_err(|error| BenchError::Json {
        name: name.into(),
        error,
    })?;
    let list = data.as_array().ok_or(BenchError::OracleNotList)?;
    let mut boards = Vec::new();
    for item in list {
        let rows: Vec<&str> = item["rows_top_to_bottom"]
            .as_array()
            .ok_or(BenchError::MissingRows)?
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        let size = item["size"].as_u64().ok_or(BenchError::MissingSize)?;
        let fields = vec![size.to_string(), rows.join("/"), "b".to_string()];
        boards.push(parse_position(&fields).map_err(BenchError::GoPosition)?.0);
    }
    Ok(boards)
}

/// Microseconds per position: the fastest of `rounds` passes over all boards (the minimum is
/// the figure least disturbed by other processes on a shared machine).
fn per_position(
    boards: &[Board],
    rounds: usize,
    mut analyse: impl FnMut(&Board) -> usize,
) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut checksum = 0;
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        for board in boards {
            checksum += analyse(board);
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e6 / boards.len() as f64);
    }
    (best, checksum)
}

/// `bench go-playouts [SECONDS] [THREADS]` (defaults 2 and 2).
pub fn go_playouts(args: PlayoutsArgs) -> Result<(), BenchError> {
    let threads = args.threads.min(256) as usize;
    crate::go::search::bench::run(args.seconds, threads, &mut |line| println!("{line}"));
    Ok(())
}

/// A 19×19 game of ryoshi against GNU Go (tests/data/README.md), judged where a game may stop:
/// resigned in the opening, the middle game and the endgame, and passed out.
const JUDGE_GAME: &str = include_str!("../../tests/data/go/judge-19/ryoshi-gnugo.sgf");
const JUDGE_PLIES: [usize; 5] = [60, 120, 180, 250, usize::MAX];

/// The process's CPU time (user and system), in milliseconds.
fn cpu_ms() -> f64 {
    // SAFETY: rusage is plain integers, for which all zeros is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return f64::NAN;
    }
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}

/// `bench go-judge`: the judgement GTP's `final_score` gives (a fresh ownership search, then
/// playing on the unsure blocks), timed on each cut of [`JUDGE_GAME`].
pub fn go_judge() -> Result<(), BenchError> {
    let record = crate::go::record::read(JUDGE_GAME).map_err(BenchError::Record)?;
    let komi = 7.0;
    let mut total = (0.0, 0.0);
    for cut in JUDGE_PLIES {
        let mut cut_record = record.clone();
        cut_record.moves.truncate(cut);
        let game = cut_record.replay().map_err(BenchError::Record)?.game;
        let (c0, t0) = (cpu_ms(), Instant::now());
        let ownership = crate::go::search::player::fresh_ownership(&game, komi);
        let judgement = crate::go::search::player::judge_game(&game, komi, &ownership);
        let (cpu, wall) = (cpu_ms() - c0, t0.elapsed().as_secs_f64() * 1e3);
        let score = crate::go::score::area_score(&game.board, &judgement, komi);
        println!(
            "ply {:>3}: {wall:>6.0} ms ({cpu:.0} ms cpu), {}",
            cut_record.moves.len(),
            crate::text::gtp_score(score)
        );
        total = (total.0 + wall, total.1 + cpu);
    }
    println!(
        "go-judge: {:.0} ms ({:.0} ms cpu) for {} judgements, 19x19",
        total.0,
        total.1,
        JUDGE_PLIES.len()
    );
    Ok(())
}

pub fn benson(args: BensonArgs) -> Result<(), BenchError> {
    let (path, rounds) = (args.oracle.as_deref(), args.rounds);
    let boards = match path {
        Some(path) => oracle_boards(path)?,
        None => oracle_boards_from(DEFAULT_ORACLE, DEFAULT_ORACLE_NAME)?,
    };
    let wanted = |part: Part| args.part == Part::All || args.part == part;
    println!(
        "{} positions, fastest of {rounds} rounds, both colours per position",
        boards.len()
    );
    let mut safe = Vec::new();
    let mut classic_us = None;
    if wanted(Part::Classic) {
        let mut benson = Benson::new();
        let (us, sum) = per_position(&boards, rounds, |board| benson.count_both(board) as usize);
        println!("benson classic: {us:.2} us per position (checksum {sum})");
        classic_us = Some(us);
    }
    if wanted(Part::Reference) {
        let mut reference = crate::go::benson_reference::Benson::new();
        let (us, sum) = per_position(&boards, rounds, |board| {
            Color::BOTH
                .iter()
                .map(|&c| {
                    reference.safe_points(board, c, &mut safe);
                    safe.iter().filter(|&&s| s).count()
                })
                .sum()
        });
        let ratio = classic_us.map_or(String::new(), |c| format!(", {:.1}x the fast one", us / c));
        println!("benson classic, reference implementation: {us:.2} us per position (checksum {sum}{ratio})");
    }
    if wanted(Part::Extended) {
        let (us, sum) = per_position(&boards, (rounds / 10).max(1), |board| {
            let a = extended(board, None);
            a.status
                .iter()
                .filter(|s| **s != crate::go::analysis::Status::Undecided)
                .count()
        });
        println!("benson extended: {us:.2} us per position (checksum {sum})");
    }
    Ok(())
}
