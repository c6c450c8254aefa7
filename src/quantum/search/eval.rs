//! Evaluation of a quantum shogi position, in centipawns from the side to move's point of view.
//!
//! A piece is worth the mean value of the types it may still be (its exact candidate set), so
//! narrowing an opponent's piece toward pawn is progress. The king term rewards keeping one's
//! own king hidden among many candidates and unattacked, and punishes the same for the opponent:
//! a king known for certain and attacked is about to be captured.

use crate::quantum::material::Weights;
use crate::quantum::types::Color;
use crate::quantum::Position;

const W: Weights = crate::quantum::weights::WEIGHTS;

pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(
        pos,
        &[pos.board_reach(Color::Black), pos.board_reach(Color::White)],
    )
}

/// [`evaluate`] with both sides' [`Position::board_reach`] already at hand. The material and
/// the king candidates come from the position's incremental tally.
#[inline]
pub fn evaluate_with(pos: &Position, reach: &[(u128, u32); 2]) -> i32 {
    let tally = pos.tally();
    let us = pos.side_to_move();
    let mut score = tally.material;
    for side in Color::BOTH {
        let s = side.index();
        let k = tally.king_candidates[s] as usize;
        score[s] += W.hidden[k.min(8)];
        if k == 0 {
            continue;
        }
        let enemy = reach[side.opponent().index()].0;
        let exposed = (tally.king_squares[s] & enemy).count_ones() as i32;
        score[s] -= exposed * (W.exposed / k as i32);
        score[s] += W.mobility * reach[s].1 as i32;
    }
    score[us.index()] - score[us.opponent().index()] + W.tempo
}

/// [`evaluate_with`] from the pieces alone, as it was before the tally: its test oracle.
#[cfg(test)]
pub(crate) fn evaluate_scratch(pos: &Position, reach: &[(u128, u32); 2]) -> i32 {
    use crate::quantum::types::is_king_candidate;
    use crate::quantum::{origin_of, HAND};
    let values = &crate::quantum::material::VALUES;
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
    for side in Color::BOTH {
        let s = side.index();
        let k = king_candidates[s];
        score[s] += W.hidden[k.min(8)];
        if k == 0 {
            continue;
        }
        let enemy = reach[side.opponent().index()].0;
        let exposed = (king_squares[s] & enemy).count_ones() as i32;
        score[s] -= exposed * (W.exposed / k as i32);
        score[s] += W.mobility * reach[s].1 as i32;
    }
    score[us.index()] - score[us.opponent().index()] + W.tempo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantum::material::piece_value;
    use crate::quantum::qsfen;

    #[test]
    fn the_start_is_level_but_for_the_tempo() {
        assert_eq!(evaluate(&Position::start()), W.tempo);
    }

    #[test]
    fn mirrored_positions_score_the_same_for_the_side_to_move() {
        let black = qsfen::read("4k4/9/9/9/9/9/4P4/4R4/4K4 b P16Q19q 1").unwrap();
        let white = qsfen::read("4k4/4r4/4p4/9/9/9/9/9/4K4 w 19Qp16q 1").unwrap();
        assert_eq!(evaluate(&black), evaluate(&white));
        // The same, but gote has taken the rook.
        let lost = qsfen::read("4k4/9/9/9/9/9/4P4/9/4K4 b P16Qr~19q 1").unwrap();
        assert!(evaluate(&black) > evaluate(&lost) + 1000);
    }

    #[test]
    fn a_known_attacked_king_is_worse_than_a_hidden_one() {
        // Sente's king is certain and a gote rook stands next to it; gote to move.
        let exposed = qsfen::read("4k4/9/9/9/9/9/9/4r4/4K4 w 19Q18q 1").unwrap();
        let quiet = qsfen::read("4k4/9/9/9/9/9/9/r8/4K4 w 19Q18q 1").unwrap();
        assert!(evaluate(&exposed) > evaluate(&quiet));
    }

    /// The tally kept through `apply` against the pieces summed from scratch, on random games
    /// (captures, promotions, drops, narrowings; both sides to move).
    #[test]
    fn the_tallied_evaluation_agrees_with_the_sum_over_the_pieces() {
        use crate::quantum::tally::Tally;
        use crate::quantum::Ruleset;
        use crate::rng::SplitMix64;
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(51);
        let mut positions = 0;
        for _ in 0..60 {
            let mut pos = Position::start();
            for _ in 0..150 {
                assert_eq!(*pos.tally(), Tally::of(pos.pieces()));
                let reach = pos.board_reach_both();
                assert_eq!(evaluate_with(&pos, &reach), evaluate_scratch(&pos, &reach));
                positions += 1;
                let moves = pos.legal_actions(&rules);
                if moves.is_empty() || pos.winner().is_some() {
                    break;
                }
                assert!(pos.apply(moves[rng.index(moves.len())]));
            }
        }
        assert!(positions > 3000, "{positions}");
    }

    #[test]
    fn mean_values_follow_the_candidates() {
        use crate::quantum::types::{ALL, P, R};
        assert_eq!(piece_value(P, false), W.value[7]);
        assert_eq!(piece_value(R | P, false), (W.value[1] + W.value[7]) / 2);
        assert_eq!(piece_value(1, false), 0); // a certain king: scored by the king terms
        assert!(piece_value(ALL, false) > piece_value(ALL & !R, false));
    }
}
