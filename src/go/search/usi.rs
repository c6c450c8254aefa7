//! The Go search behind USI `go` (under `USI_Variant go`): the tree sized by `USI_Hash`, the
//! search job, and its `info` lines (the score in centipawns from the win rate).

use super::fast::PASS;
use super::mcts::{Mcts, Settings, Snapshot};
use super::player::{decide, Choice};
use crate::go::notation::format_move;
use crate::go::Position;
use crate::search::{helpers, Info, Job, Outcome, Report};
use parking_lot::Mutex;
use std::sync::Arc;

/// Milliseconds between `info` lines of a running search.
const REPORT_MS: u64 = 1000;

/// Allocates the tree to `mb` MiB (or the largest size that can be had) unless it already is;
/// a note when it is smaller than asked or impossible.
pub fn prepare(slot: &Mutex<Option<(u64, Arc<Mcts>)>>, mb: u64) -> Option<String> {
    let mut slot = slot.try_lock()?;
    if slot.as_ref().is_some_and(|(m, _)| *m == mb) {
        return None;
    }
    // The old tree goes first, so its memory can serve the new one.
    *slot = None;
    let bytes = |mb: u64| usize::try_from(mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    match crate::memory::largest(mb, |m| Mcts::new(bytes(m)).ok()) {
        Some((mcts, got)) => {
            *slot = Some((mb, Arc::new(mcts)));
            (got < mb).then(|| crate::memory::shortfall_note("USI_Hash", mb, got))
        }
        None => Some(format!(
            "USI_Hash: no memory for a Go search tree; {mb} MiB asked"
        )),
    }
}

/// A win rate as centipawns: 400·log10(w / (1 − w)), the logistic scale shogi and chess GUIs
/// read (50% = 0, 64% ≈ +100, 90% ≈ +382), kept within ±10000.
pub fn centipawns(winrate: f64) -> i32 {
    let w = winrate.clamp(1e-6, 1.0 - 1e-6);
    (400.0 * (w / (1.0 - w)).log10())
        .round()
        .clamp(-10000.0, 10000.0) as i32
}

/// The `info` line of a snapshot.
pub fn info(game: &Position, snap: &Snapshot, capacity: usize) -> Info {
    let pv: Vec<String> = snap
        .moves
        .first()
        .map(|m| {
            m.pv.iter()
                .map(|&mv| format_move(&game.board, (mv != PASS).then_some(mv as usize)))
                .collect()
        })
        .unwrap_or_default();
    let winrate = snap.moves.first().map_or(snap.winrate, |m| m.winrate);
    Info {
        depth: pv.len().max(1) as u32,
        seldepth: pv.len().max(1) as u32,
        score: centipawns(winrate),
        nodes: snap.playouts,
        time_ms: snap.time_ms,
        pv,
        multipv: None,
        hashfull: Some((snap.nodes as u64 * 1000 / capacity.max(1) as u64).min(1000) as u32),
    }
}

/// The search job of `go`: Monte Carlo tree search of `game` under the session's control
/// (movetime, nodes = playouts, clocks, infinite/ponder until `stop`).
/// With `analysis`, every report (and the last) is followed by the text it makes of the
/// snapshot, sent as `info string <text>` (the session's KataGo line, `GoAnalysis`).
pub fn job(
    engine: Arc<Mcts>,
    game: Position,
    threads: usize,
    seed: u64,
    komi: f64,
    analysis: Option<fn(&Position, &Snapshot) -> String>,
) -> Job {
    Box::new(move |control, report| {
        let passes = game.passes();
        let settings = Settings {
            passes,
            report_ms: Some(REPORT_MS),
            ..Settings::new(komi, threads.max(1), seed)
        };
        let capacity = engine.capacity();
        let mut on_snapshot = |snap: &Snapshot| {
            report(Report::Info(info(&game, snap, capacity)));
            if let Some(text) = analysis {
                report(Report::Text(text(&game, snap)));
            }
        };
        let snap = engine.search(&game, &settings, control, &mut on_snapshot);
        if let Some(note) = helpers::shortfall_note(snap.threads, settings.threads) {
            report(Report::Text(note));
        }
        if let Some(text) = analysis {
            report(Report::Text(text(&game, &snap)));
        }
        let mut line = info(&game, &snap, capacity);
        let best = match decide(&game, komi, passes, &snap, true) {
            Choice::Resign => None,
            Choice::Pass => Some("pass".to_string()),
            Choice::Play(p) => Some(format_move(&game.board, Some(p))),
        };
        // The pv starts with the move played.
        if let Some(b) = &best {
            if line.pv.first() != Some(b) {
                line.pv = vec![b.clone()];
            }
        }
        // Nothing to ponder on after a pass (the game may be over) or a resignation.
        let ponder = match best.as_deref() {
            Some("pass") | None => None,
            Some(_) => line.pv.get(1).cloned(),
        };
        Outcome {
            info: line,
            best,
            ponder,
        }
    })
}
