//! Seeded random Go positions shared by the Go tests: scattered stones, and games that never
//! fill their own eyes. Each call draws from the generator in a fixed order, so a test's seed
//! pins its positions.
#![allow(dead_code)]

use ryoshi::go::board::{BLACK, EMPTY, WHITE};
use ryoshi::go::eye::is_own_eye;
use ryoshi::go::{Board, Color, Position};
use ryoshi::rng::SplitMix64 as Rng;

/// Random stones (`density` percent of the points, half of each colour), then blocks without
/// liberties removed until none is left.
pub fn random_board(size: usize, density: u64, rng: &mut Rng) -> Board {
    let mut b = Board::new(size).unwrap();
    let points: Vec<usize> = b.points().collect();
    for &p in &points {
        let r = rng.next() % 100;
        b.set(
            p,
            if r < density / 2 {
                BLACK
            } else if r < density {
                WHITE
            } else {
                EMPTY
            },
        );
    }
    loop {
        let dead: Vec<usize> = b
            .blocks()
            .into_iter()
            .filter(|(_, _, l)| l.is_empty())
            .flat_map(|(_, s, _)| s)
            .collect();
        if dead.is_empty() {
            return b;
        }
        for p in dead {
            b.set(p, EMPTY);
        }
    }
}

/// A random game that never fills its own eyes, stopped after `len` moves or two passes in a
/// row: ends full of living groups. Returns the game and its moves.
pub fn random_game(
    size: usize,
    len: usize,
    rng: &mut Rng,
) -> (Position, Vec<(Color, Option<usize>)>) {
    let mut game = Position::empty(size).unwrap();
    let mut moves = Vec::new();
    let mut passes = 0;
    while moves.len() < len && passes < 2 {
        let color = game.to_move;
        let candidates: Vec<usize> = game
            .legal_points()
            .into_iter()
            .filter(|&p| !is_own_eye(&game.board, p, color))
            .collect();
        let mv = if candidates.is_empty() {
            None
        } else {
            Some(candidates[rng.next() as usize % candidates.len()])
        };
        passes = if mv.is_none() { passes + 1 } else { 0 };
        game.play(mv).unwrap();
        moves.push((color, mv));
    }
    (game, moves)
}
