//! Two or more threads on one solve: young brothers wait (YBWC). A node with enough empties
//! searches its first move alone; when another thread is idle, the node's other moves become
//! a split point that every idle thread may join, each taking the next move until none is left
//! or one refutes the node. The owner, once out of moves, helps at split points below its own
//! until its helpers are done. The transposition table is shared ([`super::table`]).
//!
//! A refutation sets the split point's `cut`: the threads below it see it at their next poll
//! and unwind without storing anything, as an aborted search does.

use super::order::MoveList;
use super::table::Table;
use super::Solver;
use crate::othello::board::{flips, Board};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Arc;

/// From this many empties on, a node may split. FFO #40-#49 with 2 threads: see
/// docs/testing-changes.md.
pub(super) const SPLIT_MIN_EMPTIES: u32 = 12;
/// Solves with fewer empties run on one thread: starting the helpers costs more.
pub(super) const PARALLEL_MIN_EMPTIES: u32 = 16;

/// What the threads of one solve share.
#[derive(Default)]
pub(super) struct Pool {
    /// The open split points, and their number (read without the lock).
    offered: Mutex<Vec<Arc<Split>>>,
    offers: AtomicUsize,
    /// Threads waiting for work (helpers, and owners waiting for their helpers).
    idle: AtomicUsize,
    /// The solve was aborted: every thread unwinds.
    stop: AtomicBool,
    /// The solve is over: the helpers return.
    done: AtomicBool,
    /// The helpers' nodes, added at each poll.
    nodes: AtomicU64,
    /// The part of them visited by evaluation searches, added as each helper ends.
    eval_nodes: AtomicU64,
}

impl Pool {
    fn publish(&self, list: &[Arc<Split>]) {
        self.offers.store(list.len(), Release);
    }
}

/// A node whose remaining moves are shared out.
pub(super) struct Split {
    p: u64,
    o: u64,
    beta: i32,
    moves: MoveList,
    /// The index of the next move to search.
    next: AtomicUsize,
    state: Mutex<State>,
    /// A move refuted the node: its other searches are pointless.
    cut: AtomicBool,
    /// Threads working here, the owner included.
    workers: AtomicUsize,
    /// The split point the owner was working in, if any.
    parent: Option<Arc<Split>>,
}

struct State {
    alpha: i32,
    best: i32,
    best_move: u8,
}

impl Split {
    fn open(&self) -> bool {
        self.next.load(Relaxed) < self.moves.len && !self.cut.load(Relaxed)
    }

    fn below(&self, other: &Arc<Split>) -> bool {
        let mut at = self.parent.as_ref();
        while let Some(s) = at {
            if Arc::ptr_eq(s, other) {
                return true;
            }
            at = s.parent.as_ref();
        }
        false
    }
}

