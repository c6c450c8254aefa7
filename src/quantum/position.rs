//! The game state: 40 individual pieces, the board, side to move, result and Zobrist key.

use super::action::Action;
use super::hall;
use super::movegen::{narrowing, Displacement};
use super::tally::Tally;
use super::types::*;
use super::zobrist;
use crate::games::error_text;

/// Why raw pieces do not make a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("a piece stands off the board")]
    OffBoard,
    #[error("two pieces on {}", square_name(*.0))]
    SharedSquare(Square),
    /// The pieces of this origin side have no complete assignment of types.
    #[error("the pieces of origin {} have no consistent assignment of types", .0.letter())]
    Inconsistent(Color),
}

error_text!(derived: PositionError);

/// Where a piece in hand "stands".
pub const HAND: Square = 81;
const EMPTY: u8 = u8::MAX;

/// One quantum piece. Its origin is fixed by its index (see [`origin_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// A board square, or [`HAND`].
    pub square: Square,
    /// Current owner on the board, or holder in hand.
    pub owner: Color,
    pub promoted: bool,
    /// The exact candidate set (kept projected after every action).
    pub mask: Mask,
}

/// Pieces `0..20` have origin sente, `20..40` origin gote, for life.
#[inline]
pub fn origin_of(index: usize) -> Color {
    Color::from_index(index / PIECES_PER_SIDE)
}

/// What a bare `Q` (no restriction) means for a piece where it stands: in hand, or held by the
/// side that is not its origin, it cannot be a king; promoted it cannot be a gold or king;
/// unpromoted on the far ranks the rank filter applies.
pub fn loose_mask(p: &Piece, origin: Color) -> Mask {
    // A piece held by the other side was captured once: it was not the king.
    let captured = p.square == HAND || p.owner != origin;
    let place = if p.square == HAND {
        ALL
    } else if p.promoted {
        ALL & !(G | K)
    } else {
        rank_filter(p.owner, p.square)
    };
    if captured {
        place & !K
    } else {
        place
    }
}

/// Rule switches that differ between Shogitter's historical rules and today's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ruleset {
    /// 確定二歩禁: forbid dropping a certain pawn on a file holding one's own unpromoted certain pawn.
    pub kakutei_nifu: bool,
}

impl Default for Ruleset {
    fn default() -> Self {
        Ruleset { kakutei_nifu: true }
    }
}

/// A complete, consistent quantum shogi position (every mask exact).
#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) board: [u8; SQUARES],
    pub(crate) pieces: [Piece; PIECES],
    pub(crate) side: Color,
    pub(crate) winner: Option<Color>,
    pub(crate) key: u64,
    pub(crate) move_number: u32,
    /// The evaluation's sums and the generators' sets over the pieces, kept like the key.
    pub(crate) tally: Tally,
}

impl Default for Position {
    fn default() -> Self {
        Self::start()
    }
}

impl Position {
    /// The start position: every piece unrestricted, sente to move.
    pub fn start() -> Position {
        let mut pieces = [Piece {
            square: HAND,
            owner: Color::Black,
            promoted: false,
            mask: ALL,
        }; PIECES];
        // Each side: its back rank, the bishop and rook squares, its pawn rank.
        let layout = |side: Color| -> Vec<Square> {
            let (back, second, pawns) = match side {
                Color::Black => (8, 7, 6),
                Color::White => (0, 1, 2),
            };
            let mut squares: Vec<Square> = (0..9).map(|c| back * 9 + c).collect();
            squares.push(second * 9 + 1);
            squares.push(second * 9 + 7);
            squares.extend((0..9).map(|c| pawns * 9 + c));
            squares.sort_unstable();
            squares
        };
        for side in Color::BOTH {
            for (k, sq) in layout(side).into_iter().enumerate() {
                pieces[side.index() * PIECES_PER_SIDE + k] = Piece {
                    square: sq,
                    owner: side,
                    promoted: false,
                    mask: ALL,
                };
            }
        }
        Position::from_pieces(pieces, Color::Black, 1).expect("the start position is consistent")
    }

    /// Builds a position from raw pieces (local sets), projecting both origin sides.
    /// Errors when two pieces share a square or a side has no complete assignment.
    pub fn from_pieces(
        mut pieces: [Piece; PIECES],
        side: Color,
        move_number: u32,
    ) -> Result<Position, PositionError> {
        let mut board = [EMPTY; SQUARES];
        for (i, p) in pieces.iter().enumerate() {
            if p.square == HAND {
                continue;
            }
            if p.square as usize >= SQUARES {
                return Err(PositionError::OffBoard);
            }
            if board[p.square as usize] != EMPTY {
                return Err(PositionError::SharedSquare(p.square));
            }
            board[p.square as usize] = i as u8;
        }
        for origin in Color::BOTH {
            let base = origin.index() * PIECES_PER_SIDE;
            let mut masks = [0; PIECES_PER_SIDE];
            for k in 0..PIECES_PER_SIDE {
                masks[k] = pieces[base + k].mask;
            }
            if !hall::project(&mut masks) {
                return Err(PositionError::Inconsistent(origin));
            }
            for k in 0..PIECES_PER_SIDE {
                pieces[base + k].mask = masks[k];
            }
        }
        let mut pos = Position {
            board,
            pieces,
            side,
            winner: None,
            key: 0,
            move_number,
            tally: Tally::of(&pieces),
        };
        pos.key = pos.compute_key();
        Ok(pos)
    }

