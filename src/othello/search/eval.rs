//! Othello evaluation, in centi-discs from the side to move's point of view (+100 = worth about
//! one disc of final margin). Separate from the rules so rule tests never pull it in.
//!
//! Terms: corners and the squares next to empty corners (X and C squares), mobility and potential
//! mobility (frontier), edge discs anchored to corners (stable), and parity late in the game.

use super::solve::stable_edges;
use crate::othello::board::{moves, neighbours};

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Per corner: the corner, its X square (diagonal) and its two C squares (edge neighbours).
const CORNER_ZONES: [(u64, u64, u64); 4] = [
    (1 << 0, 1 << 9, (1 << 1) | (1 << 8)),
    (1 << 7, 1 << 14, (1 << 6) | (1 << 15)),
    (1 << 56, 1 << 49, (1 << 57) | (1 << 48)),
    (1 << 63, 1 << 54, (1 << 62) | (1 << 55)),
];

/// The full evaluation used by levels 2 and 3.
pub fn evaluate(p: u64, o: u64) -> i32 {
    let empties = !(p | o);
    let n_empty = empties.count_ones() as i32;
    let mp = moves(p, o).count_ones() as i32;
    let mo = moves(o, p).count_ones() as i32;
    if mp == 0 && mo == 0 {
        return super::solve::final_score(p, o) * 100;
    }
    let mut score = 0;
    // Corners and the squares that give them away.
    score += 800 * ((p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32);
    for (corner, x, c) in CORNER_ZONES {
        if (p | o) & corner == 0 {
            score -= 250 * ((p & x).count_ones() as i32 - (o & x).count_ones() as i32);
            score -= 80 * ((p & c).count_ones() as i32 - (o & c).count_ones() as i32);
        }
    }
    // Mobility matters most in the midgame; (a-b)/(a+b+2) keeps it bounded.
    score += 1000 * (mp - mo) / (mp + mo + 2);
    // Potential mobility: discs next to empties give the opponent moves.
    let frontier = neighbours(empties);
    let fp = (p & frontier).count_ones() as i32;
    let fo = (o & frontier).count_ones() as i32;
    score -= 600 * (fp - fo) / (fp + fo + 2);
    // Stable discs along the edges.
    score +=
        120 * (stable_edges(p, o).count_ones() as i32 - stable_edges(o, p).count_ones() as i32);
    // Late in the game the last move (parity) and the discs themselves count.
    if n_empty < 20 {
        score += if n_empty % 2 == 1 { 60 } else { -60 };
        score += (20 - n_empty) * 5 * (p.count_ones() as i32 - o.count_ones() as i32);
    }
    score
}

/// The beginner's evaluation: a static square table and nothing else.
pub fn evaluate_simple(p: u64, o: u64) -> i32 {
    const W: [i32; 64] = [
        100, -20, 10, 5, 5, 10, -20, 100, //
        -20, -50, -2, -2, -2, -2, -50, -20, //
        10, -2, -1, -1, -1, -1, -2, 10, //
        5, -2, -1, -1, -1, -1, -2, 5, //
        5, -2, -1, -1, -1, -1, -2, 5, //
        10, -2, -1, -1, -1, -1, -2, 10, //
        -20, -50, -2, -2, -2, -2, -50, -20, //
        100, -20, 10, 5, 5, 10, -20, 100, //
    ];
    let mut s = 0;
    for (sq, w) in W.iter().enumerate() {
        if p >> sq & 1 != 0 {
            s += w;
        } else if o >> sq & 1 != 0 {
            s -= w;
        }
    }
    s * 10
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::Board;

    #[test]
    fn start_is_balanced_and_corners_are_good() {
        let b = Board::START;
        assert_eq!(
            evaluate(b.player, b.opponent),
            evaluate(b.opponent, b.player)
        );
        let with_corner = b.player | 1;
        assert!(evaluate(with_corner, b.opponent) > evaluate(b.player, b.opponent));
        assert!(evaluate_simple(with_corner, b.opponent) > evaluate_simple(b.player, b.opponent));
    }
}
