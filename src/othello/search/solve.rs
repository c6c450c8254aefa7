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

use crate::othello::board::{flips, moves, neighbours, squares, Board};
use last_flip::count_last_flips;

/// At or below this many empties the solver walks the empties list (no move generation, no TT).
/// FFO #40-#44: 158.7M nodes at 6 (with the table from 7) against 228.2M at 7 (table from 9),
/// the same CPU time; 136.0M at 5, but 15% more CPU.
const SHALLOW: u32 = 6;
/// At or above this many empties nodes use the transposition table: every node above
/// [`SHALLOW`]. FFO #40-#44 with the walk up to 7 empties: from 8, 209.3M nodes; from 10, 241.8M.
const TT_MIN_EMPTIES: u32 = 7;
/// At or above this many empties, children are looked up before searching (enhanced
/// transposition cutoff). Each look-up is a likely cache miss, so only high in the tree. FFO
/// #40-#44: from 12, 135.9M nodes against 140.0M from 15.
const ETC_MIN_EMPTIES: u32 = 12;

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// One stored position: 20 bytes (packed to 4-byte alignment), so that three fit a cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
    best: u8,
    empties: u8,
}

impl Entry {
    #[inline(always)]
    fn holds(&self, p: u64, o: u64) -> bool {
        // Copies, not references: the fields are packed.
        ({ self.player } == p) & ({ self.opponent } == o)
    }
}

/// Three entries in one cache line: a probe costs one memory access (and it is prefetched).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket {
    entries: [Entry; 3],
}

const NO_MOVE: u8 = 64;

/// Up to 32 moves with their ordering keys, on the stack.
#[derive(Default)]
struct MoveList {
    keys: [i32; 32],
    moves: [u32; 32],
    len: usize,
}

impl MoveList {
    #[inline]
    fn push(&mut self, key: i32, sq: u32) {
        // Othello positions have at most 33 legal moves; more never occurs in play from the
        // start, and the 33rd would only lose ordering, so it is kept in the last slot.
        let i = self.len.min(31);
        self.keys[i] = key;
        self.moves[i] = sq;
        self.len = (self.len + 1).min(32);
    }

    /// Insertion sort by key, smallest first (the lists are short).
    #[inline(always)]
    fn sort(&mut self) {
        for i in 1..self.len {
            let (k, m) = (self.keys[i], self.moves[i]);
            let mut j = i;
            while j > 0 && self.keys[j - 1] > k {
                self.keys[j] = self.keys[j - 1];
                self.moves[j] = self.moves[j - 1];
                j -= 1;
            }
            self.keys[j] = k;
            self.moves[j] = m;
        }
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.moves[..self.len].iter().copied()
    }
}

/// From this many empties on (below [`EVAL_ORDER_EMPTIES`]), moves are also ordered by a
/// two-ply look-ahead on a small evaluation (worth its cost only high in the tree). FFO
/// #40-#44: from 12, 151.2M nodes; from 14, 158.7M; from 16, 171.5M; from 10 and 11, 147.6M
/// and 148.8M but a third more CPU.
const ORDER_SEARCH_EMPTIES: u32 = 12;
/// From this many empties on, moves are ordered by a shallow search on the learned pattern
/// evaluation instead: 2 plies, 3 from [`EVAL_ORDER_DEEP_EMPTIES`]. FFO #40-#44, nodes (table
/// from 7 empties, look-ahead from 12): 2-3 plies from 18, 140.0M; 3 plies from 18, 137.3M
/// but 9% more CPU; 2-3 from 16, 130.1M but 12% more CPU; 3 plies from 20 (before), 149.0M.
const EVAL_ORDER_EMPTIES: u32 = 18;
const EVAL_ORDER_DEEP_EMPTIES: u32 = 20;
/// A disc of the learned evaluation against the mobility key: worth two moves of the
/// opponent's mobility. FFO #40-#44 (3 plies from 20): 1/2 move 157.2M, 1 move 151.2M, 2 moves
/// 149.0M, 4 moves 146.6M.
const EVAL_ORDER_WEIGHT: i32 = 2 * W_MOBILITY;
/// Plies of the search on the learned evaluation that gives MTD(f) its first guess, at most
/// (and 12 fewer than the empties). FFO #40-#44, nodes: 4 plies 242M, 8 plies 232M, 10 plies
/// 234M (issue 18); with the table from 7 empties and the ordering of issue 67, 10 plies
/// 131.5M against 135.9M at 8.
const GUESS_DEPTH: u32 = 10;
/// The look-ahead's weight against the mobility key.
const ORDER_EVAL_WEIGHT: i32 = 128;
/// Ordering weights: the opponent's weighted mobility after the move, our corner-anchored
/// discs, the opponent's potential mobility.
const W_MOBILITY: i32 = 1024;
const W_CORNER_STABILITY: i32 = 64;
const W_POTENTIAL: i32 = 1;
/// From this many empties on, the shallow search tries the stability cut (below, the test
/// costs more than the nodes it saves).
const SHALLOW_STABILITY_MIN: u32 = 6;

