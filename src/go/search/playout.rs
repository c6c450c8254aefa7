//! The playout policy, in the spirit of MoGo, Fuego and Pachi: answer the last move first
//! (capture its block in atari, save own blocks it put in atari, play a 3x3 shape around it),
//! otherwise a random legal move that neither fills an own eye nor puts a block of two or more
//! stones into atari without capturing. The game ends at two passes (or a move cap).

use super::fast::{FastBoard, PASS};
use super::patterns;
use crate::go::board::EMPTY;
use crate::rng::SplitMix64;

/// Reusable buffers of one playing thread.
#[derive(Default)]
pub struct Playout {
    candidates: Vec<u16>,
}

impl Playout {
    /// Plays `board` to its end, appending the moves to `moves`.
    pub fn run(&mut self, board: &mut FastBoard, rng: &mut SplitMix64, moves: &mut Vec<u16>) {
        let cap = 3 * board.size() * board.size();
        let mut played = 0;
        while board.passes < 2 && played < cap {
            let mv = self.choose(board, rng);
            board.play(mv);
            moves.push(mv);
            played += 1;
        }
    }

    /// The playout's move for the side to move.
    pub fn choose(&mut self, board: &mut FastBoard, rng: &mut SplitMix64) -> u16 {
        let last = board.last as usize;
        if last != PASS as usize {
            self.answers(board, last);
            if !self.candidates.is_empty() {
                return self.candidates[rng.index(self.candidates.len())];
            }
            // Pachi plays its two-liberty tactics in part of the playouts only: always
            // chasing and always running makes every fight end the same way.
            if rng.below(2) == 0 {
                self.two_liberty_fights(board, last);
                if !self.candidates.is_empty() {
                    return self.candidates[rng.index(self.candidates.len())];
                }
            }
            self.shapes(board, last);
            if !self.candidates.is_empty() {
                return self.candidates[rng.index(self.candidates.len())];
            }
        }
        random_move(board, rng)
    }

    /// Captures of the last move's block and escapes of own blocks it put in atari.
    fn answers(&mut self, board: &mut FastBoard, last: usize) {
        self.candidates.clear();
        let me = board.to_move.cell();
        if board.get(last) != 0 && board.in_atari(last) {
            let lib = board.atari_liberty(last);
            if board.is_legal(lib) {
                self.candidates.push(lib as u16);
            }
        }
        for n in board.neighbors(last) {
            if board.get(n) == me && board.in_atari(n) {
                escapes(board, n, &mut self.candidates);
            }
        }
    }

    /// After a move that leaves a block with two liberties: the atari on the last move's
    /// block when its escape would still have two liberties or fewer (and the atari stone is
    /// not itself in atari), and for own blocks next to the last move, an extension to three
    /// liberties or more or the capture of an opponent block in atari beside them.
    fn two_liberty_fights(&mut self, board: &mut FastBoard, last: usize) {
        self.candidates.clear();
        let me = board.to_move;
        let them = me.other();
        if board.get(last) == them.cell() {
            if let Some(libs) = board.two_liberties(last) {
                for (atari, escape) in [(libs[0], libs[1]), (libs[1], libs[0])] {
                    if board.is_legal(atari)
                        && board.after_move(atari, me, 2).0 >= 2
                        // The escape's count includes `atari`, which our stone will fill.
                        && board.after_move(escape, them, 4).0 <= 3
                    {
                        push_new(&mut self.candidates, atari);
                    }
                }
            }
        }
        for n in board.neighbors(last) {
            if board.get(n) != me.cell() {
                continue;
            }
            let Some(libs) = board.two_liberties(n) else {
                continue;
            };
            for lib in libs {
                if board.is_legal(lib) && board.after_move(lib, me, 3).0 >= 3 {
                    push_new(&mut self.candidates, lib);
                }
            }
            for s in board.block_stones(n) {
                for q in board.neighbors(s) {
                    if board.get(q) == them.cell() && board.in_atari(q) {
                        let lib = board.atari_liberty(q);
                        if board.is_legal(lib) {
                            push_new(&mut self.candidates, lib);
                        }
                    }
                }
            }
        }
    }

    /// Empty points around the last move that match a 3x3 pattern and are sensible.
    fn shapes(&mut self, board: &mut FastBoard, last: usize) {
        self.candidates.clear();
        let around = board.neighbors(last);
        let diagonals = board.diagonals(last);
        for q in around.into_iter().chain(diagonals) {
            if board.get(q) == 0
                && patterns::matches(board.pattern_key(q))
                && board.is_legal(q)
                && !bad_self_atari(board, q)
            {
                self.candidates.push(q as u16);
            }
        }
    }
}

