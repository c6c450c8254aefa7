//! The bitboard Benson against the plain one, on seeded random positions of every size.

#[path = "support/go_positions.rs"]
mod go_positions;

use go_positions::{random_board, random_game};
use ryoshi::go::{benson, benson_reference, Color};
use ryoshi::rng::SplitMix64 as Rng;

#[test]
fn fast_benson_equals_the_reference() {
    let mut rng = Rng(42);
    let mut fast = benson::Benson::new();
    let mut slow = benson_reference::Benson::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut safe_points = 0;
    for i in 0..1500 {
        let size = 2 + i % 24;
        let board = if i % 3 == 0 {
            // Eye-respecting games end full of living groups.
            let size = size.min(13);
            random_game(size, size * size * 4, &mut rng).0.board
        } else {
            random_board(size, 40 + rng.next() % 60, &mut rng)
        };
        for color in Color::BOTH {
            fast.safe_points(&board, color, &mut a);
            slow.safe_points(&board, color, &mut b);
            assert_eq!(a, b, "position {i}, {color:?}: {board:?}");
            safe_points += a.iter().filter(|&&s| s).count();
        }
    }
    assert!(
        safe_points > 10_000,
        "the positions exercise the algorithm ({safe_points})"
    );
}
