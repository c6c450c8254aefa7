//! `count`: move sequences (paths) and distinct positions per depth, with the seed's conventions:
//! a depth is a placement (a pass does not use one), a position is the board plus the side to
//! move (after any automatic pass; when the game is over, the side that just moved), and a game
//! that ended earlier adds nothing to deeper depths.
//!
//! Breadth first: a layer holds each distinct position once with the number of paths reaching it,
//! so the paths of the next depth are a sum over the layer and never need a tree walk. A position
//! is a 128-bit key (black discs; white discs with the always-occupied d4 bit replaced by the side
//! to move). The next layer is built in partitions by a hash of the child's occupied squares
//! (bounded memory; a pass over the parent layer each, cheap because a child outside the
//! partition is skipped before its flips are computed), and each partition in cache-sized
//! buckets deduplicated by open addressing.
//! The last layer is only counted, never stored.

use super::board::{flips, has_moves, mix, moves, squares};
use super::position::Position;
use crate::games::error_text;
use crate::stop::Halt;

const D4: u64 = 1 << 27;

/// One table row: after `depth` placements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountRow {
    pub depth: u32,
    pub paths: u128,
    pub positions: u64,
}

/// A stored position: its key and the number of paths reaching it.
#[derive(Clone, Copy, Default)]
struct Node {
    black: u64,
    white_side: u64,
    paths: u64,
}

fn encode(black: u64, white: u64, black_to_move: bool) -> (u64, u64) {
    (black, (white & !D4) | ((black_to_move as u64) << 27))
}

fn decode(black: u64, white_side: u64) -> (u64, u64, bool) {
    let white = (white_side & !D4) | (!black & D4);
    (black, white, white_side & D4 != 0)
}

#[inline]
fn key_hash(a: u64, b: u64) -> u64 {
    let h = (a ^ b.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ b.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^ (h >> 32)
}

/// Maps a 64-bit hash onto 0..n without a division (the high half of the product).
#[inline]
fn range(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// Children of one node, keyed, with the side to move settled (auto pass; game over keeps the
/// side that just moved, as the seed's program does).
#[inline]
/// Only children whose set of occupied squares passes `wanted` are built: the occupied squares
/// are known before any disc is turned, and equal children have equal ones, so a partition by
/// occupancy skips most of the work for the children of other partitions.
fn for_each_child(node: &Node, wanted: impl Fn(u64) -> bool, mut f: impl FnMut(u64, u64)) {
    let (black, white, black_to_move) = decode(node.black, node.white_side);
    let (p, o) = if black_to_move {
        (black, white)
    } else {
        (white, black)
    };
    let occupied = p | o;
    for sq in squares(moves(p, o)) {
        if !wanted(occupied | 1 << sq) {
            continue;
        }
        let t = flips(p, o, sq);
        let np = p | t | 1 << sq;
        let no = o ^ t;
        // The opponent moves next unless it cannot; then the mover (even if it cannot either).
        let opponent_next = has_moves(no, np);
        let next_black = black_to_move != opponent_next;
        let (b, w) = if black_to_move { (np, no) } else { (no, np) };
        let (k1, k2) = encode(b, w, next_black);
        f(k1, k2);
    }
}

fn placements(node: &Node) -> u32 {
    let (black, white, black_to_move) = decode(node.black, node.white_side);
    if black_to_move {
        moves(black, white).count_ones()
    } else {
        moves(white, black).count_ones()
    }
}

/// What a partition holds per child: a full [`Node`] while the layer is kept for the next
/// depth, only the 16-byte key for the last depth (which is counted, never stored).
trait Item: Copy + Default {
    fn new(black: u64, white_side: u64, paths: u64) -> Self;
    fn key(&self) -> (u64, u64);
    fn merge(&mut self, other: &Self);
    fn node(&self) -> Node;
}

impl Item for Node {
    #[inline(always)]
    fn new(black: u64, white_side: u64, paths: u64) -> Self {
        Node {
            black,
            white_side,
            paths,
        }
    }
    #[inline(always)]
    fn key(&self) -> (u64, u64) {
        (self.black, self.white_side)
    }
    #[inline(always)]
    fn merge(&mut self, other: &Self) {
        self.paths += other.paths;
    }
    fn node(&self) -> Node {
        *self
    }
}

#[derive(Clone, Copy, Default)]
struct Key(u64, u64);

impl Item for Key {
    #[inline(always)]
    fn new(black: u64, white_side: u64, _paths: u64) -> Self {
        Key(black, white_side)
    }
    #[inline(always)]
    fn key(&self) -> (u64, u64) {
        (self.0, self.1)
    }
    #[inline(always)]
    fn merge(&mut self, _other: &Self) {}
    fn node(&self) -> Node {
        Node {
            black: self.0,
            white_side: self.1,
            paths: 0,
        }
    }
}

/// Open-addressing dedup of one bucket; (0, 0) never occurs as a key (the centre is occupied).
fn dedup_bucket<T: Item>(bucket: &[T], table: &mut Vec<T>, keep: bool, out: &mut Vec<Node>) -> u64 {
    let size = (bucket.len() * 2).next_power_of_two().max(16);
    table.clear();
    table.resize(size, T::default());
    let mask = size - 1;
    let mut distinct = 0u64;
    for n in bucket {
        let (a, b) = n.key();
        let mut i = (key_hash(a, b) >> 17) as usize & mask;
        loop {
            let slot = &mut table[i];
            let k = slot.key();
            if k == (0, 0) {
                *slot = *n;
                distinct += 1;
                break;
            }
            if k == (a, b) {
                slot.merge(n);
                break;
            }
            i = (i + 1) & mask;
        }
    }
    if keep {
        out.extend(table.iter().filter(|s| s.key() != (0, 0)).map(T::node));
    }
    distinct
}

/// Children of `layer` whose occupancy hash falls in partition `part` of `parts`, deduplicated.
/// Returns the number of distinct children (appended to `next` when `keep`), or why `progress`
/// stopped it.
#[allow(clippy::too_many_arguments)]
fn build_partition<T: Item>(
    layer: &[Node],
    part: u64,
    parts: u64,
    per_part: u64,
    buckets: usize,
    keep: bool,
    next: &mut Vec<Node>,
    scratch: &mut Scratch<T>,
    progress: &mut dyn FnMut(u64) -> Result<(), Halt>,
) -> Result<u64, Halt> {
    // The children of a partition spread evenly over the buckets; a little slack avoids regrowth.
    let expected = (per_part + per_part / 8) as usize / buckets + 16;
    // Buffers are reused from partition to partition (no fresh pages to fault in each time).
    let Scratch { bucketed, table } = scratch;
    bucketed.resize_with(buckets, Vec::new);
    bucketed.truncate(buckets);
    for b in bucketed.iter_mut() {
        b.clear();
        b.reserve(expected);
    }
    for (i, node) in layer.iter().enumerate() {
        if i % 65536 == 0 {
            progress(i as u64)?;
        }
        let wanted = |occupied: u64| parts == 1 || range(mix(occupied, 0), parts) == part;
        for_each_child(node, wanted, |k1, k2| {
            let h = key_hash(k1, k2);
            let b = range(h.wrapping_mul(0xA076_1D64_78BD_642F), buckets as u64) as usize;
            bucketed[b].push(T::new(k1, k2, node.paths));
        });
    }
    let mut distinct = 0;
    for bucket in bucketed.iter() {
        distinct += dedup_bucket(bucket, table, keep, next);
    }
    Ok(distinct)
}

/// Buffers of one depth's partitions.
struct Scratch<T> {
    bucketed: Vec<Vec<T>>,
    table: Vec<T>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            bucketed: Vec::new(),
            table: Vec::new(),
        }
    }
}

