//! Benson's unconditional life, as Fuego's `go_safe benson` computes it: the fast version, on
//! bitboards (see [`super::benson_reference`] for the plain version it is tested against, and
//! protocol/go.md for the definitions and the proof).
//!
//! Blocks and regions are found by bitboard flood fills. A region can only be healthy for a block
//! next to its first empty point, so at most four subset tests decide its health; only regions
//! healthy for some block matter afterwards, and for those the adjacent blocks go into a small
//! bitset. The elimination then runs on bitsets until nothing changes.

use super::bits::Bits;
use super::board::{Board, Color, BLACK, EMPTY, WHITE};

const NONE: u16 = u16::MAX;
/// Enough 64-bit words for a bitset over the blocks of one colour on a 25x25 board (at most 313).
const BLOCK_WORDS: usize = 5;
type BlockSet = [u64; BLOCK_WORDS];

/// Reusable work space, so repeated analyses do not allocate.
#[derive(Default)]
pub struct Benson {
    small: Work<7>,
    large: Work<11>,
}

/// The board as bitboards.
#[derive(Default, Clone, Copy)]
struct Masks<const W: usize> {
    black: Bits<W>,
    white: Bits<W>,
    empty: Bits<W>,
}

impl<const W: usize> Masks<W> {
    fn of(board: &Board) -> Self {
        // One branch-free update per cell: bit k of `m[c]` is set when cell k holds c
        // (EMPTY = 0, BLACK = 1, WHITE = 2, BORDER = 3).
        let mut m = [[0u64; W]; 4];
        for (p, &c) in board.cells().iter().enumerate() {
            m[c as usize & 3][p >> 6] |= 1 << (p & 63);
        }
        Masks {
            empty: Bits(m[EMPTY as usize]),
            black: Bits(m[BLACK as usize]),
            white: Bits(m[WHITE as usize]),
        }
    }
}

#[derive(Default)]
struct Work<const W: usize> {
    label: Vec<u16>,
    blocks: Vec<Bits<W>>,
    /// Each block's stones and liberties' worth of neighbourhood ([`Bits::spread`]).
    reach: Vec<Bits<W>>,
    regions: Vec<Bits<W>>,
    /// Regions healthy for some block: the region, its healthy blocks, all its blocks.
    healthy: Vec<(usize, [u16; 4], BlockSet)>,
    kept: Vec<bool>,
    count: Vec<u16>,
}

#[inline]
fn block_has(set: &BlockSet, b: u16) -> bool {
    set[b as usize >> 6] >> (b & 63) & 1 != 0
}

impl<const W: usize> Work<W> {
    fn safe(&mut self, board: &Board, m: &Masks<W>, color: Color) -> Bits<W> {
        let stride = board.stride();
        let (own, other) = match color {
            Color::Black => (m.black, m.white),
            Color::White => (m.white, m.black),
        };
        let non = m.empty.or(&other);
        // A region with an empty point next to no stone of ours is healthy for nobody: all such
        // regions are found by one flood from those points and ignored.
        let lonely = m.empty.and_not(&own.spread(stride));
        let hopeless = Bits::flood(&lonely, &non, stride);
        let area = non.and_not(&hopeless);
        // Only blocks next to the remaining regions can count two healthy regions; the others
        // (`doomed`) fall at once, and so does every region they touch.
        let seeds = area.spread(stride).and(&own);
        let labelled = self.label_blocks(board, &own, seeds);
        if self.blocks.is_empty() {
            return Bits::zero();
        }
        let doomed = own.and_not(&labelled);
        self.healthy_regions(board, m, &own, area, &doomed);
        let alive = self.eliminate();
        let mut safe = Bits::zero();
        for b in 0..self.blocks.len() {
            if block_has(&alive, b as u16) {
                safe = safe.or(&self.blocks[b]);
            }
        }
        for (i, (r, _, _)) in self.healthy.iter().enumerate() {
            if self.kept[i] {
                safe = safe.or(&self.regions[*r]);
            }
        }
        safe
    }

    /// Labels the blocks of `own` through the `seeds`, with their reach. Returns their stones.
    fn label_blocks(&mut self, board: &Board, own: &Bits<W>, seeds: Bits<W>) -> Bits<W> {
        let stride = board.stride();
        self.label.resize(board.len(), NONE);
        self.blocks.clear();
        self.reach.clear();
        let mut labelled = Bits::zero();
        let mut rest = seeds;
        while let Some(p) = rest.first() {
            let (block, reach) = Bits::flood_spread(&Bits::single(p), own, stride);
            rest = rest.and_not(&block);
            labelled = labelled.or(&block);
            self.reach.push(reach);
            let id = self.blocks.len() as u16;
            for q in block.iter() {
                self.label[q] = id;
            }
            self.blocks.push(block);
        }
        labelled
    }

