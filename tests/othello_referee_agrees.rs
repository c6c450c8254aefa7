//! The Othello engine (`position` and `d` through the real binary) and the match referee read
//! moves and decide finished games with the same games-layer code, so they agree: `F5` and `f5`
//! are read alike by both (and written `f5`), an illegal move is refused with the same words,
//! and the verdict of every seeded random game is the same.

mod common;

use ryoshi::matches::referee::GameReferee;
use ryoshi::matches::{GameView, Side, Verdict};
use ryoshi::rng::SplitMix64;

type OthelloReferee = GameReferee<ryoshi::othello::Position>;

/// The engine's error for `position startpos moves <moves>`, without `info string error: move N: `.
fn engine_error(moves: &[&str]) -> String {
    let input = format!(
        "setoption name USI_Variant value othello\nposition startpos moves {}\nquit\n",
        moves.join(" ")
    );
    let out = common::transcript(input.as_bytes());
    let line = out
        .lines()
        .find(|l| l.starts_with("info string error: "))
        .unwrap_or_else(|| panic!("no error for {moves:?}: {out}"));
    let prefix = format!("info string error: move {}: ", moves.len());
    line.strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{line}"))
        .to_string()
}

#[test]
fn illegal_moves_are_refused_alike_in_either_case() {
    for moves in [
        vec!["F5", "A1"],
        vec!["f5", "F5"],
        vec!["f5", "a1"],
        vec!["f5", "z9"],
        vec!["A1"],
        vec!["F55"],
    ] {
        let mut referee = OthelloReferee::new();
        let (last, before) = moves.split_last().unwrap();
        for mv in before {
            referee.play(mv).unwrap();
        }
        let start = referee.position();
        let refused = referee.play(last).expect_err(last).to_string();
        assert_eq!(referee.position(), start);
        assert_eq!(refused, engine_error(&moves), "{moves:?}");
    }
}

/// The engine's `sfen` line after `position startpos moves <moves>`.
fn engine_sfen(moves: &[String]) -> String {
    let input = format!(
        "setoption name USI_Variant value othello\nposition startpos moves {}\nd\nquit\n",
        moves.join(" ")
    );
    let out = common::transcript(input.as_bytes());
    assert!(!out.contains("error"), "{out}");
    out.lines()
        .find(|l| l.starts_with("sfen "))
        .unwrap_or_else(|| panic!("{out}"))
        .to_string()
}

#[test]
fn upper_case_moves_are_read_alike_and_written_lower_case() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..6 {
        let mut referee = OthelloReferee::new();
        let mut upper = Vec::new();
        let mut lower = Vec::new();
        while referee.game_end().is_none() && upper.len() < 30 {
            let legal = referee.legal_moves();
            let mv = legal[rng.index(legal.len())].to_ascii_uppercase();
            // The referee writes what it read in lowercase.
            lower.push(referee.play(&mv).unwrap());
            assert_eq!(lower.last().unwrap(), &mv.to_ascii_lowercase());
            upper.push(mv);
        }
        assert_eq!(engine_sfen(&upper), engine_sfen(&lower));
        assert!(
            engine_sfen(&upper).ends_with(&referee.position()),
            "{upper:?}"
        );
    }
}

#[test]
fn finished_games_get_the_same_verdict() {
    let mut rng = SplitMix64::new(11);
    let mut input = String::from("setoption name USI_Variant value othello\n");
    let mut verdicts = Vec::new();
    for _ in 0..40 {
        let mut referee = OthelloReferee::new();
        let mut moves = Vec::new();
        while referee.game_end().is_none() {
            let legal = referee.legal_moves();
            moves.push(referee.play(&legal[rng.index(legal.len())]).unwrap());
        }
        verdicts.push(referee.game_end().unwrap().verdict);
        input += &format!("position startpos moves {}\nd\n", moves.join(" "));
    }
    input += "quit\n";
    let out = common::transcript(input.as_bytes());
    let said: Vec<Verdict> = out
        .lines()
        .filter_map(|l| l.split(", game over, ").nth(1))
        .map(|s| match s {
            "black wins" => Verdict::Win(Side::First),
            "white wins" => Verdict::Win(Side::Second),
            "draw" => Verdict::Draw,
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(said, verdicts, "{out}");
    assert!(
        verdicts.contains(&Verdict::Win(Side::First))
            && verdicts.contains(&Verdict::Win(Side::Second))
    );
}
