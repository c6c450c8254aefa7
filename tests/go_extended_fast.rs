//! The bitboard extended analysis against the plain one, on seeded random positions.

#[path = "support/go_positions.rs"]
mod go_positions;

use go_positions::{random_board, random_game};
use ryoshi::go::{unconditional, unconditional_reference, Board, Color};
use ryoshi::rng::SplitMix64 as Rng;

/// Position `i` of a seeded series, with its ko point: even ones end random games of random
/// length, odd ones scatter stones.
fn position(i: usize, rng: &mut Rng) -> (Board, Option<usize>) {
    let size = 2 + i % 24;
    if i.is_multiple_of(2) {
        let size = size.min(19);
        let len = size * size * (1 + rng.next() as usize % 4);
        let (g, _) = random_game(size, len, rng);
        (g.board, g.ko)
    } else {
        (random_board(size, 40 + rng.next() % 60, rng), None)
    }
}

#[test]
fn fast_extended_equals_the_reference() {
    let mut rng = Rng(7);
    let mut marked = 0;
    for i in 0..400 {
        let (board, ko) = position(i, &mut rng);
        for color in Color::BOTH {
            let fast = unconditional::unconditional_life(&board, ko, color);
            let slow = unconditional_reference::unconditional_life(&board, ko, color);
            assert_eq!(fast, slow, "position {i}, {color:?}: {board:?}");
            marked += fast.iter().filter(|&&m| m != 0).count();
        }
    }
    assert!(
        marked > 5_000,
        "the positions exercise the analysis ({marked})"
    );
}

#[test]
fn extended_covers_classic_on_random_positions() {
    use ryoshi::go::analysis::{classic, extended, Status};
    let mut rng = Rng(99);
    let mut decided = 0;
    for i in 0..600 {
        let (board, ko) = position(i, &mut rng);
        let c = classic(&board);
        let e = extended(&board, ko);
        for p in board.points() {
            if c.status[p] != Status::Undecided {
                decided += 1;
                assert_eq!(
                    e.status[p], c.status[p],
                    "position {i} point {p}: {board:?}"
                );
            }
        }
    }
    assert!(decided > 5_000, "classic decided enough points ({decided})");
}
