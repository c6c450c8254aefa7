//! Move ordering: the table's move, captures by the game's hint, two killers a ply, then quiet
//! moves by history (with gravity) and the game's hint.

use super::Searcher;
use crate::search::game::SearchGame;

/// History scores stay within ±this: each update moves a score toward the bound by the share of
/// the distance left (Stockfish's gravity), so what a game's early moves taught fades.
pub(super) const HISTORY_MAX: i32 = 1 << 14;

/// Adds `bonus` (negative: a malus) to a history score, with gravity.
pub(super) fn update_history(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

/// The index of the highest score at or after `start` (the first of equal ones).
#[inline]
pub(super) fn best_from(scores: &[i64], start: usize) -> usize {
    let mut best = start;
    for j in start + 1..scores.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    best
}

/// Appends the quiet moves of `pos` in the order `generate` gives them (its tactical moves are
/// already in the list).
pub(super) fn append_quiets<G: SearchGame>(pos: &G, moves: &mut Vec<G::Move>) {
    let start = moves.len();
    pos.generate(moves);
    let mut index = 0;
    moves.retain(|&m| {
        index += 1;
        index <= start || !pos.is_tactical(m)
    });
}

impl<G: SearchGame> Searcher<G> {
    // Called for every generated move, most of which are never searched: inlined into the
    // ordering loop, the game's hint and tests fuse with it.
    #[inline(always)]
    pub(super) fn order_score(&self, pos: &G, mv: G::Move, tt_code: u32, ply: u32) -> i64 {
        let code = G::code(mv);
        if code == tt_code {
            return i64::MAX;
        }
        if pos.is_tactical(mv) {
            return (1 << 40) + pos.order_hint(mv) as i64;
        }
        let k = self.killers[ply as usize];
        if code == k[0] {
            return 1 << 39;
        }
        if code == k[1] {
            return (1 << 39) - 1;
        }
        self.history[G::history_index(mv)] as i64 * G::HISTORY_WEIGHT + pos.order_hint(mv) as i64
    }
}
