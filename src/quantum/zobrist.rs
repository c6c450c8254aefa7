//! The 64-bit position key. Each piece contributes a pseudo-random term of (square or hand,
//! owner, origin, promoted, candidate mask); terms are added (mod 2^64), so interchangeable hand
//! pieces hash as a multiset and the key does not depend on which of them sits where.
//! The terms come from `rng::mix` (the splitmix64 finaliser) with fixed constants: the same on every run.

use super::position::Piece;
use super::types::Color;
use crate::rng::mix;

/// The term of one piece.
#[inline]
pub fn piece(p: &Piece, origin: Color) -> u64 {
    let packed = p.square as u64
        | (p.owner as u64) << 8
        | (origin as u64) << 9
        | (p.promoted as u64) << 10
        | (p.mask as u64) << 16;
    mix(packed ^ 0x5155_414E_5455_4D00)
}

/// The side-to-move term.
#[inline]
pub fn side(s: Color) -> u64 {
    match s {
        Color::Black => 0,
        Color::White => 0x6A09_E667_F3BC_C909,
    }
}
