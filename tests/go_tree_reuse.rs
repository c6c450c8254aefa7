//! Tree reuse between moves through the real binary (protocol/go.md, "Tree reuse"): a search
//! whose position follows from the last one's by the moves played since starts from the kept
//! subtree, its playout limit counting new playouts only; `undo`, `clear_board`, a komi change
//! and a new game start afresh. Under GTP the root's visits are `kata-genmove_analyze`'s
//! `rootInfo visits`; under USI the searched moves' visits of the `GoAnalysis` line.

mod common;

use common::Engine;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
const PLAYOUTS: u64 = 1000;

/// The value after `key` in `text`.
fn field<'a>(text: &'a str, key: &str) -> &'a str {
    let words: Vec<&str> = text.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == key)
        .unwrap_or_else(|| panic!("{key} in {text}"));
    words[at + 1]
}

/// A GTP command with an empty answer.
fn gtp_ok(engine: &mut Engine, command: &str) {
    engine.send(command);
    assert_eq!(engine.next_line(LIMIT).as_deref(), Some("="), "{command}");
    assert_eq!(engine.next_line(LIMIT).as_deref(), Some(""), "{command}");
}

/// `kata-genmove_analyze b rootInfo true`: the root's visits at the end of the search, and the
/// best move's pv (its first vertex is the move played).
fn genmove(engine: &mut Engine) -> (u64, Vec<String>) {
    let (visits, pv, played) = analysed_genmove(engine);
    assert_eq!(Some(&pv[0]), Some(&played));
    (visits, pv)
}

/// `kata-genmove_analyze b rootInfo true`: the root's visits at the end of the search, the
/// best move's pv and the move played (a pass near the end may differ from the pv's first).
fn analysed_genmove(engine: &mut Engine) -> (u64, Vec<String>, String) {
    engine.send("kata-genmove_analyze b rootInfo true");
    let lines = engine.read_until(LIMIT, |l| l.starts_with("play "));
    let played = lines.last().expect("a play line").clone();
    assert_eq!(engine.next_line(LIMIT).as_deref(), Some(""));
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info move "))
        .expect("an analysis line");
    let root = last.split(" rootInfo ").nth(1).expect("rootInfo");
    let best = last
        .split("info move ")
        .nth(1)
        .expect("a move")
        .split(" pv ")
        .nth(1)
        .expect("a pv");
    let pv: Vec<String> = best.split_whitespace().map(str::to_string).collect();
    let played = played.split(' ').nth(1).expect("a move").to_string();
    (field(root, "visits").parse().expect("visits"), pv, played)
}

#[test]
fn gtp_keeps_the_subtree_of_the_moves_played_and_drops_it_otherwise() {
    let playouts = PLAYOUTS.to_string();
    let mut engine = Engine::start_with(&["gtp", "--playouts", &playouts, "--seed", "1"]);
    gtp_ok(&mut engine, "boardsize 9");
    let (first, _) = genmove(&mut engine);
    assert_eq!(first, PLAYOUTS);
    // The same empty board again, but cleared: a fresh tree.
    gtp_ok(&mut engine, "clear_board");
    let (cleared, pv) = genmove(&mut engine);
    assert_eq!(cleared, PLAYOUTS);
    // White answers as the search expected: the root is that grandchild, with its visits.
    assert!(pv.len() >= 2, "{pv:?}");
    gtp_ok(&mut engine, &format!("play w {}", pv[1]));
    let (kept, _) = genmove(&mut engine);
    assert!(kept > PLAYOUTS + 1, "{kept}");
    // Taken back: the position is the last root's, but `undo` drops the tree.
    gtp_ok(&mut engine, "undo");
    let (undone, pv) = genmove(&mut engine);
    assert_eq!(undone, PLAYOUTS);
    // Another komi: the expected answer, but a fresh tree.
    gtp_ok(&mut engine, "komi 0.5");
    gtp_ok(&mut engine, &format!("play w {}", pv[1]));
    let (komi, pv) = genmove(&mut engine);
    assert_eq!(komi, PLAYOUTS);
    // And under the new komi the tree is kept again.
    gtp_ok(&mut engine, &format!("play w {}", pv[1]));
    let (again, _) = genmove(&mut engine);
    assert!(again > PLAYOUTS + 1, "{again}");
    gtp_ok(&mut engine, "quit");
}

