//! Othello through the real binary: perft and count tables, moves/flips/d/undo, automatic and
//! explicit passes, search at each level, and one error line per bad input with the state unchanged.

mod common;

use common::transcript;
use ryoshi::othello::{square_name, squares, Position};

const OTHELLO: &str = "setoption name USI_Variant value othello\n";

fn run(body: &str) -> Vec<String> {
    let out = transcript(format!("{OTHELLO}{body}").as_bytes());
    out.lines().map(str::to_string).collect()
}

fn nodes(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("Nodes searched: "))
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn perft_table_edax_convention() {
    let table = [
        4u64, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571056,
    ];
    let body: String = (1..=table.len())
        .map(|d| format!("go perft {d}\n"))
        .collect();
    assert_eq!(nodes(&run(&body)), table);
}

#[test]
fn perft_divide_lists_root_moves() {
    let lines = run("position startpos moves f5\ngo perft 3\n");
    let divide: Vec<&String> = lines.iter().filter(|l| !l.starts_with("Nodes")).collect();
    let names: Vec<&str> = divide
        .iter()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(names, ["f4", "d6", "f6"]);
    let sum: u64 = divide
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(nodes(&lines), [sum]);
    // The four first moves are symmetric copies: a quarter of perft 4 from the start.
    assert_eq!(sum, 244 / 4);
}

#[test]
fn count_table_streams_one_row_per_depth() {
    let lines = run("count 9\n");
    let expect = [
        (4u64, 4u64),
        (12, 12),
        (56, 54),
        (244, 236),
        (1396, 1288),
        (8200, 7092),
        (55092, 42614),
        (390216, 269352),
        (3005320, 1743592),
    ];
    assert_eq!(lines.len(), expect.len(), "{lines:#?}");
    for (i, (paths, positions)) in expect.iter().enumerate() {
        assert_eq!(
            lines[i],
            format!("count {} paths {paths} positions {positions}", i + 1)
        );
    }
}

#[test]
fn moves_flips_and_display() {
    let lines = run("moves\nflips f5\nposition startpos moves f5 d6\nmoves\nflips c3\nd\n");
    assert_eq!(lines[0], "d3 c4 f5 e6");
    assert_eq!(lines[1], "flips f5 e5");
    assert_eq!(lines[2], "c3 c4 c5 c6 c7");
    assert_eq!(lines[3], "flips c3 d4");
    let last = lines.last().unwrap();
    let expect = Position::START
        .play(37)
        .and_then(|p| p.play(43))
        .unwrap()
        .to_text();
    assert_eq!(last, &format!("sfen {expect}"));
}

/// A seeded random game from the start that reaches a forced pass: the moves up to and
/// including the placement that forces it.
fn line_with_a_pass() -> Vec<u32> {
    let mut seed = 7u64;
    loop {
        let mut pos = Position::START;
        let mut line = Vec::new();
        loop {
            let m = pos.board.moves();
            if m == 0 {
                break;
            }
            let list: Vec<u32> = squares(m).collect();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let sq = list[((seed >> 33) % list.len() as u64) as usize];
            line.push(sq);
            pos = pos.play(sq).unwrap();
            if pos.forced_pass().is_some() {
                return line;
            }
        }
    }
}

#[test]
fn automatic_pass_explicit_pass_and_undo_across_it() {
    let line = line_with_a_pass();
    let names: Vec<String> = line.iter().map(|&s| square_name(s)).collect();
    let mut pos = Position::START;
    for &sq in &line {
        pos = pos.play(sq).unwrap();
    }
    let before_last = {
        let mut p = Position::START;
        for &sq in &line[..line.len() - 1] {
            p = p.play(sq).unwrap();
        }
        p
    };
    let passed = pos.pass();
    let all = names.join(" ");
    let lines = run(&format!(
        "position startpos moves {all}\nd\nposition startpos moves {all} pass\nd\n\
         position startpos moves {all} pass pass\nd\nundo\nd\n"
    ));
    let sfens: Vec<&String> = lines.iter().filter(|l| l.starts_with("sfen ")).collect();
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    // The mover plays again after the automatic pass; an explicit pass is accepted once.
    assert_eq!(sfens[0], &format!("sfen {}", passed.to_text()));
    assert_eq!(sfens[1], &format!("sfen {}", passed.to_text()));
    assert_eq!(errors.len(), 1, "{lines:#?}");
    assert_eq!(sfens[2], &format!("sfen {}", passed.to_text()));
    // Undo takes back the placement and the automatic pass together.
    assert_eq!(sfens[3], &format!("sfen {}", before_last.to_text()));
}

#[test]
fn bad_input_gets_one_error_and_changes_nothing() {
    let start = Position::START.to_text();
    let good_board = Position::START.board_text();
    let bad = [
        format!("position sfen {} b", &good_board[..63]),
        format!("position sfen {}- b", good_board),
        format!("position sfen {} b", good_board.replacen('-', "x", 1)),
        format!("position sfen {} x", good_board),
        format!("position sfen {}", good_board),
        format!("position sfen {} b", "-".repeat(64)),
        "position startpos moves f5 a1".to_string(),
        "position startpos moves f5 d6 zz".to_string(),
        "position startpos moves pass".to_string(),
        "undo".to_string(),
        "flips a1".to_string(),
        "flips q9".to_string(),
        "count 0".to_string(),
        "count 99".to_string(),
        "go perft 0".to_string(),
        "hint 0".to_string(),
        "benson".to_string(),
    ];
    for b in &bad {
        let lines = run(&format!("{b}\nd\n"));
        let errors = lines
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .count();
        assert_eq!(errors, 1, "{b}: {lines:#?}");
        assert_eq!(lines.len(), 1 + 12, "{b}: {lines:#?}");
        assert_eq!(lines.last().unwrap(), &format!("sfen {start}"), "{b}");
    }
    // A good position first, then a bad one: the good one stays.
    let lines = run("position startpos moves f5\nposition startpos moves f5 f5\nd\n");
    let after_f5 = Position::START.play(37).unwrap().to_text();
    assert_eq!(lines.last().unwrap(), &format!("sfen {after_f5}"));
}

