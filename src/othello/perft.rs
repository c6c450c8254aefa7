//! Perft with Edax's convention: a forced pass is a ply of its own (so a pass at the last ply is
//! a leaf), and a game that ends before the depth contributes nothing. These give 4, 12, 56, 244,
//! ..., 18429618408 from the start (counting a pass at the last ply as 0 instead gives 576 fewer
//! leaves at depth 11).
//!
//! Speed: the last ply is bulk-counted (a popcount of the move mask), and the whole recursion is
//! compiled a second time with POPCNT/BMI/AVX2 enabled, chosen at run time when the CPU has them
//! (the crate is built for generic x86-64, whose popcount is a slow bit-trick).

// SAFETY: allowed for the perft compiled again with POPCNT/BMI/AVX2, called only where the CPU has them.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use super::board::moves_avx2;
use super::board::{flips, moves, squares, Board};
use crate::stop::Flag;

/// The recursion, written once and compiled twice: with the CPU's POPCNT/BMI/AVX2 (every
/// function it calls is inlined into it, so they get the features too) and without.
macro_rules! count_fn {
    ($name:ident, $moves:path $(, $features:literal)?) => {
        $(#[target_feature(enable = $features)])?
        unsafe fn $name(p: u64, o: u64, depth: u32) -> u64 {
            let m = $moves(p, o);
            if m == 0 {
                if depth == 1 {
                    return ($moves(o, p) != 0) as u64;
                }
                if $moves(o, p) != 0 {
                    return $name(o, p, depth - 1);
                }
                return 0;
            }
            if depth == 1 {
                return m.count_ones() as u64;
            }
            let mut total = 0;
            for sq in squares(m) {
                let turned = flips(p, o, sq);
                total += $name(o ^ turned, p | turned | (1u64 << sq), depth - 1);
            }
            total
        }
    };
}

count_fn!(count_generic, moves);
#[cfg(target_arch = "x86_64")]
count_fn!(count_native, moves_avx2, "popcnt,bmi1,bmi2,lzcnt,avx2");

/// Leaf count below `board` (player to move) at `depth` plies; depth 0 is the board itself.
fn leaves_generic(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // SAFETY: compiled without extra target features; nothing unsafe inside.
    unsafe { count_generic(board.player, board.opponent, depth) }
}

/// As `leaves_generic`, with the native features. Callers check them first.
#[cfg(target_arch = "x86_64")]
unsafe fn leaves_native(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    count_native(board.player, board.opponent, depth)
}

/// Leaf count below `board` (player to move) at `depth` plies, Edax's convention.
pub fn leaves(board: &Board, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_native() {
            // SAFETY: the CPU reports every feature the function was compiled for.
            return unsafe { leaves_native(board, depth) };
        }
    }
    leaves_generic(board, depth)
}

#[cfg(target_arch = "x86_64")]
pub fn has_native() -> bool {
    use once_cell::sync::Lazy;
    static NATIVE: Lazy<bool> = Lazy::new(|| {
        is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("avx2")
    });
    *NATIVE
}

#[cfg(not(target_arch = "x86_64"))]
pub fn has_native() -> bool {
    false
}

/// A transposition table for perft: the leaf count of (board, remaining depth). Subtrees
/// reached by different move orders are counted once; the total is the same as without it.
pub struct PerftTable {
    entries: Vec<Entry>,
    mask: usize,
    /// Raised: the count is abandoned (its result is then meaningless).
    stop: Option<Flag>,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    depth: u64,
    leaves: u64,
}

/// Subtrees shallower than this are counted directly (cheaper than a table look-up).
const HASH_MIN_DEPTH: u32 = 5;

impl PerftTable {
    /// A table of about `megabytes` MiB (a power of two number of 32-byte entries).
    pub fn new(megabytes: u64) -> PerftTable {
        let wanted = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>() as u64;
        let size = 1usize << (63 - wanted.leading_zeros());
        PerftTable {
            entries: vec![Entry::default(); size],
            mask: size - 1,
            stop: None,
        }
    }

    /// As [`PerftTable::new`], or `None` when the memory is not there (no abort).
    pub fn try_new(megabytes: u64) -> Option<PerftTable> {
        let wanted = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>() as u64;
        let size = 1usize << (63 - wanted.leading_zeros());
        Some(PerftTable {
            entries: crate::memory::try_filled(size, Entry::default())?,
            mask: size - 1,
            stop: None,
        })
    }

    /// Counts with this table give up soon after `flag` is raised.
    pub fn set_stop(&mut self, flag: Flag) {
        self.stop = Some(flag);
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(Flag::is_raised)
    }
}

#[inline(always)]
fn slot(p: u64, o: u64, depth: u32, mask: usize) -> usize {
    super::board::mix(p, o ^ depth as u64) as usize & mask
}

/// Rows reversed (a1 <-> a8).
#[inline(always)]
fn flip_vertical(x: u64) -> u64 {
    x.swap_bytes()
}

