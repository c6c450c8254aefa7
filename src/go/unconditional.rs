//! The extended analysis: GNU Go 3.8's unconditional status (engine/unconditional.c and
//! worm.c), re-expressed over this crate's board. The procedure is a fixed sequence of trial
//! moves by the opponent on a scratch board, undone at the end:
//!
//! 1. Capture every block of the analysed colour C that can be captured by the opponent O
//!    playing all its liberties (C always passing), repeatedly; isolated two-stone blocks are
//!    set aside (they may be the inside of a seki). If no block of C is left, nothing is proven.
//! 2. O plays on every liberty of the remaining blocks where legal, then extends its blocks in
//!    atari while that is legal.
//! 3. Seki guard: where a set-aside pair sits in the eye shape of GNU Go's seki pattern and O's
//!    stones there join into one block, C's pair is extended by one stone so it is not counted.
//! 4. O plays on the liberties of the set-aside pairs, then for each O block with exactly two
//!    adjacent liberties plays the one that keeps more open space.
//! 5. C's stones still standing (not set aside) are alive; their liberties, and every O block in
//!    atari together with its liberty, are C's territory. Original O stones there are dead.
//!
//! Both colours are analysed, white first, and black's findings overwrite white's where they
//! overlap, as GNU Go does.

use super::bits::Bits;
use super::board::{Board, Color, BLACK, BORDER, EMPTY, WHITE};

/// GNU Go's eight directions: south, west, north, east, then the diagonals.
pub(super) fn deltas(stride: usize) -> [isize; 8] {
    let ns = stride as isize;
    [ns, -1, -ns, 1, ns - 1, -ns - 1, -ns + 1, ns + 1]
}

#[inline]
pub(super) fn step(p: usize, d: isize) -> usize {
    (p as isize + d) as usize
}

/// The position as bitboards, with ko as GNU Go's `trymove` sees it.
#[derive(Clone, Copy)]
struct State<const W: usize> {
    stones: [Bits<W>; 2],
    empty: Bits<W>,
    ko: Option<usize>,
}

/// A board with trial moves that can be taken back.
struct Scratch<'a, const W: usize> {
    board: &'a Board,
    stride: usize,
    now: State<W>,
    undo: Vec<State<W>>,
    /// While only O plays, C's blocks never merge or split (they are only captured, and come
    /// back unchanged on undo): their stones and neighbourhoods are computed once.
    c_index: usize,
    c_label: Vec<u16>,
    c_blocks: Vec<(Bits<W>, Bits<W>)>,
    c_cached: bool,
}

impl<const W: usize> Scratch<'_, W> {
    #[inline]
    fn cell(&self, p: usize) -> u8 {
        if self.now.stones[0].has(p) {
            BLACK
        } else if self.now.stones[1].has(p) {
            WHITE
        } else if self.now.empty.has(p) {
            EMPTY
        } else {
            BORDER
        }
    }

    /// The block through the stone at `p` and its liberties.
    #[inline]
    fn block(&self, p: usize) -> (Bits<W>, Bits<W>) {
        let c = if self.now.stones[0].has(p) { 0 } else { 1 };
        if self.c_cached && c == self.c_index {
            let (stones, reach) = &self.c_blocks[self.c_label[p] as usize];
            return (*stones, reach.and(&self.now.empty));
        }
        let (stones, reach) =
            Bits::flood_spread(&Bits::single(p), &self.now.stones[c], self.stride);
        (stones, reach.and(&self.now.empty))
    }

    /// How many neighbours of `p` are empty (a lower bound on its block's liberties).
    #[inline]
    fn empty_neighbors(&self, p: usize) -> u32 {
        self.board
            .neighbors(p)
            .iter()
            .map(|&n| self.now.empty.has(n) as u32)
            .sum()
    }

    #[inline]
    fn touches_empty(&self, p: usize) -> bool {
        self.board
            .neighbors(p)
            .iter()
            .any(|&n| self.now.empty.has(n))
    }

    fn try_move(&mut self, p: usize, color: Color, ignore_ko: bool) -> bool {
        if !self.now.empty.has(p) {
            return false;
        }
        let (me, them) = (color.index(), color.other().index());
        let ns = self.board.neighbors(p);
        if !ignore_ko && self.now.ko == Some(p) && ns.iter().any(|&n| self.now.stones[them].has(n))
        {
            return false;
        }
        let saved = self.now;
        self.now.stones[me].set(p);
        self.now.empty.clear(p);
        let mut captured = 0;
        let mut last = 0;
        for n in ns {
            // A stone next to an empty point has a liberty: no flood needed.
            if self.now.stones[them].has(n) && !self.touches_empty(n) {
                let (stones, libs) = self.block(n);
                if libs.is_zero() {
                    captured += stones.count();
                    last = n;
                    self.now.stones[them] = self.now.stones[them].and_not(&stones);
                    self.now.empty = self.now.empty.or(&stones);
                }
            }
        }
        if captured == 1 {
            let (own, libs) = self.block(p);
            self.now.ko = if own.count() == 1 && libs.count() == 1 {
                Some(last)
            } else {
                None
            };
        } else {
            if captured == 0 && !self.touches_empty(p) && self.block(p).1.is_zero() {
                self.now = saved;
                return false;
            }
            self.now.ko = None;
        }
        self.undo.push(saved);
        true
    }

    fn pop_to(&mut self, depth: usize) {
        while self.undo.len() > depth {
            if let Some(state) = self.undo.pop() {
                self.now = state;
            }
        }
    }

    /// Liberties a stone of `color` at `p` would have, captures ignored, counted up to 4.
    fn approx_libs(&self, p: usize, color: Color) -> u32 {
        let mut libs = Bits::zero();
        for n in self.board.neighbors(p) {
            if self.now.empty.has(n) {
                libs.set(n);
            } else if self.now.stones[color.index()].has(n) {
                libs = libs.or(&self.block(n).1);
            }
        }
        libs.clear(p);
        libs.count().min(4)
    }
}

