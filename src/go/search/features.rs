//! The move features of the tree's priors, after Coulom's "Computing Elo ratings of move
//! patterns in the game of Go" (2007): each candidate move of the side to move is a team of
//! features, at most one level of each group, and its strength is the product of their gammas
//! (a generalised Bradley–Terry model, fitted by `ryoshi tune go`: [`crate::go::tune`]).
//!
//! Groups: the 3x3 neighbourhood (colours relative to the mover, the edge seen, canonical
//! under the eight symmetries), capture of a block in atari (by size), extension of an own block
//! out of atari, atari on an opponent block, self-atari, the distance to the last move and to
//! the one before it, the line from the edge with or without stones near, and pass. A slow
//! reference on the rules' board checks this code (`features_reference.rs`).

use super::fast::{FastBoard, PASS};
use super::gammas;
use crate::go::board::{Color, BLACK, WHITE};
use std::sync::OnceLock;

/// The tactical groups, in the order of [`Features::levels`], and their level counts.
pub const CAPTURE: usize = 0;
pub const EXTENSION: usize = 1;
pub const ATARI: usize = 2;
pub const SELF_ATARI: usize = 3;
pub const DIST_LAST: usize = 4;
pub const DIST_LAST2: usize = 5;
pub const LINE: usize = 6;
pub const PASS_MOVE: usize = 7;
pub const GROUPS: usize = 8;
pub const LEVELS: [usize; GROUPS] = [4, 3, 2, 2, 16, 16, 10, 2];
/// The names of the groups, for the generated file and the fit's report.
pub const GROUP_NAMES: [&str; GROUPS] = [
    "capture",
    "extension",
    "atari",
    "self-atari",
    "distance to the last move",
    "distance to the move before",
    "line and stones near",
    "pass",
];
/// A group with no level for this move.
pub const NONE: u8 = u8::MAX;

/// Where each group's levels start in [`gammas::TACTICAL`].
pub const fn offset(group: usize) -> usize {
    let mut sum = 0;
    let mut g = 0;
    while g < group {
        sum += LEVELS[g];
        g += 1;
    }
    sum
}
pub const TACTICAL_LEN: usize = offset(GROUPS);

/// One candidate's features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// The canonical 3x3 key (see [`canonical`]); `None` for a pass.
    pub pattern: Option<u16>,
    /// A level per group, or [`NONE`].
    pub levels: [u8; GROUPS],
}

/// The key of the 3x3 neighbourhood with the mover's stones as 1 and the opponent's as 2 (the
/// board's key has black 1, white 2).
#[inline]
pub fn relative(key: u16, mover: Color) -> u16 {
    if mover == Color::Black {
        return key;
    }
    // Cells 1 and 2 (bits 01 and 10) swap: flip both bits where exactly one is set.
    let m = (key ^ (key >> 1)) & 0x5555;
    key ^ (m | (m << 1))
}

/// The least of the eight rotations and reflections of a key whose cells go round the centre
/// (N, NE, E, SE, S, SW, W, NW): a quarter turn moves each cell two places on, a reflection
/// reverses the ring about N.
pub fn canonical(key: u16) -> u16 {
    let table = CANONICAL.get_or_init(|| (0..=u16::MAX).map(canonical_slow).collect());
    table[key as usize]
}

static CANONICAL: OnceLock<Vec<u16>> = OnceLock::new();

fn canonical_slow(key: u16) -> u16 {
    let cell = |k: u16, i: usize| (k >> (2 * (i % 8))) & 3;
    let mut best = u16::MAX;
    for turn in 0..4 {
        for mirror in [false, true] {
            let mut out = 0u16;
            for i in 0..8 {
                let from = if mirror { (8 - i) % 8 } else { i };
                out |= cell(key, (from + 8 - 2 * turn) % 8) << (2 * i);
            }
            best = best.min(out);
        }
    }
    best
}

/// Coulom's distance between two points: |dx| + |dy| + max(|dx|, |dy|).
pub fn distance(board: &FastBoard, p: usize, q: usize) -> usize {
    let stride = board.size() + 1;
    let dr = (p / stride).abs_diff(q / stride);
    let dc = (p % stride).abs_diff(q % stride);
    dr + dc + dr.max(dc)
}

/// The distance level: 2 (adjacent) to 16 one each, 17 and more together.
pub fn distance_level(d: usize) -> u8 {
    (d.clamp(2, 17) - 2) as u8
}

/// The line of `p` counted from the edge (0 = first line).
pub fn edge_line(board: &FastBoard, p: usize) -> usize {
    let stride = board.size() + 1;
    let (row, col) = (p / stride - 1, p % stride - 1);
    let size = board.size();
    row.min(col).min(size - 1 - row).min(size - 1 - col)
}

/// Whether a stone lies within Manhattan distance 2 of `p`. (Two columns off the board's side
/// would wrap round to the next row's far end: the column is checked.)
pub fn stones_near(board: &FastBoard, p: usize) -> bool {
    let stride = board.size() as isize + 1;
    let col = p as isize % stride - 1;
    for dr in -2isize..=2 {
        for dc in -2isize..=2 {
            if dr.abs() + dc.abs() > 2 || (dr == 0 && dc == 0) {
                continue;
            }
            if col + dc < 0 || col + dc >= board.size() as isize {
                continue;
            }
            let q = p as isize + dr * stride + dc;
            if q >= 0
                && (q as usize) < board.len()
                && matches!(board.get(q as usize), BLACK | WHITE)
            {
                return true;
            }
        }
    }
    false
}

