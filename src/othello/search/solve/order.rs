//! Move ordering high in the tree: the keys (mobility, corner stability, potential
//! mobility), a two-ply look-ahead on a small evaluation, and a shallow alpha-beta on the
//! learned evaluation, which also gives MTD(f) its first guess.

use super::final_score;
use crate::othello::board::{flips, moves, neighbours, squares};

pub(super) const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Up to 32 moves with their ordering keys, on the stack.
#[derive(Clone, Copy, Default)]
pub(super) struct MoveList {
    keys: [i32; 32],
    pub(super) moves: [u32; 32],
    pub(super) len: usize,
}

impl MoveList {
    #[inline]
    pub(super) fn push(&mut self, key: i32, sq: u32) {
        // Othello positions have at most 33 legal moves; more never occurs in play from the
        // start, and the 33rd would only lose ordering, so it is kept in the last slot.
        let i = self.len.min(31);
        self.keys[i] = key;
        self.moves[i] = sq;
        self.len = (self.len + 1).min(32);
    }

    /// Insertion sort by key, smallest first (the lists are short).
    #[inline(always)]
    pub(super) fn sort(&mut self) {
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

    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.moves[..self.len].iter().copied()
    }
}

/// From this many empties on (below [`EVAL_ORDER_EMPTIES`]), moves are also ordered by a
/// two-ply look-ahead on a small evaluation (worth its cost only high in the tree). FFO
/// #40-#44: from 12, 151.2M nodes; from 14, 158.7M; from 16, 171.5M; from 10 and 11, 147.6M
/// and 148.8M but a third more CPU.
pub(super) const ORDER_SEARCH_EMPTIES: u32 = 12;
/// From this many empties on, moves are ordered by a shallow search on the learned pattern
/// evaluation instead: 2 plies, 3 from [`EVAL_ORDER_DEEP_EMPTIES`]. FFO #40-#44, nodes (table
/// from 7 empties, look-ahead from 12): 2-3 plies from 18, 140.0M; 3 plies from 18, 137.3M
/// but 9% more CPU; 2-3 from 16, 130.1M but 12% more CPU; 3 plies from 20 (before), 149.0M.
pub(super) const EVAL_ORDER_EMPTIES: u32 = 18;
pub(super) const EVAL_ORDER_DEEP_EMPTIES: u32 = 20;
/// A disc of the learned evaluation against the mobility key: worth two moves of the
/// opponent's mobility. FFO #40-#44 (3 plies from 20): 1/2 move 157.2M, 1 move 151.2M, 2 moves
/// 149.0M, 4 moves 146.6M.
pub(super) const EVAL_ORDER_WEIGHT: i32 = 2 * W_MOBILITY;
/// Plies of the search on the learned evaluation that gives MTD(f) its first guess, at most
/// (and 12 fewer than the empties). FFO #40-#44, nodes: 4 plies 242M, 8 plies 232M, 10 plies
/// 234M (issue 18); with the table from 7 empties and the ordering of issue 67, 10 plies
/// 131.5M against 135.9M at 8.
pub(super) const GUESS_DEPTH: u32 = 10;
/// The look-ahead's weight against the mobility key.
pub(super) const ORDER_EVAL_WEIGHT: i32 = 128;
/// Ordering weights: the opponent's weighted mobility after the move, our corner-anchored
/// discs, the opponent's potential mobility.
pub(super) const W_MOBILITY: i32 = 1024;
pub(super) const W_CORNER_STABILITY: i32 = 64;
pub(super) const W_POTENTIAL: i32 = 1;

/// A small evaluation for ordering, for the side to move: weighted mobility, corners, corner
/// stability, potential mobility.
#[inline(always)]
pub(super) fn quick_eval(p: u64, o: u64) -> i32 {
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
pub(super) fn reply_value(p: u64, o: u64) -> i32 {
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
pub(super) const EVAL_SEARCH_ORDER_DEPTH: u32 = 3;

/// An alpha-beta on the learned evaluation (centi-discs, side to move), `depth` plies, no table:
/// the score guess at the root and the ordering of moves high in the tree. `stop` is asked at
/// every node: once it says so, the search unwinds at once with a meaningless score (the guess
/// at the root is the one part of a solve that would otherwise not see the clock).
pub(super) fn eval_search<S: FnMut() -> bool>(
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
        // The tempo fitted for play's depth-8 horizon moved the first guess away from the
        // score (FFO #45: 228.6M nodes before it, 355.0M with it).
        return crate::othello::search::pattern::evaluate_without_tempo(p, o);
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

/// Discs of `p` on a corner or next to an owned corner along an edge: surely stable.
#[inline(always)]
pub(super) fn corner_stability(p: u64) -> i32 {
    let stable = (((0x0100_0000_0000_0001 & p) << 1)
        | ((0x8000_0000_0000_0080 & p) >> 1)
        | ((0x0000_0000_0000_0081 & p) << 8)
        | ((0x8100_0000_0000_0000 & p) >> 8)
        | CORNERS)
        & p;
    stable.count_ones() as i32
}