/// Per point: 1 where `color` has stones proven alive, 2 where the point is its unconditional
/// territory (empty points and dead opponent stones), 0 otherwise. Points refer to `board`.
pub fn unconditional_life(board: &Board, ko: Option<usize>, color: Color) -> Vec<u8> {
    if board.len() <= 7 * 64 {
        life::<7>(board, ko, color)
    } else {
        life::<11>(board, ko, color)
    }
}

fn life<const W: usize>(board: &Board, ko: Option<usize>, color: Color) -> Vec<u8> {
    let mut s = Scratch::<W>::new(board, ko, color);
    let seki_pair = s.seki_pairs(color);
    if !s.capture_all(seki_pair, color.other()) {
        return vec![0u8; board.len()];
    }
    s.fill_liberties(seki_pair, color.other());
    s.seki_guard(seki_pair, color);
    s.settle(seki_pair, color);
    s.read_off(seki_pair, color)
}

/// The five steps of the module's procedure, in order, for the analysed colour C (`color`) and
/// its opponent O.
impl<'a, const W: usize> Scratch<'a, W> {
    /// The position on a scratch board, with C's blocks cached.
    fn new(board: &'a Board, ko: Option<usize>, color: Color) -> Self {
        let me = color.index();
        let mut now = State {
            stones: [Bits::zero(); 2],
            empty: Bits::zero(),
            ko,
        };
        for p in board.points() {
            match board.get(p) {
                BLACK => now.stones[0].set(p),
                WHITE => now.stones[1].set(p),
                _ => now.empty.set(p),
            }
        }
        let mut s = Scratch {
            board,
            stride: board.stride(),
            now,
            undo: Vec::new(),
            c_index: me,
            c_label: vec![u16::MAX; board.len()],
            c_blocks: Vec::new(),
            c_cached: false,
        };
        let mut rest = s.now.stones[me];
        while let Some(p) = rest.first() {
            let (stones, reach) = Bits::flood_spread(&Bits::single(p), &s.now.stones[me], s.stride);
            rest = rest.and_not(&stones);
            for q in stones.iter() {
                s.c_label[q] = s.c_blocks.len() as u16;
            }
            s.c_blocks.push((stones, reach));
        }
        s.c_cached = true;
        s
    }

    /// Two-stone blocks with no other own stone in their eight-neighbourhood, away from the edge.
    fn seki_pairs(&self, color: Color) -> Bits<W> {
        let d = deltas(self.stride);
        let mut seki_pair: Bits<W> = Bits::zero();
        let mut rest = self.now.stones[color.index()];
        while let Some(p) = rest.first() {
            let (stones, _) = self.block(p);
            rest = rest.and_not(&stones);
            if stones.count() != 2 {
                continue;
            }
            let isolated = stones.iter().all(|q| {
                d.iter().all(|&dd| {
                    let n = step(q, dd);
                    let c = self.board.get(n);
                    c != BORDER && (c != color.cell() || stones.has(n))
                })
            });
            if isolated {
                seki_pair = seki_pair.or(&stones);
            }
        }
        seki_pair
    }

    /// Step 1: captures what can be captured, block by block in the order of their first
    /// points. False when no block of C is left besides the set-aside pairs.
    fn capture_all(&mut self, seki_pair: Bits<W>, other: Color) -> bool {
        let me = self.c_index;
        let mut any_left = false;
        let mut captured_one = true;
        while captured_one {
            captured_one = false;
            any_left = false;
            let mut visited = seki_pair;
            while let Some(p) = self.now.stones[me].and_not(&visited).first() {
                let (stones, libs) = self.block(p);
                visited = visited.or(&stones);
                any_left = true;
                let depth = self.undo.len();
                for l in libs.iter() {
                    self.try_move(l, other, false);
                }
                if !self.now.stones[me].has(p) {
                    captured_one = true;
                } else {
                    let libs = self.block(p).1;
                    if libs.count() == 1 {
                        // The last liberty may be a ko capture, which GNU Go allows here.
                        let last = libs.first().unwrap_or(0);
                        self.try_move(last, other, true);
                        captured_one = true;
                    } else {
                        self.pop_to(depth);
                    }
                }
            }
        }
        any_left
    }

