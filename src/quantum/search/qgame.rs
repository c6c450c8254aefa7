//! [`QGame`]: a quantum shogi position with its rules, as the generic alpha-beta search sees it
//! (moves, evaluation, the null move, the quiescence filter and their cached reach).

use super::eval;
use crate::quantum::material::piece_value;
use crate::quantum::types::{
    file_of, is_certain_king, is_king_candidate, rank_of, Color, Square, PIECES_PER_SIDE,
};
use crate::quantum::{Action, Position, Ruleset, HAND};
use crate::search::SearchGame;
use std::cell::Cell;

/// A position with its rules, as the generic search sees it.
#[derive(Clone)]
pub struct QGame {
    pub pos: Position,
    pub rules: Ruleset,
    /// Both sides' board reach, computed at most once per position: the evaluation, the
    /// null-move test and the quiescence filter all need it. Passing keeps it valid.
    reach: Cell<Option<[(u128, u32); 2]>>,
}

impl QGame {
    pub fn new(pos: Position, rules: Ruleset) -> QGame {
        QGame {
            pos,
            rules,
            reach: Cell::new(None),
        }
    }

    /// The square of `side`'s king when one of its pieces on the board is certainly it.
    fn certain_king(&self, side: Color) -> Option<Square> {
        let start = side.index() * PIECES_PER_SIDE;
        self.pos.pieces()[start..start + PIECES_PER_SIDE]
            .iter()
            .find(|p| is_certain_king(p.mask) && p.square != HAND)
            .map(|p| p.square)
    }

    fn reach(&self) -> [(u128, u32); 2] {
        if let Some(r) = self.reach.get() {
            return r;
        }
        let r = self.pos.board_reach_both();
        self.reach.set(Some(r));
        r
    }
}

impl SearchGame for QGame {
    type Move = Action;

    const INTERNAL_REDUCTION: bool = true;
    // Weights D's evaluation swings more, and quiescence's third ply grew with it.
    const QUIESCE_DEPTH: u32 = 2;
    const ROOT_REDUCTION: bool = true;

    fn generate(&self, out: &mut Vec<Action>) {
        self.pos.generate(&self.rules, out);
    }

    fn play(&mut self, mv: Action) {
        let consistent = self.pos.apply(mv);
        debug_assert!(consistent, "generated {mv:?}");
        self.reach.set(None);
    }

    fn key(&self) -> u64 {
        self.pos.key()
    }

    fn play_null(&mut self) -> bool {
        self.pos.pass();
        true
    }

    fn lost(&self) -> bool {
        // The winner is always the side that just moved.
        self.pos.winner().is_some()
    }

    fn evaluate(&self) -> i32 {
        eval::evaluate_with(&self.pos, &self.reach())
    }

    /// The side to move's king is certain and stands where the opponent's pieces reach, or it
    /// is the side's only piece. A bare king must step, and where every step walks into capture
    /// (there is no pass) the static evaluation cannot see it: like the null move of a chess
    /// side with only pawns, its node is not cut on that evaluation.
    fn in_check(&self) -> bool {
        let us = self.pos.side_to_move();
        let Some(king) = self.certain_king(us) else {
            return false;
        };
        let enemy = self.reach()[us.opponent().index()].0;
        enemy & (1u128 << king) != 0
            || self.pos.pieces().iter().filter(|p| p.owner == us).count() == 1
    }

    /// Only a certain king can be captured at once, so only a certain king can be threatened.
    fn may_give_check(&self) -> bool {
        self.certain_king(self.pos.side_to_move().opponent())
            .is_some()
    }

