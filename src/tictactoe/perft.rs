//! Perft for tic-tac-toe: the leaves `depth` plies below, a finished game counting as none.

use super::Board;
use crate::games::rules::Rules;
use crate::stop::Flag;

/// The game has nine plies at most.
pub const MAX_DEPTH: u32 = 9;

/// Leaves `depth` plies below `board`; `None` soon after `stop` is raised.
pub fn perft(board: &Board, depth: u32, stop: &Flag) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    if stop.is_raised() {
        return None;
    }
    let mut total = 0;
    for mv in board.legal_moves() {
        let mut next = *board;
        next.play(mv).ok()?;
        total += perft(&next, depth - 1, stop)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle: every sequence of distinct squares, cut where a line of three ends the game.
    fn sequences(cells: &mut [u8; 9], x: bool, depth: u32) -> u64 {
        let lines = [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
            [0, 3, 6],
            [1, 4, 7],
            [2, 5, 8],
            [0, 4, 8],
            [2, 4, 6],
        ];
        let won = lines
            .iter()
            .any(|l| cells[l[0]] != 0 && l.iter().all(|&i| cells[i] == cells[l[0]]));
        if depth == 0 {
            return 1;
        }
        if won {
            return 0;
        }
        let mut n = 0;
        for i in 0..9 {
            if cells[i] == 0 {
                cells[i] = if x { 1 } else { 2 };
                n += sequences(cells, !x, depth - 1);
                cells[i] = 0;
            }
        }
        n
    }

    #[test]
    fn perft_matches_the_oracle_and_the_known_game_count() {
        let stop = Flag::default();
        for depth in 0..=MAX_DEPTH {
            let oracle = sequences(&mut [0; 9], true, depth);
            assert_eq!(
                perft(&Board::start(), depth, &stop),
                Some(oracle),
                "{depth}"
            );
        }
        // Of the 255,168 games, 127,872 last all nine plies (81,792 won by x, 46,080 drawn).
        assert_eq!(perft(&Board::start(), 9, &stop), Some(127_872));
    }
}
