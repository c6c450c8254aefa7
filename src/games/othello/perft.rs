//! Perft with Edax's convention: a forced pass is a ply of its own (so a pass at the last ply is
//! a leaf), and a game that ends before the depth contributes nothing. These give 4, 12, 56, 244,
//! ..., 18429618408 from the start (counting a pass at the last ply as 0 instead gives 576 fewer
//! leaves at depth 11).
//!
//! Speed: the last ply is bulk-counted (a popcount of the move mask), and the whole recursion is
//! compiled a second time with POPCNT/BMI/AVX2 enabled, chosen at run time when the CPU has them
//! (the crate is built for generic x86-64, whose popcount is a slow bit-trick).

use super::board::{flips, moves, squares, Board};

/// The recursion, written once and compiled twice: with the CPU's POPCNT/BMI/AVX2 (every
/// function it calls is inlined into it, so they get the features too) and without.
macro_rules! count_fn {
    ($name:ident $(, $features:literal)?) => {
        $(#[target_feature(enable = $features)])?
        unsafe fn $name(p: u64, o: u64, depth: u32) -> u64 {
            let m = moves(p, o);
            if m == 0 {
                if depth == 1 {
                    return (moves(o, p) != 0) as u64;
                }
                if moves(o, p) != 0 {
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

count_fn!(count_generic);
#[cfg(target_arch = "x86_64")]
count_fn!(count_native, "popcnt,bmi1,bmi2,lzcnt,avx2");

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

/// The divide: per root move, the leaves below it at `depth` (>= 1) plies. A root that must
/// pass has the single entry `None` (the pass).
pub fn divide(board: &Board, depth: u32) -> Vec<(Option<u32>, u64)> {
    let m = board.moves();
    if m == 0 {
        let passed = board.pass();
        if passed.moves() == 0 {
            return Vec::new();
        }
        if depth == 1 {
            return vec![(None, 1)];
        }
        return vec![(None, leaves(&passed, depth - 1))];
    }
    squares(m)
        .map(|sq| {
            let next = board.play_with(sq, flips(board.player, board.opponent, sq));
            (Some(sq), leaves(&next, depth - 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_table_to_depth_8() {
        let table = [1u64, 4, 12, 56, 244, 1396, 8200, 55092, 390216];
        for (d, &n) in table.iter().enumerate() {
            assert_eq!(leaves(&Board::START, d as u32), n, "depth {d}");
            assert_eq!(leaves_generic(&Board::START, d as u32), n, "depth {d}");
        }
    }
}