#[test]
fn gtp_searches_a_move_out_of_turn_afresh() {
    // Issue 70: black to move again after black's own move is no node of the tree kept for
    // white's answer. Searched in that subtree, black played white's moves: on 2x2 a stone
    // went on a taken point and the playout board's empty list ran out (a panic).
    let playouts = PLAYOUTS.to_string();
    for size in ["2", "9"] {
        let mut engine =
            Engine::start_with(&["gtp", "--playouts", &playouts, "--seed", "1", "--no-resign"]);
        gtp_ok(&mut engine, &format!("boardsize {size}"));
        gtp_ok(&mut engine, "komi 0");
        let (first, _, _) = analysed_genmove(&mut engine);
        assert_eq!(first, PLAYOUTS, "{size}");
        let (again, _, _) = analysed_genmove(&mut engine);
        assert_eq!(again, PLAYOUTS, "{size}: black again is searched afresh");
        gtp_ok(&mut engine, "quit");
    }
}

/// Sends USI lines, then reads to `bestmove`; returns the sum of the last analysis line's
/// visits and the best move's pv.
fn usi_search(engine: &mut Engine, lines: &[&str]) -> (u64, Vec<String>) {
    for l in lines {
        engine.send(l);
    }
    let out = engine.read_until(LIMIT, |l| l.starts_with("bestmove"));
    let last = out
        .iter()
        .rev()
        .find(|l| l.starts_with("info string analysis "))
        .unwrap_or_else(|| panic!("an analysis line in {out:#?}"));
    let moves = last.split(" ownership ").next().expect("moves");
    let mut visits = 0;
    let mut pv = Vec::new();
    for (i, item) in moves.split("info move ").skip(1).enumerate() {
        visits += field(item, "visits").parse::<u64>().expect("visits");
        if i == 0 {
            pv = item
                .split(" pv ")
                .nth(1)
                .expect("a pv")
                .split_whitespace()
                .map(str::to_string)
                .collect();
        }
    }
    (visits, pv)
}

#[test]
fn usi_keeps_the_subtree_across_position_commands_as_the_match_runner_sends_them() {
    let mut engine = Engine::start();
    let empty = format!("position sfen 9 {} b moves", ["........."; 9].join("/"));
    for l in [
        "setoption name USI_Variant value go",
        "setoption name GoAnalysis value true",
        "setoption name Threads value 1",
        "isready",
    ] {
        engine.send(l);
    }
    let ready = engine.read_until(LIMIT, |l| l == "readyok");
    assert_eq!(ready.last().map(String::as_str), Some("readyok"));
    engine.send("usinewgame");
    let (first, pv) = usi_search(&mut engine, &[&format!("{empty} E5"), "go nodes 2000"]);
    // The root is expanded before the first playout: its children hold every one.
    assert_eq!(first, 2000);
    assert!(pv.len() >= 2, "{pv:?}");
    // The runner's next `position`: the whole game again, two moves longer. One new playout
    // on top of the kept subtree.
    let next = format!("{empty} E5 {} {}", pv[0], pv[1]);
    let (kept, _) = usi_search(&mut engine, &[&next, "go nodes 1"]);
    assert!(kept > 2, "{kept}");
    // The same position under another komi: afresh.
    let (komi, _) = usi_search(&mut engine, &["setoption name Komi value 13", "go nodes 1"]);
    assert_eq!(komi, 1);
    // Grown again, then a new game from the same position: afresh.
    usi_search(&mut engine, &["go nodes 1000"]);
    let (again, _) = usi_search(&mut engine, &["go nodes 1"]);
    assert!(again > 1000, "{again}");
    let (new_game, _) = usi_search(&mut engine, &["usinewgame", &next, "go nodes 1"]);
    assert_eq!(new_game, 1);
    // Grown again, then a move played and taken back: `undo` drops the tree.
    usi_search(&mut engine, &["go nodes 1000"]);
    let longer = format!("{next} {}", pv.get(2).map_or("pass", String::as_str));
    let (undone, _) = usi_search(&mut engine, &[&longer, "undo", "go nodes 1"]);
    assert_eq!(undone, 1);
    engine.send("quit");
}
