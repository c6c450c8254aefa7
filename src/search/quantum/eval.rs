//! Evaluation of a quantum shogi position, in centipawns from the side to move's point of view.
//!
//! A piece is worth the mean value of the types it may still be (its exact candidate set), so
//! narrowing an opponent's piece toward pawn is progress. The king term rewards keeping one's
//! own king hidden among many candidates and unattacked, and punishes the same for the opponent:
//! a king known for certain and attacked is about to be captured.

use crate::games::quantum::types::{Mask, Side, PIECES};
use crate::games::quantum::{origin_of, Position, HAND};
use once_cell::sync::Lazy;

/// Type values, unpromoted and promoted, in mask bit order K R B G S N L P (K counts as 0 here;
/// the king is scored by the king terms).
const VALUE: [i32; 8] = [0, 1000, 850, 600, 550, 400, 350, 100];
const PROMOTED: [i32; 8] = [0, 1300, 1100, 600, 600, 600, 600, 550];

/// Mean value over the non-K candidates, per [promoted][mask].
static MEAN: Lazy<[[i32; 256]; 2]> = Lazy::new(|| {
    let mut t = [[0; 256]; 2];
    for (promoted, values) in [VALUE, PROMOTED].iter().enumerate() {
        for mask in 0..256usize {
            let types: Vec<usize> = (1..8).filter(|&b| mask & (1 << b) != 0).collect();
            if !types.is_empty() {
                t[promoted][mask] =
                    types.iter().map(|&b| values[b]).sum::<i32>() / types.len() as i32;
            }
        }
    }
    t
});

/// Bonus for the number of pieces that may still be one's king (index = count, capped).
const HIDDEN: [i32; 9] = [0, -350, -120, -50, -20, 0, 10, 15, 20];
/// Penalty for a king candidate attacked by the opponent, shared among the candidates.
const EXPOSED: i32 = 600;
const MOBILITY: i32 = 3;
const HAND_BONUS_PERCENT: i32 = 8;
const TEMPO: i32 = 20;

/// The mean value of a piece over its candidates.
#[inline]
pub fn piece_value(mask: Mask, promoted: bool) -> i32 {
    MEAN[promoted as usize][mask as usize]
}

pub fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    let reach = [pos.board_reach(Side::Black), pos.board_reach(Side::White)];
    let mut score = [0i32; 2];
    let mut king_candidates = [0usize; 2];
    for (i, p) in pos.pieces().iter().enumerate() {
        let owner = p.owner.index();
        let v = piece_value(p.mask, p.promoted);
        score[owner] += if p.square == HAND {
            v + v * HAND_BONUS_PERCENT / 100
        } else {
            v
        };
        if p.mask & 1 != 0 {
            king_candidates[origin_of(i).index()] += 1;
        }
    }
    for side in Side::BOTH {
        let s = side.index();
        let k = king_candidates[s];
        score[s] += HIDDEN[k.min(8)];
        if k == 0 {
            continue;
        }
        let enemy = reach[side.opponent().index()].0;
        for (i, p) in pos.pieces().iter().enumerate() {
            if p.mask & 1 != 0
                && origin_of(i) == side
                && p.square != HAND
                && enemy & (1u128 << p.square) != 0
            {
                score[s] -= EXPOSED / k as i32;
            }
        }
        score[s] += MOBILITY * reach[s].1 as i32;
    }
    score[us.index()] - score[us.opponent().index()] + TEMPO
}

/// How many pieces of `origin` may still be its king.
pub fn king_candidates(pos: &Position, origin: Side) -> usize {
    (0..PIECES)
        .filter(|&i| origin_of(i) == origin && pos.piece(i).mask & 1 != 0)
        .count()
}
