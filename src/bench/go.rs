//! Benchmarks for go: `ryoshi bench benson [ORACLE.json] [ROUNDS] [PART]`.

use super::BenchError;
use crate::games::go::analysis::extended;
use crate::games::go::benson::Benson;
use crate::games::go::notation::parse_position;
use crate::games::go::{Board, Color};
use std::time::Instant;

/// The benchmark names this file answers for.
pub const NAMES: &[&str] = &["benson", "go-playouts"];

/// Runs `what` if it is one of [`NAMES`].
pub fn run(what: &str, args: &[String]) -> Option<Result<(), BenchError>> {
    match what {
        "benson" => Some(benson(args)),
        "go-playouts" => Some(go_playouts(args)),
        _ => None,
    }
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
fn go_playouts(args: &[String]) -> Result<(), BenchError> {
    let number = |i: usize, what: &'static str, default: f64| -> Result<f64, BenchError> {
        match args.get(i) {
            None => Ok(default),
            Some(a) => a
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0 && *v <= 3600.0)
                .ok_or(BenchError::NotANumber {
                    what,
                    arg: a.clone(),
                }),
        }
    };
    let seconds = number(0, "seconds", 2.0)?;
    let threads = number(1, "threads", 2.0)?.min(256.0) as usize;
    crate::search::go::bench::run(seconds, threads.max(1), &mut |line| println!("{line}"));
    Ok(())
}

fn benson(args: &[String]) -> Result<(), BenchError> {
    // The file is optional: a first argument that is a number is already ROUNDS.
    let (path, args) = match args.first() {
        Some(a) if a.parse::<usize>().is_err() => (Some(a.as_str()), &args[1..]),
        _ => (None, args),
    };
    let rounds: usize = match args.first() {
        Some(r) => r.parse().map_err(|_| BenchError::NotANumber {
            what: "rounds",
            arg: r.clone(),
        })?,
        None => 1000,
    };
    let which = args.get(1).map(String::as_str).unwrap_or("all");
    if !["all", "classic", "reference", "extended"].contains(&which) {
        return Err(BenchError::UnknownPart(which.into()));
    }
    let boards = match path {
        Some(path) => oracle_boards(path)?,
        None => oracle_boards_from(DEFAULT_ORACLE, DEFAULT_ORACLE_NAME)?,
    };
    let wanted = |part: &str| which == "all" || which == part;
    println!(
        "{} positions, fastest of {rounds} rounds, both colours per position",
        boards.len()
    );
    let mut safe = Vec::new();
    let mut classic_us = None;
    if wanted("classic") {
        let mut benson = Benson::new();
        let (us, sum) = per_position(&boards, rounds, |board| benson.count_both(board) as usize);
        println!("benson classic: {us:.2} us per position (checksum {sum})");
        classic_us = Some(us);
    }
    if wanted("reference") {
        let mut reference = crate::games::go::benson_reference::Benson::new();
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
    if wanted("extended") {
        let (us, sum) = per_position(&boards, (rounds / 10).max(1), |board| {
            let a = extended(board, None);
            a.status
                .iter()
                .filter(|s| **s != crate::games::go::analysis::Status::Undecided)
                .count()
        });
        println!("benson extended: {us:.2} us per position (checksum {sum})");
    }
    Ok(())
}
