//! The GGF parser under seeded property tests: it never panics (arbitrary text, and valid games
//! with random edits), it reads back every game it writes, and its replay agrees with playing
//! the moves on the board.

#[path = "support/othello_games.rs"]
mod othello_games;

use othello_games::random_game;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use ryoshi::othello::ggf::{self, Record};

fn config(seed: u64, cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(0x6767_0001, 2000))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = ggf::parse(&text);
        let _ = ggf::parse_move_item(&text);
    }

    #[test]
    fn ggf_shaped_text_never_panics(text in "[12 ]{0,2}\\(;([A-Z]{1,3}\\[[-*O.8 a-hA-H1-9/\\\\\\]]{0,70}\\]){0,12};?\\)?") {
        let _ = ggf::parse(&text);
    }
}

proptest! {
    #![proptest_config(config(0x6767_0002, 300))]

    #[test]
    fn edited_games_never_panic(
        seed in any::<u64>(),
        plies in 0usize..70,
        edits in proptest::collection::vec((any::<u16>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = random_game(seed, plies).to_text().into_bytes();
        for (at, byte) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at as usize % bytes.len();
            match byte % 3 {
                0 => bytes[i] = byte,
                1 => { bytes.remove(i); }
                _ => bytes.insert(i, byte),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(game) = ggf::parse(&text) {
            // Whatever survives the edit is still a legal game that reads back the same.
            prop_assert_eq!(ggf::parse(&game.to_text()).unwrap(), game);
        }
    }

    #[test]
    fn written_games_read_back(seed in any::<u64>(), plies in 0usize..70) {
        let game = random_game(seed, plies);
        let text = game.to_text();
        let read = ggf::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert_eq!(&read, &game);
        prop_assert_eq!(read.position, game.position);
    }

    #[test]
    fn left_out_passes_are_implied(seed in any::<u64>()) {
        // The same game without its PA items replays to the same position.
        let game = random_game(seed, 200);
        let without = Record {
            moves: game.moves.iter().copied().filter(|(_, m)| m.square.is_some()).collect(),
            ..game.clone()
        };
        let read = ggf::parse(&without.to_text()).unwrap();
        prop_assert_eq!(read.position, game.position);
    }
}

#[test]
fn random_games_do_pass_and_end() {
    // The properties above only mean something if the generated games contain passes and
    // finished games.
    let games: Vec<Record> = (0..300).map(|s| random_game(s, 200)).collect();
    assert!(games
        .iter()
        .any(|g| g.moves.iter().any(|(_, m)| m.square.is_none())));
    assert!(games.iter().any(|g| g.position.board.is_game_over()));
}
