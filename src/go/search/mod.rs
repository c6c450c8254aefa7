//! Go players: the Monte Carlo tree search behind `genmove` and `go`, its playout board and
//! policy, and the simple move chooser kept for free handicap placement.

use crate::go::board::{Board, EMPTY};

pub mod bench;
pub mod fast;
pub mod features;
#[cfg(test)]
mod features_reference;
// Generated (`ryoshi tune go`): fitted numbers that may happen to look like π/6.
#[allow(clippy::approx_constant)]
#[rustfmt::skip]
pub mod gammas;
pub mod mcts;
pub mod patterns;
pub mod player;
pub mod playout;
pub mod policy;
pub mod tree;
pub mod usi;

/// How much of the main time a move deserves by the game's phase, `fill` being the share of
/// the board's points no longer empty (1 = a middle-game move). The opening gets less (the
/// search's opening moves gain least from time, as Pachi's authors found), the middle game
/// most, the endgame least: its moves are many and mostly small.
fn phase_weight(fill: f64) -> f64 {
    match fill {
        f if f < 0.2 => 0.6 + 0.4 * f / 0.2,
        f if f < 0.4 => 1.0,
        f if f < 0.65 => 1.0 - 0.75 * (f - 0.4) / 0.25,
        _ => 0.25,
    }
}

/// The moves a side's main time left is shared over on `board`, as the time manager takes it
/// (`Limits::moves_to_go`): the moves it is expected to have left, each counted by its phase's
/// weight against this move's, so that the middle game gets the most time a move. Games end
/// with about a fifth of the board still empty, and each side plays half of the rest (at
/// least 10 moves: the main time never runs out before the game does).
pub fn moves_to_go(board: &Board) -> u64 {
    moves_to_go_at(board).0
}

/// The part of its byoyomi a move in main time plans on `board`: the opening's phase weight
/// (below 1), then all of it. A move in main time loses no unused byoyomi, so the opening leaves
/// it to the middle game; later moves take it whole, as overtime's moves will (weighting the
/// endgame's down too starved it below the overtime's moves: 877 ms a move against 1514 in a
/// 19×19 game at 300 s + 3 s).
pub fn phase_weight_of(board: &Board) -> f64 {
    moves_to_go_at(board).1
}

/// [`moves_to_go`] and this move's phase weight.
fn moves_to_go_at(board: &Board) -> (u64, f64) {
    let points = (board.size() * board.size()) as f64;
    let empty = board.points().filter(|&p| board.get(p) == EMPTY).count() as f64;
    let left = ((empty - 0.2 * points) / 2.0).max(10.0) as usize;
    // Each of this side's moves and the reply fill two points.
    let fill = |moves: usize| ((points - empty + 2.0 * moves as f64) / points).min(1.0);
    let ahead: f64 = (0..left).map(|j| phase_weight(fill(j))).sum();
    let now = phase_weight(fill(0));
    let byoyomi_part = if fill(0) < 0.4 { now } else { 1.0 };
    ((ahead / now).round().max(1.0) as u64, byoyomi_part)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board of `size` with `stones` black stones in scanning order.
    fn filled(size: usize, stones: usize) -> Board {
        let mut board = Board::new(size).unwrap();
        let points: Vec<usize> = board.points().take(stones).collect();
        for p in points {
            board.set(p, crate::go::board::BLACK);
        }
        board
    }

    #[test]
    fn the_middle_game_gets_the_most_time_a_move() {
        // The share of the main time left that a move gets, at each fill of a 19×19 board,
        // main time spent as planned: the opening's first move gets less than the middle
        // game's, and the endgame's least.
        let share = |stones| 1.0 / moves_to_go(&filled(19, stones)) as f64;
        let (opening, middle, end) = (share(0), share(110), share(270));
        assert!(opening < middle, "{opening} {middle}");
        // Late in the game the share of what is left grows, but what is left is small: at
        // least 10 moves always remain planned.
        assert!(end <= 0.1 && moves_to_go(&filled(19, 361)) == 10);
        // Following the plan through a game of 280 plies (the board filled by two points a
        // move pair), every move's time is positive and the middle fifth spends more a move
        // than the last.
        let mut left = 600.0;
        let mut spent = Vec::new();
        for k in 0..140 {
            let t = left / moves_to_go(&filled(19, 2 * k)) as f64;
            spent.push(t);
            left -= t;
        }
        let fifth = |i: usize| spent[i * 28..(i + 1) * 28].iter().sum::<f64>();
        assert!(left > 0.0 && spent.iter().all(|&t| t > 0.0));
        assert!(fifth(2) > fifth(4) && fifth(1) > fifth(0), "{spent:?}");
    }
}
