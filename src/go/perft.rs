//! Perft for Go: distinct legal move sequences (passes excluded). The last ply is counted from
//! the legal points without playing them.

use super::position::Position;
use crate::stop::Flag;

/// `go perft` refuses deeper requests: the count grows by ~size² per ply.
pub const MAX_DEPTH: u32 = 6;

/// Leaves `depth` plies below; `None` soon after `stop` is raised.
pub fn perft_until(game: &mut Position, depth: u32, stop: &Flag) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    let points = game.legal_points();
    if depth == 1 {
        return Some(points.len() as u64);
    }
    if stop.is_raised() {
        return None;
    }
    let mut total = 0;
    for p in points {
        if game.play(Some(p)).is_ok() {
            let n = perft_until(game, depth - 1, stop);
            game.undo();
            total += n?;
        }
    }
    Some(total)
}

/// Per legal root point, the leaf count below it (depth ≥ 1); `None` soon after `stop` is
/// raised. `game` is left as it was.
pub fn divide_until(game: &mut Position, depth: u32, stop: &Flag) -> Option<Vec<(usize, u64)>> {
    let mut divide = Vec::new();
    for p in game.legal_points() {
        if game.play(Some(p)).is_ok() {
            let n = perft_until(game, depth.saturating_sub(1), stop);
            game.undo();
            divide.push((p, n?));
        }
    }
    Some(divide)
}
