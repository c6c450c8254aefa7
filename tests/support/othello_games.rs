//! Seeded random Othello games as GGF `Record`s, for the GGF and NBoard tests.
#![allow(dead_code)]

use ryoshi::othello::ggf::{MoveItem, Record};
use ryoshi::othello::{squares, Position};
use ryoshi::rng::SplitMix64;

/// A random legal game from the start: up to `plies` moves (passes written as `PA` items),
/// each with an evaluation and a time some of the time. Stops early when `stop` holds for the
/// position reached, or at the end of the game.
pub fn random_game_until(seed: u64, plies: usize, stop: impl Fn(&Position) -> bool) -> Record {
    let mut rng = SplitMix64::new(seed);
    let mut position = Position::START;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let board = position.board;
        if board.is_game_over() || stop(&position) {
            break;
        }
        let legal: Vec<u32> = squares(board.moves()).collect();
        let square = (!legal.is_empty()).then(|| legal[rng.index(legal.len())]);
        let eval = (rng.below(3) > 0).then(|| (rng.below(12_801) as f64 - 6400.0) / 100.0);
        let time = (rng.below(3) > 0).then(|| rng.below(100_000) as f64 / 1000.0);
        let black = position.black_to_move;
        position = match square {
            Some(sq) => position.play(sq).expect("legal"),
            None => position.pass(),
        };
        moves.push((black, MoveItem { square, eval, time }));
    }
    Record {
        start: Position::START,
        moves,
        position,
        clocks: [None; 2],
    }
}

pub fn random_game(seed: u64, plies: usize) -> Record {
    random_game_until(seed, plies, |_| false)
}
