//! Game records (issue 42), library side: write → read round trips on random games of all three
//! games (proptest, seeded), the Shogitter-refereed games as kifu, NBoard's GGF bytes, and the
//! bounds (nesting, size, memory per move).

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use ryoshi::games::record::{GameRecord, Recordable, Tags, MAX_RECORD_BYTES};
use ryoshi::games::rules::Rules;
use ryoshi::quantum::{Position as QPosition, Ruleset};
use ryoshi::rng::SplitMix64;

fn runner(seed: u8, cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// A random game from `start` of at most `plies` moves (`pass` picks a pass when the game has
/// one), and the position text after every move, the start first.
fn random_game<R: Rules>(
    start: R,
    seed: u64,
    plies: usize,
    pass: Option<R::Move>,
) -> (Vec<R::Move>, Vec<String>) {
    let mut rng = SplitMix64::new(seed);
    let mut game = start;
    let mut moves = Vec::new();
    let mut texts = vec![game.to_text()];
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.legal_moves();
        let mv = match pass {
            Some(p) if legal.is_empty() || rng.index(12) == 0 => p,
            _ if legal.is_empty() => break,
            _ => legal[rng.index(legal.len())],
        };
        game.play(mv).unwrap();
        moves.push(mv);
        texts.push(game.to_text());
    }
    (moves, texts)
}

/// Writes the game, reads it back (also with its line breaks turned into spaces), and checks
/// the same start, moves, tags and position after every move.
fn round_trip<R: Recordable>(record: &GameRecord<R>, texts: &[String]) -> Result<(), TestCaseError>
where
    R::Move: PartialEq + std::fmt::Debug,
{
    let text = R::write_record(record);
    for text in [text.clone(), text.replace('\n', " ")] {
        let back =
            R::read_record(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back.start.to_text(), record.start.to_text());
        prop_assert_eq!(&back.moves, &record.moves);
        prop_assert_eq!(&back.tags, &record.tags);
        let mut game = back.start.clone();
        prop_assert_eq!(&game.to_text(), &texts[0]);
        for (i, &mv) in back.moves.iter().enumerate() {
            game.play(mv).unwrap();
            prop_assert_eq!(&game.to_text(), &texts[i + 1], "after move {}", i + 1);
        }
        prop_assert_eq!(R::write_record(&back), R::write_record(record));
    }
    Ok(())
}

#[test]
fn go_records_round_trip() {
    use ryoshi::go::{Color, Position, Record};
    runner(42, 200)
        .run(
            &(any::<u64>(), 2usize..=25, 0usize..300, any::<bool>()),
            |(seed, size, plies, white_first)| {
                let mut start = Position::empty(size).unwrap();
                if white_first {
                    // A handicap-like start: a black stone, white to move.
                    let p = start.board.point(size / 2, size / 2);
                    start.board.set(p, Color::Black.cell());
                    start.to_move = Color::White;
                }
                let start = Record::new(start);
                let (moves, texts) = random_game(start.clone(), seed, plies, Some(None));
                let mut record = GameRecord::new(start);
                record.moves = moves;
                record.tags = Tags {
                    date: Some("2026-12-04".into()),
                    players: [Some("b]l\\ack".into()), Some("white".into())],
                    result: Some("B+R".into()),
                    ..Tags::default()
                };
                record.tags.set("KM", "6.5");
                record.tags.set("RU", "Chinese");
                if white_first {
                    record.tags.set("HA", "1");
                }
                round_trip(&record, &texts)
            },
        )
        .unwrap();
}

#[test]
fn go_history_steps_back_through_a_loaded_record() {
    use ryoshi::go::Record;
    let mut runner = runner(43, 50);
    runner
        .run(&(any::<u64>(), 2usize..=19), |(seed, size)| {
            let start = Record::new(ryoshi::go::Position::empty(size).unwrap());
            let (moves, texts) = random_game(start.clone(), seed, 400, Some(None));
            let mut record = GameRecord::new(start);
            record.moves = moves;
            let back = Record::read_record(&Record::write_record(&record)).unwrap();
            let mut game = back.replay().unwrap();
            for text in texts.iter().rev() {
                prop_assert_eq!(&game.to_text(), text);
                game.game.undo();
            }
            prop_assert!(!game.game.undo());
            Ok(())
        })
        .unwrap();
}

