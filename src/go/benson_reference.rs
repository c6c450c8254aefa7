//! Benson's unconditional life, straightforward version: the reference the fast [`super::benson`]
//! is tested against. Same definitions and results.
//!
//! For a colour C: blocks are C's maximal connected stone sets; regions are maximal connected
//! sets of points that are not C stones (empty points and opponent stones). A region is healthy
//! for an adjacent block when every empty point of the region is a liberty of that block.
//! Starting from all blocks and all regions, repeat until nothing changes: drop every block with
//! fewer than two healthy regions left; drop every region adjacent to a dropped block. The blocks
//! left are unconditionally alive (no sequence of opponent moves, C passing, captures one), and a
//! region left that is healthy for one of its blocks is safe: its empty points are C's territory
//! and the opponent stones in it can never get out alive.

use super::board::{Board, Color, BORDER, EMPTY};

const NONE: u16 = u16::MAX;

/// Reusable work space, so repeated analyses do not allocate.
#[derive(Default)]
pub struct Benson {
    block_of: Vec<u16>,
    region_of: Vec<u16>,
    stack: Vec<usize>,
    region_points: Vec<Vec<usize>>,
    region_empty: Vec<u32>,
    /// Per region: (block, number of the region's empty points that are its liberties).
    region_blocks: Vec<Vec<(u16, u32)>>,
    block_points: Vec<Vec<usize>>,
    block_alive: Vec<bool>,
    region_kept: Vec<bool>,
}

impl Benson {
    pub fn new() -> Benson {
        Benson::default()
    }

    /// The points proven safe for `color`: its alive stones, its territory and the opponent
    /// stones inside that territory. `safe` is indexed by point and cleared first.
    pub fn safe_points(&mut self, board: &Board, color: Color, safe: &mut Vec<bool>) {
        let me = color.cell();
        let n = board.len();
        safe.clear();
        safe.resize(n, false);
        self.block_of.clear();
        self.block_of.resize(n, NONE);
        self.region_of.clear();
        self.region_of.resize(n, NONE);
        let mut blocks = 0usize;
        let mut regions = 0usize;
        for p in board.points() {
            let c = board.get(p);
            if c == me {
                if self.block_of[p] == NONE {
                    let id = blocks as u16;
                    blocks += 1;
                    take(&mut self.block_points, blocks);
                    self.flood(board, p, id, true, me);
                }
            } else if self.region_of[p] == NONE {
                let id = regions as u16;
                regions += 1;
                take(&mut self.region_points, regions);
                self.flood(board, p, id, false, me);
            }
        }
        if blocks == 0 {
            return;
        }
        for r in 0..regions {
            take(&mut self.region_blocks, r + 1);
        }
        self.region_empty.clear();
        self.region_empty.resize(regions, 0);
        for r in 0..regions {
            let list = &mut self.region_blocks[r];
            for &p in &self.region_points[r] {
                let is_empty = board.get(p) == EMPTY;
                if is_empty {
                    self.region_empty[r] += 1;
                }
                let ns = board.neighbors(p);
                for (i, &q) in ns.iter().enumerate() {
                    let b = self.block_of[q];
                    if b == NONE || ns[..i].iter().any(|&e| self.block_of[e] == b) {
                        continue;
                    }
                    match list.iter_mut().find(|(x, _)| *x == b) {
                        Some(entry) => entry.1 += is_empty as u32,
                        None => list.push((b, is_empty as u32)),
                    }
                }
            }
        }
        self.block_alive.clear();
        self.block_alive.resize(blocks, true);
        self.region_kept.clear();
        self.region_kept.resize(regions, true);
        let mut healthy_count = vec![0u32; blocks];
        loop {
            healthy_count.iter_mut().for_each(|c| *c = 0);
            for r in 0..regions {
                if !self.region_kept[r] {
                    continue;
                }
                for &(b, libs) in &self.region_blocks[r] {
                    if libs == self.region_empty[r] {
                        healthy_count[b as usize] += 1;
                    }
                }
            }
            let mut changed = false;
            for (alive, &count) in self.block_alive.iter_mut().zip(&healthy_count) {
                if *alive && count < 2 {
                    *alive = false;
                    changed = true;
                }
            }
            for r in 0..regions {
                if self.region_kept[r]
                    && self.region_blocks[r]
                        .iter()
                        .any(|&(b, _)| !self.block_alive[b as usize])
                {
                    self.region_kept[r] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for b in 0..blocks {
            if self.block_alive[b] {
                for &p in &self.block_points[b] {
                    safe[p] = true;
                }
            }
        }
        for r in 0..regions {
            if self.region_kept[r]
                && self.region_blocks[r]
                    .iter()
                    .any(|&(_, libs)| libs == self.region_empty[r])
            {
                for &p in &self.region_points[r] {
                    safe[p] = true;
                }
            }
        }
    }

    fn flood(&mut self, board: &Board, start: usize, id: u16, stones: bool, me: u8) {
        let (labels, points) = if stones {
            (&mut self.block_of, &mut self.block_points[id as usize])
        } else {
            (&mut self.region_of, &mut self.region_points[id as usize])
        };
        labels[start] = id;
        self.stack.clear();
        self.stack.push(start);
        while let Some(p) = self.stack.pop() {
            points.push(p);
            for q in board.neighbors(p) {
                let c = board.get(q);
                let same = if stones {
                    c == me
                } else {
                    c != BORDER && c != me
                };
                if same && labels[q] == NONE {
                    labels[q] = id;
                    self.stack.push(q);
                }
            }
        }
    }
}

/// Makes `lists` hold `len` cleared vectors (keeping their allocations).
fn take<T>(lists: &mut Vec<Vec<T>>, len: usize) {
    if lists.len() < len {
        lists.resize_with(len, Vec::new);
    }
    lists[len - 1].clear();
}

/// One-shot convenience wrapper.
pub fn safe_points(board: &Board, color: Color) -> Vec<bool> {
    let mut safe = Vec::new();
    Benson::new().safe_points(board, color, &mut safe);
    safe
}
