//! [`Tally`]: the sums and sets the evaluation, the reach and the move generator read, kept up
//! to date piece by piece as [`Position`](super::Position) changes, so that a node does not walk
//! its 40 pieces for them.

use super::material::VALUES;
use super::movegen::reach_category;
use super::position::{origin_of, Piece, HAND};
use super::types::{is_king_candidate, Mask, PIECES, SQUARES};

/// Per side: the material of the pieces it owns (on the board or in hand, by the engine's
/// value tables), and per origin side its king candidates and the board squares they stand on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// By current owner.
    pub material: [i32; 2],
    /// By origin.
    pub king_candidates: [u8; 2],
    /// By origin; pieces in hand are not on it.
    pub king_squares: [u128; 2],
    /// By owner: the board squares of its pieces.
    pub occupied: [u128; 2],
    /// By owner: its pieces on the board, as piece indices (bit `i` for piece `i`).
    pub on_board: [u64; 2],
    /// By board square: how the piece there moves ([`reach_category`]), 0 where none stands;
    /// the reach's fills start from these bytes, which would cost a walk over the 40 pieces at
    /// every evaluation. Bytes 81 and up stay 0.
    pub categories: [u8; 128],
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            material: [0; 2],
            king_candidates: [0; 2],
            king_squares: [0; 2],
            occupied: [0; 2],
            on_board: [0; 2],
            categories: [0; 128],
        }
    }
}

impl Tally {
    /// The tally of `pieces` from scratch.
    pub fn of(pieces: &[Piece; PIECES]) -> Tally {
        let mut t = Tally::default();
        for (i, p) in pieces.iter().enumerate() {
            t.add(i, p);
        }
        t
    }

    /// Counts piece `i` as `p`.
    #[inline]
    pub fn add(&mut self, i: usize, p: &Piece) {
        let owner = p.owner.index();
        self.material[owner] += VALUES.of_piece(p);
        self.occupied[owner] |= board_bit(p);
        self.on_board[owner] |= ((p.square != HAND) as u64) << i;
        self.categories[square_byte(p)] = reach_category(p);
        if is_king_candidate(p.mask) {
            let origin = origin_of(i).index();
            self.king_candidates[origin] += 1;
            self.king_squares[origin] |= board_bit(p);
        }
    }

    /// Counts piece `i` (now `p`) as narrowed to the candidates `mask`, where it stands: the
    /// same as removing it and adding it back, without the squares, which stay.
    #[inline]
    pub fn narrow(&mut self, i: usize, p: &Piece, mask: Mask) {
        debug_assert_eq!(mask & !p.mask, 0, "a set only narrows");
        let new = Piece { mask, ..*p };
        self.material[p.owner.index()] += VALUES.of_piece(&new) - VALUES.of_piece(p);
        self.categories[square_byte(p)] = reach_category(&new);
        if is_king_candidate(p.mask) && !is_king_candidate(mask) {
            let origin = origin_of(i).index();
            self.king_candidates[origin] -= 1;
            self.king_squares[origin] &= !board_bit(p);
        }
    }

    /// Takes back [`Tally::add`]`(i, p)`.
    #[inline]
    pub fn remove(&mut self, i: usize, p: &Piece) {
        let owner = p.owner.index();
        self.material[owner] -= VALUES.of_piece(p);
        self.occupied[owner] &= !board_bit(p);
        self.on_board[owner] &= !(1u64 << i);
        self.categories[square_byte(p)] = 0;
        if is_king_candidate(p.mask) {
            let origin = origin_of(i).index();
            self.king_candidates[origin] -= 1;
            self.king_squares[origin] &= !board_bit(p);
        }
    }
}

/// The piece's byte of [`Tally::categories`]: its square, and 81 in hand.
#[inline]
fn square_byte(p: &Piece) -> usize {
    p.square as usize & 127
}

/// The piece's square as a board bit; none in hand (square 81 is past the board's 81 bits).
#[inline]
fn board_bit(p: &Piece) -> u128 {
    (1u128 << (p.square & 127)) & ((1u128 << SQUARES) - 1)
}