/// Bytes of children held at once, at most (bounds a partition; more partitions mean more
/// passes over the parent layer).
const PARTITION_BYTES: u64 = 1 << 29;
/// Children per dedup bucket, about (keeps the hash table in cache).
const BUCKET_CHILDREN: u64 = 1 << 14;

/// Bytes one depth holds at its peak, at most: the parent layer, the kept children (when
/// `keep`), and one partition's buckets and dedup table with their slack.
pub fn depth_need_bytes(parents: u64, children: u64, keep: bool) -> u64 {
    let node = std::mem::size_of::<Node>() as u64;
    let item = if keep {
        node
    } else {
        std::mem::size_of::<Key>() as u64
    };
    let partition = children.saturating_mul(item).min(PARTITION_BYTES);
    parents
        .saturating_mul(node)
        .saturating_add(if keep {
            children.saturating_mul(node)
        } else {
            0
        })
        .saturating_add(partition / 2 * 5)
}

/// One depth: the distinct children of `layer` (kept in `next` when `keep`), and the bytes held.
fn next_layer<T: Item>(
    layer: &[Node],
    children: u64,
    keep: bool,
    next: &mut Vec<Node>,
    progress: &mut dyn FnMut(u64, u64) -> Result<(), Halt>,
) -> Result<(u64, u64), Halt> {
    let item_bytes = std::mem::size_of::<T>() as u64;
    let parts = (children * item_bytes).div_ceil(PARTITION_BYTES).max(1);
    let per_part = children / parts + 1;
    let buckets = per_part.div_ceil(BUCKET_CHILDREN).max(1) as usize;
    let mut scratch = Scratch::<T>::default();
    let total = layer.len() as u64 * parts;
    let mut positions = 0;
    let mut peak = 0;
    for part in 0..parts {
        let done = part * layer.len() as u64;
        positions += build_partition(
            layer,
            part,
            parts,
            per_part,
            buckets,
            keep,
            next,
            &mut scratch,
            &mut |i| progress(done + i, total),
        )?;
        let held: u64 = scratch
            .bucketed
            .iter()
            .map(|b| b.capacity() as u64 * item_bytes)
            .sum::<u64>()
            + scratch.table.capacity() as u64 * item_bytes;
        peak = peak.max(held);
    }
    progress(total, total)?;
    Ok((positions, peak))
}

