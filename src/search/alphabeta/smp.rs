//! Lazy SMP, as Stockfish 9 to 11 have it: `Threads N` runs N - 1 helper searchers beside the
//! main one, each on a thread of its own, all doing the same iterative deepening from the same
//! root and sharing nothing but the transposition table (lockless, see `tt.rs`). What one thread
//! learns steers the others through the table. As today's Stockfish, the helpers skip no depth
//! (the staggered skipping of Stockfish 9 to 11 left a helper a depth ahead, so the main thread
//! gained little from it); instead each helper searches the root moves after the first in an
//! order of its own (a seeded shuffle), and keeps its own killer and history tables, so the
//! threads fill the table with different subtrees of the same iteration. The main thread alone
//! sends `info` lines; when it is done the helpers stop, are joined, and the result is the main
//! thread's or, as Stockfish picks its best thread, a helper's that finished a deeper iteration
//! with a better score. Timing makes the search nondeterministic: `go nodes` and `go depth` are
//! reproducible with one thread only.

use super::{Outcome, Report, Searcher, CLOCK_EVERY, MAX_PLY};
use crate::memory::try_filled;
use crate::rng::SplitMix64;
use crate::search::{helpers, Control, SearchGame};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// A helper's stack: the search recurses at most `MAX_PLY` plus the quiescence plies, each frame
/// a position and a few words, so 16 MiB is ample (and only reserved, not committed).
const HELPER_STACK: usize = 16 << 20;

/// What the threads of one search share besides the table.
pub(super) struct Shared {
    /// Raised when the main searcher has its result: the helpers stop.
    done: AtomicBool,
    /// The nodes of every thread, added `CLOCK_EVERY` at a time (so `go nodes` counts them all).
    nodes: AtomicU64,
    node_limit: u64,
}

/// Raises the flag when dropped, also when the main search unwinds (the helpers must end for
/// the thread scope to end).
struct RaiseOnDrop<'a>(&'a AtomicBool);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

