//! The engine's settings for `ryoshi gtp`, and the live analysis the GUIs read: Leela Zero's
//! `lz-analyze`, KataGo's `kata-analyze` and their `genmove_analyze` forms. See protocol/gtp.md.

use super::Failure;
use crate::go::notation::format_move;
use crate::go::search::fast::PASS;
use crate::go::search::mcts::Snapshot;
use crate::go::{Board, Color};

/// `ryoshi gtp [--threads N] [--playouts N] [--seed N] [--tree-mb N] [--movetime-ms N]`.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// Search threads sharing one tree.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Playouts per move (with `--threads 1` and a seed, the same move every time); the clock
    /// still bounds the move when time settings are given.
    #[arg(long)]
    pub playouts: Option<u64>,
    /// Seed of the playouts' random generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Megabytes for the search tree (two pools of half each, allocated once).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub tree_mb: u64,
    /// Milliseconds per move when neither time settings nor `--playouts` limit the move.
    #[arg(long, default_value_t = 1000)]
    pub movetime_ms: u64,
    /// Never resign (play until the end).
    #[arg(long)]
    pub no_resign: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            threads: 1,
            playouts: None,
            seed: 0,
            tree_mb: 64,
            movetime_ms: 1000,
            no_resign: false,
        }
    }
}

/// The two output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Leela Zero: win rate and prior in 1/10000.
    Lz,
    /// KataGo: fractions, the score lead, and the ownership on request.
    Kata,
}

/// A parsed analysis command.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub format: Format,
    pub color: Color,
    /// Milliseconds between reports.
    pub interval_ms: u64,
    pub ownership: bool,
    /// `genmove_analyze`: search under the clock, then play.
    pub genmove: bool,
}

/// The command names and what they ask.
pub fn command(name: &str) -> Option<(Format, bool)> {
    Some(match name {
        "lz-analyze" => (Format::Lz, false),
        // Sabaki's own `analyze`: fractions and `scoreLead`, as KataGo prints them.
        "kata-analyze" | "analyze" => (Format::Kata, false),
        "lz-genmove_analyze" => (Format::Lz, true),
        "kata-genmove_analyze" | "genmove_analyze" => (Format::Kata, true),
        _ => return None,
    })
}

/// `[color] [interval] [interval N] [ownership true|false] [minmoves N] [maxmoves N]`, as Leela
/// Zero and KataGo read them (interval in centiseconds; 0 or none: every second).
pub fn parse(
    format: Format,
    genmove: bool,
    args: &[&str],
    to_move: Color,
) -> Result<Request, Failure> {
    let mut rest = args;
    let mut color = to_move;
    if let Some(first) = rest.first() {
        if let Ok(c) = super::parse_color(first) {
            color = c;
            rest = &rest[1..];
        }
    }
    let mut interval_cs = 0u64;
    if let Some(first) = rest.first() {
        if let Ok(n) = first.parse::<u64>() {
            interval_cs = n;
            rest = &rest[1..];
        }
    }
    let mut ownership = false;
    while let Some((&key, tail)) = rest.split_first() {
        let Some((&value, tail)) = tail.split_first() else {
            return Err(Failure::AnalyzeArguments);
        };
        match key {
            "interval" => {
                interval_cs = value.parse().map_err(|_| Failure::AnalyzeArguments)?;
            }
            "ownership" => {
                ownership = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(Failure::AnalyzeArguments),
                };
            }
            // Accepted for compatibility; the report always lists every searched move.
            "minmoves" | "maxmoves" => {
                value
                    .parse::<u64>()
                    .map_err(|_| Failure::AnalyzeArguments)?;
            }
            _ => return Err(Failure::AnalyzeArguments),
        }
        rest = tail;
    }
    let interval_ms = if interval_cs == 0 {
        1000
    } else {
        interval_cs.saturating_mul(10).max(10)
    };
    Ok(Request {
        format,
        color,
        interval_ms,
        ownership: ownership && format == Format::Kata,
        genmove,
    })
}

fn vertex(board: &Board, mv: u16) -> String {
    format_move(board, (mv != PASS).then_some(mv as usize))
}

/// A lower confidence bound of a win rate after `n` playouts (the normal approximation).
fn lcb(winrate: f64, n: u32) -> f64 {
    let n = n.max(1) as f64;
    (winrate - 1.96 * (winrate * (1.0 - winrate) / n).sqrt()).max(0.0)
}

/// One report line (`info move ... info move ... [ownership ...]`), side to move's view.
pub fn line(request: &Request, board: &Board, snap: &Snapshot) -> String {
    let mut out = String::new();
    for (order, m) in snap.moves.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        let pv: Vec<String> = m.pv.iter().map(|&mv| vertex(board, mv)).collect();
        match request.format {
            Format::Lz => out.push_str(&format!(
                "info move {} visits {} winrate {} prior {} lcb {} order {order} pv {}",
                vertex(board, m.mv),
                m.visits,
                (m.winrate * 10000.0).round() as i64,
                (m.prior * 10000.0).round() as i64,
                (lcb(m.winrate, m.visits) * 10000.0).round() as i64,
                pv.join(" ")
            )),
            Format::Kata => out.push_str(&format!(
                "info move {} visits {} winrate {:.6} scoreMean {:.3} scoreLead {:.3} prior {:.6} \
                 lcb {:.6} order {order} pv {}",
                vertex(board, m.mv),
                m.visits,
                m.winrate,
                m.score_lead,
                m.score_lead,
                m.prior,
                lcb(m.winrate, m.visits),
                pv.join(" ")
            )),
        }
    }
    if request.ownership {
        out.push_str(" ownership");
        for o in &snap.ownership {
            out.push_str(&format!(" {o:.4}"));
        }
    }
    out
}