    // ---- read access (the search and the referee use these) ----

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The king capturer, once a certain king has been taken (then the game is over).
    #[inline]
    pub fn winner(&self) -> Option<Color> {
        self.winner
    }

    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The evaluation's sums and the generators' sets over the pieces (material, king
    /// candidates, occupied squares).
    #[inline]
    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    #[inline]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// All 40 pieces; index `i` has origin [`origin_of`]`(i)`.
    #[inline]
    pub fn pieces(&self) -> &[Piece; PIECES] {
        &self.pieces
    }

    #[inline]
    pub fn piece(&self, index: usize) -> Piece {
        self.pieces[index]
    }

    /// The index of the piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<usize> {
        let v = self.board[sq as usize];
        (v != EMPTY).then_some(v as usize)
    }

    /// The pieces (bit `i`) that QSFEN and drop notation write as a bare `Q`: those with two or
    /// more candidates whose exact set would come out unchanged if their local set were "no
    /// restriction" ([`loose_mask`]), with all such pieces loosened at once. Writing them as
    /// `Q` therefore reads back as the same position.
    pub fn bare_q(&self) -> u64 {
        let mut set = 0u64;
        for origin in Color::BOTH {
            let base = origin.index() * PIECES_PER_SIDE;
            let masks = self.side_masks(origin);
            let mut chosen = 0u32;
            for k in 0..PIECES_PER_SIDE {
                let p = self.pieces[base + k];
                if candidate_count(p.mask) < 2 {
                    continue;
                }
                let mut m = masks;
                m[k] = loose_mask(&p, origin);
                if hall::analyze(&m).map(|t| t.exact(m[k])) == Some(p.mask) {
                    chosen |= 1 << k;
                }
            }
            let mut m = masks;
            for (k, mk) in m.iter_mut().enumerate() {
                if chosen & (1 << k) != 0 {
                    *mk = loose_mask(&self.pieces[base + k], origin);
                }
            }
            let stable = hall::analyze(&m)
                .map(|t| (0..PIECES_PER_SIDE).all(|k| t.exact(m[k]) == masks[k]))
                .unwrap_or(false);
            if stable {
                set |= (chosen as u64) << base;
            }
        }
        set
    }

    pub(crate) fn side_masks(&self, origin: Color) -> [Mask; PIECES_PER_SIDE] {
        let base = origin.index() * PIECES_PER_SIDE;
        let mut masks = [0; PIECES_PER_SIDE];
        for (m, p) in masks.iter_mut().zip(&self.pieces[base..]) {
            *m = p.mask;
        }
        masks
    }

    /// The key recomputed from scratch (the incremental one must always equal it).
    pub fn compute_key(&self) -> u64 {
        let mut key = zobrist::side(self.side);
        for (i, p) in self.pieces.iter().enumerate() {
            key = key.wrapping_add(zobrist::piece(p, origin_of(i)));
        }
        key
    }

    // ---- changes ----

    #[inline]
    fn set_piece(&mut self, i: usize, new: Piece) {
        let origin = origin_of(i);
        let old = self.pieces[i];
        self.key = self
            .key
            .wrapping_sub(zobrist::piece(&old, origin))
            .wrapping_add(zobrist::piece(&new, origin));
        self.tally.remove(i, &old);
        self.tally.add(i, &new);
        self.pieces[i] = new;
    }

    /// [`Position::set_piece`] for a piece whose candidate set narrows to `mask` where it
    /// stands: Hall's pass changes many sets at once (a piece proved the rook takes R from the
    /// other nineteen), and only the key, the material, the king candidates and the movement
    /// category follow a set.
    #[inline]
    fn narrow_piece(&mut self, i: usize, mask: Mask) {
        let old = self.pieces[i];
        let new = Piece { mask, ..old };
        let origin = origin_of(i);
        self.key = self
            .key
            .wrapping_sub(zobrist::piece(&old, origin))
            .wrapping_add(zobrist::piece(&new, origin));
        self.tally.narrow(i, &old, mask);
        self.pieces[i].mask = mask;
    }

