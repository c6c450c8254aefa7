//! The exact endgame solver: negamax alpha-beta over the final disc difference.
//!
//! - Near the end (few empties) it walks the empty squares directly instead of generating moves,
//!   odd quadrants first (parity); the last three squares have code of their own, without
//!   loops, and the last one is scored by counting its flips.
//! - Higher up it orders moves by the opponent's mobility after the move ("fastest first", with
//!   corners weighted), tries the transposition table's move first, searches the first move with
//!   the full window and the others with a null window (PVS), and cuts on stable discs.
//! - Near the root (20+ empties) a shallow search on the learned evaluation ([`super::pattern`])
//!   weighs in on the order, and the root's MTD(f) starts from that evaluation's guess.
//! - The AVX2 build turns discs with both halves of the eight directions in vector registers
//!   ([`flip`]).
//!
//! Scores are disc differences for the side to move, empties going to the winner.

// SAFETY: allowed for the solver compiled again with POPCNT/BMI/AVX2 (called only where the CPU has them), prefetch, and huge pages for its table.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

mod flip;
mod last_flip;
mod order;
mod search;
mod split;
mod stability;
mod table;

use crate::othello::board::{flips, moves, Board};
use last_flip::count_last_flips;
use order::{eval_search, GUESS_DEPTH};
use split::{Pool, Split};
pub use stability::{stable_discs, stable_edges};
use std::sync::Arc;
use table::{Table, NO_MOVE};

/// The solver's state: node counter, transposition table, threads and the abort check.
pub struct Solver<'a> {
    /// Positions visited, by every thread once a solve is over: the exact search's and those
    /// of the evaluation searches that order its moves and give its first guess (as Edax and
    /// Egaroucid count theirs).
    pub nodes: u64,
    /// The part of `nodes` visited by the evaluation searches.
    pub eval_nodes: u64,
    table: Arc<Table>,
    abort: Option<&'a dyn Fn(u64) -> bool>,
    aborted: bool,
    /// The node count at which `abort` is asked next.
    next_poll: u64,
    native: bool,
    threads: usize,
    /// While a solve runs on several threads: what they share, the split point this thread
    /// works in, and the nodes already added to the shared count (a helper's).
    pool: Option<Arc<Pool>>,
    current: Option<Arc<Split>>,
    helper: bool,
    flushed: u64,
    /// [`split::SPLIT_MIN_EMPTIES`] and [`split::PARALLEL_MIN_EMPTIES`] (lowered by the
    /// tests, so that small endgames split too).
    split_min: u32,
    parallel_min: u32,
    /// Split points this thread opened (the tests check that threads shared work).
    splits: u64,
}

/// Nodes between two calls of the abort check.
const POLL_INTERVAL: u64 = 4096;

/// The score the side to move gets when the game ends here.
#[inline(always)]
pub fn final_score(p: u64, o: u64) -> i32 {
    let pc = p.count_ones() as i32;
    let oc = o.count_ones() as i32;
    let e = 64 - pc - oc;
    let d = pc - oc;
    if d > 0 {
        d + e
    } else if d < 0 {
        d - e
    } else {
        0
    }
}

/// A result of a solved root: the best move (None when the game is over) and its exact score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    pub best: Option<u32>,
    pub score: i32,
}

