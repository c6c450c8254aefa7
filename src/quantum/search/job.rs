//! The quantum shogi search as a job: what `go` runs and what `bench` measures, over the searcher
//! the session keeps between searches (its hash table survives from one `go` to the next).

use super::{self as player, Player, QGame};
use crate::quantum::Ruleset;
use crate::search::{Control, Job, Limits, Report, Searcher};
use parking_lot::Mutex;
use std::sync::Arc;

/// How the search behind a job is set up.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub hash_mb: u64,
    pub multipv: usize,
    /// Null move and late-move reductions; only `ryoshi bench search ... nopruning` turns them off.
    pub pruning: bool,
    /// Search threads (Lazy SMP); `prepare` has allocated them, this is the last resort.
    pub threads: usize,
}

/// The job behind `go` and `bench`: `player` on `game`, with the kept searcher (its table
/// allocated by `prepare` when `USI_Hash` is set, at `isready` and before `go`).
pub fn job(
    game: QGame,
    keys: Vec<u64>,
    player: Player,
    setup: Setup,
    searcher: Arc<Mutex<Option<Searcher<QGame>>>>,
) -> Job {
    Box::new(move |control, report| {
        let mut slot = searcher.lock();
        if slot.as_ref().is_none_or(|s| s.hash_mb() != setup.hash_mb) {
            // The session prepares the table before `go` (fallibly, see `prepare`); this is the
            // last resort when even that found no memory: the smallest table.
            *slot = Some(Searcher::new(1));
        }
        let Some(searcher) = slot.as_mut() else {
            unreachable!("just filled")
        };
        searcher.set_multipv(setup.multipv);
        searcher.set_pruning(setup.pruning);
        if let Some(note) = searcher.set_threads(setup.threads) {
            report(Report::Text(note));
        }
        player::think(player, &game, &keys, searcher, control, report)
    })
}

/// The `bench` searches: each bench position searched to `depth` by the same job a `go depth`
/// runs, with a fresh 16 MiB table (as after `usinewgame`). Returns the lines and total nodes.
pub fn bench(depth: u32, pruning: bool) -> (Vec<String>, u64) {
    let rules = Ruleset::default();
    let setup = Setup {
        hash_mb: 16,
        multipv: 1,
        pruning,
        threads: 1,
    };
    let searcher = Arc::new(Mutex::new(Some(Searcher::new(setup.hash_mb))));
    let mut lines = Vec::new();
    let mut total = 0;
    let started = std::time::Instant::now();
    for (i, pos) in player::bench_positions(&rules).into_iter().enumerate() {
        if let Some(s) = searcher.lock().as_mut() {
            s.clear();
        }
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        let control = Control::new(limits, 0);
        let run = job(
            QGame::new(pos, rules),
            Vec::new(),
            Player::Search,
            setup,
            Arc::clone(&searcher),
        );
        let outcome = run(&control, &mut |_| {});
        total += outcome.info.nodes;
        lines.push(format!(
            "position {}: bestmove {} score cp {} nodes {}",
            i + 1,
            outcome.best.as_deref().unwrap_or("resign"),
            outcome.info.score,
            outcome.info.nodes
        ));
    }
    let ms = started.elapsed().as_millis().max(1) as u64;
    lines.push(format!("time {ms} ms, nps {}", total * 1000 / ms));
    lines.push(format!("Nodes searched: {total}"));
    (lines, total)
}
