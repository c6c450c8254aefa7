//! Othello as the generic searcher ([`crate::search::Searcher`]) sees it: a pass is a move (made
//! only when the side to move has no placement and the opponent has one), a finished game scores
//! its final disc difference, and there is no null move and no quiescence (every Othello move is
//! quiet). Moves are ordered by what they leave the opponent.

use super::solve::final_score;
use super::{eval, pattern, probcut};
use crate::othello::board::{flips, mix, moves, neighbours, squares};
use crate::othello::square_name;
use crate::search::SearchGame;

/// The pass move (squares are 0..64).
pub const PASS: u32 = 64;

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Which evaluation a search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// The beginner's static square table.
    Simple,
    /// The hand-weighted evaluation of before issue 18 (corners, mobility, frontier, edges),
    /// kept for the tuner's first round of self-play.
    Hand,
    /// The learned pattern evaluation ([`super::pattern`]).
    Pattern,
}

/// The discs of the side to move and of the other side, and which evaluation the level uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OGame {
    pub player: u64,
    pub opponent: u64,
    pub eval: Eval,
}

impl SearchGame for OGame {
    type Move = u32;

    fn generate(&self, out: &mut Vec<u32>) {
        let m = moves(self.player, self.opponent);
        if m != 0 {
            out.extend(squares(m));
        } else if moves(self.opponent, self.player) != 0 {
            out.push(PASS);
        }
        // Neither side can move: no move, and `terminal_score` says who won.
    }

    fn play(&mut self, mv: u32) {
        let (p, o) = (self.player, self.opponent);
        if mv == PASS {
            (self.player, self.opponent) = (o, p);
        } else {
            let f = flips(p, o, mv);
            debug_assert!(f != 0, "generated {}", square_name(mv));
            (self.player, self.opponent) = (o ^ f, p | f | 1 << mv);
        }
    }

    fn key(&self) -> u64 {
        mix(self.player, self.opponent)
    }

    fn lost(&self) -> bool {
        false
    }

    fn terminal_score(&self, _ply: u32) -> i32 {
        final_score(self.player, self.opponent) * 100
    }

    /// A finished game at the horizon scores its discs (the full evaluation does so itself).
    fn evaluate(&self) -> i32 {
        let (p, o) = (self.player, self.opponent);
        match self.eval {
            Eval::Simple => {
                if moves(p, o) == 0 && moves(o, p) == 0 {
                    return self.terminal_score(0);
                }
                eval::evaluate_simple(p, o)
            }
            Eval::Hand => eval::evaluate(p, o),
            Eval::Pattern => pattern::evaluate(p, o),
        }
    }

    /// Multi-ProbCut ([`super::probcut`]), fitted for the pattern evaluation only.
    fn probcut(&self, depth: i32) -> Option<crate::search::game::ProbCut> {
        if self.eval == Eval::Pattern {
            probcut::at(depth)
        } else {
            None
        }
    }

    /// Fewest replies first (corners counting double), then fewest empties next to our discs
    /// (the opponent's future moves); taking a corner is a bonus.
    fn order_hint(&self, mv: u32) -> i32 {
        if mv == PASS {
            return 0;
        }
        let (p, o) = (self.player, self.opponent);
        let f = flips(p, o, mv);
        let (np, no) = (o ^ f, p | f | 1 << mv);
        let theirs = moves(np, no);
        let potential = (neighbours(no) & !(np | no)).count_ones() as i32;
        let mut key =
            (theirs.count_ones() + (theirs & CORNERS).count_ones()) as i32 * 64 + potential * 8;
        if 1u64 << mv & CORNERS != 0 {
            key -= 32;
        }
        -key
    }

    fn is_tactical(&self, _mv: u32) -> bool {
        false
    }

    fn quiescence_moves(&self, _out: &mut Vec<u32>) {}

    fn gain(&self, _mv: u32) -> i32 {
        0
    }

    fn code(mv: u32) -> u32 {
        mv
    }

    /// The ordering hint alone orders the moves (after the table's move and the killers): the
    /// history of a square says little across Othello positions.
    const HISTORY_WEIGHT: i64 = 0;

    const HISTORY_SIZE: usize = 65;