#[test]
fn othello_records_round_trip_as_ggf_and_transcript() {
    use ryoshi::othello::record::{read_transcript, write_transcript};
    use ryoshi::othello::Position;
    runner(44, 200)
        .run(&(any::<u64>(), 0usize..70), |(seed, plies)| {
            let start = <Position as Rules>::start();
            let (moves, texts) = random_game(start, seed, plies, None);
            let mut record = GameRecord::new(start);
            record.moves = moves;
            record.tags = Tags {
                date: Some("2026-12-04 18:00:00 GMT".into()),
                players: [Some("ryoshi".into()), Some("edax".into())],
                result: Some("+4.000".into()),
                ..Tags::default()
            };
            record.tags.set("PC", "NBoard");
            record.tags.set("TI", "15:00");
            round_trip(&record, &texts)?;
            let transcript = write_transcript(&record);
            let back = read_transcript(&transcript.to_uppercase()).unwrap();
            prop_assert_eq!(&back.moves, &record.moves);
            prop_assert_eq!(write_transcript(&back), transcript);
            Ok(())
        })
        .unwrap();
}

#[test]
fn quantum_records_round_trip_as_kifu() {
    use ryoshi::quantum::Record;
    runner(45, 60)
        .run(&(any::<u64>(), 0usize..200), |(seed, plies)| {
            let start = Record::start();
            let (moves, texts) = random_game(start.clone(), seed, plies, None);
            let mut record = GameRecord::new(start);
            record.moves = moves;
            record.tags = Tags {
                date: Some("2026-12-04".into()),
                players: [Some("ryoshi \"q\"".into()), Some("human".into())],
                result: Some("1/2-1/2".into()),
                reason: Some("agreement".into()),
                ..Tags::default()
            };
            round_trip(&record, &texts)
        })
        .unwrap();
}

#[test]
fn shogitter_games_round_trip_as_kifu() {
    use ryoshi::quantum::Record;
    let old = Ruleset {
        kakutei_nifu: false,
    };
    let games = common::shogitter::games();
    assert_eq!(games.len(), 10);
    for game in &games {
        let seed = &game["seed"];
        let mut record = Record::new(QPosition::start(), old);
        let mut texts = vec![record.to_text()];
        for ply in game["plies"].as_array().expect("plies") {
            let Some(text) = ply["move"].as_str() else {
                continue;
            };
            let pos = record.position().clone();
            let action = pos
                .legal_actions(&old)
                .into_iter()
                .find(|&a| common::shogitter::action_name(&pos, a) == text)
                .unwrap_or_else(|| panic!("game {seed}: {text} is not legal for us"));
            record.play(action).unwrap();
            texts.push(record.to_text());
        }
        let mut tags = Tags {
            players: [Some("shogitter".into()), Some("shogitter".into())],
            ..Tags::default()
        };
        if let Some(end) = record.outcome() {
            tags.result = Some(end.verdict.score().into());
            tags.reason = Some(end.reason.to_string());
        }
        let kifu = ryoshi::quantum::kifu::from_record(&record, tags);
        assert_eq!(kifu.moves.len(), texts.len() - 1);
        let text = Record::write_record(&kifu);
        assert!(text.contains("[KakuteiNifu \"off\"]"), "{text}");
        let back = Record::read_record(&text).unwrap_or_else(|e| panic!("game {seed}: {e}"));
        assert_eq!(back.moves, kifu.moves, "game {seed}");
        assert_eq!(Record::write_record(&back), text, "game {seed}");
        assert_eq!(back.replay().unwrap().to_text(), *texts.last().unwrap());
        let flat = Record::read_record(&text.replace('\n', " ")).unwrap();
        assert_eq!(
            Record::write_record(&flat),
            text,
            "game {seed}, on one line"
        );
        // Every ply's history: the kifu's game undone step by step.
        let mut replayed = back.replay().unwrap();
        for want in texts.iter().rev() {
            assert_eq!(&replayed.to_text(), want, "game {seed}");
            replayed.undo();
        }
    }
}

/// The byte sequences NBoard sends with `set game` (tests/nboard_protocol.rs), with the evals
/// and times of `move`s as NBoard appends them.
#[test]
fn nboard_ggf_is_read_and_written_back() {
    use ryoshi::othello::Position;
    let sent = [
        "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)",
        "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)",
        "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.52]W[F6/-2.00/3.1]B[D3];)",
    ];
    for text in sent {
        let record = Position::read_record(text).unwrap();
        assert_eq!(Position::write_record(&record), text);
    }
    // Games with a pass: GGS writes it as PA; left out, it is implied. Found among random
    // games (seeded).
    let mut found = 0;
    for seed in 0..2000 {
        let start = <Position as Rules>::start();
        let (moves, _) = random_game(start, seed, 60, None);
        let mut record = GameRecord::new(start);
        record.moves = moves;
        let text = Position::write_record(&record);
        if !text.contains("[PA]") {
            continue;
        }
        found += 1;
        assert_eq!(Position::read_record(&text).unwrap().moves, record.moves);
        let implied = text.replace("W[PA]", "").replace("B[PA]", "");
        let back = Position::read_record(&implied).unwrap();
        assert_eq!(back.moves, record.moves);
        assert_eq!(Position::write_record(&back), text);
        if found == 5 {
            break;
        }
    }
    assert_eq!(found, 5, "random games with a pass");
}