    /// A piece attacks the king only from one of the king's lines or a knight's jump away, and
    /// a move uncovers an attack only by leaving one of the king's lines.
    fn may_check(&self, mv: Action) -> bool {
        let Some(king) = self.certain_king(self.pos.side_to_move().opponent()) else {
            return false;
        };
        let offset = |sq: Square| {
            let files = file_of(sq).abs_diff(file_of(king));
            (files, rank_of(sq).abs_diff(rank_of(king)))
        };
        let on_line = |(files, ranks): (u8, u8)| files == 0 || ranks == 0 || files == ranks;
        let to = offset(mv.to());
        if on_line(to) || to == (1, 2) {
            return true;
        }
        matches!(mv, Action::Move { from, .. } if on_line(offset(from)))
    }

    #[inline(always)]
    fn order_hint(&self, mv: Action) -> i32 {
        match mv {
            Action::Move { from, to, promote } => {
                let attacker = self.pos.piece_at(from).map(|i| self.pos.piece(i));
                let victim = self.pos.piece_at(to).map(|i| self.pos.piece(i));
                let mut hint = promote as i32 * 200;
                if let Some(v) = victim {
                    hint += 16 * piece_value(v.mask, v.promoted);
                    if is_king_candidate(v.mask) {
                        hint += 4000; // it may be the king
                    }
                }
                if let Some(a) = attacker {
                    hint -= piece_value(a.mask, a.promoted);
                }
                hint
            }
            Action::Drop { .. } => 0,
        }
    }

    #[inline]
    fn is_tactical(&self, mv: Action) -> bool {
        matches!(mv, Action::Move { to, .. } if self.pos.piece_at(to).is_some())
    }

    /// The captures come first in every node's order, and three in four nodes that generate
    /// moves cut off on one: the quiet moves (most of them drops) are generated only if not.
    fn generate_tactical(&self, out: &mut Vec<Action>) -> bool {
        let us = self.pos.side_to_move();
        self.pos
            .generate_captures_onto(self.reach()[us.index()].0, out);
        true
    }

    /// Captures, less those that give a more valuable piece for a defended lesser one.
    fn quiescence_moves(&self, out: &mut Vec<Action>) {
        let us = self.pos.side_to_move();
        let reach = self.reach();
        // A capture lands on a square the side reaches: the reach is at hand (the stand-pat
        // evaluation computed it), and it spares the generator most pieces and rays.
        self.pos.generate_captures_onto(reach[us.index()].0, out);
        let (defended, _) = reach[us.opponent().index()];
        out.retain(|&mv| {
            let Action::Move { from, to, .. } = mv else {
                return false;
            };
            let Some(victim) = self.pos.piece_at(to).map(|i| self.pos.piece(i)) else {
                return false;
            };
            if defended & (1u128 << to) == 0 || is_king_candidate(victim.mask) {
                return true;
            }
            let attacker = self.pos.piece_at(from).map(|i| self.pos.piece(i));
            attacker.is_none_or(|a| {
                piece_value(a.mask, a.promoted) <= piece_value(victim.mask, victim.promoted) + 50
            })
        });
    }

    fn gain(&self, mv: Action) -> i32 {
        match self.pos.piece_at(mv.to()) {
            Some(i) => {
                let v = self.pos.piece(i);
                // A capture that may take the king may end the game.
                if is_king_candidate(v.mask) {
                    30_000
                } else {
                    piece_value(v.mask, v.promoted)
                }
            }
            None => 0,
        }
    }

    #[inline]
    fn code(mv: Action) -> u32 {
        match mv {
            Action::Move { from, to, promote } => {
                ((from as u32 * 81 + to as u32) << 1) | promote as u32
            }
            Action::Drop { piece, to } => (1 << 20) | (piece as u32 * 81 + to as u32),
        }
    }

    const HISTORY_SIZE: usize = 81 * 81 * 2 + 40 * 81;

    #[inline]
    fn history_index(mv: Action) -> usize {
        match mv {
            Action::Move { from, to, promote } => {
                (from as usize * 81 + to as usize) * 2 + promote as usize
            }
            Action::Drop { piece, to } => 81 * 81 * 2 + piece as usize * 81 + to as usize,
        }
    }

    fn name(&self, mv: Action) -> String {
        self.pos.action_name(mv)
    }
}
