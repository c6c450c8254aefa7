//! The Go session's `score [komi]` (the end-of-game count the Go page shows): it agrees with the
//! GTP front end's `final_score` and `final_status_list dead` on the same positions, and on a
//! position whose every block Benson's algorithm settles it is the plain area count.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], input: &str) -> Vec<String> {
    let mut child = Command::new(common::BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start ryoshi");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `score` over USI for a position given as `<size> <rows> <b|w>` with `komi`.
fn usi_score(position: &str, komi: &str) -> Vec<String> {
    run(
        &[],
        &format!(
            "setoption name USI_Variant value go\nposition sfen {position}\nscore {komi}\nquit\n"
        ),
    )
}

/// The GTP front end's `final_score` and its dead stones, for the same position set up stone by
/// stone (`play`), white's turn or black's as the position says.
fn gtp_score(position: &str, komi: &str) -> (String, Vec<String>) {
    let fields: Vec<&str> = position.split_whitespace().collect();
    let size: usize = fields[0].parse().unwrap();
    let letters = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mut input = format!("boardsize {size}\nclear_board\nkomi {komi}\n");
    for (r, row) in fields[1].split('/').enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let colour = match ch {
                'X' => "black",
                'O' => "white",
                _ => continue,
            };
            input += &format!("play {colour} {}{}\n", letters[c] as char, size - r);
        }
    }
    // The side to move: a pass by the other side makes it so.
    let last = input
        .lines()
        .rev()
        .find(|l| l.starts_with("play "))
        .unwrap_or("");
    let to_move = if fields[2] == "b" { "black" } else { "white" };
    if last.starts_with(&format!("play {to_move} ")) {
        let other = if to_move == "black" { "white" } else { "black" };
        input += &format!("play {other} pass\n");
    }
    input += "final_score\nfinal_status_list dead\nquit\n";
    let out = run(&["gtp"], &input);
    let answers: Vec<&String> = out.iter().filter(|l| l.starts_with('=')).collect();
    let n = answers.len();
    let score = answers[n - 3].trim_start_matches('=').trim().to_string();
    // final_status_list: one block per line, the first after `=`.
    let start = out.iter().position(|l| l == answers[n - 2]).unwrap();
    let mut dead: Vec<String> = Vec::new();
    for (i, line) in out[start..].iter().enumerate() {
        let text = if i == 0 {
            line.trim_start_matches('=')
        } else {
            line
        };
        if i > 0 && text.trim().is_empty() {
            break;
        }
        dead.extend(text.split_whitespace().map(str::to_string));
    }
    dead.sort();
    (score, dead)
}

const POSITIONS: &[&str] = &[
    // Two walls, nothing dead.
    "5 ..XO./..XO./..XO./..XO./..XO. b",
    // A lone white stone in black's area, and white's weak group on the right edge.
    "5 ...X./.O.X./...XO/...XO/...XO b",
    // A 9x9 game's end with stones on both sides.
    "9 ..XO...../..XO.O.../.XXO..O../.X.XO..../XX.XO..../.XXXO.OO./..XOO.O../..XO...../...XO.... w",
];

#[test]
fn score_agrees_with_the_gtp_front_end() {
    for position in POSITIONS {
        for komi in ["7.5", "0.5", "6"] {
            let lines = usi_score(position, komi);
            assert_eq!(lines.len(), 3, "{position}: {lines:?}");
            let words: Vec<&str> = lines[0].split_whitespace().collect();
            assert_eq!(words[0], "score");
            assert_eq!(words[2..], ["komi", komi]);
            let (gtp, gtp_dead) = gtp_score(position, komi);
            assert_eq!(words[1], gtp, "{position} komi {komi}");
            assert!(lines[1].starts_with("dead b") && lines[2].starts_with("dead w"));
            let mut dead: Vec<String> = lines[1..]
                .iter()
                .flat_map(|l| l.split_whitespace().skip(2).map(str::to_string))
                .collect();
            dead.sort();
            assert_eq!(dead, gtp_dead, "{position}");
        }
    }
}

#[test]
fn settled_walls_score_as_the_plain_area() {
    // Black owns the left three columns (15 points), white the right two (10): 5 - komi.
    let lines = usi_score(POSITIONS[0], "7.5");
    assert_eq!(lines, ["score W+2.5 komi 7.5", "dead b", "dead w"]);
    let lines = usi_score(POSITIONS[0], "3");
    assert_eq!(lines[0], "score B+2 komi 3");
    // The lone white stone in black's area is dead.
    let lines = usi_score(POSITIONS[1], "7.5");
    assert!(lines[2].split_whitespace().any(|v| v == "B4"), "{lines:?}");
}

#[test]
fn a_bad_komi_is_one_error() {
    let lines = usi_score(POSITIONS[0], "seven");
    assert_eq!(
        lines,
        ["info string error: score: komi 'seven' is not a number"]
    );
    let lines = run(
        &[],
        "setoption name USI_Variant value othello\nscore\nquit\n",
    );
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("info string error:"), "{lines:?}");
}