/// Files reversed (a1 <-> h1).
#[inline(always)]
pub(crate) fn mirror_horizontal(x: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let x = ((x >> 1) & K1) | ((x & K1) << 1);
    let x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

/// Transposed along the a1-h8 diagonal (b1 <-> a2).
#[inline(always)]
pub(crate) fn flip_diagonal(x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0F0F_0F0F_0000_0000;
    let mut x = x;
    let t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = K1 & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    x
}

/// The smallest of the eight symmetric images of (p, o): the rules are the same on each, so
/// they share one table entry.
#[inline(always)]
pub fn canonical(p: u64, o: u64) -> (u64, u64) {
    let mut best = (p, o);
    let mut cur = (p, o);
    for i in 0..7 {
        cur = match i {
            0 | 2 | 4 | 6 => (flip_vertical(cur.0), flip_vertical(cur.1)),
            1 | 5 => (mirror_horizontal(cur.0), mirror_horizontal(cur.1)),
            _ => (flip_diagonal(cur.0), flip_diagonal(cur.1)),
        };
        if cur < best {
            best = cur;
        }
    }
    best
}

macro_rules! hashed_fn {
    ($name:ident, $direct:ident $(, $features:literal)?) => {
        $(#[target_feature(enable = $features)])?
        unsafe fn $name(table: &mut PerftTable, p: u64, o: u64, depth: u32) -> u64 {
            if depth < HASH_MIN_DEPTH {
                return $direct(p, o, depth);
            }
            if table.stopped() {
                return 0;
            }
            let (kp, ko) = canonical(p, o);
            let i = slot(kp, ko, depth, table.mask);
            let e = table.entries[i];
            if e.player == kp && e.opponent == ko && e.depth == depth as u64 {
                return e.leaves;
            }
            let m = moves(p, o);
            let total = if m == 0 {
                if moves(o, p) != 0 {
                    $name(table, o, p, depth - 1)
                } else {
                    0
                }
            } else {
                let mut total = 0;
                for sq in squares(m) {
                    let turned = flips(p, o, sq);
                    total += $name(table, o ^ turned, p | turned | (1u64 << sq), depth - 1);
                }
                total
            };
            table.entries[i] = Entry {
                player: kp,
                opponent: ko,
                depth: depth as u64,
                leaves: total,
            };
            total
        }
    };
}

hashed_fn!(hashed_generic, count_generic);
#[cfg(target_arch = "x86_64")]
hashed_fn!(hashed_native, count_native, "popcnt,bmi1,bmi2,lzcnt,avx2");

/// As [`leaves`], with a transposition table (same result, fewer nodes visited).
pub fn leaves_hashed(table: &mut PerftTable, board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if has_native() {
            // SAFETY: the CPU reports every feature the function was compiled for.
            return unsafe { hashed_native(table, board.player, board.opponent, depth) };
        }
    }
    // SAFETY: compiled without extra target features.
    unsafe { hashed_generic(table, board.player, board.opponent, depth) }
}

/// The divide: per root move, the leaves below it at `depth` (>= 1) plies. A root that must
/// pass has the single entry `None` (the pass). With a table, subtrees are shared.
pub fn divide_hashed(
    board: &Board,
    depth: u32,
    table: &mut Option<PerftTable>,
) -> Vec<(Option<u32>, u64)> {
    let mut count = |b: &Board, d: u32| match table {
        Some(t) => leaves_hashed(t, b, d),
        None => leaves(b, d),
    };
    let m = board.moves();
    if m == 0 {
        let passed = board.pass();
        if passed.moves() == 0 {
            return Vec::new();
        }
        if depth == 1 {
            return vec![(None, 1)];
        }
        return vec![(None, count(&passed, depth - 1))];
    }
    squares(m)
        .map(|sq| {
            let next = board.play_with(sq, flips(board.player, board.opponent, sq));
            (Some(sq), count(&next, depth - 1))
        })
        .collect()
}

/// The divide without a table.
pub fn divide(board: &Board, depth: u32) -> Vec<(Option<u32>, u64)> {
    divide_hashed(board, depth, &mut None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_covers_the_eight_symmetries() {
        // The four first moves are images of one another.
        let kids: Vec<Board> = squares(Board::START.moves())
            .map(|sq| Board::START.play(sq).unwrap())
            .collect();
        let keys: Vec<(u64, u64)> = kids
            .iter()
            .map(|b| canonical(b.player, b.opponent))
            .collect();
        assert!(keys.iter().all(|&k| k == keys[0]));
        // A lopsided position has eight distinct images, all with the same key and perft.
        let mut b = Board::START;
        for sq in [37, 43, 18, 19, 26] {
            b = b.play(sq).unwrap();
        }
        let mut images = std::collections::HashSet::new();
        for v in [false, true] {
            for h in [false, true] {
                for d in [false, true] {
                    let t = |x: u64| {
                        let x = if v { flip_vertical(x) } else { x };
                        let x = if h { mirror_horizontal(x) } else { x };
                        if d {
                            flip_diagonal(x)
                        } else {
                            x
                        }
                    };
                    let image = Board {
                        player: t(b.player),
                        opponent: t(b.opponent),
                    };
                    images.insert(image);
                    assert_eq!(
                        canonical(image.player, image.opponent),
                        canonical(b.player, b.opponent)
                    );
                    assert_eq!(leaves(&image, 4), leaves(&b, 4));
                }
            }
        }
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn the_table_changes_nothing() {
        let mut table = PerftTable::new(1);
        for d in 0..=8 {
            assert_eq!(
                leaves_hashed(&mut table, &Board::START, d),
                leaves(&Board::START, d)
            );
        }
        let after = Board::START.play(37).unwrap().play(43).unwrap();
        assert_eq!(
            divide_hashed(&after, 7, &mut Some(PerftTable::new(1))),
            divide(&after, 7)
        );
    }

    #[test]
    fn start_table_to_depth_8() {
        let table = [1u64, 4, 12, 56, 244, 1396, 8200, 55092, 390216];
        for (d, &n) in table.iter().enumerate() {
            assert_eq!(leaves(&Board::START, d as u32), n, "depth {d}");
            assert_eq!(leaves_generic(&Board::START, d as u32), n, "depth {d}");
        }
    }
}