/// The features of the side to move's legal move `p` (or PASS).
pub fn of_move(board: &mut FastBoard, p: u16) -> Features {
    let levels = levels_of(board, p);
    let pattern =
        (p != PASS).then(|| canonical(relative(board.pattern_key(p as usize), board.to_move)));
    Features { pattern, levels }
}

/// The tactical groups' levels of the side to move's legal move `p` (or PASS).
fn levels_of(board: &mut FastBoard, p: u16) -> [u8; GROUPS] {
    let mut levels = [NONE; GROUPS];
    if p == PASS {
        levels[PASS_MOVE] = u8::from(board.passes > 0);
        return levels;
    }
    let p = p as usize;
    let color = board.to_move;
    let me = color.cell();
    let them = color.other().cell();
    let mut captured = 0;
    let mut saves = false;
    let mut atari = false;
    for n in board.neighbors(p) {
        let c = board.get(n);
        if c == them {
            if board.in_atari(n) {
                captured = captured.max(board.block_size(n));
            } else if board.two_liberties(n).is_some() {
                atari = true;
            }
        } else if c == me && board.in_atari(n) {
            saves = true;
        }
    }
    if captured > 0 {
        levels[CAPTURE] = match captured {
            1 => 0,
            2 => 1,
            3..=5 => 2,
            _ => 3,
        };
    }
    if atari {
        levels[ATARI] = u8::from(board.ko != 0);
    }
    if captured == 0 {
        let (libs, stones) = board.after_move(p, color, 3);
        if libs < 2 {
            levels[SELF_ATARI] = u8::from(stones > 1);
        } else if saves {
            levels[EXTENSION] = u8::from(libs > 2);
        }
    } else if saves {
        levels[EXTENSION] = 2;
    }
    if board.last != PASS {
        levels[DIST_LAST] = distance_level(distance(board, p, board.last as usize));
    }
    if board.last2 != PASS {
        levels[DIST_LAST2] = distance_level(distance(board, p, board.last2 as usize));
    }
    let line = edge_line(board, p).min(4);
    levels[LINE] = (2 * line + usize::from(stones_near(board, p))) as u8;
    levels
}

/// The gamma of each canonical 3x3 key (1 for keys the fit never saw), by the board's key
/// made relative: two tables, black to move and white.
fn pattern_gammas() -> &'static [Vec<f32>; 2] {
    static TABLE: OnceLock<[Vec<f32>; 2]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut by_canonical = vec![1.0f32; 1 << 16];
        for &(key, gamma) in gammas::PATTERNS {
            by_canonical[key as usize] = gamma;
        }
        [Color::Black, Color::White].map(|mover| {
            (0..=u16::MAX)
                .map(|key| by_canonical[canonical(relative(key, mover)) as usize])
                .collect()
        })
    })
}

/// The strength of the side to move's legal move `p` (or PASS) under the generated gammas: the
/// product of its features' gammas.
pub fn gamma_of_move(board: &mut FastBoard, p: u16) -> f32 {
    // The pattern's gamma by the board's own key: no `relative` or `canonical` lookups here.
    let mut g = if p == PASS {
        1.0
    } else {
        pattern_gammas()[board.to_move.index()][board.pattern_key(p as usize) as usize]
    };
    for (group, &level) in levels_of(board, p).iter().enumerate() {
        if level != NONE {
            g *= gammas::TACTICAL[offset(group) + level as usize];
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_keys_are_the_same_for_all_eight_symmetries() {
        // A key with four distinct cells' worth of asymmetry: N own, E opp, SE edge, W own.
        let key: u16 = 1 | (2 << 4) | (3 << 6) | (1 << 12);
        let c = canonical(key);
        let cell = |k: u16, i: usize| (k >> (2 * (i % 8))) & 3;
        for turn in 0..4 {
            let rotated = (0..8).fold(0u16, |k, i| k | cell(key, i) << (2 * ((i + 2 * turn) % 8)));
            let mirrored = (0..8).fold(0u16, |k, i| k | cell(rotated, i) << (2 * ((8 - i) % 8)));
            assert_eq!(canonical(rotated), c);
            assert_eq!(canonical(mirrored), c);
        }
        // Fewer than 65536 / 8 · 1.1 classes and more than 65536 / 8.
        let mut classes: Vec<u16> = (0..=u16::MAX).map(canonical).collect();
        classes.sort_unstable();
        classes.dedup();
        assert!(
            classes.len() > 8192 && classes.len() < 9000,
            "{}",
            classes.len()
        );
    }

    #[test]
    fn relative_swaps_the_colours_only() {
        let key: u16 = 1 | (2 << 2) | (3 << 4);
        assert_eq!(relative(key, Color::Black), key);
        assert_eq!(relative(key, Color::White), 2 | (1 << 2) | (3 << 4));
    }
}