    /// Step 2: fills the liberties of the survivors, then extends O's blocks in atari.
    fn fill_liberties(&mut self, seki_pair: Bits<W>, other: Color) {
        let mut visited = seki_pair;
        while let Some(p) = self.now.stones[self.c_index].and_not(&visited).first() {
            let (stones, libs) = self.block(p);
            visited = visited.or(&stones);
            for l in libs.iter() {
                self.try_move(l, other, false);
            }
        }
        let them = other.index();
        let mut extended = true;
        while extended {
            extended = false;
            // Stones of a block already seen since the last change give the same answer.
            let mut seen: Bits<W> = Bits::zero();
            for p in self.board.points() {
                if !self.now.stones[them].has(p) || seen.has(p) || self.empty_neighbors(p) > 1 {
                    continue;
                }
                let (stones, libs) = self.block(p);
                seen = seen.or(&stones);
                if libs.count() == 1 && self.try_move(libs.first().unwrap_or(0), other, false) {
                    extended = true;
                    seen = Bits::zero();
                }
            }
        }
    }

    /// Step 3: the seki guard.
    fn seki_guard(&mut self, seki_pair: Bits<W>, color: Color) {
        let other = color.other();
        let d = deltas(self.stride);
        for p in self.board.points() {
            if !seki_pair.has(p) || self.cell(p) == EMPTY || self.block(p).0.first() != Some(p) {
                continue;
            }
            for r in 0..4 {
                let up = d[r];
                let mut right = d[(r + 1) % 4];
                if self.cell(step(p, up)) != color.cell()
                    || self.cell(step(p, 2 * up)) != EMPTY
                    || self.cell(step(p, -up)) != EMPTY
                {
                    continue;
                }
                for k in 0..2 {
                    if k == 1 {
                        right = -right;
                    }
                    if self.cell(step(p, right)) != EMPTY || self.cell(step(p, up - right)) != EMPTY
                    {
                        continue;
                    }
                    let depth = self.undo.len();
                    let a = step(p, -right);
                    let b = step(p, up + right);
                    if self.cell(a) == EMPTY {
                        self.try_move(a, other, false);
                    }
                    if self.cell(b) == EMPTY {
                        self.try_move(b, other, false);
                    }
                    let joined = self.cell(a) == other.cell()
                        && self.cell(b) == other.cell()
                        && self.block(a).0.has(b);
                    self.pop_to(depth);
                    if joined {
                        // C plays: its blocks may merge, so the cache ends here.
                        self.c_cached = false;
                        self.try_move(step(p, -up), color, false);
                        break;
                    }
                }
                if self.cell(p) != EMPTY && self.block(p).0.count() > 2 {
                    break;
                }
            }
        }
    }

    /// Step 4: takes the set-aside pairs' liberties, then settles O blocks with two adjacent
    /// liberties.
    fn settle(&mut self, seki_pair: Bits<W>, color: Color) {
        let other = color.other();
        for p in seki_pair.iter() {
            if self.cell(p) == EMPTY {
                continue;
            }
            for l in self.block(p).1.iter() {
                self.try_move(l, other, false);
            }
        }
        let them = other.index();
        let stride = self.stride;
        let mut seen: Bits<W> = Bits::zero();
        for p in self.board.points() {
            if !self.now.stones[them].has(p) || seen.has(p) || self.empty_neighbors(p) > 2 {
                continue;
            }
            let (stones, libs) = self.block(p);
            seen = seen.or(&stones);
            if libs.count() != 2 {
                continue;
            }
            let mut it = libs.iter();
            let (a, b) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
            if b - a != 1 && b - a != stride {
                continue;
            }
            let a_open = self.approx_libs(a, color);
            let b_open = self.approx_libs(b, color);
            let a_libs = self.approx_libs(a, other);
            let b_libs = self.approx_libs(b, other);
            let chosen = if a_open > b_open || (a_open == b_open && a_libs >= b_libs) {
                a
            } else {
                b
            };
            if self.try_move(chosen, other, false) {
                seen = Bits::zero();
            }
        }
    }

    /// Step 5: reads off the result. A block holding a set-aside pair (extended by the seki
    /// guard) keeps the pair's stone as GNU Go's origin, so its liberties are not counted.
    fn read_off(&self, seki_pair: Bits<W>, color: Color) -> Vec<u8> {
        let mut result = vec![0u8; self.board.len()];
        let mut rest = self.now.stones[color.index()];
        while let Some(p) = rest.first() {
            let (stones, libs) = self.block(p);
            rest = rest.and_not(&stones);
            for q in stones.and_not(&seki_pair).iter() {
                result[q] = 1;
            }
            if !stones.intersects(&seki_pair) {
                for l in libs.iter() {
                    result[l] = 2;
                }
            }
        }
        let mut rest = self.now.stones[color.other().index()];
        while let Some(p) = rest.first() {
            let (stones, libs) = self.block(p);
            rest = rest.and_not(&stones);
            if libs.count() == 1 {
                for q in stones.iter() {
                    result[q] = 2;
                }
                for l in libs.iter() {
                    result[l] = 2;
                }
            }
        }
        result
    }
}
