//! The playing levels: level 1's seeded spread, and the levels' order shown by short
//! deterministic matches (fixed depths, no clock).

use ryoshi::othello::position::parse_square;
use ryoshi::othello::search::{think, Level};
use ryoshi::othello::Position;
use ryoshi::search::{Control, Limits};

fn best(pos: &Position, level: u64, seed: u64, depth: u32) -> u32 {
    let control = Control::new(
        Limits {
            depth: Some(depth),
            ..Default::default()
        },
        0,
    );
    let out = think(&pos.board, Level::new(level), seed, &control, &mut |_| {});
    let sq = parse_square(out.best.as_deref().unwrap()).unwrap();
    assert!(
        pos.board.moves() >> sq & 1 == 1,
        "illegal move from level {level}"
    );
    sq
}

#[test]
fn level_1_spreads_with_its_seed_and_repeats_with_the_same_seed() {
    let pos = Position::START.play(37).unwrap().play(43).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..24 {
        let a = best(&pos, 1, seed, 2);
        assert_eq!(a, best(&pos, 1, seed, 2), "seed {seed} repeats");
        seen.insert(a);
    }
    assert!(seen.len() >= 2, "the seed changes the choice: {seen:?}");
    // Level 2 has no spread.
    let l2: std::collections::BTreeSet<u32> = (0..6).map(|s| best(&pos, 2, s, 4)).collect();
    assert_eq!(l2.len(), 1);
}

/// Final disc difference for black.
fn game(opening: &[u32], black: (u64, u32), white: (u64, u32), seed: u64) -> i32 {
    let mut pos = Position::START;
    for &sq in opening {
        pos = pos.play(sq).unwrap();
    }
    loop {
        if let Some(p) = pos.forced_pass() {
            pos = p;
        }
        if pos.board.is_game_over() {
            break;
        }
        let (level, depth) = if pos.black_to_move { black } else { white };
        let sq = best(&pos, level, seed, depth);
        pos = pos.play(sq).unwrap();
    }
    pos.black().count_ones() as i32 - pos.white().count_ones() as i32
}

#[test]
fn level_2_beats_level_1() {
    let openings: [&[u32]; 3] = [&[37], &[37, 43], &[37, 45, 44]];
    let mut wins = 0;
    let mut games = 0;
    for (i, o) in openings.iter().enumerate() {
        for two_black in [true, false] {
            let seed = i as u64;
            let d = if two_black {
                game(o, (2, 4), (1, 2), seed)
            } else {
                -game(o, (1, 2), (2, 4), seed)
            };
            games += 1;
            if d > 0 {
                wins += 1;
            }
        }
    }
    assert!(wins >= games - 1, "level 2 won {wins} of {games}");
}