impl<G: SearchGame> Searcher<G> {
    /// Searches with `n` threads from the next `run` on (1: this thread alone, as before).
    /// Helpers are allocated here, fallibly: when memory runs out the note says how many
    /// threads there are instead.
    pub fn set_threads(&mut self, n: usize) -> Option<String> {
        let helpers = n.max(1) - 1;
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let Some(helper) = self.try_helper(self.helpers.len() + 1) else {
                let got = self.helpers.len() + 1;
                return Some(format!("Threads: no memory for {n} threads; using {got}"));
            };
            self.helpers.push(helper);
        }
        None
    }

    /// The number of search threads (`set_threads`).
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    fn try_helper(&self, helper_id: usize) -> Option<Searcher<G>> {
        Some(Searcher {
            tt: Arc::clone(&self.tt),
            history: try_filled(G::HISTORY_SIZE, 0)?,
            killers: try_filled(MAX_PLY + 1, [u32::MAX; 2])?,
            keys: Vec::new(),
            pv: try_filled(MAX_PLY + 1, Vec::new())?,
            buffers: try_filled(MAX_PLY + G::QUIESCE_DEPTH as usize + 2, Vec::new())?,
            score_buffers: try_filled(MAX_PLY + 1, Vec::new())?,
            capture_buffers: try_filled(G::QUIESCE_DEPTH as usize + 1, Vec::new())?,
            nodes: 0,
            seldepth: 0,
            node_limit: u64::MAX,
            aborted: false,
            hash_mb: self.hash_mb,
            pruning: self.pruning,
            probcut: self.probcut,
            in_probcut: false,
            multipv: 1,
            helpers: Vec::new(),
            helper_id,
            smp: None,
            root_nodes: Vec::new(),
        })
    }

    /// A helper's own root order: the moves after the first, shuffled by a generator seeded
    /// with its id (the main thread keeps the generator's order).
    pub(super) fn order_root(&self, moves: &mut [G::Move]) {
        if self.helper_id == 0 || moves.len() < 3 {
            return;
        }
        let mut rng = SplitMix64::new(self.helper_id as u64);
        for i in (2..moves.len()).rev() {
            let j = 1 + rng.index(i);
            moves.swap(i, j);
        }
    }

    /// Called every `CLOCK_EVERY` nodes: counts them with the other threads' and says whether
    /// the search must end (the shared node limit, or the main thread is done).
    pub(super) fn smp_stops(&self) -> bool {
        let Some(shared) = &self.smp else {
            return false;
        };
        let nodes = shared.nodes.fetch_add(CLOCK_EVERY, Relaxed) + CLOCK_EVERY;
        nodes >= shared.node_limit || shared.done.load(Relaxed)
    }

    /// The nodes of this search over all its threads (for `info` lines).
    pub(super) fn total_nodes(&self) -> u64 {
        match &self.smp {
            None => self.nodes,
            Some(shared) => shared.nodes.load(Relaxed) + self.nodes % CLOCK_EVERY,
        }
    }

    /// As Stockfish: a helper that completed a deeper iteration with a better score speaks
    /// for the search, unless several lines or a fixed depth were asked for. The nodes stay
    /// those of every thread.
    pub(super) fn best_thread(
        &self,
        main: Outcome,
        others: Vec<Outcome>,
        control: &Control,
    ) -> Outcome {
        let mut best = main;
        if self.multipv == 1 && control.depth_limit().is_none() {
            let nodes = best.info.nodes;
            for other in others {
                if other.best.is_some()
                    && other.info.depth > best.info.depth
                    && other.info.score > best.info.score
                {
                    best = other;
                }
            }
            best.info.nodes = nodes;
        }
        best
    }

    /// `run` with helpers: they search on scoped threads while this thread searches and
    /// reports; all are joined before the outcomes are returned, the main thread's (with the
    /// nodes of every thread) and each helper's.
    pub(super) fn search_threads(
        &mut self,
        root: &G,
        game_keys: &[u64],
        control: &Control,
        max_depth: u32,
        report: &mut dyn FnMut(Report),
    ) -> (Outcome, Vec<Outcome>) {
        let shared = Arc::new(Shared {
            done: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            node_limit: control.node_limit().unwrap_or(u64::MAX),
        });
        let mut helpers = std::mem::take(&mut self.helpers);
        for helper in &mut helpers {
            helper.smp = Some(Arc::clone(&shared));
            helper.pruning = self.pruning;
            helper.probcut = self.probcut;
            helper.nodes = 0;
        }
        self.smp = Some(Arc::clone(&shared));
        let wanted = helpers.len();
        let (main, others) = std::thread::scope(|scope| {
            let _done = RaiseOnDrop(&shared.done);
            let jobs = helpers.iter_mut().map(|helper| {
                let root = root.clone();
                move || {
                    // As Stockfish's helpers, these ignore a depth limit and search until the
                    // main thread is done: a helper that finished first would otherwise leave
                    // its core idle for the rest of the main thread's iteration.
                    let deepest = MAX_PLY as u32 - 1;
                    helper.iterate(&root, game_keys, control, deepest, &mut |_| {})
                }
            });
            let handles = helpers::start(scope, HELPER_STACK, jobs);
            if let Some(note) = helpers::shortfall_note(handles.len() + 1, wanted + 1) {
                report(Report::Text(note));
            }
            let main = self.iterate(root, game_keys, control, max_depth, report);
            shared.done.store(true, Relaxed);
            let others: Vec<Outcome> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect();
            (main, others)
        });
        let nodes = self.nodes + helpers.iter().map(|h| h.nodes).sum::<u64>();
        for helper in &mut helpers {
            helper.smp = None;
        }
        self.smp = None;
        self.helpers = helpers;
        let mut main = main;
        main.info.nodes = nodes;
        (main, others)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{mix, Nim, Tree};
    use super::*;
    use crate::search::game::WIN_BOUND;
    use crate::search::Limits;
    use std::time::{Duration, Instant};

    fn limits(depth: Option<u32>, nodes: Option<u64>) -> Control {
        let limits = Limits {
            depth,
            nodes,
            infinite: depth.is_none() && nodes.is_none(),
            ..Default::default()
        };
        Control::new(limits, 0)
    }

    #[test]
    fn each_helper_has_a_root_order_of_its_own() {
        let mut searcher = Searcher::<Nim>::new(1);
        assert!(searcher.set_threads(4).is_none());
        assert_eq!(searcher.threads(), 4);
        let moves: Vec<u32> = (0..12).collect();
        let order = |s: &Searcher<Nim>| {
            let mut m = moves.clone();
            s.order_root(&mut m);
            m
        };
        assert_eq!(
            order(&searcher),
            moves,
            "the main thread keeps the generator's order"
        );
        let orders: Vec<Vec<u32>> = searcher.helpers.iter().map(order).collect();
        for (i, o) in orders.iter().enumerate() {
            assert_eq!(o[0], 0, "helper {}: the first move stays first", i + 1);
            let mut sorted = o.clone();
            sorted.sort();
            assert_eq!(sorted, moves, "helper {}: a permutation", i + 1);
            assert_ne!(o, &moves, "helper {}", i + 1);
            assert_eq!(
                o,
                &order(&searcher.helpers[i]),
                "helper {}: reproducible",
                i + 1
            );
        }
        assert!(orders[0] != orders[1] && orders[1] != orders[2] && orders[0] != orders[2]);
        assert!(searcher.set_threads(1).is_none());
        assert!(searcher.helpers.is_empty());
    }

    /// Nim's forced results (one thread finds them: `finds_forced_wins_and_the_winning_move`)
    /// are found with three threads too, with the same winning move.
    #[test]
    fn forced_wins_and_their_moves_are_found_with_three_threads() {
        let mut searcher = Searcher::<Nim>::new(1);
        for n in 1..40u32 {
            let [one, three] = [1, 3].map(|threads| {
                assert!(searcher.set_threads(threads).is_none());
                searcher.clear();
                searcher.run(&Nim(n), &[], &limits(Some(60), None), 60, &mut |_| {})
            });
            assert!(
                three.info.score.abs() > WIN_BOUND,
                "n {n}: {:?}",
                three.info
            );
            assert_eq!(three.info.score.signum(), one.info.score.signum(), "n {n}");
            if n % 4 != 0 {
                assert_eq!(three.best, one.best, "n {n}");
            }
        }
    }

    #[test]
    fn the_node_limit_counts_every_thread() {
        let threads = 3;
        let mut searcher = Searcher::<Tree>::new(1);
        searcher.set_threads(threads);
        for seed in 0..20u64 {
            let limit = 20_000 + 1000 * seed;
            let control = limits(None, Some(limit));
            let mut reported = Vec::new();
            let outcome = searcher.run(&Tree { id: mix(seed) }, &[], &control, 64, &mut |r| {
                if let Report::Info(info) = r {
                    reported.push(info.nodes);
                }
            });
            let helpers: u64 = searcher.helpers.iter().map(|h| h.nodes).sum();
            assert_eq!(outcome.info.nodes, searcher.nodes + helpers);
            // Each thread sees the total at its next count, `CLOCK_EVERY` nodes on at most.
            let slack = 2 * CLOCK_EVERY * threads as u64;
            assert!(outcome.info.nodes <= limit + slack, "{:?}", outcome.info);
            if outcome.info.nodes >= limit {
                assert!(helpers > 0, "seed {seed}: the helpers searched");
            }
            assert!(reported.iter().all(|&n| n <= outcome.info.nodes));
            assert!(outcome.best.is_some());
        }
    }

    /// Under `go depth`, the helpers do not end at the limit (one that finished first would
    /// idle while the main thread finishes): the flag ends them while they search, or they
    /// end early on a forced result (which the main thread's pruning may have missed), or
    /// past the limit.
    #[test]
    fn helpers_search_on_until_the_main_thread_is_done() {
        let mut searcher = Searcher::<Tree>::new(1);
        searcher.set_threads(3);
        let mut open = 0;
        for seed in 0..100u64 {
            searcher.tt.new_search();
            let (main, others) = searcher.search_threads(
                &Tree { id: mix(seed) },
                &[],
                &limits(Some(7), None),
                7,
                &mut |_| {},
            );
            if main.info.score.abs() > WIN_BOUND {
                continue; // a forced result ends every thread's deepening early
            }
            assert_eq!(main.info.depth, 7);
            open += 1;
            for (i, (helper, outcome)) in searcher.helpers.iter().zip(&others).enumerate() {
                let info = &outcome.info;
                assert!(
                    helper.aborted || info.depth > 7 || info.score.abs() > WIN_BOUND,
                    "seed {seed}: helper {} ended at the limit: {info:?}",
                    i + 1
                );
            }
        }
        assert!(open >= 10, "only {open} positions without a forced result");
    }

    #[test]
    fn stop_ends_every_thread_promptly() {
        let mut searcher = Searcher::<Tree>::new(1);
        searcher.set_threads(4);
        let control = limits(None, None);
        let started = Instant::now();
        let outcome = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(100));
                control.stop();
            });
            searcher.run(&Tree { id: 99 }, &[], &control, 127, &mut |_| {})
        });
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(outcome.best.is_some());
        // The helpers are back, ready for the next search, and nothing of this one is left.
        assert_eq!(searcher.threads(), 4);
        assert!(searcher.smp.is_none() && searcher.helpers.iter().all(|h| h.smp.is_none()));
    }
}