#[test]
fn bad_records_get_one_error_naming_where() {
    use ryoshi::go::Record as Go;
    use ryoshi::othello::Position as Othello;
    use ryoshi::quantum::Record as Quantum;
    let deep = format!("{}{}", "(;".repeat(100_000), ")".repeat(100_000));
    let e = Go::read_record(&deep).unwrap_err().to_string();
    assert!(e.contains("nested deeper than 1000 at byte 2000"), "{e}");
    let huge = format!("(;C[{}])", "x".repeat(MAX_RECORD_BYTES));
    let e = Go::read_record(&huge).unwrap_err().to_string();
    assert!(e.contains("too large"), "{e}");
    let e = Go::read_record("(;SZ[9]KM[seven])")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "KM[seven]: komi is not a number");
    let e = Go::read_record("(;SZ[9];B[ee];W[ee])")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "illegal move W[ee] (E5) at ply 2: the point is occupied");
    let e = Othello::read_record("f5f5").unwrap_err().to_string();
    assert!(e.starts_with("illegal move f5 at ply 2"), "{e}");
    let e = Quantum::read_record("[Game \"quantum shogi\"] [KakuteiNifu \"maybe\"]")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "KakuteiNifu[maybe]: not on or off");
}

/// Memory stays in proportion to the moves: a Go game of 200 000 passes and stones read from
/// ~1.2 MB of SGF keeps a history of a few MB (a board per move was ~540 bytes a move).
#[test]
fn a_long_go_record_costs_memory_in_proportion() {
    use ryoshi::go::Record;
    let mut text = String::from("(;SZ[19]");
    for _ in 0..100_000 {
        text.push_str(";B[];W[]");
    }
    text.push(')');
    let record = Record::read_record(&text).unwrap();
    assert_eq!(record.moves.len(), 200_000);
    let game = record.replay().unwrap();
    assert_eq!(game.game.moves_played(), 200_000);
    // 12 bytes a step: the history's size, not measured by the allocator, is bounded by the
    // step's size (checked in go::position's tests); here the whole load must finish quickly.
}

/// The readers never panic: random text, and valid records cut, spliced and with bytes changed
/// (seeded), each gets a record or an error.
#[test]
fn readers_never_panic_on_mangled_records() {
    use ryoshi::go::Record as Go;
    use ryoshi::othello::Position as Othello;
    use ryoshi::quantum::Record as Quantum;
    let go = {
        let start = Go::new(ryoshi::go::Position::empty(9).unwrap());
        let (moves, _) = random_game(start.clone(), 1, 60, Some(None));
        let mut r = GameRecord::new(start);
        r.moves = moves;
        Go::write_record(&r)
    };
    let othello = {
        let start = <Othello as Rules>::start();
        let (moves, _) = random_game(start, 2, 60, None);
        let mut r = GameRecord::new(start);
        r.moves = moves;
        Othello::write_record(&r)
    };
    let quantum = {
        let start = Quantum::start();
        let (moves, _) = random_game(start.clone(), 3, 40, None);
        let mut r = GameRecord::new(start);
        r.moves = moves;
        Quantum::write_record(&r)
    };
    let alphabet: Vec<char> = "();[]{}\\\"*.:-/ \nBWabcdetPAKQ123456789~+\u{3042}"
        .chars()
        .collect();
    runner(46, 3000)
        .run(
            &(
                0usize..3,
                any::<u64>(),
                proptest::collection::vec(any::<(u16, u8)>(), 0..6),
            ),
            |(which, cut, edits)| {
                let base = [&go, &othello, &quantum][which];
                let mut chars: Vec<char> = base.chars().collect();
                for (at, c) in edits {
                    let at = at as usize % (chars.len() + 1);
                    let c = alphabet[c as usize % alphabet.len()];
                    if at < chars.len() && c == '~' {
                        chars.remove(at);
                    } else {
                        chars.insert(at, c);
                    }
                }
                let keep = (cut as usize) % (chars.len() + 1);
                let text: String = if cut % 3 == 0 {
                    chars[..keep].iter().collect()
                } else {
                    chars.iter().collect()
                };
                let _ = Go::read_record(&text);
                let _ = Othello::read_record(&text);
                let _ = Quantum::read_record(&text);
                Ok(())
            },
        )
        .unwrap();
}