    /// The regions of `area` healthy for some labelled block and touching no `doomed` one,
    /// each with its healthy blocks and all its blocks.
    fn healthy_regions(
        &mut self,
        board: &Board,
        m: &Masks<W>,
        own: &Bits<W>,
        area: Bits<W>,
        doomed: &Bits<W>,
    ) {
        let stride = board.stride();
        self.regions.clear();
        self.healthy.clear();
        let mut rest = area;
        while let Some(p) = rest.first() {
            let (region, region_reach) = Bits::flood_spread(&Bits::single(p), &area, stride);
            rest = rest.and_not(&region);
            let empties = region.and(&m.empty);
            let Some(e0) = empties.first() else {
                continue;
            };
            let mut healthy = [NONE; 4];
            let mut k = 0;
            for q in board.neighbors(e0) {
                if own.has(q) {
                    let b = self.label[q];
                    if !healthy[..k].contains(&b) && empties.is_subset(&self.reach[b as usize]) {
                        healthy[k] = b;
                        k += 1;
                    }
                }
            }
            if k == 0 {
                continue;
            }
            let border = region_reach.and(own);
            if border.intersects(doomed) {
                continue;
            }
            let mut adjacent = [0u64; BLOCK_WORDS];
            for q in border.iter() {
                let b = self.label[q];
                adjacent[b as usize >> 6] |= 1 << (b & 63);
            }
            self.healthy.push((self.regions.len(), healthy, adjacent));
            self.regions.push(region);
        }
    }

    /// Benson's elimination on bitsets until nothing changes: a block with fewer than two
    /// healthy regions falls, and so does every region next to a fallen block. Returns the
    /// blocks left; `kept` says which regions are.
    fn eliminate(&mut self) -> BlockSet {
        let blocks = self.blocks.len();
        assert!(
            blocks <= BLOCK_WORDS * 64,
            "more blocks than the bitset holds"
        );
        let mut alive = [0u64; BLOCK_WORDS];
        for b in 0..blocks {
            alive[b >> 6] |= 1 << (b & 63);
        }
        self.kept.clear();
        self.kept.resize(self.healthy.len(), true);
        self.count.resize(blocks, 0);
        loop {
            let mut changed = false;
            self.count[..blocks].fill(0);
            for (i, (_, healthy, adjacent)) in self.healthy.iter().enumerate() {
                if !self.kept[i] {
                    continue;
                }
                if (0..BLOCK_WORDS).any(|w| adjacent[w] & !alive[w] != 0) {
                    self.kept[i] = false;
                    changed = true;
                    continue;
                }
                for &b in healthy.iter().take_while(|&&b| b != NONE) {
                    self.count[b as usize] += 1;
                }
            }
            for b in 0..blocks as u16 {
                if block_has(&alive, b) && self.count[b as usize] < 2 {
                    alive[b as usize >> 6] &= !(1 << (b & 63));
                    changed = true;
                }
            }
            if !changed {
                return alive;
            }
        }
    }
}

fn to_vec<const W: usize>(bits: &Bits<W>, len: usize, out: &mut Vec<bool>) {
    out.clear();
    out.resize(len, false);
    for p in bits.iter() {
        out[p] = true;
    }
}

impl Benson {
    pub fn new() -> Benson {
        Benson::default()
    }

    /// The points proven safe for `color`: its alive stones, its territory and the opponent
    /// stones inside that territory. `safe` is indexed by point and cleared first.
    pub fn safe_points(&mut self, board: &Board, color: Color, safe: &mut Vec<bool>) {
        if board.len() <= 7 * 64 {
            let bits = self.small.safe(board, &Masks::of(board), color);
            to_vec(&bits, board.len(), safe);
        } else {
            let bits = self.large.safe(board, &Masks::of(board), color);
            to_vec(&bits, board.len(), safe);
        }
    }

    /// Both colours at once (the board is read once); returns the number of safe points
    /// (black's plus white's) and fills the two point-indexed vectors.
    pub fn both(&mut self, board: &Board, black: &mut Vec<bool>, white: &mut Vec<bool>) -> u32 {
        if board.len() <= 7 * 64 {
            let m = Masks::of(board);
            let b = self.small.safe(board, &m, Color::Black);
            let w = self.small.safe(board, &m, Color::White);
            to_vec(&b, board.len(), black);
            to_vec(&w, board.len(), white);
            b.count() + w.count()
        } else {
            let m = Masks::of(board);
            let b = self.large.safe(board, &m, Color::Black);
            let w = self.large.safe(board, &m, Color::White);
            to_vec(&b, board.len(), black);
            to_vec(&w, board.len(), white);
            b.count() + w.count()
        }
    }

    /// Both colours, counts only (what the benchmark times: no per-point output).
    pub fn count_both(&mut self, board: &Board) -> u32 {
        if board.len() <= 7 * 64 {
            let m = Masks::of(board);
            self.small.safe(board, &m, Color::Black).count()
                + self.small.safe(board, &m, Color::White).count()
        } else {
            let m = Masks::of(board);
            self.large.safe(board, &m, Color::Black).count()
                + self.large.safe(board, &m, Color::White).count()
        }
    }
}

/// One-shot convenience wrapper.
pub fn safe_points(board: &Board, color: Color) -> Vec<bool> {
    let mut safe = Vec::new();
    Benson::new().safe_points(board, color, &mut safe);
    safe
}
