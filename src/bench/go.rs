//! Benchmarks for go: `ryoshi bench benson [ORACLE.json] [ROUNDS]`.

use crate::games::go::analysis::extended;
use crate::games::go::benson::Benson;
use crate::games::go::notation::parse_position;
use crate::games::go::{Board, Color};
use std::time::Instant;

/// The benchmark names this file answers for.
pub const NAMES: &[&str] = &["benson"];

/// Runs `what` if it is one of [`NAMES`].
pub fn run(what: &str, args: &[String]) -> Option<Result<(), String>> {
    match what {
        "benson" => Some(benson(args)),
        _ => None,
    }
}

fn default_oracle() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/go/safety-oracle-105.json"
    )
    .to_string()
}

/// The boards of the safety oracle file.
pub fn oracle_boards(path: &str) -> Result<Vec<Board>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let data: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let list = data.as_array().ok_or("the oracle file is not a list")?;
    let mut boards = Vec::new();
    for item in list {
        let rows: Vec<&str> = item["rows_top_to_bottom"]
            .as_array()
            .ok_or("missing rows")?
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        let size = item["size"].as_u64().ok_or("missing size")?;
        let fields = vec![size.to_string(), rows.join("/"), "b".to_string()];
        boards.push(parse_position(&fields)?.0);
    }
    Ok(boards)
}

fn benson(args: &[String]) -> Result<(), String> {
    let path = args.first().cloned().unwrap_or_else(default_oracle);
    let rounds: usize = match args.get(1) {
        Some(r) => r
            .parse()
            .map_err(|_| format!("rounds '{r}' is not a number"))?,
        None => 200,
    };
    let boards = oracle_boards(&path)?;
    let n = (boards.len() * rounds.max(1)) as f64;

    let mut benson = Benson::new();
    let mut safe = Vec::new();
    let mut checksum = 0usize;
    let start = Instant::now();
    for _ in 0..rounds.max(1) {
        for board in &boards {
            for color in Color::BOTH {
                benson.safe_points(board, color, &mut safe);
                checksum += safe.iter().filter(|&&s| s).count();
            }
        }
    }
    let classic_us = start.elapsed().as_secs_f64() * 1e6 / n;

    let ext_rounds = (rounds / 20).max(1);
    let start = Instant::now();
    for _ in 0..ext_rounds {
        for board in &boards {
            let a = extended(board, None);
            checksum += a.status.len();
        }
    }
    let ext_us = start.elapsed().as_secs_f64() * 1e6 / (boards.len() * ext_rounds) as f64;

    println!(
        "benson classic: {classic_us:.2} us per position (both colours, {} positions x {} rounds)",
        boards.len(),
        rounds.max(1)
    );
    println!(
        "benson extended: {ext_us:.2} us per position (both colours, {} positions x {ext_rounds} rounds)",
        boards.len()
    );
    println!("checksum {checksum}");
    Ok(())
}