#[test]
fn go_plays_a_legal_move_at_every_level() {
    for level in 1..=3 {
        let lines = run(&format!(
            "setoption name Level value {level}\nposition startpos moves f5 d6 c3\nmoves\ngo movetime 200\n"
        ));
        let legal: Vec<&str> = lines[0].split_whitespace().collect();
        let best = lines.last().unwrap();
        let mv = best.strip_prefix("bestmove ").unwrap();
        assert!(
            legal.contains(&mv),
            "level {level}: {best} not in {legal:?}"
        );
        let info = &lines[lines.len() - 2];
        assert!(info.starts_with("info depth "), "{info}");
        assert!(info.contains(" score cp "), "{info}");
    }
}

#[test]
fn finished_game_resigns_and_solves_to_its_score() {
    // All black: the game is over, black has 64.
    let board = "X".repeat(60);
    let full = format!("{}XXXX", board);
    let lines = run(&format!(
        "position sfen {full} w\nmoves\ngo depth 3\nsolve\n"
    ));
    assert_eq!(lines[0], "");
    assert!(lines.iter().any(|l| l == "bestmove resign"), "{lines:#?}");
    let solve = lines.last().unwrap();
    assert!(solve.starts_with("solve none score -64 "), "{solve}");
}

#[test]
fn bench_ends_with_its_signature() {
    let a = run("bench\n");
    let b = run("bench\n");
    assert!(a.last().unwrap().starts_with("Nodes searched: "));
    assert_eq!(a, b, "bench is deterministic");
}

#[test]
fn count_rows_stream_as_each_depth_finishes() {
    use std::time::{Duration, Instant};
    let mut engine = common::Engine::start();
    engine.send("setoption name USI_Variant value othello");
    engine.send("count 10");
    let nine = engine.read_until(Duration::from_secs(60), |l| l.starts_with("count 9 "));
    let t9 = Instant::now();
    assert_eq!(nine.len(), 9);
    let ten = engine.read_until(Duration::from_secs(120), |l| l.starts_with("count 10 "));
    // Depth 10 takes about a second on its own: had the rows been held back, they would all
    // arrive together.
    assert!(
        t9.elapsed() >= Duration::from_millis(100),
        "rows did not stream"
    );
    assert_eq!(
        ten,
        ["count 10 paths 24571192 positions 11922566".to_string()]
    );
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn hint_reasons_come_from_the_position() {
    // Black to move can take a1 through b2 (white) towards c3 (black).
    let mut board: Vec<char> = Position::START.board_text().chars().collect();
    board[9] = 'O'; // b2
    board[18] = 'X'; // c3
    let text: String = board.into_iter().collect();
    let lines = run(&format!("position sfen {text} b\nhint 30\nmoves\n"));
    let legal: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    let hints = &lines[..lines.len() - 1];
    assert_eq!(hints.len(), legal.len());
    let a1 = hints
        .iter()
        .find(|h| h.starts_with("hint a1 "))
        .expect("a1 is hinted");
    assert!(
        a1.contains("reason ") && a1.contains("takes a corner"),
        "{a1}"
    );
    // Scores are in non-increasing order, and no other move claims a corner.
    let scores: Vec<i32> = hints
        .iter()
        .map(|h| h.split_whitespace().nth(3).unwrap().parse().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{hints:#?}");
    for h in hints.iter().filter(|h| !h.starts_with("hint a1 ")) {
        assert!(!h.contains("takes a corner"), "{h}");
    }
    // Default K is 3.
    let lines = run("hint\n");
    assert_eq!(lines.len(), 3);
}

#[test]
fn a_move_that_forces_a_pass_says_so() {
    let line = line_with_a_pass();
    let names: Vec<String> = line.iter().map(|&s| square_name(s)).collect();
    let (last, before) = names.split_last().unwrap();
    let lines = run(&format!(
        "position startpos moves {}\nhint 64\n",
        before.join(" ")
    ));
    let h = lines
        .iter()
        .find(|h| h.starts_with(&format!("hint {last} ")))
        .expect("the move is hinted");
    assert!(h.contains("the opponent must pass"), "{h}");
}

#[test]
fn go_infinite_waits_for_stop_and_answers_isready() {
    use std::time::Duration;
    let mut engine = common::Engine::start();
    engine.send("setoption name USI_Variant value othello");
    engine.send("position startpos moves f5 d6");
    engine.send("go infinite");
    engine.send("isready");
    engine.read_until(Duration::from_secs(10), |l| l == "readyok");
    // No bestmove before stop (info lines may come meanwhile).
    let until = std::time::Instant::now() + Duration::from_millis(300);
    while let Some(line) =
        engine.next_line(until.saturating_duration_since(std::time::Instant::now()))
    {
        assert!(!line.starts_with("bestmove"), "early {line}");
    }
    engine.send("stop");
    let lines = engine.read_until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
    let mv = lines
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .to_string();
    assert!(
        ["c3", "c4", "c5", "c6", "c7"].contains(&mv.as_str()),
        "{mv}"
    );
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(10)));
}
