//! Fixed handicap placement as the GTP v2 specification (section 4.1.1) lays it out, which is
//! also what GNU Go 3.8 answers: none below 7x7, at most 4 stones on 7x7 and even sizes, at
//! most 9 on odd sizes from 9x9 up. The stones sit on the third line below 12x12, on the fourth
//! line from 12x12 up (GNU Go's choice for the sizes the specification leaves open).

use super::board::Board;

/// The most stones `fixed_handicap` places on a board of `size`.
pub fn max_fixed(size: usize) -> usize {
    match size {
        0..=6 => 0,
        7 => 4,
        s if s % 2 == 0 => 4,
        _ => 9,
    }
}

/// The points of `count` fixed handicap stones, in scanning order (top row first), or `None`
/// when the count is not 2..=[`max_fixed`].
pub fn fixed_points(board: &Board, count: usize) -> Option<Vec<usize>> {
    let size = board.size();
    if count < 2 || count > max_fixed(size) {
        return None;
    }
    let edge = if size < 12 { 2 } else { 3 };
    let (low, mid, high) = (edge, size / 2, size - 1 - edge);
    // (row from the top, column): the corners in the spec's order, then the sides, then tengen.
    let lower_left = (high, low);
    let upper_right = (low, high);
    let upper_left = (low, low);
    let lower_right = (high, high);
    let mut spots = vec![lower_left, upper_right];
    if count >= 3 {
        spots.push(upper_left);
    }
    if count >= 4 {
        spots.push(lower_right);
    }
    if count >= 6 {
        spots.push((mid, low));
        spots.push((mid, high));
    }
    if count >= 8 {
        spots.push((low, mid));
        spots.push((high, mid));
    }
    if count % 2 == 1 && count >= 5 {
        spots.push((mid, mid));
    }
    let mut points: Vec<usize> = spots.into_iter().map(|(r, c)| board.point(r, c)).collect();
    points.sort_unstable();
    Some(points)
}