/// A small evaluation for ordering, for the side to move: weighted mobility, corners, corner
/// stability, potential mobility.
#[inline(always)]
fn quick_eval(p: u64, o: u64) -> i32 {
    let mp = moves(p, o);
    let mo = moves(o, p);
    let empties = !(p | o);
    let mob = (mp.count_ones() + (mp & CORNERS).count_ones()) as i32
        - (mo.count_ones() + (mo & CORNERS).count_ones()) as i32;
    let pot = (neighbours(o) & empties).count_ones() as i32
        - (neighbours(p) & empties).count_ones() as i32;
    mob * 8 + pot * 2 + (corner_stability(p) - corner_stability(o)) * 12
}

/// Our value after the move: the opponent (`p` here, to move) picks the reply that leaves us
/// the worst small evaluation.
#[inline(always)]
fn reply_value(p: u64, o: u64) -> i32 {
    let m = moves(p, o);
    if m == 0 {
        return quick_eval(o, p) + 32;
    }
    let mut worst = i32::MAX;
    for sq in squares(m) {
        let f = flips(p, o, sq);
        let v = quick_eval(o ^ f, p | f | 1 << sq);
        worst = worst.min(v);
    }
    worst
}

/// From this many plies left, [`eval_search`] orders its moves.
const EVAL_SEARCH_ORDER_DEPTH: u32 = 3;

/// An alpha-beta on the learned evaluation (centi-discs, side to move), `depth` plies, no table:
/// the score guess at the root and the ordering of moves high in the tree. `stop` is asked at
/// every node: once it says so, the search unwinds at once with a meaningless score (the guess
/// at the root is the one part of a solve that would otherwise not see the clock).
fn eval_search<S: FnMut() -> bool>(
    p: u64,
    o: u64,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    passed: bool,
    stop: &mut S,
) -> i32 {
    if stop() {
        return 0;
    }
    if depth == 0 {
        return super::pattern::evaluate(p, o);
    }
    let m = moves(p, o);
    if m == 0 {
        if passed {
            return final_score(p, o) * 100;
        }
        return -eval_search(o, p, depth, -beta, -alpha, true, stop);
    }
    // Fastest first from 3 plies on: the callers ask with the full window, so the order
    // changes only how much is searched, never the value.
    let mut list = MoveList::default();
    if depth >= EVAL_SEARCH_ORDER_DEPTH {
        for sq in squares(m) {
            let f = flips(p, o, sq);
            let theirs = moves(o ^ f, p | f | 1 << sq);
            list.push(
                (theirs.count_ones() + (theirs & CORNERS).count_ones()) as i32,
                sq,
            );
        }
        list.sort();
    } else {
        for sq in squares(m) {
            list.push(0, sq);
        }
    }
    let mut best = -i32::MAX;
    for sq in list.iter() {
        let f = flips(p, o, sq);
        let v = -eval_search(
            o ^ f,
            p | f | 1 << sq,
            depth - 1,
            -beta,
            -alpha,
            false,
            stop,
        );
        if v > best {
            best = v;
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// The quadrant (0..4) of each square, for parity ordering.
static QUADRANT: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = ((sq >> 2 & 1) | (sq >> 4 & 2)) as u8;
        sq += 1;
    }
    table
};

/// The quadrants holding an odd number of empties, as a mask of their squares: each quadrant's
/// parity is folded into one bit (rows onto the first of each half, then the four files of each
/// quadrant onto its first), then spread back over the quadrant by one multiplication.
#[inline(always)]
fn odd_quadrants(empties: u64) -> u64 {
    let mut x = empties ^ (empties >> 16);
    x ^= x >> 8;
    x ^= x >> 2;
    x ^= x >> 1;
    (x & 0x0000_0011_0000_0011).wrapping_mul(0x0F0F_0F0F)
}

/// Whether `p` can play on one of `empties` against `o` (few empties: cheaper than [`moves`]).
#[inline(always)]
fn can_play_on(p: u64, o: u64, empties: u64) -> bool {
    squares(empties).any(|sq| NEIGHBOURS[sq as usize] & o != 0 && flips(p, o, sq) != 0)
}

/// The squares around each square.
static NEIGHBOURS: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, f) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut bits = 0u64;
        let mut dr = -1;
        while dr <= 1 {
            let mut df = -1;
            while df <= 1 {
                let (y, x) = (r + dr, f + df);
                if (dr != 0 || df != 0) && y >= 0 && y < 8 && x >= 0 && x < 8 {
                    bits |= 1u64 << (y * 8 + x);
                }
                df += 1;
            }
            dr += 1;
        }
        table[sq] = bits;
        sq += 1;
    }
    table
};

