//! Legal action generation: movement as the union of the candidates' moves, the narrowing
//! table, promotion, the rank filters and drops.
//!
//! Every action restricts exactly one piece (the mover or the dropped piece) by a local set E;
//! removing K from a captured piece can never be inconsistent (its exact set holds some other
//! type, which some complete assignment uses). Since masks are exact, an action is consistent
//! iff `mask ∩ E ≠ ∅`: legality costs one AND, and the count at the last ply of perft is exact.

// SAFETY: allowed for SSE2 intrinsics (part of every x86_64 CPU) for the consistency masks.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::action::Action;
use super::position::{origin_of, Piece, Position, Ruleset, HAND};
use super::types::*;

/// Directions in the mover's frame: forward, forward-right, right, back-right, back,
/// back-left, left, forward-left. The absolute direction is the same index for sente and
/// rotated by four for gote.
const DIRS: usize = 8;

/// (row, column) steps of the absolute directions; row 0 is rank `a`, so sente's forward is -1.
const DELTA: [(i8, i8); DIRS] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

const OFF: u8 = u8::MAX;

/// `NEXT[sq][dir]`: the neighbouring square in an absolute direction, or OFF.
static NEXT: [[u8; DIRS]; SQUARES] = next_table();

const fn next_table() -> [[u8; DIRS]; SQUARES] {
    let mut t = [[OFF; DIRS]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let (r, c) = ((sq / 9) as i8, (sq % 9) as i8);
        let mut d = 0;
        while d < DIRS {
            let (nr, nc) = (r + DELTA[d].0, c + DELTA[d].1);
            if nr >= 0 && nr < 9 && nc >= 0 && nc < 9 {
                t[sq][d] = (nr * 9 + nc) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

/// `RAY[abs][sq]`: the board squares from `sq`'s neighbour in absolute direction `abs` to the
/// edge (`sq` itself not included).
static RAY: [[u128; SQUARES]; DIRS] = ray_table();

const fn ray_table() -> [[u128; SQUARES]; DIRS] {
    let next = next_table();
    let mut t = [[0u128; SQUARES]; DIRS];
    let mut d = 0;
    while d < DIRS {
        let mut sq = 0;
        while sq < SQUARES {
            let mut to = next[sq][d];
            while to != OFF {
                t[d][sq] |= 1u128 << to;
                to = next[to as usize][d];
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

/// The nearest square of `blockers` (not empty) along absolute direction `abs`: directions 2
/// to 5 go up the square indices (+1, +10, +9, +8), the others down.
#[inline(always)]
fn nearest(blockers: u128, abs: usize) -> Square {
    if (2..=5).contains(&abs) {
        blockers.trailing_zeros() as Square
    } else {
        (127 - blockers.leading_zeros()) as Square
    }
}

/// `NEAR[sq]`: every square a piece on `sq` may move to: its eight rays and either side's
/// knight jumps. A piece none of whose targets lies in it has no capture to look for.
static NEAR: [u128; SQUARES] = near_table();

const fn near_table() -> [u128; SQUARES] {
    let (ray, knight) = (ray_table(), knight_table());
    let mut t = [0u128; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < DIRS {
            t[sq] |= ray[d][sq];
            d += 1;
        }
        let mut k = 0;
        while k < 4 {
            let to = knight[k / 2][sq][k % 2];
            if to != OFF {
                t[sq] |= 1u128 << to;
            }
            k += 1;
        }
        sq += 1;
    }
    t
}

/// `KNIGHT[side][sq]`: the two knight targets (OFF when off the board).
static KNIGHT: [[[u8; 2]; SQUARES]; 2] = knight_table();

const fn knight_table() -> [[[u8; 2]; SQUARES]; 2] {
    let mut t = [[[OFF; 2]; SQUARES]; 2];
    let mut side = 0;
    while side < 2 {
        let dr: i8 = if side == 0 { -2 } else { 2 };
        let mut sq = 0;
        while sq < SQUARES {
            let (r, c) = ((sq / 9) as i8, (sq % 9) as i8);
            let mut k = 0;
            while k < 2 {
                let (nr, nc) = (r + dr, c + if k == 0 { -1 } else { 1 });
                if nr >= 0 && nr < 9 && nc >= 0 && nc < 9 {
                    t[side][sq][k] = (nr * 9 + nc) as u8;
                }
                k += 1;
            }
            sq += 1;
        }
        side += 1;
    }
    t
}

/// What kind of displacement a move is, in the mover's frame (the rows of the narrowing table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Displacement {
    Forward1 = 0,
    DiagonalForward1 = 1,
    Sideways1 = 2,
    Back1 = 3,
    DiagonalBack1 = 4,
    KnightJump = 5,
    ForwardLong = 6,
    BackOrSidewaysLong = 7,
    DiagonalLong = 8,
}

impl Displacement {
    /// The class of the move from `from` to `to` for `side`, or None for a shape no piece makes.
    pub fn of(side: Color, from: Square, to: Square) -> Option<Displacement> {
        let sign = if side == Color::Black { 1 } else { -1 };
        // Forward is positive, in the mover's frame.
        let fwd = (rank_of(from) as i8 - rank_of(to) as i8) * sign;
        let side_steps = (file_of(from) as i8 - file_of(to) as i8).abs();
        use Displacement::*;
        Some(match (fwd, side_steps) {
            (0, 0) => return None,
            (1, 0) => Forward1,
            (1, 1) => DiagonalForward1,
            (0, 1) => Sideways1,
            (-1, 0) => Back1,
            (-1, 1) => DiagonalBack1,
            (2, 1) => KnightJump,
            (f, 0) if f >= 2 => ForwardLong,
            (f, 0) if f <= -2 => BackOrSidewaysLong,
            (0, _) => BackOrSidewaysLong,
            (f, s) if f.abs() == s => DiagonalLong,
            _ => return None,
        })
    }

    fn step(dir: usize) -> Displacement {
        use Displacement::*;
        match dir {
            0 => Forward1,
            1 | 7 => DiagonalForward1,
            2 | 6 => Sideways1,
            4 => Back1,
            _ => DiagonalBack1,
        }
    }

    fn long(dir: usize) -> Displacement {
        use Displacement::*;
        match dir {
            0 => ForwardLong,
            2 | 4 | 6 => BackOrSidewaysLong,
            _ => DiagonalLong,
        }
    }
}

/// The narrowing table: which candidate types can make a displacement (unpromoted, promoted).
const NARROW: [[Mask; 9]; 2] = [
    [
        K | R | G | S | L | P,
        K | B | G | S,
        K | R | G,
        K | R | G,
        K | B | S,
        N,
        R | L,
        R,
        B,
    ],
    [
        R | B | S | N | L | P,
        R | B | S | N | L | P,
        R | B | S | N | L | P,
        R | B | S | N | L | P,
        R | B,
        0,
        R,
        R,
        B,
    ],
];

/// The types (unpromoted or promoted) that can make displacement `d`.
#[inline]
pub fn narrowing(d: Displacement, promoted: bool) -> Mask {
    NARROW[promoted as usize][d as usize]
}

/// How a set of candidates moves: step directions, slide directions, knight jump.
#[derive(Clone, Copy, Debug, Default)]
struct Movement {
    steps: u8,
    slides: u8,
    knight: bool,
}

const FORWARD: u8 = 0x01;
const ORTHOGONAL: u8 = 0x55;
const DIAGONAL: u8 = 0xAA;
const GOLD: u8 = 0xD7;
const SILVER: u8 = 0xAB;

/// `MOVEMENT[promoted][mask]`.
static MOVEMENT: [[Movement; 256]; 2] = movement_table();

const fn movement_table() -> [[Movement; 256]; 2] {
    let mut t = [[Movement {
        steps: 0,
        slides: 0,
        knight: false,
    }; 256]; 2];
    let mut m = 0;
    while m < 256 {
        let (mut steps, mut slides, mut knight) = (0u8, 0u8, false);
        if is_king_candidate(m as u8) {
            steps |= 0xFF;
        }
        if may_be(m as u8, R) {
            slides |= ORTHOGONAL;
        }
        if may_be(m as u8, B) {
            slides |= DIAGONAL;
        }
        if may_be(m as u8, G) {
            steps |= GOLD;
        }
        if may_be(m as u8, S) {
            steps |= SILVER;
        }
        if may_be(m as u8, N) {
            knight = true;
        }
        if may_be(m as u8, L) {
            slides |= FORWARD;
        }
        if may_be(m as u8, P) {
            steps |= FORWARD;
        }
        t[0][m] = Movement {
            steps,
            slides,
            knight,
        };
        let (mut psteps, mut pslides) = (0u8, 0u8);
        if may_be(m as u8, R) {
            pslides |= ORTHOGONAL;
            psteps |= DIAGONAL;
        }
        if may_be(m as u8, B) {
            pslides |= DIAGONAL;
            psteps |= ORTHOGONAL;
        }
        if may_be(m as u8, S | N | L | P) {
            psteps |= GOLD;
        }
        t[1][m] = Movement {
            steps: psteps,
            slides: pslides,
            knight: false,
        };
        m += 1;
    }
    t
}

/// The 81 board bits.
const BOARD: u128 = (1u128 << SQUARES) - 1;
/// Column 0 (file 9) and column 8 (file 1): where a shift one column right or left wraps to.
const COL0: u128 = BOARD / 0x1FF; // bit 9r for every rank r
const NOT_COL0: u128 = BOARD & !COL0;
const NOT_COL8: u128 = BOARD & !(COL0 << 8);

/// Bits of `REACH_CAT`: orthogonal steps, diagonal steps, forward-diagonal steps, forward step,
/// orthogonal slides, diagonal slides, forward slide, knight jump (mover's frame).
const CAT_O: usize = 0;
const CAT_DG: usize = 1;
const CAT_FD: usize = 2;
const CAT_F: usize = 3;
const CAT_RS: usize = 4;
const CAT_BS: usize = 5;
const CAT_L: usize = 6;
const CAT_N: usize = 7;

/// The `REACH_CAT` byte of a piece on the board; 0 in hand, where it reaches nothing.
#[inline]
pub(crate) fn reach_category(p: &Piece) -> u8 {
    REACH_CAT[p.promoted as usize][p.mask as usize] & ((p.square != HAND) as u8).wrapping_neg()
}

/// Bit `d` of `x`, as 0 or 1.
const fn bit(x: u8, d: usize) -> u8 {
    (x >> d) & 1
}

/// `REACH_CAT[promoted][mask]`: `MOVEMENT` as the categories above, which the fills in
/// [`Position::board_reach_both`] take by direction.
static REACH_CAT: [[u8; 256]; 2] = reach_cat_table();

const fn reach_cat_table() -> [[u8; 256]; 2] {
    let movement = movement_table();
    let mut t = [[0u8; 256]; 2];
    let mut pr = 0;
    while pr < 2 {
        let mut m = 0;
        while m < 256 {
            let mv = movement[pr][m];
            let (o, dg) = (bit(mv.steps, 2), bit(mv.steps, 3));
            let (fd, f) = (bit(mv.steps, 1), bit(mv.steps, 0));
            let (rs, bs, l) = (bit(mv.slides, 2), bit(mv.slides, 1), bit(mv.slides, 0));
            // Every movement is a union of these shapes; checked at compile time.
            let steps = (o * ORTHOGONAL) | (dg * DIAGONAL) | (fd * 0x82) | (f * FORWARD);
            let slides = (rs * ORTHOGONAL) | (bs * DIAGONAL) | (l * FORWARD);
            assert!(steps == mv.steps && slides == mv.slides);
            t[pr][m] = o << CAT_O
                | dg << CAT_DG
                | fd << CAT_FD
                | f << CAT_F
                | rs << CAT_RS
                | bs << CAT_BS
                | l << CAT_L
                | (mv.knight as u8) << CAT_N;
            m += 1;
        }
        pr += 1;
    }
    t
}

/// The first 96 `bytes` as eight bit planes: bit `i` of plane `j` is bit `j` of `bytes[i]`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn byte_planes(bytes: &[u8; 128]) -> [u128; 8] {
    use std::arch::x86_64::*;
    let word = |k: usize| u64::from_le_bytes(*bytes[8 * k..].first_chunk::<8>().unwrap()) as i64;
    let mut masks = [[0u64; 6]; 8];
    // `c` is a column of `masks` (the inner index) and picks two words: no one iterator.
    #[allow(clippy::needless_range_loop)]
    for c in 0..6 {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe {
            let mut x = _mm_set_epi64x(word(2 * c + 1), word(2 * c));
            // pmovmskb takes bit 7 of each byte; doubling the bytes brings the next bit up.
            for j in (0..8).rev() {
                masks[j][c] = _mm_movemask_epi8(x) as u64;
                x = _mm_add_epi8(x, x);
            }
        }
    }
    std::array::from_fn(|j| {
        let m = masks[j];
        let lo = m[0] | m[1] << 16 | m[2] << 32 | m[3] << 48;
        let hi = m[4] | m[5] << 16;
        (hi as u128) << 64 | lo as u128
    })
}

/// The first 88 `bytes` as eight bit planes: bit `i` of plane `j` is bit `j` of `bytes[i]`.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn byte_planes_portable(bytes: &[u8; 128]) -> [u128; 8] {
    let words: [u64; 11] =
        std::array::from_fn(|k| u64::from_le_bytes(*bytes[8 * k..].first_chunk::<8>().unwrap()));
    // Gathers bit 8i of `t` into bit 56 + i; the partial products never collide.
    let gather = |w: u64, j: usize| {
        ((w >> j) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56
    };
    std::array::from_fn(|j| {
        let (mut lo, mut hi) = (0u64, 0u64);
        for (k, &w) in words[..8].iter().enumerate() {
            lo |= gather(w, j) << (8 * k);
        }
        for (k, &w) in words[8..].iter().enumerate() {
            hi |= gather(w, j) << (8 * k);
        }
        (hi as u128) << 64 | lo as u128
    })
}

#[cfg(not(target_arch = "x86_64"))]
use byte_planes_portable as byte_planes;

/// Carry-save adder: the bitwise sum of three sets as (ones, twos).
#[inline(always)]
fn csa(a: u128, b: u128, c: u128) -> (u128, u128) {
    let u = a ^ b;
    (u ^ c, (a & b) | (u & c))
}

/// `sum(popcount(x & keep))` over the ten sets, with four popcounts instead of ten (a software
/// popcount without the popcnt feature): the sets are added bitwise first.
#[inline(always)]
fn count_sum(x: &[u128; 10], keep: u128) -> u32 {
    let (s, c1) = csa(x[0], x[1], x[2]);
    let (s, c2) = csa(s, x[3], x[4]);
    let (s, c3) = csa(s, x[5], x[6]);
    let (s, c4) = csa(s, x[7], x[8]);
    let (ones, c5) = (s ^ x[9], s & x[9]);
    let (t, d1) = csa(c1, c2, c3);
    let (twos, d2) = csa(t, c4, c5);
    let (fours, eights) = (d1 ^ d2, d1 & d2);
    (ones & keep).count_ones()
        + 2 * (twos & keep).count_ones()
        + 4 * (fours & keep).count_ones()
        + 8 * (eights & keep).count_ones()
}

/// `x` shifted by `d` squares (up the board for positive `d`).
#[inline(always)]
fn sh(x: u128, d: i32) -> u128 {
    if d >= 0 {
        x << d
    } else {
        x >> -d
    }
}

/// Board files (bit f-1) where `side` has an unpromoted piece that is certainly a pawn.
pub fn certain_pawn_files(pos: &Position, side: Color) -> u16 {
    let mut files = 0u16;
    for p in pos.pieces.iter() {
        if p.square != HAND && p.owner == side && !p.promoted && p.mask == P {
            files |= 1 << (file_of(p.square) - 1);
        }
    }
    files
}

/// Receives generated actions; `count_only` sinks never look at them.
pub(crate) trait Sink {
    fn push(&mut self, action: Action);
}

impl Sink for Vec<Action> {
    #[inline]
    fn push(&mut self, action: Action) {
        Vec::push(self, action);
    }
}

pub(crate) struct Counter(pub u64);

impl Sink for Counter {
    #[inline]
    fn push(&mut self, _action: Action) {
        self.0 += 1;
    }
}

/// The moves of `side`'s piece `p` to `to` by displacement `d`: unpromoted, promoted, or both,
/// as the narrowing, the rank filter and the promotion zone allow.
#[inline(always)]
fn emit<T: Sink>(side: Color, p: Piece, to: Square, d: Displacement, out: &mut T) {
    let from = p.square;
    let e = narrowing(d, p.promoted) & p.mask;
    if p.promoted {
        out.push(Action::Move {
            from,
            to,
            promote: false,
        });
        return;
    }
    if e & rank_filter(side, to) != 0 {
        out.push(Action::Move {
            from,
            to,
            promote: false,
        });
    }
    if e & !(G | K) != 0 && (in_zone(side, from) || in_zone(side, to)) {
        out.push(Action::Move {
            from,
            to,
            promote: true,
        });
    }
}

impl Position {
    /// Appends every legal action (distinct from, to, promote; one drop per hand class and
    /// square) to `out`. Nothing once the game is over.
    pub fn generate(&self, rules: &Ruleset, out: &mut Vec<Action>) {
        self.generate_into(rules, out);
    }

    /// Appends the legal captures only (board moves onto an enemy piece), e.g. for a
    /// quiescence search. No ruleset: the rules restrict drops only.
    pub fn generate_captures(&self, out: &mut Vec<Action>) {
        self.generate_captures_onto(BOARD, out);
    }

    /// [`Position::generate_captures`] when the captures can only land on `targets` (a
    /// superset of them, such as the squares the side's pieces reach): pieces and rays that
    /// hold none of the targeted enemy pieces are passed over without a look. The same captures
    /// in the same order: piece index order, then each piece's directions, then its jumps.
    pub fn generate_captures_onto(&self, targets: u128, out: &mut Vec<Action>) {
        if self.winner.is_some() {
            return;
        }
        let prey = self.tally.occupied[self.side.opponent().index()] & targets;
        let mut movers = self.tally.on_board[self.side.index()];
        while movers != 0 {
            let i = movers.trailing_zeros() as usize;
            movers &= movers - 1;
            let p = self.pieces[i];
            if NEAR[p.square as usize] & prey != 0 {
                self.captures_of(p, prey, out);
            }
        }
    }

    /// The number of legal actions (what [`Position::generate`] would append).
    pub fn count_legal(&self, rules: &Ruleset) -> u64 {
        let mut c = Counter(0);
        self.generate_into(rules, &mut c);
        c.0
    }

    /// All legal actions in a fresh vector.
    pub fn legal_actions(&self, rules: &Ruleset) -> Vec<Action> {
        let mut v = Vec::with_capacity(256);
        self.generate(rules, &mut v);
        v
    }

    /// The squares on which the opponent, were it to move now, could capture the side to move's
    /// king: its legal captures there that win by the rules (the captured piece's exact set is
    /// {K} once the capturer's own restriction is applied). The "your king is in check" warning of
    /// the browser pages. A capture of a piece that only may be the king does not count: it
    /// takes K away from that piece and loses nothing. Board order; empty once the game is over.
    pub fn king_capture_threats(&self) -> Vec<Square> {
        if self.winner.is_some() {
            return Vec::new();
        }
        let side = self.side;
        let mut them = self.clone();
        them.pass();
        let mut captures = Vec::new();
        them.generate_captures(&mut captures);
        let mut out: Vec<Square> = captures
            .into_iter()
            .filter_map(|a| match a {
                Action::Move { to, .. } => {
                    let mut after = them.clone();
                    (after.apply(a) && after.winner == Some(side.opponent())).then_some(to)
                }
                Action::Drop { .. } => None,
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action, rules: &Ruleset) -> bool {
        self.legal_actions(rules).contains(&action)
    }

    #[inline]
    pub(crate) fn generate_into<T: Sink>(&self, rules: &Ruleset, out: &mut T) {
        if self.winner.is_some() {
            return;
        }
        let side = self.side;
        let rot = side.index() * 4;
        // Piece index order, as a walk over all 40 pieces would take them.
        let mut movers = self.tally.on_board[side.index()];
        while movers != 0 {
            let i = movers.trailing_zeros() as usize;
            movers &= movers - 1;
            let p = self.pieces[i];
            let from = p.square;
            let mv = MOVEMENT[p.promoted as usize][p.mask as usize];
            let reach = mv.steps | mv.slides;
            for dir in 0..DIRS {
                if reach & (1 << dir) == 0 {
                    continue;
                }
                let abs = (dir + rot) & 7;
                let mut sq = NEXT[from as usize][abs];
                let mut first = true;
                while sq != OFF {
                    let occupant = self.board[sq as usize];
                    if occupant != u8::MAX && self.pieces[occupant as usize].owner == side {
                        break;
                    }
                    let d = if first {
                        Displacement::step(dir)
                    } else {
                        Displacement::long(dir)
                    };
                    emit(side, p, sq, d, out);
                    if occupant != u8::MAX || mv.slides & (1 << dir) == 0 {
                        break;
                    }
                    first = false;
                    sq = NEXT[sq as usize][abs];
                }
            }
            if mv.knight {
                for &to in &KNIGHT[side.index()][from as usize] {
                    if to == OFF {
                        continue;
                    }
                    let occupant = self.board[to as usize];
                    if occupant != u8::MAX && self.pieces[occupant as usize].owner == side {
                        continue;
                    }
                    emit(side, p, to, Displacement::KnightJump, out);
                }
            }
        }
        self.generate_drops(rules, out);
    }

    /// The captures of the side to move's piece `p` on the board onto `prey` (enemy pieces), in
    /// the order of the walk in [`Position::generate_into`] (direction by direction, then the
    /// knight's jumps): per direction the first occupied square, found from the ray's bits
    /// instead of walking it.
    #[inline(always)]
    fn captures_of(&self, p: Piece, prey: u128, out: &mut Vec<Action>) {
        let side = self.side;
        let rot = side.index() * 4;
        let occupied = self.tally.occupied[0] | self.tally.occupied[1];
        let from = p.square as usize;
        let mv = MOVEMENT[p.promoted as usize][p.mask as usize];
        let mut dirs = mv.steps | mv.slides;
        while dirs != 0 {
            let dir = dirs.trailing_zeros() as usize;
            dirs &= dirs - 1;
            let abs = (dir + rot) & 7;
            let next = NEXT[from][abs];
            let to = if mv.slides & (1 << dir) != 0 {
                let ray = RAY[abs][from];
                if ray & prey == 0 {
                    continue;
                }
                nearest(ray & occupied, abs)
            } else if next != OFF {
                next
            } else {
                continue;
            };
            if prey & (1u128 << to) == 0 {
                continue;
            }
            let d = if to == next {
                Displacement::step(dir)
            } else {
                Displacement::long(dir)
            };
            emit(side, p, to, d, out);
        }
        if mv.knight {
            for &to in &KNIGHT[side.index()][from] {
                if to != OFF && prey & (1u128 << to) != 0 {
                    emit(side, p, to, Displacement::KnightJump, out);
                }
            }
        }
    }

    fn generate_drops<T: Sink>(&self, rules: &Ruleset, out: &mut T) {
        let side = self.side;
        // One representative (the lowest index) per (origin, exact set) class in hand.
        let mut seen: [(u8, Mask); PIECES] = [(0, 0); PIECES];
        let mut classes = 0;
        for i in 0..PIECES {
            let p = self.pieces[i];
            if p.square != HAND || p.owner != side {
                continue;
            }
            let origin = origin_of(i) as u8;
            if seen[..classes]
                .iter()
                .any(|&(j, m)| m == p.mask && origin_of(j as usize) as u8 == origin)
            {
                continue;
            }
            seen[classes] = (i as u8, p.mask);
            classes += 1;
        }
        if classes == 0 {
            return;
        }
        let nifu_files = if rules.kakutei_nifu {
            certain_pawn_files(self, side)
        } else {
            0
        };
        for &(piece, mask) in &seen[..classes] {
            let nifu = if mask == P { nifu_files } else { 0 };
            for to in 0..SQUARES as u8 {
                if self.board[to as usize] != u8::MAX {
                    continue;
                }
                if mask & rank_filter(side, to) == 0 {
                    continue;
                }
                if nifu & (1 << (file_of(to) - 1)) != 0 {
                    continue;
                }
                out.push(Action::Drop { piece, to });
            }
        }
    }
}

impl Position {
    /// What `side`'s pieces on the board reach, for evaluation: the squares they could move to
    /// or defend (squares of their own pieces count), and how many board moves they have
    /// (targets not held by their own pieces; promotion choices and rank filters ignored).
    pub fn board_reach(&self, side: Color) -> (u128, u32) {
        self.board_reach_both()[side.index()]
    }

    /// [`Position::board_reach`] of both sides at once (sente's first), by whole-board fills:
    /// per side and absolute direction, the set of pieces sliding that way and the set
    /// stepping once are shifted together (Kogge-Stone over the empty squares), and the knights
    /// by their two jumps. Rays in one direction never share a square (a second ray would have
    /// to pass the first piece), so one popcount per direction gives the per-piece move count.
    // `dir!`'s deltas are negative for half the directions, where `2 * $d` reads as the double
    // step it is.
    #[allow(clippy::neg_multiply)]
    pub fn board_reach_both(&self) -> [(u128, u32); 2] {
        // Byte `sq` of the tally holds the `REACH_CAT` flags of the piece on `sq`.
        let planes = byte_planes(&self.tally.categories);
        let own = self.tally.occupied;
        let empty = BOARD & !(own[0] | own[1]);
        let mut out = [(0u128, 0u32); 2];
        // Per side, relative direction: (slides, steps).
        let mut moves = [[(0u128, 0u128); DIRS]; 2];
        let mut knights = [0u128; 2];
        for side in 0..2 {
            let c = |k: usize| planes[k] & own[side];
            let (o, dg, fd, f) = (c(CAT_O), c(CAT_DG), c(CAT_FD), c(CAT_F));
            let (rs, bs, l) = (c(CAT_RS), c(CAT_BS), c(CAT_L));
            knights[side] = c(CAT_N);
            moves[side] = [
                (rs | l, o | f),
                (bs, dg | fd),
                (rs, o),
                (bs, dg),
                (rs, o),
                (bs, dg),
                (rs, o),
                (bs, dg | fd),
            ];
        }
        let mut counts = [[0u128; 10]; 2];
        // Absolute direction, square delta, and where a shift may land: on the board and, for a
        // step across files, not on the file the wrap would reach.
        macro_rules! dir {
            ($abs:expr, $d:expr, $guard:expr) => {{
                let pro0 = empty & $guard;
                let pro1 = pro0 & sh(pro0, $d);
                let pro2 = pro1 & sh(pro1, 2 * $d);
                for side in 0..2 {
                    let (slides, steps) = moves[side][($abs + side * 4) & 7];
                    let mut g = slides;
                    g |= pro0 & sh(g, $d);
                    g |= pro1 & sh(g, 2 * $d);
                    g |= pro2 & sh(g, 4 * $d);
                    let reach = sh(g | steps, $d) & $guard;
                    out[side].0 |= reach;
                    counts[side][$abs] = reach;
                }
            }};
        }
        dir!(0, -9, BOARD);
        dir!(1, -8, NOT_COL0);
        dir!(2, 1, NOT_COL0);
        dir!(3, 10, NOT_COL0);
        dir!(4, 9, BOARD);
        dir!(5, 8, NOT_COL8);
        dir!(6, -1, NOT_COL8);
        dir!(7, -10, NOT_COL8);
        for side in 0..2 {
            let n = knights[side];
            let (left, right) = if side == 0 {
                (n >> 19, n >> 17)
            } else {
                (n << 17, n << 19)
            };
            // One column left (toward column 0) or right, as the steps above.
            let (left, right) = (left & NOT_COL8, right & NOT_COL0);
            out[side].0 |= left | right;
            counts[side][8] = left;
            counts[side][9] = right;
            out[side].1 = count_sum(&counts[side], !own[side]);
        }
        out
    }

    /// The scalar walk [`Position::board_reach`] replaced, kept as its test oracle.
    #[cfg(test)]
    pub(crate) fn board_reach_scalar(&self, side: Color) -> (u128, u32) {
        let rot = side.index() * 4;
        let mut own = 0u128;
        for p in self.pieces.iter() {
            if p.square != HAND && p.owner == side {
                own |= 1u128 << p.square;
            }
        }
        let (mut squares, mut moves) = (0u128, 0u32);
        for p in self.pieces.iter() {
            if p.square == HAND || p.owner != side {
                continue;
            }
            let mv = MOVEMENT[p.promoted as usize][p.mask as usize];
            let mut reach = 0u128;
            let dirs = mv.steps | mv.slides;
            for dir in 0..DIRS {
                if dirs & (1 << dir) == 0 {
                    continue;
                }
                let abs = (dir + rot) & 7;
                let mut sq = NEXT[p.square as usize][abs];
                if mv.slides & (1 << dir) == 0 {
                    if sq != OFF {
                        reach |= 1u128 << sq;
                    }
                    continue;
                }
                while sq != OFF {
                    reach |= 1u128 << sq;
                    if self.board[sq as usize] != u8::MAX {
                        break;
                    }
                    sq = NEXT[sq as usize][abs];
                }
            }
            if mv.knight {
                for &to in &KNIGHT[side.index()][p.square as usize] {
                    if to != OFF {
                        reach |= 1u128 << to;
                    }
                }
            }
            squares |= reach;
            moves += (reach & !own).count_ones();
        }
        (squares, moves)
    }
}

#[cfg(test)]
mod reach_tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn fills_agree_with_the_scalar_walk_on_random_games() {
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(47);
        let mut positions = 0;
        for _ in 0..40 {
            let mut pos = Position::start();
            for _ in 0..120 {
                let both = pos.board_reach_both();
                for side in Color::BOTH {
                    assert_eq!(both[side.index()], pos.board_reach_scalar(side));
                }
                positions += 1;
                let moves = pos.legal_actions(&rules);
                if moves.is_empty() || pos.winner().is_some() {
                    break;
                }
                assert!(pos.apply(moves[rng.index(moves.len())]));
            }
        }
        assert!(positions > 2000, "{positions}");
    }
}

#[cfg(test)]
mod fill_tests {
    use super::*;
    use crate::quantum::tally::Tally;
    use crate::rng::SplitMix64;

    /// Pieces dropped anywhere with any owner, promotion and mask, sparse to crowded: long rays,
    /// wraps across the edge files and every movement category the random games rarely reach.
    fn scrambled(rng: &mut SplitMix64) -> Position {
        let mut pos = Position::start();
        pos.board = [u8::MAX; SQUARES];
        let on_board = [10, 50, 90][rng.index(3)];
        for i in 0..PIECES {
            let p = &mut pos.pieces[i];
            p.square = HAND;
            if rng.below(100) >= on_board {
                continue;
            }
            let mut sq = rng.index(SQUARES);
            while pos.board[sq] != u8::MAX {
                sq = rng.index(SQUARES);
            }
            pos.board[sq] = i as u8;
            p.square = sq as Square;
            p.owner = if rng.below(2) == 0 {
                Color::Black
            } else {
                Color::White
            };
            p.promoted = rng.below(3) == 0;
            p.mask = match rng.below(3) {
                0 => ALL,
                1 => 1 << rng.below(8),
                _ => rng.below(256) as Mask,
            };
        }
        pos.tally = Tally::of(&pos.pieces);
        pos
    }

    #[test]
    fn fills_agree_with_the_scalar_walk_on_scrambled_positions() {
        let mut rng = SplitMix64::new(2024);
        for _ in 0..20_000 {
            let pos = scrambled(&mut rng);
            let both = pos.board_reach_both();
            for side in Color::BOTH {
                assert_eq!(both[side.index()], pos.board_reach_scalar(side), "{side:?}");
            }
        }
    }

    /// The captures found from the rays' bits, over the whole board and over the side's reach
    /// only, against the full walk's moves onto occupied squares, in the same order, on crowded
    /// to sparse positions of any masks and owners.
    #[test]
    fn captures_by_rays_agree_with_the_walk_on_scrambled_positions() {
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(51);
        let mut found = 0;
        for _ in 0..20_000 {
            let mut pos = scrambled(&mut rng);
            if rng.below(2) == 0 {
                pos.pass();
            }
            let mut all = Vec::new();
            pos.generate(&rules, &mut all);
            all.retain(
                |a| matches!(a, Action::Move { to, .. } if pos.board[*to as usize] != u8::MAX),
            );
            let mut captures = Vec::new();
            pos.generate_captures(&mut captures);
            assert_eq!(captures, all);
            found += captures.len();
            // Narrowed to the side's reach, as quiescence asks: the same list.
            let reach = pos.board_reach(pos.side_to_move()).0;
            let mut onto = Vec::new();
            pos.generate_captures_onto(reach, &mut onto);
            assert_eq!(onto, all);
        }
        assert!(found > 50_000, "{found}");
    }

    #[test]
    fn byte_planes_transpose() {
        let mut rng = SplitMix64::new(88);
        for _ in 0..1000 {
            let mut bytes = [0u8; 128];
            for b in bytes.iter_mut().take(88) {
                *b = rng.below(256) as u8;
            }
            let planes = byte_planes(&bytes);
            assert_eq!(
                planes.map(|p| p & BOARD),
                byte_planes_portable(&bytes).map(|p| p & BOARD)
            );
            for (j, plane) in planes.iter().enumerate() {
                for (i, b) in bytes.iter().enumerate().take(SQUARES) {
                    assert_eq!(plane >> i & 1, (b >> j & 1) as u128);
                }
            }
        }
    }

    const MOVERS: [(bool, Mask); 5] = [(false, R), (false, B), (false, L), (true, R), (false, N)];

    #[test]
    fn a_lone_slider_reaches_the_whole_line() {
        for sq in 0..SQUARES {
            for side in Color::BOTH {
                for (promoted, mask) in MOVERS {
                    let mut pos = scrambled(&mut SplitMix64::new(0));
                    pos.board = [u8::MAX; SQUARES];
                    for p in pos.pieces.iter_mut() {
                        p.square = HAND;
                    }
                    pos.pieces[0] = Piece {
                        square: sq as Square,
                        owner: side,
                        promoted,
                        mask,
                    };
                    pos.board[sq] = 0;
                    pos.tally = Tally::of(&pos.pieces);
                    assert_eq!(
                        pos.board_reach_both()[side.index()],
                        pos.board_reach_scalar(side)
                    );
                }
            }
        }
    }

    /// Timing aid: `cargo test --release --lib fill_tests::time -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn time_board_reach_both() {
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(47);
        let mut positions = Vec::new();
        for _ in 0..40 {
            let mut pos = Position::start();
            for _ in 0..120 {
                positions.push(pos.clone());
                let moves = pos.legal_actions(&rules);
                if moves.is_empty() || pos.winner().is_some() {
                    break;
                }
                assert!(pos.apply(moves[rng.index(moves.len())]));
            }
        }
        let start = std::time::Instant::now();
        let mut acc = 0u64;
        for _ in 0..200 {
            for pos in &positions {
                let r = std::hint::black_box(pos).board_reach_both();
                acc = acc.wrapping_add(r[0].1 as u64 + r[1].0 as u64);
            }
        }
        let n = 200 * positions.len();
        eprintln!(
            "{:.1} ns per call ({acc})",
            start.elapsed().as_nanos() as f64 / n as f64
        );
    }
}