impl<'a> Solver<'a> {
    /// A solver with a table of 2^`log2_entries` x 3/4 entries (2^`log2_entries` x 16 bytes).
    /// When that much memory cannot be had, the table halves until it can.
    pub fn new(log2_entries: u32) -> Solver<'a> {
        let table = Table::new(1usize << (log2_entries.max(2) - 2));
        Solver::with_table(Arc::new(table))
    }

    fn with_table(table: Arc<Table>) -> Solver<'a> {
        Solver {
            nodes: 0,
            eval_nodes: 0,
            table,
            abort: None,
            aborted: false,
            next_poll: POLL_INTERVAL,
            native: crate::othello::perft::has_native(),
            threads: 1,
            pool: None,
            current: None,
            helper: false,
            flushed: 0,
            split_min: split::SPLIT_MIN_EMPTIES,
            parallel_min: split::PARALLEL_MIN_EMPTIES,
            splits: 0,
        }
    }

    /// Solves with `threads` threads (this one and helpers started for each solve of enough
    /// empties), sharing the table ([`split`]). The scores are the same; the node counts vary
    /// from run to run.
    pub fn with_threads(mut self, threads: usize) -> Solver<'a> {
        if threads > 1 {
            if let Some(table) = Arc::get_mut(&mut self.table) {
                table.share();
                self.threads = threads;
            }
        }
        self
    }

    /// Polled every few thousand nodes; when it says true the search unwinds and the result of
    /// the interrupted call is meaningless (see [`Solver::aborted`]).
    pub fn with_abort(mut self, abort: &'a dyn Fn(u64) -> bool) -> Solver<'a> {
        self.abort = Some(abort);
        self
    }

    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Exact score and a best move of `board` (player to move). A player who must pass gets
    /// `best: None` with the score after the pass, as does a finished game.
    pub fn solve(&mut self, board: &Board) -> Solved {
        // MTD(f): null-window tests closing in on the score reuse the table between them and
        // cut far more than one wide window.
        if board.moves() == 0 {
            return self.solve_window(board, -64, 64);
        }
        // The first guess from a shallow search on the learned evaluation: each test between
        // it and the score costs a whole null-window search (FFO #40-#44: 273M nodes instead
        // of 297M). Scores are even (64 squares): the nearest even disc count. Small solves
        // start from 0, as their tests cost less than the guess.
        let depth = board
            .empties()
            .count_ones()
            .saturating_sub(12)
            .min(GUESS_DEPTH);
        let mut guess = 0;
        if depth > 0 {
            // Up to GUESS_DEPTH plies without a table: up to tenths of a second, more on a loaded
            // machine, so its positions count as nodes and it asks the abort check as the solve
            // does, and a move searched to its clock's end is not sent late.
            let mut stop = || {
                // Once stopped, the search unwinds asking at each sibling: those are not visits.
                if !self.aborted {
                    self.eval_nodes += 1;
                    self.tick();
                }
                self.aborted
            };
            let cp = eval_search(
                board.player,
                board.opponent,
                depth,
                -i32::MAX,
                i32::MAX,
                false,
                &mut stop,
            );
            if self.aborted {
                return Solved {
                    best: None,
                    score: 0,
                };
            }
            guess = ((cp + if cp >= 0 { 100 } else { -100 }) / 200 * 2).clamp(-64, 64);
        }
        self.with_helpers(board, |s| s.mtd(board, guess))
    }

    /// The MTD(f) tests from `guess`, until the score is known.
    fn mtd(&mut self, board: &Board, mut guess: i32) -> Solved {
        let (mut lo, mut hi) = (-64, 64);
        let mut best = None;
        while lo < hi {
            let beta = if guess == lo { guess + 1 } else { guess };
            let r = self.root(board, beta - 1, beta);
            if self.aborted {
                break;
            }
            if r.score >= beta {
                lo = r.score;
                best = r.best;
            } else {
                hi = r.score;
                if best.is_none() && hi <= lo {
                    best = r.best;
                }
            }
            guess = r.score;
        }
        Solved { best, score: lo }
    }

    /// As [`Solver::solve`], but the score is only exact inside (alpha, beta); outside it is a
    /// bound on the same side (fail-soft).
    pub fn solve_window(&mut self, board: &Board, alpha: i32, beta: i32) -> Solved {
        self.with_helpers(board, |s| s.root(board, alpha, beta))
    }

    /// The root's moves in the window, PVS: the first with the whole window, the others with
    /// a null one (shared out when threads wait for work).
    fn root(&mut self, board: &Board, alpha: i32, beta: i32) -> Solved {
        let (p, o) = (board.player, board.opponent);
        let m = moves(p, o);
        if m == 0 {
            let score = self.search(p, o, alpha, beta, false);
            return Solved { best: None, score };
        }
        let mut alpha = alpha;
        let mut best = (NO_MOVE, -65);
        // SAFETY: compiled without extra target features.
        let list = unsafe { self.ordered_generic(p, o, m, 65, false) }.unwrap_or_default();
        for (i, sq) in list.iter().enumerate() {
            if i == 1 && list.len >= 3 {
                if let Some(pool) = self.idle_pool() {
                    let (score, sq) =
                        self.split(pool, (p, o), alpha, beta, (best.1, best.0), &list, 1);
                    best = (sq, score);
                    break;
                }
            }
            let f = flips(p, o, sq);
            let (np, no) = (o ^ f, p | f | 1 << sq);
            let mut score;
            if i == 0 {
                score = -self.search(np, no, -beta, -alpha, false);
            } else {
                score = -self.search(np, no, -alpha - 1, -alpha, false);
                if score > alpha && score < beta {
                    score = -self.search(np, no, -beta, -score, false);
                }
            }
            if self.aborted {
                break;
            }
            if score > best.1 {
                best = (sq as u8, score);
                if score > alpha {
                    alpha = score;
                }
                if alpha >= beta {
                    break;
                }
            }
        }
        Solved {
            best: (best.0 != NO_MOVE).then_some(best.0 as u32),
            score: best.1,
        }
    }

    /// The exact score of `board` (player to move), for callers that solve each move apart.
    pub fn score(&mut self, board: &Board) -> i32 {
        self.solve(board).score
    }

    /// The search, in the CPU's best available version.
    fn search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        #[cfg(target_arch = "x86_64")]
        {
            if self.native {
                // SAFETY: `native` is set only when the CPU has every feature it was built for.
                return unsafe { self.search_native(p, o, alpha, beta, passed) };
            }
        }
        // SAFETY: compiled without extra target features.
        unsafe { self.search_generic(p, o, alpha, beta, passed) }
    }

    /// Adds `n` positions of an evaluation search that ordered moves to the counts.
    #[inline(always)]
    fn count_eval_nodes(&mut self, n: u64) {
        self.nodes += n;
        self.eval_nodes += n;
    }

    #[inline(always)]
    fn tick(&mut self) {
        self.nodes += 1;
        // `>=`, not a multiple: the last-squares solvers count their nodes without polling.
        if self.nodes >= self.next_poll {
            self.poll();
        }
    }

    #[cold]
    #[inline(never)]
    fn poll(&mut self) {
        self.next_poll = self.nodes + POLL_INTERVAL;
        if let Some(abort) = self.abort {
            if abort(self.nodes + self.others_nodes()) {
                self.aborted = true;
                self.stop_all();
            }
        }
        if self.pool.is_some() {
            self.flush_nodes();
            self.aborted |= self.cancelled();
        }
    }

    /// One empty square left: whoever can play there does; otherwise the game ends.
    #[inline(always)]
    fn last1(&mut self, p: u64, o: u64, sq: u32) -> i32 {
        self.nodes += 1;
        let diff = p.count_ones() as i32 - o.count_ones() as i32;
        let f = count_last_flips(p, sq);
        if f > 0 {
            return diff + 2 * f + 1;
        }
        let g = count_last_flips(o, sq);
        if g > 0 {
            return diff - 2 * g - 1;
        }
        if diff > 0 {
            diff + 1
        } else if diff < 0 {
            diff - 1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests;