    fn history_index(mv: u32) -> usize {
        mv as usize
    }

    fn name(&self, mv: u32) -> String {
        if mv == PASS {
            "pass".into()
        } else {
            square_name(mv)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::Board;
    use crate::rng::SplitMix64;
    use crate::search::game::WIN_BOUND;
    use crate::search::{Control, Limits, Searcher};

    /// Plain negamax over the same tree (a pass costs a ply; a finished game scores its discs).
    fn negamax(g: &OGame, depth: u32) -> i32 {
        let mut list = Vec::new();
        g.generate(&mut list);
        if list.is_empty() {
            return g.terminal_score(0);
        }
        if depth == 0 {
            return g.evaluate();
        }
        list.iter()
            .map(|&mv| {
                let mut c = *g;
                c.play(mv);
                -negamax(&c, depth - 1)
            })
            .max()
            .unwrap_or(i32::MIN)
    }

    /// Random games stopped anywhere from the opening to the last moves (passes included).
    fn positions(seed: u64, count: usize) -> Vec<OGame> {
        let mut rng = SplitMix64::new(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut b = Board::START;
            let stop = 4 + rng.below(58) as u32;
            while 60 - b.empties().count_ones().min(60) < stop && !b.is_game_over() {
                let list: Vec<u32> = squares(b.moves()).collect();
                b = if list.is_empty() {
                    b.pass()
                } else {
                    b.play(list[rng.index(list.len())]).unwrap()
                };
            }
            if b.moves() != 0 {
                out.push(OGame {
                    player: b.player,
                    opponent: b.opponent,
                    eval: [Eval::Simple, Eval::Hand, Eval::Pattern][rng.index(3)],
                });
            }
        }
        out
    }

    #[test]
    fn the_generic_searcher_agrees_with_negamax_on_othello() {
        let mut searcher = Searcher::<OGame>::new(1);
        searcher.set_pruning(false);
        let mut near_end = 0;
        for g in positions(7, 60) {
            if g.player.count_ones() + g.opponent.count_ones() > 56 {
                near_end += 1;
            }
            for depth in 1..=4 {
                searcher.clear();
                let control = Control::new(
                    Limits {
                        depth: Some(depth),
                        ..Default::default()
                    },
                    0,
                );
                let out = searcher.run(&g, &[], &control, depth, &mut |_| {});
                let expected = negamax(&g, depth);
                assert!(expected.abs() < WIN_BOUND);
                assert_eq!(out.info.score, expected, "{g:?} depth {depth}");
                let best = out.best.expect("a move");
                let mv = crate::othello::position::parse_square(&best).expect("a square");
                let mut child = g;
                child.play(mv);
                assert_eq!(-negamax(&child, depth - 1), expected, "{g:?}: {best}");
            }
        }
        assert!(
            near_end >= 3,
            "the test should reach finished games: {near_end}"
        );
    }

    #[test]
    fn a_pass_is_the_only_move_of_a_blocked_side_and_the_end_has_none() {
        let (mut ends, mut passes) = (0, 0);
        for g in positions(11, 400) {
            let mut list = Vec::new();
            g.generate(&mut list);
            assert!(!list.is_empty() && !list.contains(&PASS));
            for &mv in &list {
                let mut c = g;
                c.play(mv);
                let mut replies = Vec::new();
                c.generate(&mut replies);
                let b = Board {
                    player: c.player,
                    opponent: c.opponent,
                };
                if b.is_game_over() {
                    ends += 1;
                    assert!(replies.is_empty());
                    assert_eq!(c.terminal_score(3), final_score(c.player, c.opponent) * 100);
                } else if b.moves() == 0 {
                    passes += 1;
                    assert_eq!(replies, vec![PASS]);
                    let mut passed = c;
                    passed.play(PASS);
                    assert_eq!((passed.player, passed.opponent), (c.opponent, c.player));
                    assert_ne!(passed.key(), c.key());
                } else {
                    assert_eq!(replies, squares(b.moves()).collect::<Vec<_>>());
                }
            }
        }
        assert!(
            ends > 0 && passes > 0,
            "both cases seen: {ends} ends, {passes} passes"
        );
    }
}