    /// Re-projects one origin side; false (nothing changed) when it became infeasible.
    #[inline]
    fn reproject(&mut self, origin: Color) -> bool {
        let masks = self.side_masks(origin);
        let mut exact = masks;
        if !hall::project(&mut exact) {
            return false;
        }
        if exact != masks {
            let base = origin.index() * PIECES_PER_SIDE;
            for k in 0..PIECES_PER_SIDE {
                if exact[k] != masks[k] {
                    self.narrow_piece(base + k, exact[k]);
                }
            }
        }
        true
    }

    /// The local restriction an action puts on the piece that moves or is dropped.
    #[inline]
    pub fn restriction(&self, action: Action) -> Mask {
        match action {
            Action::Move { from, to, promote } => {
                let p = self.pieces[self.board[from as usize] as usize];
                let Some(d) = Displacement::of(p.owner, from, to) else {
                    return 0;
                };
                let e = narrowing(d, p.promoted);
                if promote {
                    e & !(G | K)
                } else if p.promoted {
                    e
                } else {
                    e & rank_filter(p.owner, to)
                }
            }
            Action::Drop { to, .. } => rank_filter(self.side, to),
        }
    }

    /// Plays a legal action (one from [`Position::generate`]); the result is again exact.
    /// Returns false, with the position unspecified, if the action was inconsistent after all
    /// (never for generated actions).
    #[must_use = "on false the position is unspecified"]
    pub fn apply(&mut self, action: Action) -> bool {
        let side = self.side;
        let restriction = self.restriction(action);
        match action {
            Action::Move { from, to, promote } => {
                let i = self.board[from as usize] as usize;
                let mask = self.pieces[i].mask;
                // The masks were exact before the action: if it narrows none of them, they
                // still are, and Hall's pass would change nothing.
                if mask & restriction != mask {
                    self.narrow_piece(i, mask & restriction);
                    if !self.reproject(origin_of(i)) {
                        return false;
                    }
                }
                let victim = self.board[to as usize];
                if victim != EMPTY {
                    let j = victim as usize;
                    let mut q = self.pieces[j];
                    let narrowed = q.mask & K != 0;
                    if is_certain_king(q.mask) {
                        self.winner = Some(side);
                    } else {
                        q.mask &= !K;
                    }
                    q.square = HAND;
                    q.owner = side;
                    q.promoted = false;
                    self.set_piece(j, q);
                    if narrowed && self.winner.is_none() && !self.reproject(origin_of(j)) {
                        return false;
                    }
                }
                let mut p = self.pieces[i];
                p.square = to;
                p.promoted |= promote;
                self.set_piece(i, p);
                self.board[from as usize] = EMPTY;
                self.board[to as usize] = i as u8;
            }
            Action::Drop { piece, to } => {
                let i = piece as usize;
                let mut p = self.pieces[i];
                let narrowed = p.mask & restriction != p.mask;
                p.mask &= restriction;
                p.square = to;
                self.set_piece(i, p);
                self.board[to as usize] = piece;
                if narrowed && !self.reproject(origin_of(i)) {
                    return false;
                }
            }
        }
        self.pass();
        self.move_number = self.move_number.saturating_add(1);
        debug_assert!(self.invariants_hold(), "after {action:?}");
        true
    }

    /// Hands the move to the opponent without moving (the search's null move; also how a caller
    /// asks what the other side could do here). Only the side to move and the key change, not
    /// the move number: quantum shogi has no pass move, so this is never a move of the game.
    #[inline]
    pub fn pass(&mut self) {
        let side = self.side;
        self.key = self
            .key
            .wrapping_sub(zobrist::side(side))
            .wrapping_add(zobrist::side(side.opponent()));
        self.side = side.opponent();
    }

    /// The incremental state agrees with the state recomputed from scratch: the key, the board
    /// and the pieces' squares, and every origin side's masks exact (projected). Checked after
    /// each `apply` when debug assertions are on.
    fn invariants_hold(&self) -> bool {
        let board_agrees = self
            .board
            .iter()
            .enumerate()
            .all(|(sq, &i)| i == EMPTY || self.pieces[i as usize].square as usize == sq)
            && self
                .pieces
                .iter()
                .enumerate()
                .all(|(i, p)| p.square == HAND || self.board[p.square as usize] as usize == i);
        // A captured king ends the game before the loser's side is re-projected.
        let exact = self.winner.is_some()
            || [Color::Black, Color::White].into_iter().all(|origin| {
                let masks = self.side_masks(origin);
                let mut exact = masks;
                hall::project(&mut exact) && exact == masks
            });
        self.key == self.compute_key()
            && self.tally == Tally::of(&self.pieces)
            && board_agrees
            && exact
    }

    /// Copy-make: the position after a legal action.
    #[inline]
    pub fn after(&self, action: Action) -> Position {
        let mut next = self.clone();
        let consistent = next.apply(action);
        debug_assert!(consistent, "{action:?} is not legal");
        next
    }
}
