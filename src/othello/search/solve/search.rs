//! The recursive searches, the last squares' code among them.

use super::order::{
    corner_stability, eval_search, reply_value, MoveList, CORNERS, EVAL_ORDER_DEEP_EMPTIES,
    EVAL_ORDER_EMPTIES, EVAL_ORDER_WEIGHT, ORDER_EVAL_WEIGHT, ORDER_SEARCH_EMPTIES,
    W_CORNER_STABILITY, W_MOBILITY, W_POTENTIAL,
};
use super::table::NO_MOVE;
use super::{final_score, stable_discs, Solver};
use crate::othello::board::{flips, moves, neighbours, squares};

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
/// From this many empties on, the shallow search tries the stability cut (below, the test
/// costs more than the nodes it saves).
const SHALLOW_STABILITY_MIN: u32 = 6;

/// The quadrant (0..4) of each square, for parity ordering.
pub(super) static QUADRANT: [u8; 64] = {
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
pub(super) fn odd_quadrants(empties: u64) -> u64 {
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

impl Solver<'_> {
    /// A node's window (`alpha`, `beta`) narrowed by the opponent's stable discs and by the
    /// table's bounds (with `use_tt`), or `Err(score)` when either settles the node. Inlined
    /// into each version of the search, so it gets the CPU features of the one that calls it.
    #[inline(always)]
    fn narrowed(
        &self,
        p: u64,
        o: u64,
        mut alpha: i32,
        mut beta: i32,
        use_tt: bool,
    ) -> Result<(i32, i32), i32> {
        // Stability cut: the opponent's stable discs bound our best result. Only edge discs
        // can be proven stable here, so the test is skipped when they could not cut.
        if 2 * o.count_ones() as i32 >= 64 - alpha {
            let upper = 64 - 2 * stable_discs(o, p).count_ones() as i32;
            if upper <= alpha {
                return Err(upper);
            }
            beta = beta.min(upper);
        }
        if use_tt {
            if let Some(e) = self.table.probe(p, o) {
                let (lo, hi) = (e.lower as i32, e.upper as i32);
                if lo >= beta {
                    return Err(lo);
                }
                if hi <= alpha || lo == hi {
                    return Err(hi);
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
            }
        }
        Ok((alpha, beta))
    }
}

/// The recursive searches, written once and compiled twice: with the CPU's POPCNT/BMI/AVX2 (the
/// helpers they call are inlined, so they get the features too) and for generic x86-64.
macro_rules! search_fns {
    ($search:ident, $shallow:ident, $last2:ident, $last3:ident, $ordered:ident, $flips:path $(, $features:literal)?) => {
impl<'a> Solver<'a> {
    $(#[target_feature(enable = $features)])?
    pub(super) unsafe fn $search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, passed: bool) -> i32 {
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
            self.table.prefetch(p, o);
        }
        let m = moves(p, o);
        if m == 0 {
            if passed {
                return final_score(p, o);
            }
            return -self.$search(o, p, -beta, -alpha, true);
        }
        let (mut alpha, beta) = match self.narrowed(p, o, alpha, beta, use_tt) {
            Ok(window) => window,
            Err(score) => return score,
        };
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
                if i == 1 && n >= self.split_min && list.len >= 3 {
                    // Young brothers wait: the first move searched, the others go to the
                    // threads waiting for work, if any.
                    if let Some(pool) = self.idle_pool() {
                        (best_score, best_move) = self.split(pool, (p, o), alpha, beta, (best_score, best_move), &list, 1);
                        if self.aborted {
                            return 0;
                        }
                        break;
                    }
                }
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
            self.table.store(p, o, n, alpha0, beta0, best_score, best_move);
        }
        best_score
    }

    /// Moves best-first: the opponent's weighted mobility after the move (corners counting
    /// double), then its potential mobility; the table's move goes first.
    /// With `etc` (enhanced transposition cutoff) a child whose stored upper bound already
    /// refutes beta ends the node at once: `Err(score)`.
    #[inline]
    $(#[target_feature(enable = $features)])?
    pub(super) unsafe fn $ordered(&mut self, p: u64, o: u64, m: u64, beta: i32, etc: bool) -> Result<MoveList, i32> {
        let tt_move = if (!(p | o)).count_ones() >= TT_MIN_EMPTIES {
            self.table.probe(p, o).map_or(NO_MOVE, |e| e.best)
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
        // The evaluation searches' positions, counted as nodes.
        let mut visited = 0u64;
        for sq in squares(m) {
            let key = if sq as u8 == tt_move {
                i32::MIN
            } else {
                let f = $flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | 1 << sq);
                if etc {
                    if let Some(e) = self.table.probe(np, no) {
                        if -(e.upper as i32) >= beta {
                            self.count_eval_nodes(visited);
                            return Err(-(e.upper as i32));
                        }
                    }
                }
                if prefetch_children {
                    // The child's bucket, fetched while the other moves are weighed: its
                    // probe at the child's start would otherwise wait for memory.
                    self.table.prefetch(np, no);
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
                    let v = -eval_search(np, no, eval_depth, -i32::MAX, i32::MAX, false, &mut || {
                        visited += 1;
                        false
                    });
                    key -= v * EVAL_ORDER_WEIGHT / 100;
                }
                key
            };
            list.push(key, sq);
        }
        self.count_eval_nodes(visited);
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
    super::flip::flips_avx2,
    "popcnt,bmi1,bmi2,lzcnt,avx2"
);