/// The moves that save the own block through `stone` from atari: capturing an adjacent
/// opponent block in atari, or extending when that gives two liberties or more.
pub fn escapes(board: &mut FastBoard, stone: usize, out: &mut Vec<u16>) {
    let them = board.to_move.other().cell();
    let mut captures: Vec<u16> = Vec::new();
    for s in board.block_stones(stone) {
        for q in board.neighbors(s) {
            if board.get(q) == them && board.in_atari(q) {
                let lib = board.atari_liberty(q) as u16;
                if !captures.contains(&lib) {
                    captures.push(lib);
                }
            }
        }
    }
    for lib in captures {
        if board.is_legal(lib as usize) {
            out.push(lib);
        }
    }
    let lib = board.atari_liberty(stone);
    if board.is_legal(lib) && board.after_move(lib, board.to_move, 2).0 >= 2 {
        out.push(lib as u16);
    }
}

fn push_new(out: &mut Vec<u16>, p: usize) {
    if !out.contains(&(p as u16)) {
        out.push(p as u16);
    }
}

/// A move that leaves a new block of two or more stones with one liberty and captures nothing.
#[inline]
pub fn bad_self_atari(board: &mut FastBoard, p: usize) -> bool {
    // Most points have two empty neighbours: two liberties whatever joins them.
    let empty = board
        .neighbors(p)
        .iter()
        .filter(|&&n| board.get(n) == EMPTY)
        .count();
    if empty >= 2 {
        return false;
    }
    let (libs, stones) = board.after_move(p, board.to_move, 2);
    libs < 2 && stones >= 2
}

/// A random legal move that fills no own eye and is no bad self-atari; PASS when none is left.
/// The scan starts at a random empty point and goes round the list once.
pub fn random_move(board: &mut FastBoard, rng: &mut SplitMix64) -> u16 {
    let count = board.empties().len();
    if count == 0 {
        return PASS;
    }
    let start = rng.index(count);
    let color = board.to_move;
    for i in 0..count {
        let p = board.empties()[(start + i) % count] as usize;
        if board.is_legal(p) && !board.is_eye(p, color) && !bad_self_atari(board, p) {
            return p as u16;
        }
    }
    PASS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::{Board, Color};
    use crate::go::Position;

    /// `color` plays `p` on a copy of the rules' board: the new block's stones and liberties,
    /// and the stones captured (None when illegal).
    fn try_move(board: &Board, p: usize, color: Color) -> Option<(usize, usize, usize)> {
        let mut b = board.clone();
        let played = b.play(p, color, None).ok()?;
        let (stones, libs) = b.block(p);
        Some((stones.len(), libs.len(), played.captured))
    }

    /// Seeded playouts on the playout board, mirrored on the rules' board: at every move the
    /// self-atari filter (at every legal point) and every two-liberty candidate are checked
    /// against the rules' board.
    #[test]
    fn playout_tactics_agree_with_the_rules_board() {
        let mut rng = SplitMix64::new(22);
        let mut checked_fights = 0;
        let mut rejected = 0;
        for size in [5usize, 7, 9, 13] {
            for _ in 0..6 {
                let mut game = Position::empty(size).unwrap();
                let mut fast = FastBoard::from_game(&game);
                let mut playout = Playout::default();
                for _ in 0..size * size * 2 {
                    let me = fast.to_move;
                    let them = me.other();
                    for p in game.board.points() {
                        if !fast.is_legal(p) {
                            continue;
                        }
                        let (stones, libs, captured) = try_move(&game.board, p, me).unwrap();
                        let want = libs < 2 && captured == 0 && stones >= 2;
                        assert_eq!(bad_self_atari(&mut fast, p), want, "self-atari {p}");
                        if want {
                            rejected += 1;
                        }
                    }
                    let last = fast.last as usize;
                    if last != PASS as usize {
                        playout.two_liberty_fights(&mut fast, last);
                        for &c in &playout.candidates {
                            let c = c as usize;
                            let (_, libs, captured) = try_move(&game.board, c, me).unwrap();
                            let mut after = game.board.clone();
                            after.play(c, me, None).unwrap();
                            let ataris = after.get(last) == them.cell()
                                && after.block(last).1.len() == 1
                                && game.board.block(last).1.len() == 2;
                            let extends = libs >= 3
                                && game.board.neighbors(c).iter().any(|&n| {
                                    game.board.get(n) == me.cell()
                                        && game.board.block(n).1.len() == 2
                                });
                            assert!(
                                (ataris && libs >= 2) || extends || captured > 0,
                                "candidate {c} after {last}"
                            );
                            checked_fights += 1;
                        }
                    }
                    let mv = playout.choose(&mut fast, &mut rng);
                    if fast.passes >= 1 && mv == PASS {
                        break;
                    }
                    game.play((mv != PASS).then_some(mv as usize)).unwrap();
                    fast.play(mv);
                }
            }
        }
        assert!(checked_fights > 100, "{checked_fights}");
        assert!(rejected > 10, "{rejected}");
    }
}