/// Why a count stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    /// The next depth needs about `mib` MiB, which cannot be allocated.
    #[error("count depth {depth} needs about {mib} MiB, which cannot be allocated")]
    Memory { depth: u32, mib: u64 },
    /// The caller's `progress` stopped it during `depth` (a served session's budget).
    #[error("count depth {depth} {why}")]
    Stopped { depth: u32, why: Halt },
}

error_text!(derived: CountError);

/// Counts depths 1..=`max_depth` from `start` (already past any forced pass), calling `row` as
/// each depth finishes and `progress(depth, done, total)` while a depth is being built (parent
/// positions visited, times partitions). Returns the peak number of bytes held in layers and
/// buffers (the memory the count needs). Before each depth the memory it will need is checked
/// ([`depth_need_bytes`]); when it is not there the count ends with an error (the rows of the
/// depths done are already out). `progress` ends the count by returning why.
pub fn count(
    start: &Position,
    max_depth: u32,
    row: &mut dyn FnMut(CountRow),
    progress: &mut dyn FnMut(u32, u64, u64) -> Result<(), Halt>,
) -> Result<u64, CountError> {
    let (k1, k2) = encode(start.black(), start.white(), start.black_to_move);
    let mut layer = vec![Node {
        black: k1,
        white_side: k2,
        paths: 1,
    }];
    let node_bytes = std::mem::size_of::<Node>() as u64;
    let mut peak = 0u64;
    for depth in 1..=max_depth {
        // The paths of this depth, and how many children to expect.
        let mut paths = 0u128;
        let mut children = 0u64;
        for node in &layer {
            let n = placements(node) as u64;
            children += n;
            paths += node.paths as u128 * n as u128;
        }
        let keep = depth < max_depth;
        let need = depth_need_bytes(layer.len() as u64, children, keep);
        if !crate::memory::can_allocate(need) {
            return Err(CountError::Memory {
                depth,
                mib: need >> 20,
            });
        }
        let mut next = Vec::new();
        let mut report = |done, total| progress(depth, done, total);
        let (positions, scratch_bytes) = if keep {
            next_layer::<Node>(&layer, children, true, &mut next, &mut report)
        } else {
            next_layer::<Key>(&layer, children, false, &mut next, &mut report)
        }
        .map_err(|why| CountError::Stopped { depth, why })?;
        let held = (layer.capacity() as u64 + next.capacity() as u64) * node_bytes + scratch_bytes;
        peak = peak.max(held);
        row(CountRow {
            depth,
            paths,
            positions,
        });
        layer = next;
    }
    Ok(peak)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The seed's program, literally: recursive paths, and layers of (board, side) in a set.
    fn seed_counts(max: u32) -> Vec<(u64, u64)> {
        fn paths(p: u64, o: u64, d: u32) -> u64 {
            if d == 0 {
                return 1;
            }
            let (mut p, mut o) = (p, o);
            let mut m = moves(p, o);
            if m == 0 {
                std::mem::swap(&mut p, &mut o);
                m = moves(p, o);
            }
            squares(m)
                .map(|sq| {
                    let t = flips(p, o, sq);
                    paths(o ^ t, p | t | 1 << sq, d - 1)
                })
                .sum()
        }
        let start = Position::START;
        let mut layer: HashSet<(u64, u64, bool)> = HashSet::new();
        layer.insert((start.black(), start.white(), true));
        let mut out = Vec::new();
        for d in 1..=max {
            let mut next = HashSet::new();
            for &(b, w, black) in &layer {
                let (p, o) = if black { (b, w) } else { (w, b) };
                for sq in squares(moves(p, o)) {
                    let t = flips(p, o, sq);
                    let (np, no) = (p | t | 1 << sq, o ^ t);
                    let q = if moves(no, np) != 0 { !black } else { black };
                    let (nb, nw) = if black { (np, no) } else { (no, np) };
                    next.insert((nb, nw, q));
                }
            }
            layer = next;
            out.push((
                paths(start.board.player, start.board.opponent, d),
                layer.len() as u64,
            ));
        }
        out
    }

    #[test]
    fn agrees_with_the_seed_program() {
        let expect = seed_counts(7);
        let mut rows = Vec::new();
        count(
            &Position::START,
            7,
            &mut |r| rows.push(r),
            &mut |_, _, _| Ok(()),
        )
        .expect("memory for depth 7");
        let got: Vec<(u64, u64)> = rows.iter().map(|r| (r.paths as u64, r.positions)).collect();
        assert_eq!(got, expect);
        assert_eq!(&got[..3], &[(4, 4), (12, 12), (56, 54)]);
    }

    #[test]
    fn keys_round_trip() {
        let p = Position::START;
        for side in [true, false] {
            let (a, b) = encode(p.black(), p.white(), side);
            assert_eq!(decode(a, b), (p.black(), p.white(), side));
        }
        // d4 black.
        let black = p.black() | D4;
        let white = p.white() & !D4;
        let (a, b) = encode(black, white, false);
        assert_eq!(decode(a, b), (black, white, false));
    }
}
