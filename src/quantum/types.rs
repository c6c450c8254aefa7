//! Sides, types and their masks, squares.

/// A player. Sente (black, `b`) moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub fn from_index(i: usize) -> Color {
        if i == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// `b` or `w`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

/// A set of piece types, one bit per type in the order K R B G S N L P (K = bit 0).
pub type Mask = u8;

pub const K: Mask = 1 << 0;
pub const R: Mask = 1 << 1;
pub const B: Mask = 1 << 2;
pub const G: Mask = 1 << 3;
pub const S: Mask = 1 << 4;
pub const N: Mask = 1 << 5;
pub const L: Mask = 1 << 6;
pub const P: Mask = 1 << 7;
pub const ALL: Mask = 0xFF;

/// The piece may still be its origin side's king (K is among its candidates).
#[inline]
pub const fn is_king_candidate(mask: Mask) -> bool {
    mask & K != 0
}

/// The piece is its origin side's king for certain (K is its only candidate).
#[inline]
pub const fn is_certain_king(mask: Mask) -> bool {
    mask == K
}

/// Some type of `types` (a union of type bits, e.g. `S | N`) is among the candidates.
#[inline]
pub const fn may_be(mask: Mask, types: Mask) -> bool {
    mask & types != 0
}

/// Type `t` (its bit order index: 0 = K .. 7 = P) is among the candidates.
#[inline]
pub const fn has_type(mask: Mask, t: usize) -> bool {
    mask & (1 << t) != 0
}

/// How many candidate types the piece has (1 = its type is known).
#[inline]
pub const fn candidate_count(mask: Mask) -> u32 {
    mask.count_ones()
}

/// The candidate types' bit order indices, ascending.
pub fn types_of(mask: Mask) -> impl Iterator<Item = usize> {
    (0..8).filter(move |&t| has_type(mask, t))
}

/// Type letters in mask bit order.
pub const LETTERS: [char; 8] = ['K', 'R', 'B', 'G', 'S', 'N', 'L', 'P'];

/// How many pieces of each type one origin side holds (K1 R1 B1 G2 S2 N2 L2 P9).
pub const CAPACITY: [u8; 8] = [1, 1, 1, 2, 2, 2, 2, 9];

/// Pieces per origin side.
pub const PIECES_PER_SIDE: usize = 20;
/// Pieces in the game.
pub const PIECES: usize = 40;

/// The letters of a mask, in the order K R B G S N L P.
pub fn mask_letters(mask: Mask) -> String {
    types_of(mask).map(|t| LETTERS[t]).collect()
}

/// The type bit of an (uppercase) letter.
pub fn letter_bit(c: char) -> Option<Mask> {
    LETTERS.iter().position(|&l| l == c).map(|t| 1u8 << t as u8)
}

/// A board square, 0..81: `rank * 9 + (9 - file)`, so 0 is 9a (top left as SFEN writes it)
/// and rank `a` (index 0) is gote's back rank.
pub type Square = u8;

pub const SQUARES: usize = 81;

#[inline]
pub fn square(file: u8, rank: u8) -> Square {
    rank * 9 + (9 - file)
}

#[inline]
pub fn rank_of(sq: Square) -> u8 {
    sq / 9
}

/// File number 1..=9.
#[inline]
pub fn file_of(sq: Square) -> u8 {
    9 - sq % 9
}

/// USI square name, e.g. `7g`.
pub fn square_name(sq: Square) -> String {
    format!("{}{}", file_of(sq), (b'a' + rank_of(sq)) as char)
}

/// Parses a USI square name (`1a`..`9i`).
pub fn parse_square(text: &str) -> Option<Square> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let file = b[0].wrapping_sub(b'0');
    let rank = b[1].wrapping_sub(b'a');
    if (1..=9).contains(&file) && rank < 9 {
        Some(square(file, rank))
    } else {
        None
    }
}

/// How far a rank is from `side`'s own back rank toward the opponent: 0 = the side's far rank
/// (the opponent's back rank), 1 = the second-far rank, 2 = the third (all three form the zone).
#[inline]
pub fn distance_from_far(side: Color, sq: Square) -> u8 {
    match side {
        Color::Black => rank_of(sq),
        Color::White => 8 - rank_of(sq),
    }
}

/// Types a piece must lose when it ends unpromoted on `sq` (far rank: P L N; second-far: N).
#[inline]
pub fn rank_filter(side: Color, sq: Square) -> Mask {
    match distance_from_far(side, sq) {
        0 => !(P | L | N),
        1 => !N,
        _ => ALL,
    }
}

#[inline]
pub fn in_zone(side: Color, sq: Square) -> bool {
    distance_from_far(side, sq) < 3
}
