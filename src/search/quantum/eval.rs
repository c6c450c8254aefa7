//! Evaluation of a quantum shogi position, in centipawns from the side to move's point of view.
//!
//! A piece is worth the mean value of the types it may still be (its exact candidate set), so
//! narrowing an opponent's piece toward pawn is progress. The king term rewards keeping one's
//! own king hidden among many candidates and unattacked, and punishes the same for the opponent:
//! a king known for certain and attacked is about to be captured.

use crate::games::quantum::types::{is_king_candidate, Mask, Side};
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

/// A piece's value by place: [promoted][mask] on the board, and in hand (with its bonus).
struct Values {
    board: [[i32; 256]; 2],
    hand: [i32; 256],
}

static VALUES: Lazy<Values> = Lazy::new(|| {
    let board = *MEAN;
    let mut hand = [0; 256];
    for (mask, h) in hand.iter_mut().enumerate() {
        let v = board[0][mask];
        *h = v + v * HAND_BONUS_PERCENT / 100;
    }
    Values { board, hand }
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
    evaluate_with(
        pos,
        &[pos.board_reach(Side::Black), pos.board_reach(Side::White)],
    )
}

/// [`evaluate`] with both sides' [`Position::board_reach`] already at hand.
pub fn evaluate_with(pos: &Position, reach: &[(u128, u32); 2]) -> i32 {
    let values = &*VALUES;
    let us = pos.side_to_move();
    let mut score = [0i32; 2];
    let mut king_candidates = [0usize; 2];
    // Per origin, the board squares of its pieces that may be its king.
    let mut king_squares = [0u128; 2];
    for (i, p) in pos.pieces().iter().enumerate() {
        let owner = p.owner.index();
        score[owner] += if p.square == HAND {
            values.hand[p.mask as usize]
        } else {
            values.board[p.promoted as usize][p.mask as usize]
        };
        if is_king_candidate(p.mask) {
            let origin = origin_of(i).index();
            king_candidates[origin] += 1;
            if p.square != HAND {
                king_squares[origin] |= 1u128 << p.square;
            }
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
        let exposed = (king_squares[s] & enemy).count_ones() as i32;
        score[s] -= exposed * (EXPOSED / k as i32);
        score[s] += MOBILITY * reach[s].1 as i32;
    }
    score[us.index()] - score[us.opponent().index()] + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::quantum::qsfen;

    #[test]
    fn the_start_is_level_but_for_the_tempo() {
        assert_eq!(evaluate(&Position::start()), TEMPO);
    }

    #[test]
    fn mirrored_positions_score_the_same_for_the_side_to_move() {
        let black = qsfen::parse("4k4/9/9/9/9/9/4P4/4R4/4K4 b P16Q19q 1").unwrap();
        let white = qsfen::parse("4k4/4r4/4p4/9/9/9/9/9/4K4 w 19Qp16q 1").unwrap();
        assert_eq!(evaluate(&black), evaluate(&white));
        // The same, but gote has taken the rook.
        let lost = qsfen::parse("4k4/9/9/9/9/9/4P4/9/4K4 b P16Qr~19q 1").unwrap();
        assert!(evaluate(&black) > evaluate(&lost) + 1000);
    }

    #[test]
    fn a_known_attacked_king_is_worse_than_a_hidden_one() {
        // Sente's king is certain and a gote rook stands next to it; gote to move.
        let exposed = qsfen::parse("4k4/9/9/9/9/9/9/4r4/4K4 w 19Q18q 1").unwrap();
        let quiet = qsfen::parse("4k4/9/9/9/9/9/9/r8/4K4 w 19Q18q 1").unwrap();
        assert!(evaluate(&exposed) > evaluate(&quiet));
    }

    #[test]
    fn mean_values_follow_the_candidates() {
        use crate::games::quantum::types::{ALL, P, R};
        assert_eq!(piece_value(P, false), 100);
        assert_eq!(piece_value(R | P, false), 550);
        assert_eq!(piece_value(1, false), 0); // a certain king: scored by the king terms
        assert!(piece_value(ALL, false) > piece_value(ALL & !R, false));
    }
}
