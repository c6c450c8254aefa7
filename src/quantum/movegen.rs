//! Legal action generation: movement as the union of the candidates' moves, the narrowing
//! table, promotion, the rank filters and drops.
//!
//! Every action restricts exactly one piece (the mover or the dropped piece) by a local set E;
//! removing K from a captured piece can never be inconsistent (its exact set holds some other
//! type, which some complete assignment uses). Since masks are exact, an action is consistent
//! iff `mask ∩ E ≠ ∅`: legality costs one AND, and the count at the last ply of perft is exact.

use super::action::Action;
use super::position::{origin_of, Position, Ruleset, HAND};
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

/// `RAY[sq][dir]`: every square from `sq` (excluded) to the edge in an absolute direction.
static RAY: [[u128; DIRS]; SQUARES] = ray_table();
/// `STEP[sq][dir]`: the neighbouring square as a bit (0 off the board).
static STEP: [[u128; DIRS]; SQUARES] = step_table();
/// `KNIGHT_REACH[side][sq]`: the knight targets as bits.
static KNIGHT_REACH: [[u128; SQUARES]; 2] = knight_reach_table();
/// Whether an absolute direction goes to higher square numbers (so the nearest blocker on its
/// ray is the lowest set bit).
const ASCENDING: [bool; DIRS] = [false, false, true, true, true, true, false, false];

const fn ray_table() -> [[u128; DIRS]; SQUARES] {
    let mut t = [[0u128; DIRS]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < DIRS {
            let mut next = NEXT[sq][d];
            while next != OFF {
                t[sq][d] |= 1u128 << next;
                next = NEXT[next as usize][d];
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

const fn step_table() -> [[u128; DIRS]; SQUARES] {
    let mut t = [[0u128; DIRS]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < DIRS {
            if NEXT[sq][d] != OFF {
                t[sq][d] = 1u128 << NEXT[sq][d];
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

const fn knight_reach_table() -> [[u128; SQUARES]; 2] {
    let mut t = [[0u128; SQUARES]; 2];
    let mut side = 0;
    while side < 2 {
        let mut sq = 0;
        while sq < SQUARES {
            let mut k = 0;
            while k < 2 {
                if KNIGHT[side][sq][k] != OFF {
                    t[side][sq] |= 1u128 << KNIGHT[side][sq][k];
                }
                k += 1;
            }
            sq += 1;
        }
        side += 1;
    }
    t
}

/// The squares a slider on `sq` reaches in absolute direction `dir` over `occupied`: the ray up
/// to and including the first occupied square.
#[inline]
fn slide(sq: usize, dir: usize, occupied: u128) -> u128 {
    let ray = RAY[sq][dir];
    let blockers = ray & occupied;
    if blockers == 0 {
        return ray;
    }
    let nearest = if ASCENDING[dir] {
        blockers.trailing_zeros()
    } else {
        127 - blockers.leading_zeros()
    };
    ray & !RAY[nearest as usize][dir]
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

/// Keeps only board moves onto an occupied (hence enemy) square.
struct Captures<'a> {
    pos: &'a Position,
    out: &'a mut Vec<Action>,
}

impl Sink for Captures<'_> {
    #[inline]
    fn push(&mut self, action: Action) {
        if let Action::Move { to, .. } = action {
            if self.pos.board[to as usize] != u8::MAX {
                self.out.push(action);
            }
        }
    }
}

impl Sink for Counter {
    #[inline]
    fn push(&mut self, _action: Action) {
        self.0 += 1;
    }
}

impl Position {
    /// Appends every legal action (distinct from, to, promote; one drop per hand class and
    /// square) to `out`. Nothing once the game is over.
    pub fn generate(&self, rules: &Ruleset, out: &mut Vec<Action>) {
        self.generate_into(rules, out);
    }

    /// Appends the legal captures only (board moves onto an enemy piece), e.g. for a
    /// quiescence search.
    pub fn generate_captures(&self, rules: &Ruleset, out: &mut Vec<Action>) {
        self.generate_into(rules, &mut Captures { pos: self, out });
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
    pub fn king_capture_threats(&self, rules: &Ruleset) -> Vec<Square> {
        if self.winner.is_some() {
            return Vec::new();
        }
        let side = self.side;
        let mut them = self.clone();
        them.pass();
        let mut captures = Vec::new();
        them.generate_captures(rules, &mut captures);
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
        for i in 0..PIECES {
            let p = self.pieces[i];
            if p.square == HAND || p.owner != side {
                continue;
            }
            let from = p.square;
            let mv = MOVEMENT[p.promoted as usize][p.mask as usize];
            let emit = |to: Square, d: Displacement, out: &mut T| {
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
            };
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
                    emit(sq, d, out);
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
                    emit(to, Displacement::KnightJump, out);
                }
            }
        }
        self.generate_drops(rules, out);
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

    /// [`Position::board_reach`] of both sides at once (sente's first), from ray tables: one pass
    /// over the pieces for the occupancy, then per piece its step, slide and knight bits.
    pub fn board_reach_both(&self) -> [(u128, u32); 2] {
        let mut own = [0u128; 2];
        for p in self.pieces.iter() {
            if p.square != HAND {
                own[p.owner.index()] |= 1u128 << p.square;
            }
        }
        let occupied = own[0] | own[1];
        let mut out = [(0u128, 0u32); 2];
        for p in self.pieces.iter() {
            if p.square == HAND {
                continue;
            }
            let side = p.owner.index();
            let rot = side * 4;
            let sq = p.square as usize;
            let mv = MOVEMENT[p.promoted as usize][p.mask as usize];
            let mut reach = 0u128;
            let mut steps = mv.steps & !mv.slides;
            while steps != 0 {
                let dir = steps.trailing_zeros() as usize;
                steps &= steps - 1;
                reach |= STEP[sq][(dir + rot) & 7];
            }
            let mut slides = mv.slides;
            while slides != 0 {
                let dir = slides.trailing_zeros() as usize;
                slides &= slides - 1;
                reach |= slide(sq, (dir + rot) & 7, occupied);
            }
            if mv.knight {
                reach |= KNIGHT_REACH[side][sq];
            }
            out[side].0 |= reach;
            out[side].1 += (reach & !own[side]).count_ones();
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
    fn ray_tables_agree_with_the_scalar_walk_on_random_games() {
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