/// Discs of `p` on a corner or next to an owned corner along an edge: surely stable.
#[inline(always)]
fn corner_stability(p: u64) -> i32 {
    let stable = (((0x0100_0000_0000_0001 & p) << 1)
        | ((0x8000_0000_0000_0080 & p) >> 1)
        | ((0x0000_0000_0000_0081 & p) << 8)
        | ((0x8100_0000_0000_0000 & p) >> 8)
        | CORNERS)
        & p;
    stable.count_ones() as i32
}

/// A zeroed table of `size` buckets (a power of two), or the largest smaller power of two the
/// allocator grants. On Linux the kernel is asked to back it with huge pages: a probe lands
/// anywhere in tens of MiB, and with 4 KiB pages most probes also missed the TLB.
fn new_table(size: usize) -> Vec<Bucket> {
    let mut size = size.max(1);
    let mut table: Vec<Bucket> = Vec::new();
    while table.try_reserve_exact(size).is_err() && size > 1 {
        size /= 2;
    }
    if table.capacity() < size {
        // Not even one bucket: let the allocator report it as any other allocation failure.
        table.reserve_exact(size);
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = table.as_ptr() as usize;
        let end = start + size * std::mem::size_of::<Bucket>();
        let (from, to) = ((start + HUGE - 1) & !(HUGE - 1), end & !(HUGE - 1));
        if to > from {
            // SAFETY: the range lies inside this vector's allocation, which nothing has touched
            // yet; the advice changes how pages are backed, never their contents.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    table.resize(size, Bucket::default());
    table
}

/// The solver's state: node counter, transposition table, and the abort check.
pub struct Solver<'a> {
    pub nodes: u64,
    table: Vec<Bucket>,
    mask: usize,
    abort: Option<&'a dyn Fn(u64) -> bool>,
    aborted: bool,
    /// The node count at which `abort` is asked next.
    next_poll: u64,
    native: bool,
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

#[inline(always)]
fn hash(p: u64, o: u64) -> u64 {
    crate::othello::board::mix(p, o)
}

/// Discs of `p` that can never be turned, as far as cheaply provable: filled edges and the
/// discs anchored to corners along edges. A lower bound, used for the stability cut.
pub fn stable_edges(p: u64, o: u64) -> u64 {
    let full = p | o;
    let mut stable = 0u64;
    // Rows 1 and 8, files a and h: full lines are stable; else grow from corners.
    const EDGES: [(u32, u32); 4] = [(0, 1), (56, 1), (0, 8), (7, 8)];
    for (start, step) in EDGES {
        let line: u64 = (0..8).fold(0, |acc, i| acc | 1u64 << (start + i * step));
        if full & line == line {
            stable |= p & line;
            continue;
        }
        let mut i = 0;
        while i < 8 && p >> (start + i * step) & 1 != 0 {
            stable |= 1 << (start + i * step);
            i += 1;
        }
        let mut i = 7i32;
        while i >= 0 && p >> (start + i as u32 * step) & 1 != 0 {
            stable |= 1 << (start + i as u32 * step);
            i -= 1;
        }
    }
    stable
}

/// For a diagonal direction (rank step 1, file step `df`), the squares whose 1st, 2nd and
/// 4th neighbour that way (`up`) or the other way (`!up`) is off the board.
const fn off_board(df: i32, up: bool) -> [u64; 3] {
    let mut out = [0u64; 3];
    let sign = if up { 1 } else { -1 };
    let mut k = 0;
    while k < 3 {
        let dist = 1 << k;
        let mut sq = 0;
        while sq < 64 {
            let r = sq / 8 + sign * dist;
            let f = sq % 8 + sign * df * dist;
            if r < 0 || r >= 8 || f < 0 || f >= 8 {
                out[k as usize] |= 1u64 << sq;
            }
            sq += 1;
        }
        k += 1;
    }
    out
}

const OFF_9_UP: [u64; 3] = off_board(1, true);
const OFF_9_DOWN: [u64; 3] = off_board(1, false);
const OFF_7_UP: [u64; 3] = off_board(-1, true);
const OFF_7_DOWN: [u64; 3] = off_board(-1, false);

/// The occupied squares whose diagonal (step `s`: 9 or 7) is full: full up to the board's edge
/// one way and the other, each by doubling (1, 2, then 4 steps; a neighbour off the board
/// counts as full).
#[inline(always)]
fn full_diagonal(occupied: u64, s: u32, up: &[u64; 3], down: &[u64; 3]) -> u64 {
    let mut u = occupied & ((occupied >> s) | up[0]);
    u &= (u >> (2 * s)) | up[1];
    u &= (u >> (4 * s)) | up[2];
    let mut d = occupied & ((occupied << s) | down[0]);
    d &= (d << (2 * s)) | down[1];
    d &= (d << (4 * s)) | down[2];
    u & d
}

/// For each of the four directions (rows, files, the a1-h8 and the h1-a8 diagonals), the
/// squares whose line in that direction is full.
#[inline(always)]
fn full_lines(occupied: u64) -> [u64; 4] {
    // A row is full when its eight bits are: fold each row onto its first bit.
    let mut t = occupied & (occupied >> 4);
    t &= t >> 2;
    t &= t >> 1;
    let rows = (t & 0x0101_0101_0101_0101).wrapping_mul(0xFF);
    let mut t = occupied & (occupied >> 32);
    t &= t >> 16;
    t &= t >> 8;
    let files = (t & 0xFF).wrapping_mul(0x0101_0101_0101_0101);
    [
        rows,
        files,
        full_diagonal(occupied, 9, &OFF_9_UP, &OFF_9_DOWN),
        full_diagonal(occupied, 7, &OFF_7_UP, &OFF_7_DOWN),
    ]
}

/// Discs of `p` that can never be turned, as far as provable cheaply: the stable edge discs,
/// then, repeatedly, inner discs whose four lines are each full or blocked on one side by a
/// stable disc of theirs (a disc can only be turned along a line with an empty square or an
/// unstable neighbour on both sides).
pub fn stable_discs(p: u64, o: u64) -> u64 {
    const INNER: u64 = 0x007E_7E7E_7E7E_7E00;
    let full = full_lines(p | o);
    let inner = p & INNER;
    let mut stable = stable_edges(p, o) | (inner & full[0] & full[1] & full[2] & full[3]);
    loop {
        let h = (stable >> 1) | (stable << 1) | full[0];
        let v = (stable >> 8) | (stable << 8) | full[1];
        let d9 = (stable >> 9) | (stable << 9) | full[2];
        let d7 = (stable >> 7) | (stable << 7) | full[3];
        let grown = stable | (inner & h & v & d9 & d7);
        if grown == stable {
            return stable;
        }
        stable = grown;
    }
}

impl<'a> Solver<'a> {
    /// A solver with a table of 2^`log2_entries` x 3/4 entries (2^`log2_entries` x 16 bytes).
    /// When that much memory cannot be had, the table halves until it can.
    pub fn new(log2_entries: u32) -> Solver<'a> {
        let table = new_table(1usize << (log2_entries.max(2) - 2));
        Solver {
            nodes: 0,
            mask: table.len() - 1,
            table,
            abort: None,
            aborted: false,
            next_poll: POLL_INTERVAL,
            native: crate::othello::perft::has_native(),
        }
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
        let (mut lo, mut hi) = (-64, 64);
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
            // machine, so it asks the abort check as the solve does (every POLL_INTERVAL
            // evaluations), and a move searched to its clock's end is not sent late.
            let mut evals = 0u64;
            let mut stop = || {
                evals += 1;
                if !self.aborted && evals.is_multiple_of(POLL_INTERVAL) {
                    self.poll();
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
        let mut best = None;
        while lo < hi {
            let beta = if guess == lo { guess + 1 } else { guess };
            let r = self.solve_window(board, beta - 1, beta);
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
        let (p, o) = (board.player, board.opponent);
        let m = moves(p, o);
        if m == 0 {
            let score = self.search(p, o, alpha, beta, false);
            return Solved { best: None, score };
        }
        let mut alpha = alpha;
        let mut best = (None, -65);
        // SAFETY: compiled without extra target features.
        let list = unsafe { self.ordered_generic(p, o, m, 65, false) }.unwrap_or_default();
        for (i, sq) in list.iter().enumerate() {
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
                best = (Some(sq), score);
                if score > alpha {
                    alpha = score;
                }
                if alpha >= beta {
                    break;
                }
            }
        }
        Solved {
            best: best.0,
            score: best.1,
        }
    }

    /// The exact score of `board` (player to move), for callers that solve each move apart.
    pub fn score(&mut self, board: &Board) -> i32 {
        self.solve(board).score
    }

    #[inline(always)]
    fn bucket(&self, p: u64, o: u64) -> usize {
        hash(p, o) as usize & self.mask
    }

    /// Asks the CPU to bring (p, o)'s bucket into the cache while the node does other work.
    #[inline(always)]
    fn prefetch(&self, p: u64, o: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let b = &self.table[self.bucket(p, o)] as *const Bucket as *const i8;
            // SAFETY: a prefetch has no effect on memory and `b` points into the table.
            unsafe { std::arch::x86_64::_mm_prefetch(b, std::arch::x86_64::_MM_HINT_T0) };
        }
    }

    /// The table entry of (p, o), if stored.
    #[inline(always)]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let b = &self.table[self.bucket(p, o)];
        b.entries.iter().find(|e| e.holds(p, o)).copied()
    }

    /// Where to store (p, o): its own entry if stored, else the bucket's entry with the fewest
    /// empties (the cheapest to search again).
    #[inline(always)]
    fn slot_for(&mut self, p: u64, o: u64) -> &mut Entry {
        let i = self.bucket(p, o);
        let b = &mut self.table[i];
        let mut pick = 0;
        for k in 0..3 {
            if b.entries[k].holds(p, o) {
                pick = k;
                break;
            }
            if b.entries[k].empties < b.entries[pick].empties {
                pick = k;
            }
        }
        &mut b.entries[pick]
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
            if abort(self.nodes) {
                self.aborted = true;
            }
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

/// The recursive searches, written once and compiled twice: with the CPU's POPCNT/BMI/AVX2 (the
/// helpers they call are inlined, so they get the features too) and for generic x86-64.
macro_rules! search_fns {
    ($search:ident, $shallow:ident, $last2:ident, $last3:ident, $ordered:ident, $flips:path $(, $features:literal)?) => {
impl<'a> Solver<'a> {
    $(#[target_feature(enable = $features)])?
    unsafe fn $search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
        let empties = !(p | o);
        let n = empties.count_ones();
        if n <= SHALLOW {
            return self.$shallow(p, o, alpha, beta, empties, n, passed);
        }
        self.tick();
        if self.aborted {
            return 0;
        }
        let use_tt = n >= TT_MIN_EMPTIES;
        if use_tt {
            self.prefetch(p, o);
        }
        let m = moves(p, o);
        if m == 0 {
            if passed {
                return final_score(p, o);
            }
            return -self.$search(o, p, -beta, -alpha, true);
        }
        let mut alpha = alpha;
        let mut beta = beta;
        // Stability cut: the opponent's stable discs bound our best result. Only edge discs
        // can be proven stable here, so the test is skipped when they could not cut.
        if 2 * o.count_ones() as i32 >= 64 - alpha {
            let upper = 64 - 2 * stable_discs(o, p).count_ones() as i32;
            if upper <= alpha {
                return upper;
            }
            if upper < beta {
                beta = upper;
            }
        }
        if use_tt {
            if let Some(e) = self.probe(p, o) {
                let (lo, hi) = (e.lower as i32, e.upper as i32);
                if lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                if lo == hi {
                    return lo;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best_score = -65;
        let mut best_move = NO_MOVE;
        if m & (m - 1) == 0 {
            // A single move needs no ordering.
            let sq = m.trailing_zeros();
            let f = $flips(p, o, sq);
            best_score = -self.$search(o ^ f, p | f | 1 << sq, -beta, -alpha, false);
            best_move = sq as u8;
        } else {
            let list = match self.$ordered(p, o, m, beta, n >= ETC_MIN_EMPTIES) {
                Ok(list) => list,
                Err(cut) => return cut,
            };
            for (i, sq) in list.iter().enumerate() {
                let f = $flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | 1 << sq);
                let mut score;
                if i == 0 {
                    score = -self.$search(np, no, -beta, -alpha, false);
                } else {
                    score = -self.$search(np, no, -alpha - 1, -alpha, false);
                    if score > alpha && score < beta {
                        score = -self.$search(np, no, -beta, -score, false);
                    }
                }
                if self.aborted {
                    return 0;
                }
                if score > best_score {
                    best_score = score;
                    best_move = sq as u8;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
        }
        if use_tt && !self.aborted {
            let e = self.slot_for(p, o);
            let same = e.holds(p, o);
            let (mut lo, mut hi) = if same {
                (e.lower as i32, e.upper as i32)
            } else {
                (-64, 64)
            };
            if best_score <= alpha0 {
                hi = hi.min(best_score);
            } else if best_score >= beta0 {
                lo = lo.max(best_score);
            } else {
                lo = best_score;
                hi = best_score;
            }
            *e = Entry {
                player: p,
                opponent: o,
                lower: lo as i8,
                upper: hi as i8,
                best: best_move,
                empties: n as u8,
            };
        }
        best_score
    }

    /// Moves best-first: the opponent's weighted mobility after the move (corners counting
    /// double), then its potential mobility; the table's move goes first.
    /// With `etc` (enhanced transposition cutoff) a child whose stored upper bound already
    /// refutes beta ends the node at once: `Err(score)`.
    #[inline]
    $(#[target_feature(enable = $features)])?
    unsafe fn $ordered(&self, p: u64, o: u64, m: u64, beta: i32, etc: bool) -> Result<MoveList, i32> {
        let tt_move = if (!(p | o)).count_ones() >= TT_MIN_EMPTIES {
            self.probe(p, o).map_or(NO_MOVE, |e| e.best)
        } else {
            NO_MOVE
        };
        let n = (!(p | o)).count_ones();
        let prefetch_children = n > TT_MIN_EMPTIES;
        let deep = (ORDER_SEARCH_EMPTIES..EVAL_ORDER_EMPTIES).contains(&n);
        // From EVAL_ORDER_EMPTIES on, a shallow search on the learned evaluation orders the
        // moves (as Edax does with its sorting searches).
        let eval_order = n >= EVAL_ORDER_EMPTIES;
        let eval_depth = if n >= EVAL_ORDER_DEEP_EMPTIES { 3 } else { 2 };
        let mut list = MoveList::default();
        for sq in squares(m) {
            let key = if sq as u8 == tt_move {
                i32::MIN
            } else {
                let f = $flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | 1 << sq);
                if etc {
                    if let Some(e) = self.probe(np, no) {
                        if -(e.upper as i32) >= beta {
                            return Err(-(e.upper as i32));
                        }
                    }
                }
                if prefetch_children {
                    // The child's bucket, fetched while the other moves are weighed: its
                    // probe at the child's start would otherwise wait for memory.
                    self.prefetch(np, no);
                }
                let theirs = moves(np, no);
                let empties = !(np | no);
                // Empties next to our discs: where the opponent may find moves later.
                let potential = (neighbours(no) & empties).count_ones() as i32;
                // As Edax's weights: the opponent's mobility decides, then our corner
                // stability, and its potential mobility only breaks ties.
                let mut key = (theirs.count_ones() + (theirs & CORNERS).count_ones()) as i32
                    * W_MOBILITY
                    + potential * W_POTENTIAL
                    - corner_stability(no) * W_CORNER_STABILITY;
                if deep {
                    key -= reply_value(np, no) * ORDER_EVAL_WEIGHT;
                }
                if eval_order {
                    let v = -eval_search(np, no, eval_depth, -i32::MAX, i32::MAX, false, &mut || false);
                    key -= v * EVAL_ORDER_WEIGHT / 100;
                }
                key
            };
            list.push(key, sq);
        }
        list.sort();
        Ok(list)
    }

    /// Few empties: walk them directly, odd quadrants first.
    #[allow(clippy::too_many_arguments)]
    $(#[target_feature(enable = $features)])?
    unsafe fn $shallow(
        &mut self,
        p: u64,
        o: u64,
        alpha: i32,
        beta: i32,
        empties: u64,
        n: u32,
        passed: bool,
    ) -> i32 {
        match n {
            0 => return final_score(p, o),
            1 => return self.last1(p, o, empties.trailing_zeros()),
            2 => {
                let x1 = empties.trailing_zeros();
                let x2 = 63 - empties.leading_zeros();
                return self.$last2(p, o, alpha, beta, x1, x2);
            }
            3 => return self.$last3(p, o, alpha, beta, empties),
            _ => {}
        }
        self.tick();
        // Stability cut, as in `search`: near the end many discs are stable, and the opponent's
        // bound our result. Below six empties the test costs more than it saves.
        if n >= SHALLOW_STABILITY_MIN && 2 * o.count_ones() as i32 >= 64 - alpha {
            let upper = 64 - 2 * stable_discs(o, p).count_ones() as i32;
            if upper <= alpha {
                return upper;
            }
        }
        let odd = odd_quadrants(empties);
        let mut alpha = alpha;
        let mut best = -65;
        for part in [empties & odd, empties & !odd] {
            for sq in squares(part) {
                // A square with no opponent neighbour turns nothing: skip the flip test.
                if NEIGHBOURS[sq as usize] & o == 0 {
                    continue;
                }
                let f = $flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                let bit = 1u64 << sq;
                let score = -self.$shallow(
                    o ^ f,
                    p | f | bit,
                    -beta,
                    -alpha,
                    empties ^ bit,
                    n - 1,
                    false,
                );
                if score > best {
                    best = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            return best;
                        }
                    }
                }
            }
        }
        if best == -65 {
            if passed {
                return final_score(p, o);
            }
            return -self.$shallow(o, p, -beta, -alpha, empties, n, true);
        }
        best
    }

    /// Two empty squares, `x1` and `x2`: each placement tried directly, then the last square
    /// by [`Solver::last1`]; a side without a placement passes, and with none for either the
    /// game ends. No loops, no parity, no abort check: the most frequent interior node.
    $(#[target_feature(enable = $features)])?
    unsafe fn $last2(&mut self, p: u64, o: u64, alpha: i32, beta: i32, x1: u32, x2: u32) -> i32 {
        self.nodes += 1;
        let mut best = -65;
        if NEIGHBOURS[x1 as usize] & o != 0 {
            let f = $flips(p, o, x1);
            if f != 0 {
                best = -self.last1(o ^ f, p | f | 1 << x1, x2);
                if best >= beta {
                    return best;
                }
            }
        }
        if NEIGHBOURS[x2 as usize] & o != 0 {
            let f = $flips(p, o, x2);
            if f != 0 {
                best = best.max(-self.last1(o ^ f, p | f | 1 << x2, x1));
            }
        }
        if best != -65 {
            return best;
        }
        // The side to move passes: the opponent's placements, scored for us (it minimises).
        self.nodes += 1;
        let mut worst = 65;
        if NEIGHBOURS[x1 as usize] & p != 0 {
            let f = $flips(o, p, x1);
            if f != 0 {
                worst = self.last1(p ^ f, o | f | 1 << x1, x2);
                if worst <= alpha {
                    return worst;
                }
            }
        }
        if NEIGHBOURS[x2 as usize] & p != 0 {
            let f = $flips(o, p, x2);
            if f != 0 {
                worst = worst.min(self.last1(p ^ f, o | f | 1 << x2, x1));
            }
        }
        if worst != 65 {
            return worst;
        }
        final_score(p, o)
    }

    /// Three empty squares: a square alone in its quadrant first (parity), then the others,
    /// each answered by the two-square solver.
    $(#[target_feature(enable = $features)])?
    unsafe fn $last3(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u64) -> i32 {
        self.tick();
        let x0 = empties.trailing_zeros();
        let rest = empties & (empties - 1);
        let x1 = rest.trailing_zeros();
        let x2 = 63 - rest.leading_zeros();
        // With three empties a quadrant holding exactly one of them is odd: play there first.
        let (q0, q1, q2) = (QUADRANT[x0 as usize], QUADRANT[x1 as usize], QUADRANT[x2 as usize]);
        let sq = if q0 == q1 && q1 != q2 {
            [x2, x0, x1]
        } else if q0 == q2 && q0 != q1 {
            [x1, x0, x2]
        } else {
            [x0, x1, x2]
        };
        let mut alpha = alpha;
        let mut best = -65;
        for i in 0..3 {
            let x = sq[i];
            if NEIGHBOURS[x as usize] & o == 0 {
                continue;
            }
            let f = $flips(p, o, x);
            if f == 0 {
                continue;
            }
            let (a, b) = match i {
                0 => (sq[1], sq[2]),
                1 => (sq[0], sq[2]),
                _ => (sq[0], sq[1]),
            };
            let score = -self.$last2(o ^ f, p | f | 1 << x, -beta, -alpha, a, b);
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        return best;
                    }
                }
            }
        }
        if best != -65 {
            return best;
        }
        // Pass: the opponent to move on the same three squares; no move for either ends it.
        if !can_play_on(o, p, empties) {
            return final_score(p, o);
        }
        -self.$last3(o, p, -beta, -alpha, empties)
    }

}
    };
}

search_fns!(
    search_generic,
    shallow_generic,
    last2_generic,
    last3_generic,
    ordered_generic,
    flips
);
#[cfg(target_arch = "x86_64")]
search_fns!(
    search_native,
    shallow_native,
    last2_native,
    last3_native,
    ordered_native,
    flip::flips_avx2,
    "popcnt,bmi1,bmi2,lzcnt,avx2"
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain minimax over every move, no pruning: the oracle for small endgames.
    fn minimax(p: u64, o: u64, passed: bool) -> i32 {
        let m = moves(p, o);
        if m == 0 {
            if passed || moves(o, p) == 0 {
                return final_score(p, o);
            }
            return -minimax(o, p, true);
        }
        squares(m)
            .map(|sq| {
                let f = flips(p, o, sq);
                -minimax(o ^ f, p | f | 1 << sq, false)
            })
            .max()
            .unwrap_or(-65)
    }

    #[test]
    fn full_lines_are_the_full_lines() {
        // Each line of each direction as a mask, by walking the board.
        let mut lines = vec![Vec::new(); 4];
        for (d, (dr, df)) in [(0i32, 1i32), (1, 0), (1, 1), (1, -1)]
            .into_iter()
            .enumerate()
        {
            for start in 0..64i32 {
                let (r, f) = (start / 8, start % 8);
                // Only lines starting at the board's edge against the direction.
                let (pr, pf) = (r - dr, f - df);
                if (0..8).contains(&pr) && (0..8).contains(&pf) {
                    continue;
                }
                let (mut r, mut f, mut line) = (r, f, 0u64);
                while (0..8).contains(&r) && (0..8).contains(&f) {
                    line |= 1 << (r * 8 + f);
                    r += dr;
                    f += df;
                }
                lines[d].push(line);
            }
        }
        let mut rng = crate::rng::SplitMix64::new(31);
        for i in 0..50000 {
            let state = rng.next();
            // Mostly full boards, as in the endgame.
            let occupied = if i % 2 == 0 {
                !(state & state >> 11 & state >> 23)
            } else {
                state
            };
            let got = full_lines(occupied);
            for d in 0..4 {
                let expect = lines[d]
                    .iter()
                    .filter(|&&l| occupied & l == l)
                    .fold(0, |acc, l| acc | l);
                assert_eq!(got[d], expect, "direction {d}, board {occupied:#x}");
            }
        }
    }

    #[test]
    fn odd_quadrants_are_the_odd_counts() {
        const QUADRANTS: [u64; 4] = [
            0x0000_0000_0F0F_0F0F,
            0x0000_0000_F0F0_F0F0,
            0x0F0F_0F0F_0000_0000,
            0xF0F0_F0F0_0000_0000,
        ];
        let mut rng = crate::rng::SplitMix64::new(777);
        for i in 0..20000 {
            let state = rng.next();
            // Sparse boards too, as near the end.
            let empties = if i % 2 == 0 {
                state
            } else {
                state & state >> 7 & state >> 19
            };
            let expect = QUADRANTS
                .iter()
                .filter(|&&q| (empties & q).count_ones() % 2 == 1)
                .fold(0, |acc, q| acc | q);
            assert_eq!(odd_quadrants(empties), expect, "{empties:#x}");
        }
        for (sq, &q) in QUADRANT.iter().enumerate() {
            assert_ne!(QUADRANTS[q as usize] & 1 << sq, 0, "square {sq}");
        }
    }

    /// FFO #40 (20 empties, black to move).
    fn ffo_40() -> Board {
        let line = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
        let (mut x, mut o) = (0u64, 0u64);
        for (i, c) in line.bytes().take(64).enumerate() {
            match c {
                b'X' => x |= 1 << i,
                b'O' => o |= 1 << i,
                _ => {}
            }
        }
        Board {
            player: x,
            opponent: o,
        }
    }

    #[test]
    fn the_abort_check_is_polled_while_solving() {
        // FFO #40: millions of nodes, most below the polling nodes.
        let board = ffo_40();
        let polls = std::cell::Cell::new(0u64);
        let abort = |nodes: u64| {
            polls.set(polls.get() + 1);
            nodes > 100_000
        };
        let mut solver = Solver::new(16).with_abort(&abort);
        solver.solve(&board);
        assert!(solver.aborted());
        assert!(
            polls.get() >= 100_000 / POLL_INTERVAL,
            "{} polls",
            polls.get()
        );
        // Stopped soon after the limit: between two polls only a few nodes pass uncounted.
        assert!(
            solver.nodes < 100_000 + 2 * POLL_INTERVAL,
            "{} nodes",
            solver.nodes
        );
    }

    #[test]
    fn the_first_guess_asks_the_abort_check_too() {
        // FFO #40 (20 empties): the guess searches 8 plies on the learned evaluation before the
        // solve counts a node. A clock that has run out stops it there, not at the solve's first
        // poll: the check is first asked with no node counted, and the solve is given up.
        let board = ffo_40();
        let first = std::cell::Cell::new(None);
        let abort = |nodes: u64| {
            first.set(first.get().or(Some(nodes)));
            true
        };
        let mut solver = Solver::new(16).with_abort(&abort);
        solver.solve(&board);
        assert!(solver.aborted());
        assert_eq!(
            first.get(),
            Some(0),
            "first asked with that many nodes counted"
        );
        assert_eq!(solver.nodes, 0);
    }

    #[test]
    fn stable_discs_never_turn() {
        let mut rng = crate::rng::SplitMix64::new(4242);
        let mut rand = || rng.next();
        let mut claimed = 0;
        for _ in 0..300 {
            let mut b = Board::START;
            let mut black_to_move = true;
            // Discs claimed stable so far, per colour.
            let (mut black_stable, mut white_stable) = (0u64, 0u64);
            loop {
                let (black, white) = if black_to_move {
                    (b.player, b.opponent)
                } else {
                    (b.opponent, b.player)
                };
                assert_eq!(black_stable & !black, 0, "a stable black disc turned");
                assert_eq!(white_stable & !white, 0, "a stable white disc turned");
                black_stable |= stable_discs(black, white);
                white_stable |= stable_discs(white, black);
                let m = b.moves();
                if m == 0 {
                    if b.pass().moves() == 0 {
                        break;
                    }
                    b = b.pass();
                    black_to_move = !black_to_move;
                    continue;
                }
                let list: Vec<u32> = squares(m).collect();
                b = b.play(list[(rand() % list.len() as u64) as usize]).unwrap();
                black_to_move = !black_to_move;
            }
            claimed += (black_stable | white_stable).count_ones();
        }
        assert!(
            claimed > 300 * 10,
            "the test should see stable discs: {claimed}"
        );
    }

    #[test]
    fn agrees_with_minimax_on_random_endgames() {
        let mut rng = crate::rng::SplitMix64::new(12345);
        let mut rand = || rng.next();
        let mut solver = Solver::new(12);
        let mut checked = 0;
        while checked < 400 {
            let mut b = Board::START;
            // Random play down to 1..=10 empties (0 when the game ends first): every special
            // case of the last squares, passes and early ends included, and the table's range.
            let stop = 1 + (rand() % 10) as u32;
            while b.empties().count_ones() > stop {
                let m = b.moves();
                if m == 0 {
                    if b.pass().moves() == 0 {
                        break;
                    }
                    b = b.pass();
                    continue;
                }
                let list: Vec<u32> = squares(m).collect();
                let sq = list[(rand() % list.len() as u64) as usize];
                b = b.play(sq).unwrap();
            }
            let expect = minimax(b.player, b.opponent, false);
            let got = solver.solve(&b);
            assert_eq!(got.score, expect, "{b:?}");
            if let Some(sq) = got.best {
                let after = b.play(sq).unwrap();
                assert_eq!(-minimax(after.player, after.opponent, false), expect);
            }
            // Null windows around the score bound it on the right side.
            for t in [expect - 1, expect] {
                let s = solver.solve_window(&b, t, t + 1).score;
                assert_eq!(
                    s > t,
                    expect > t,
                    "window ({t},{}) gave {s}, exact {expect}",
                    t + 1
                );
            }
            checked += 1;
        }
    }
}