/// Waits a little, then gives the processor away: the machine may be shared.
fn back_off(spins: &mut u32) {
    *spins += 1;
    if *spins < 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// A helper thread: joins split points until the solve is over.
fn helper(table: Arc<Table>, pool: Arc<Pool>, split_min: u32) {
    let mut s = Solver::new_helper(table, pool.clone(), split_min);
    pool.idle.fetch_add(1, SeqCst);
    let mut spins = 0;
    while !pool.done.load(Acquire) {
        if s.help(&pool, None) {
            spins = 0;
        } else {
            back_off(&mut spins);
        }
    }
    s.flush_nodes();
    pool.eval_nodes.fetch_add(s.eval_nodes, Relaxed);
}

impl<'a> Solver<'a> {
    /// A helper's solver: the shared table and pool, no abort check of its own.
    fn new_helper(table: Arc<Table>, pool: Arc<Pool>, split_min: u32) -> Solver<'a> {
        let mut s = Solver::with_table(table);
        s.split_min = split_min;
        s.pool = Some(pool);
        s.helper = true;
        s
    }

    /// Runs `f` with the helper threads of a parallel solve when this solver has threads and
    /// `board` is worth them; their nodes are added to this solver's.
    pub(super) fn with_helpers<R>(&mut self, board: &Board, f: impl FnOnce(&mut Self) -> R) -> R {
        if self.threads < 2
            || self.pool.is_some()
            || board.empties().count_ones() < self.parallel_min
        {
            return f(self);
        }
        let pool = Arc::new(Pool::default());
        self.pool = Some(pool.clone());
        let tables: Vec<Arc<Table>> = (1..self.threads).map(|_| self.table.clone()).collect();
        let split_min = self.split_min;
        let r = std::thread::scope(|scope| {
            let mut helpers = Vec::new();
            for table in tables {
                let pool = pool.clone();
                let spawned = std::thread::Builder::new()
                    .name("ryoshi-solve".into())
                    .spawn_scoped(scope, move || helper(table, pool, split_min));
                // A thread the system refuses is one helper fewer.
                match spawned {
                    Ok(h) => helpers.push(h),
                    Err(_) => break,
                }
            }
            let r = f(self);
            pool.done.store(true, Release);
            for h in helpers {
                // A helper's panic is the scope's to report; its nodes are lost.
                let _ = h.join();
            }
            r
        });
        self.nodes += pool.nodes.load(Acquire);
        self.eval_nodes += pool.eval_nodes.load(Acquire);
        self.pool = None;
        r
    }

    /// The pool, when a thread waits for work.
    #[inline(always)]
    pub(super) fn idle_pool(&self) -> Option<Arc<Pool>> {
        self.pool
            .as_ref()
            .filter(|p| p.idle.load(Relaxed) > 0)
            .cloned()
    }

    /// Whether this thread's work was cut or the solve stopped.
    pub(super) fn cancelled(&self) -> bool {
        let Some(pool) = &self.pool else {
            return false;
        };
        if pool.stop.load(Relaxed) {
            return true;
        }
        let mut at = self.current.as_ref();
        while let Some(s) = at {
            if s.cut.load(Relaxed) {
                return true;
            }
            at = s.parent.as_ref();
        }
        false
    }

    /// Every thread of the solve unwinds.
    pub(super) fn stop_all(&self) {
        if let Some(pool) = &self.pool {
            pool.stop.store(true, Relaxed);
        }
    }

    /// The helpers' nodes so far.
    pub(super) fn others_nodes(&self) -> u64 {
        self.pool.as_ref().map_or(0, |p| p.nodes.load(Relaxed))
    }

    /// A helper adds its nodes since the last time to the pool's.
    pub(super) fn flush_nodes(&mut self) {
        if let Some(pool) = self.pool.as_ref().filter(|_| self.helper) {
            pool.nodes.fetch_add(self.nodes - self.flushed, Relaxed);
            self.flushed = self.nodes;
        }
    }

    /// Shares out the moves of `list` from `from` on at (p, o), searched in (`alpha`, `beta`)
    /// with `best` (score, move) found so far: the node's best score and move.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split(
        &mut self,
        pool: Arc<Pool>,
        (p, o): (u64, u64),
        alpha: i32,
        beta: i32,
        best: (i32, u8),
        list: &MoveList,
        from: usize,
    ) -> (i32, u8) {
        self.splits += 1;
        let sp = Arc::new(Split {
            p,
            o,
            beta,
            moves: *list,
            next: AtomicUsize::new(from),
            state: Mutex::new(State {
                alpha,
                best: best.0,
                best_move: best.1,
            }),
            cut: AtomicBool::new(false),
            workers: AtomicUsize::new(1),
            parent: self.current.clone(),
        });
        {
            let mut offered = pool.offered.lock();
            offered.push(sp.clone());
            pool.publish(&offered);
        }
        let outer = self.current.replace(sp.clone());
        self.work(&sp);
        {
            let mut offered = pool.offered.lock();
            offered.retain(|s| !Arc::ptr_eq(s, &sp));
            pool.publish(&offered);
        }
        if sp.workers.fetch_sub(1, AcqRel) > 1 {
            pool.idle.fetch_add(1, SeqCst);
            let mut spins = 0;
            while sp.workers.load(Acquire) > 0 {
                if self.help(&pool, Some(&sp)) {
                    spins = 0;
                } else {
                    back_off(&mut spins);
                }
            }
            pool.idle.fetch_sub(1, SeqCst);
        }
        self.current = outer;
        self.aborted = self.cancelled();
        let state = sp.state.lock();
        (state.best, state.best_move)
    }

    /// Joins an open split point (below `under`, when given) and works there until it has no
    /// move left. False when there was none to join.
    fn help(&mut self, pool: &Arc<Pool>, under: Option<&Arc<Split>>) -> bool {
        if pool.offers.load(Acquire) == 0 {
            return false;
        }
        let found = {
            let offered = pool.offered.lock();
            let found = offered
                .iter()
                .find(|s| s.open() && under.is_none_or(|u| s.below(u)))
                .cloned();
            // Joined under the lock: the owner takes its split point off the list, under the
            // lock, before it waits for its workers.
            if let Some(s) = &found {
                s.workers.fetch_add(1, AcqRel);
            }
            found
        };
        let Some(sp) = found else {
            return false;
        };
        pool.idle.fetch_sub(1, SeqCst);
        let outer = self.current.replace(sp.clone());
        self.aborted = self.cancelled();
        self.work(&sp);
        sp.workers.fetch_sub(1, AcqRel);
        self.current = outer;
        self.aborted = self.cancelled();
        pool.idle.fetch_add(1, SeqCst);
        true
    }

    /// Searches the split point's moves one by one, each first with a null window at the
    /// split's alpha (PVS), until none is left or the node is refuted.
    fn work(&mut self, sp: &Split) {
        let (p, o, beta) = (sp.p, sp.o, sp.beta);
        loop {
            if self.aborted || sp.cut.load(Relaxed) {
                return;
            }
            let i = sp.next.fetch_add(1, Relaxed);
            if i >= sp.moves.len {
                return;
            }
            let sq = sp.moves.moves[i];
            let f = flips(p, o, sq);
            let (np, no) = (o ^ f, p | f | 1 << sq);
            let alpha = sp.state.lock().alpha;
            let mut score = -self.search(np, no, -alpha - 1, -alpha, false);
            if !self.aborted && score > alpha && score < beta {
                score = -self.search(np, no, -beta, -score, false);
            }
            if self.aborted {
                return;
            }
            let mut state = sp.state.lock();
            if score > state.best {
                state.best = score;
                state.best_move = sq as u8;
                if score > state.alpha {
                    state.alpha = score;
                    if score >= beta {
                        sp.cut.store(true, Relaxed);
                    }
                }
            }
        }
    }
}
