//! Eyes: the points a side must not fill (used by the scorer and by the move chooser).

use super::board::{Board, Color, BORDER, EMPTY};

/// An empty point whose neighbours are all `color` stones (or the edge) and whose diagonals
/// are not too many opponent stones: a point `color` must not fill.
pub fn is_own_eye(board: &Board, p: usize, color: Color) -> bool {
    if board.get(p) != EMPTY {
        return false;
    }
    let me = color.cell();
    let ns = board.neighbors(p);
    if !ns.iter().all(|&n| {
        let c = board.get(n);
        c == me || c == BORDER
    }) {
        return false;
    }
    let s = board.stride();
    let diagonals = [p + s - 1, p + s + 1, p - s - 1, p - s + 1];
    let mut edge = false;
    let mut enemy = 0;
    for d in diagonals {
        match board.get(d) {
            BORDER => edge = true,
            c if c == color.other().cell() => enemy += 1,
            _ => {}
        }
    }
    if edge {
        enemy == 0
    } else {
        enemy <= 1
    }
}
