//! The NBoard protocol through the real binary, in the order NBoard sends its commands: on a
//! new game `set game`, `set depth` (and `set contempt` when not 0), then `ping N` before every
//! request, `hint N` or `go`, and `move` for each move played. Plain `ryoshi` (first line
//! `nboard 2`) and `ryoshi nboard` are both driven. NBoard itself (a Java GUI) is not in any
//! package registry, so the replies are checked against the published protocol description.

mod common;
#[path = "support/othello_games.rs"]
mod othello_games;

use common::{transcript, Engine};
use othello_games::{random_game, random_game_until};
use ryoshi::othello::ggf::{self, Record};
use ryoshi::othello::search::solve::Solver;
use ryoshi::othello::{flips, square_name, squares, Position};
use std::collections::BTreeSet;
use std::time::Duration;

/// What NBoard sends for a new game (its GGF writer, start position, no moves).
const NEW_GAME: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)";
/// The game of the protocol page's example session.
const EXAMPLE_GAME: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)";

/// Plain `ryoshi`, whose first line `nboard 2` selects the protocol.
fn session(script: &str) -> Vec<String> {
    transcript(format!("nboard 2\n{script}").as_bytes())
        .lines()
        .map(str::to_string)
        .collect()
}

/// `ryoshi nboard` on the whole script, to the end of its output.
fn subcommand(script: &str) -> Vec<String> {
    subcommand_with(&[], script)
}

/// `ryoshi nboard ARGS...` on the whole script, to the end of its output.
fn subcommand_with(args: &[&str], script: &str) -> Vec<String> {
    let mut engine = Engine::start_with(&[&["nboard"], args].concat());
    for line in script.lines() {
        engine.send(line);
    }
    engine.close_stdin();
    let mut lines = Vec::new();
    while let Some(line) = engine.next_line(Duration::from_secs(60)) {
        lines.push(line);
    }
    assert!(
        engine.wait_exit(Duration::from_secs(5)),
        "ryoshi nboard did not exit"
    );
    lines
}

#[derive(Debug)]
struct SearchLine {
    pv: String,
    eval: f64,
    depth: String,
    text: String,
}

/// `search <pv> <eval> 0 <depth> <text>`, checked field by field as NBoard reads it.
fn search_line(line: &str) -> Option<SearchLine> {
    let rest = line.strip_prefix("search ")?;
    let mut f = rest.splitn(5, ' ');
    let (pv, eval, games, depth) = (f.next()?, f.next()?, f.next()?, f.next()?);
    let text = f.next().unwrap_or("").to_string();
    assert!(
        pv.len() >= 2 && pv.len() % 2 == 0 && pv.as_bytes().chunks(2).all(is_ggf_move),
        "pv {pv} in {line}"
    );
    assert_eq!(games, "0", "{line}");
    assert!(
        eval.split_once('.').is_some_and(|(_, d)| d.len() == 2),
        "{line}"
    );
    assert!(
        depth == "100%" || depth.parse::<u32>().is_ok_and(|d| d >= 1),
        "{line}"
    );
    Some(SearchLine {
        pv: pv.to_string(),
        eval: eval.parse().ok()?,
        depth: depth.to_string(),
        text,
    })
}

fn is_ggf_move(m: &[u8]) -> bool {
    m == b"PA" || (matches!(m[0], b'A'..=b'H') && matches!(m[1], b'1'..=b'8'))
}

/// `=== <move>/<eval>/<seconds>` (or `=== PA`): the move and the evaluation.
fn move_line(line: &str) -> Option<(String, Option<f64>)> {
    let rest = line.strip_prefix("=== ")?;
    let mut f = rest.split('/');
    let mv = f.next()?.to_string();
    assert!(is_ggf_move(mv.as_bytes()), "{line}");
    let eval = f.next().map(|e| e.parse::<f64>().expect("eval"));
    if let Some(t) = f.next() {
        assert!(t.parse::<f64>().is_ok_and(|t| t >= 0.0), "{line}");
    }
    Some((mv, eval))
}

/// Every `nodestats <nodes> <seconds>` line parses.
fn nodestats(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("nodestats "))
        .map(|r| {
            let (n, t) = r.split_once(' ').expect("two fields");
            assert!(t.parse::<f64>().is_ok_and(|t| t >= 0.0), "{r}");
            n.parse().expect("node count")
        })
        .collect()
}

fn legal_names(position: &Position) -> BTreeSet<String> {
    squares(position.board.moves())
        .map(|sq| square_name(sq).to_ascii_uppercase())
        .collect()
}

/// The moves of the deepest hint lines (at depth 1 every legal move is listed once).
fn hinted_moves(lines: &[String]) -> BTreeSet<String> {
    lines
        .iter()
        .filter_map(|l| search_line(l))
        .map(|s| s.pv[..2].to_string())
        .collect()
}

fn errors(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("status error: "))
        .collect()
}

#[test]
fn startup_and_hints_as_nboard_sends_them() {
    let lines = session(&format!(
        "set game {NEW_GAME}\nset depth 4\nping 1\nhint 4\n"
    ));
    assert_eq!(
        lines[..4],
        [
            "set myname ryoshi",
            "set myname ryoshi-4",
            "pong 1",
            "status ryoshi is thinking"
        ]
    );
    assert_eq!(lines.last().unwrap(), "status ryoshi is waiting");
    let searches: Vec<SearchLine> = lines.iter().filter_map(|l| search_line(l)).collect();
    // One round of four lines per completed depth, each followed by its nodestats.
    assert_eq!(searches.len(), 16, "{lines:#?}");
    for (i, round) in searches.chunks(4).enumerate() {
        assert!(round.iter().all(|s| s.depth == (i + 1).to_string()));
        let moves: BTreeSet<&str> = round.iter().map(|s| &s.pv[..2]).collect();
        assert_eq!(moves, ["C4", "D3", "E6", "F5"].into());
        // The four first moves are mirror images: one evaluation.
        assert!(round.iter().all(|s| s.eval == round[0].eval), "{round:?}");
        assert!(round.iter().all(|s| !s.text.is_empty()));
    }
    let nodes = nodestats(&lines);
    assert_eq!(nodes.len(), 4);
    assert!(nodes.windows(2).all(|w| w[0] < w[1]), "{nodes:?}");
    assert!(errors(&lines).is_empty());
}

#[test]
fn the_protocol_pages_example_session() {
    let lines = session(&format!(
        "set game {EXAMPLE_GAME}\nset depth 6\nping 1\ngo\n"
    ));
    assert_eq!(
        lines[..3],
        ["set myname ryoshi", "set myname ryoshi-6", "pong 1"]
    );
    assert_eq!(lines[3], "status ryoshi is thinking");
    assert_eq!(lines.last().unwrap(), "status ryoshi is waiting");
    let moves: Vec<_> = lines.iter().filter_map(|l| move_line(l)).collect();
    assert_eq!(moves.len(), 1, "{lines:#?}");
    let position = ggf::parse(EXAMPLE_GAME).unwrap().position;
    assert!(legal_names(&position).contains(&moves[0].0), "{lines:#?}");
    assert!(moves[0].1.is_some());
    assert!(!nodestats(&lines).is_empty());
    // The move line comes after the thinking output and before the last status.
    let at = lines.iter().position(|l| l.starts_with("=== ")).unwrap();
    assert_eq!(at, lines.len() - 2);
}

/// A seeded random game stopped at `empties` empty squares with the side to move able to move.
fn endgame(seed: u64, empties: u32) -> Record {
    let game = random_game_until(seed, 200, |p| {
        p.board.empties().count_ones() <= empties && p.board.moves() != 0
    });
    assert_eq!(game.position.board.empties().count_ones(), empties);
    game
}

#[test]
fn endgame_hints_and_moves_are_exact() {
    for seed in [1u64, 2, 3] {
        let game = endgame(seed, 10);
        let board = game.position.board;
        // Depth 5 solves exactly from 10 empties.
        // NBoard pings before `go`, which stops running hints: two sessions.
        let lines = session(&format!(
            "set depth 5\nset game {}\nping 1\nhint 60\n",
            game.to_text()
        ));
        let go = session(&format!(
            "set depth 5\nset game {}\nping 2\ngo\n",
            game.to_text()
        ));
        let mut solver = Solver::new(16);
        // Best first, ties in square order.
        let mut scored: Vec<(i32, u32)> = squares(board.moves())
            .map(|sq| {
                let after = board.play_with(sq, flips(board.player, board.opponent, sq));
                (-solver.score(&after), sq)
            })
            .collect();
        scored.sort_by_key(|&(s, sq)| (-s, sq));
        let want: Vec<(String, f64)> = scored
            .iter()
            .map(|&(s, sq)| (square_name(sq).to_ascii_uppercase(), s as f64))
            .collect();
        let got: Vec<(String, f64)> = lines
            .iter()
            .filter_map(|l| search_line(l))
            .map(|s| {
                assert_eq!(s.depth, "100%");
                (s.pv, s.eval)
            })
            .collect();
        assert_eq!(got, want, "seed {seed}: {lines:#?}");
        let (mv, eval) = go.iter().find_map(|l| move_line(l)).expect("=== line");
        let best = want[0].1;
        assert_eq!(eval, Some(best), "seed {seed}");
        assert!(
            want.iter().any(|(m, s)| *m == mv && *s == best),
            "seed {seed}: {mv}"
        );
    }
}

#[test]
fn ping_stops_a_search_before_its_pong() {
    let mut engine = Engine::start_with(&["nboard"]);
    for line in [
        "nboard 2",
        "set depth 60",
        &format!("set game {NEW_GAME}"),
        "ping 1",
        "go",
    ] {
        engine.send(line);
    }
    engine.read_until(Duration::from_secs(10), |l| {
        l == "status ryoshi is thinking"
    });
    std::thread::sleep(Duration::from_millis(300));
    engine.send("ping 2");
    let seen = engine.read_until(Duration::from_secs(10), |l| l == "pong 2");
    assert!(!seen.iter().any(|l| l.starts_with("=== ")), "{seen:#?}");
    assert!(seen.contains(&"status ryoshi is waiting".to_string()));
    // NBoard during hints: the user plays a move, then ping, then new hints.
    engine.send("hint 3");
    engine.read_until(Duration::from_secs(10), |l| {
        l == "status ryoshi is thinking"
    });
    for line in ["move F5", "ping 3", "set depth 1", "hint 5"] {
        engine.send(line);
    }
    engine.read_until(Duration::from_secs(10), |l| l == "pong 3");
    let after = engine.read_until(Duration::from_secs(10), |l| l == "status ryoshi is waiting");
    let after_f5 = Position::START.play(37).unwrap();
    assert_eq!(hinted_moves(&after), legal_names(&after_f5), "{after:#?}");
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(5)));
}

#[test]
fn quit_ends_a_running_search_at_once() {
    let mut engine = Engine::start_with(&["nboard"]);
    for line in ["nboard 2", "set depth 60", "hint 10"] {
        engine.send(line);
    }
    engine.read_until(Duration::from_secs(10), |l| {
        l == "status ryoshi is thinking"
    });
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(5)));
}

#[test]
fn a_refused_game_leaves_no_position_until_one_is_accepted() {
    let bad = [
        ("", "starts with '(;'"),
        ("(;GM[Othello]BO[8 ---];)", "squares"),
        ("(;GM[Chess];)", "not an Othello game"),
        ("(;GM[Othello]TY[10];)", "8x8"),
        ("(;GM[Othello]TY[8a];)", "TY[8a]: anti-Othello"),
        (
            "(;GM[Othello]B[F5]W[F6]B[A1];)",
            "move 3: B[A1]: illegal move A1",
        ),
        (
            "(;GM[Othello]B[F5]B[F6];)",
            "move 2: B[F6] but white is to move",
        ),
        ("(;GM[Othello]B[F5]W[Q9];)", "move 2: bad move 'Q9'"),
        ("(;GM[Othello]B[F5]", "ends before ';)'"),
        ("(;GM[Othello]B[F5];) (;", "ends with ';)'"),
    ];
    // NBoard after each new position: `set game`, then `ping` and a request. A refused game
    // must not be answered with the previous position's move or hints (NBoard would draw them
    // on the new board, or call the move illegal).
    let mut script = format!("set game {EXAMPLE_GAME}\nset depth 1\n");
    for (i, (text, _)) in bad.iter().enumerate() {
        script.push_str(&format!("set game {text}\nping {i}\ngo\nhint 3\nmove F5\n"));
    }
    script.push_str(&format!("set game {EXAMPLE_GAME}\nping 100\nhint 60\n"));
    let lines = session(&script);
    let errs = errors(&lines);
    assert_eq!(errs.len(), 4 * bad.len(), "{lines:#?}");
    for (round, (_, want)) in errs.chunks(4).zip(bad) {
        assert!(
            round[0].starts_with("status error: set game: "),
            "{round:?}"
        );
        assert!(round[0].contains(want), "{} lacks {want}", round[0]);
        for (line, command) in round[1..].iter().zip(["go", "hint", "move"]) {
            let want = format!("status error: {command}: no game, the last set game was refused");
            assert!(line.starts_with(&want), "{line}");
        }
    }
    assert!(!lines.iter().any(|l| l.starts_with("=== ")), "{lines:#?}");
    // Nothing but the errors before the game is accepted again, then hints for it.
    let accepted = lines.iter().position(|l| l == "pong 100").unwrap();
    assert!(lines[..accepted].iter().all(|l| !l.starts_with("search ")));
    let game = ggf::parse(EXAMPLE_GAME).unwrap().position;
    assert_eq!(hinted_moves(&lines[accepted..]), legal_names(&game));
}

/// NBoard's text of `game` as its GGF writer makes it on a system whose locale writes a
/// decimal comma (German): `OsMoveListItem.toString` formats the eval with `%3.2f` in that
/// locale and the time with `Double.toString`.
fn german_ggf(game: &Record) -> String {
    let mut text = String::from("(;GM[Othello]PC[NBoard]DT[2026-12-01 15:52:27 GMT]PB[Mensch]PW[ryoshi]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]");
    for (black, item) in &game.moves {
        let square = item
            .square
            .map_or("PA".to_string(), |sq| square_name(sq).to_ascii_uppercase());
        text.push_str(if *black { "B[" } else { "W[" });
        text.push_str(&square);
        let time = item.time.filter(|t| *t != 0.0);
        if item.eval.is_some() || time.is_some() {
            text.push('/');
            if let Some(e) = item.eval {
                text.push_str(&format!("{e:.2}").replace('.', ","));
            }
            if let Some(t) = time {
                text.push_str(&format!("/{t:?}"));
            }
        }
        text.push(']');
    }
    text.push_str(";)");
    text
}

#[test]
fn a_game_from_a_german_nboard_is_read() {
    // The repro first: the eval of D3 written `-0,22`.
    let repro = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[D3/-0,22]W[C3//1.5];)";
    let lines = session(&format!("set game {repro}\nset depth 2\nping 2\ngo\n"));
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let after = Position::START.play(19).unwrap().play(18).unwrap();
    let moves: Vec<_> = lines.iter().filter_map(|l| move_line(l)).collect();
    assert_eq!(moves.len(), 1, "{lines:#?}");
    assert!(legal_names(&after).contains(&moves[0].0), "{lines:#?}");
    // Whole games with evals and times on every move, as NBoard sends them move after move.
    for seed in 0..6 {
        let game = random_game(seed, 20 + 7 * seed as usize);
        let text = german_ggf(&game);
        assert!(text.contains(','), "{text}");
        let lines = session(&format!("set game {text}\nset depth 1\nping 1\nhint 60\n"));
        assert!(errors(&lines).is_empty(), "seed {seed}: {lines:#?}");
        if game.position.board.moves() != 0 {
            assert_eq!(
                hinted_moves(&lines),
                legal_names(&game.position),
                "seed {seed}"
            );
        }
    }
    // `move` with a comma eval, as NBoard sends the engine's and the user's moves.
    let lines = session("set depth 1\nmove F5/0,00/2.5\nmove D6/-1,25\nping 1\nhint 60\n");
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let after = Position::START.play(37).unwrap().play(43).unwrap();
    assert_eq!(hinted_moves(&lines), legal_names(&after));
}

#[test]
fn a_set_up_board_with_an_empty_centre_square_is_played() {
    // NBoard's set-up window can clear a centre square: D4 empty, white to move.
    let text = "(;GM[Othello]PC[NBoard]TY[8]BO[8 -------------------*--------*------*O--------------------------- O];)";
    let position = ggf::parse(text).unwrap().position;
    assert_eq!(position.board.empties().count_ones(), 60);
    let lines = session(&format!("set game {text}\nset depth 3\nping 1\nhint 60\n"));
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    assert_eq!(hinted_moves(&lines), legal_names(&position));
    let lines = session(&format!("set game {text}\nset depth 3\nping 1\ngo\n"));
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let moves: Vec<_> = lines.iter().filter_map(|l| move_line(l)).collect();
    assert!(legal_names(&position).contains(&moves[0].0), "{lines:#?}");
}

#[test]
fn analyze_scores_every_position_of_the_game() {
    // A seeded game played to 10 empties: with depth 8 (exact from 16 empties) the positions
    // at 16 empties or fewer are solved exactly, so the solver is the oracle for them.
    let game = endgame(7, 10);
    let lines = session(&format!(
        "set game {}\nset depth 8\nping 1\nanalyze\n",
        game.to_text()
    ));
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let analysis: Vec<(usize, f64)> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("analysis "))
        .map(|r| {
            let (n, e) = r.split_once(' ').expect("two fields");
            assert!(e.split_once('.').is_some_and(|(_, d)| d.len() == 2), "{r}");
            (n.parse().expect("moves made"), e.parse().expect("eval"))
        })
        .collect();
    // From the last position back to the start, one line each (passes count as moves).
    let made: Vec<usize> = analysis.iter().map(|(n, _)| *n).collect();
    let want: Vec<usize> = (0..=game.moves.len()).rev().collect();
    assert_eq!(made, want, "{lines:#?}");
    let mut position = game.start;
    let mut positions = vec![position];
    for (_, item) in &game.moves {
        position = match item.square {
            Some(sq) => position.play(sq).unwrap(),
            None => position.pass(),
        };
        positions.push(position);
    }
    let mut solver = Solver::new(18);
    let mut exact = 0;
    for (n, eval) in &analysis {
        let board = positions[*n].board;
        if board.empties().count_ones() <= 16 {
            let truth = if board.moves() == 0 {
                -solver.score(&board.pass())
            } else {
                solver.score(&board)
            };
            // Black's point of view, as NBoard plots it.
            let truth = if positions[*n].black_to_move {
                truth
            } else {
                -truth
            };
            assert_eq!(*eval, truth as f64, "position {n}");
            exact += 1;
        }
    }
    assert!(exact >= 7, "{exact}");
    assert_eq!(lines[lines.len() - 1], "status ryoshi is waiting");
    // After a refused game there is nothing to analyze.
    let lines = session("set game (;GM[Chess];)\nanalyze\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("status error: analyze: no game")),
        "{lines:#?}"
    );
}

/// NBoard's game after F5 D6 C3 D3 C4, as it sends it: the white move carries the eval its
/// engine gave, for white (`W[D6/-4.00/0.01]`), as the record had it.
const ANALYZED_GAME: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6/-4.00/0.01]B[C3]W[D3]B[C4];)";

/// `analysis <n> <eval>` lines, in the order sent.
fn analysis_lines(lines: &[String]) -> Vec<(usize, f64)> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("analysis "))
        .map(|r| {
            let (n, e) = r.split_once(' ').expect("two fields");
            (n.parse().expect("moves made"), e.parse().expect("eval"))
        })
        .collect()
}

/// The eval `go` gives (for the side to move) at the position after the first `made` moves of
/// [`ANALYZED_GAME`].
fn go_eval_after(made: usize) -> f64 {
    let items = ["B[F5]", "W[D6/-4.00/0.01]", "B[C3]", "W[D3]", "B[C4]"];
    let prefix = ANALYZED_GAME.split("B[F5]").next().unwrap();
    let game = format!("{prefix}{};)", items[..made].concat());
    let lines = session(&format!("set game {game}\nset depth 6\nping 1\ngo\n"));
    let (_, eval) = lines
        .iter()
        .find_map(|l| move_line(l))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    eval.expect("an eval")
}

#[test]
fn analysis_is_black_s_view_while_go_is_the_movers() {
    // NBoard's bytes for "Analyze game": set game, set depth, ping, analyze. NBoard plots the
    // analysis points as they come, and its reference engine sends black's view; `go` and
    // `hint` stay for the side to move (NBoard negates white's move evals itself).
    let lines = session(&format!(
        "set game {ANALYZED_GAME}\nset depth 6\nping 1\nanalyze\n"
    ));
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let analysis = analysis_lines(&lines);
    assert_eq!(
        analysis.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [5, 4, 3, 2, 1, 0],
        "{lines:#?}"
    );
    for (made, eval) in analysis {
        let mover = go_eval_after(made);
        // Black moves at even counts here (no passes).
        let black_view = if made % 2 == 0 { mover } else { -mover };
        assert_eq!(eval, black_view, "position {made}: {lines:#?}");
    }
}

#[test]
fn analyze_evals_go_into_the_record() {
    let path =
        std::env::temp_dir().join(format!("ryoshi-nboard-record-{}.ggf", std::process::id()));
    let lines = session(&format!(
        "set game {ANALYZED_GAME}\nset depth 6\nping 1\nanalyze\nrecord\nrecord {}\nrecord /nonexistent-dir/x.ggf\n",
        path.display()
    ));
    let analysis = analysis_lines(&lines);
    let printed = lines
        .iter()
        .find(|l| l.starts_with("(;GM[Othello]"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        lines.contains(&format!("status record written to {}", path.display())),
        "{lines:#?}"
    );
    let written = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(written.trim_end(), printed);
    // One error for the file that cannot be written, and the session goes on.
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1, "{lines:#?}");
    assert!(errs[0].starts_with("status error: record: cannot write '/nonexistent-dir/x.ggf'"));
    // Read back: the tags NBoard sent are kept, each move carries the eval analyze found at
    // the position it was played from, for its mover (GGF's, so white's is negated from the
    // black's-view analysis line), and NBoard's time stays.
    let record = ryoshi::othello::record::read_ggf(printed).unwrap();
    assert_eq!(record.tags.players[0].as_deref(), Some("./mEdax"));
    assert_eq!(record.tags.get("TI"), Some("15:00"));
    assert_eq!(record.moves.len(), 5);
    for (made, black_view) in analysis.iter().filter(|(n, _)| *n < 5) {
        let mover = if made % 2 == 0 {
            *black_view
        } else {
            -black_view
        };
        let note = record.note(*made);
        let eval: f64 = note.split('/').next().unwrap().parse().unwrap();
        assert_eq!(eval, mover, "move {made}: {note} in {printed}");
        assert_eq!(
            note.split('/').nth(1),
            (*made == 1).then_some("0.01"),
            "{note}"
        );
    }
}

#[test]
fn go_keeps_within_the_clock_of_the_game() {
    // Depth 60 from the start would search for hours; the game gives black two seconds
    // (`TB`, as NBoard writes clocks that differ), so `go` answers within its share of them.
    // The bound is generous (a loaded machine), the point is that the clock is obeyed at all.
    let game = "(;GM[Othello]PC[NBoard]PB[ryoshi]PW[user]RE[?]TB[0:02]TW[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//0.5]W[D6//30.0];)";
    let mut engine = Engine::start_with(&["nboard"]);
    for line in [
        "nboard 2",
        &format!("set game {game}"),
        "set depth 60",
        "ping 1",
        "go",
    ] {
        engine.send(line);
    }
    let started = std::time::Instant::now();
    let seen = engine.read_until(Duration::from_secs(30), |l| l.starts_with("=== "));
    let took = started.elapsed();
    let (mv, _) = move_line(seen.last().expect("a reply")).expect("=== line");
    let position = ggf::parse(game).unwrap().position;
    assert!(legal_names(&position).contains(&mv), "{seen:#?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(5)));
}

#[test]
fn an_untimed_game_searches_to_its_depth() {
    // NBoard's GGF writer gives a game without a clock as `TI[0]`; its own engines read that
    // as no clock. With 16 empties and depth 8 the move must be the exact solve's, eval an
    // integer, as without a `TI` at all; a 10 ms budget would leave a midgame estimate.
    let mut solver = Solver::new(16);
    for seed in [4u64, 5] {
        let game = endgame(seed, 16);
        let text = game.to_text();
        let nboard = text.replace(
            "(;GM[Othello]PC[ryoshi]",
            "(;GM[Othello]PC[NBoard]DT[2026-12-07 18:30:00 GMT]PB[ryoshi]PW[chris]RE[?]TI[0]",
        );
        assert!(nboard.contains("TI[0]TY[8]BO[8 "), "{nboard}");
        let board = game.position.board;
        let best = squares(board.moves())
            .map(|sq| -solver.score(&board.play_with(sq, flips(board.player, board.opponent, sq))))
            .max()
            .unwrap();
        for set_game in [nboard, text] {
            let lines = session(&format!("set game {set_game}\nset depth 8\nping 1\ngo\n"));
            let (mv, eval) = lines.iter().find_map(|l| move_line(l)).expect("=== line");
            assert_eq!(eval, Some(f64::from(best)), "seed {seed}: {lines:#?}");
            let sq = squares(board.moves())
                .find(|&sq| square_name(sq).eq_ignore_ascii_case(&mv))
                .expect("a legal move");
            let after = board.play_with(sq, flips(board.player, board.opponent, sq));
            assert_eq!(-solver.score(&after), best, "seed {seed}: {mv}");
        }
    }
}

/// A seeded game that contains a pass (a `PA` item).
fn game_with_pass() -> Record {
    (0..)
        .map(|seed| random_game(seed, 200))
        .find(|g| g.moves.iter().any(|(_, m)| m.square.is_none()))
        .unwrap()
}

#[test]
fn passes_in_the_game_explicit_or_left_out() {
    let full = game_with_pass();
    let pass_at = full
        .moves
        .iter()
        .position(|(_, m)| m.square.is_none())
        .unwrap();
    // The game up to a few moves after the pass, with the PA item and without it.
    let upto = (pass_at + 3).min(full.moves.len() - 1);
    let explicit = Record {
        moves: full.moves[..upto].to_vec(),
        ..full.clone()
    };
    let implied = Record {
        moves: explicit
            .moves
            .iter()
            .copied()
            .filter(|(_, m)| m.square.is_some())
            .collect(),
        ..full.clone()
    };
    let position = ggf::parse(&explicit.to_text()).unwrap().position;
    for game in [&explicit, &implied] {
        let lines = session(&format!(
            "set depth 1\nset game {}\nping 1\nhint 60\n",
            game.to_text()
        ));
        assert!(errors(&lines).is_empty(), "{lines:#?}");
        if position.board.moves() != 0 {
            assert_eq!(hinted_moves(&lines), legal_names(&position));
        }
    }
    // At the pass itself: the side to move has no move, so `go` passes and `hint` says so.
    let at_pass = Record {
        moves: full.moves[..pass_at].to_vec(),
        ..full.clone()
    };
    let text = at_pass.to_text();
    let lines = session(&format!(
        "set depth 2\nset game {text}\nping 1\ngo\nhint 3\n"
    ));
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let moves: Vec<_> = lines.iter().filter_map(|l| move_line(l)).collect();
    assert_eq!(moves, [("PA".to_string(), None)]);
    let pass_hints: Vec<SearchLine> = lines.iter().filter_map(|l| search_line(l)).collect();
    assert!(!pass_hints.is_empty() && pass_hints.iter().all(|s| s.pv == "PA"));
    // After NBoard's `move PA` the opponent moves.
    let lines = session(&format!(
        "set depth 2\nset game {text}\nmove PA\nping 2\ngo\n"
    ));
    let moves: Vec<_> = lines.iter().filter_map(|l| move_line(l)).collect();
    let after_pass = ggf::parse(&text).unwrap().position.pass();
    assert_eq!(moves.len(), 1, "{lines:#?}");
    assert!(legal_names(&after_pass).contains(&moves[0].0), "{lines:#?}");
}

#[test]
fn a_finished_game_gets_no_move() {
    let game = (0..)
        .map(|seed| random_game(seed, 200))
        .find(|g| g.position.board.is_game_over())
        .unwrap();
    let lines = session(&format!(
        "set depth 3\nset game {}\nping 1\ngo\nhint 2\nmove A1\nmove PA\nping 2\n",
        game.to_text()
    ));
    let errs = errors(&lines);
    assert_eq!(errs.len(), 4, "{lines:#?}");
    assert!(errs[0].contains("go: the game is over"));
    assert!(errs[1].contains("hint: the game is over"));
    assert!(errs[2..].iter().all(|e| e.contains("the game is over")));
    assert!(!lines
        .iter()
        .any(|l| l.starts_with("=== ") || l.starts_with("search ")));
    assert_eq!(lines.last().unwrap(), "pong 2");
    // A move added after the end is refused as such, whichever colour it is written in (the
    // colour out of turn was said to be the mistake).
    let text = game.to_text();
    let open = text.strip_suffix(";)").unwrap();
    let lines = session(&format!(
        "set game {open}B[A1];)\nset game {open}W[A1];)\nset\n"
    ));
    let errs = errors(&lines);
    assert_eq!(errs.len(), 3, "{lines:#?}");
    assert!(
        errs[..2]
            .iter()
            .all(|e| e.ends_with("[A1]: the game is over")),
        "{errs:?}"
    );
    assert_eq!(
        errs[2],
        "status error: set: which setting? (game, depth, contempt)"
    );
}

#[test]
fn a_set_game_too_long_to_read_is_refused_as_any_refused_game() {
    // The line over the cap was refused, but the game before it stayed: `go` answered for a
    // position NBoard no longer showed.
    let long = format!("(;GM[Othello]C[{}];)", "x".repeat(4 << 20));
    let lines = session(&format!(
        "set depth 1\nset game {EXAMPLE_GAME}\nset game {long}\nping 1\ngo\n"
    ));
    let errs = errors(&lines);
    assert_eq!(errs.len(), 2, "{lines:#?}");
    assert!(errs[0].contains("line longer than"), "{errs:?}");
    assert!(errs[1].starts_with("status error: go: no game"), "{errs:?}");
    assert!(!lines.iter().any(|l| l.starts_with("=== ")), "{lines:#?}");
}

#[test]
fn moves_one_by_one() {
    let lines = session(
        "set depth 1\nmove F5\nmove d6/-0.50/1.5\nC3\nmove A1\nmove PA\nmove Q9/1\nping 1\nhint 60\n",
    );
    let errs = errors(&lines);
    assert_eq!(errs.len(), 3, "{lines:#?}");
    assert!(
        errs[0].contains("illegal move A1 for white (legal: "),
        "{}",
        errs[0]
    );
    assert!(errs[1].contains("white cannot pass"), "{}", errs[1]);
    assert!(errs[2].contains("bad move 'Q9/1'"), "{}", errs[2]);
    let mut position = Position::START;
    for sq in ["f5", "d6", "c3"] {
        position = position
            .play(ryoshi::othello::position::parse_square(sq).unwrap())
            .unwrap();
    }
    assert_eq!(hinted_moves(&lines), legal_names(&position));
}

#[test]
fn every_bad_line_gets_one_error_and_the_engine_goes_on() {
    let long = "x".repeat(ryoshi::protocol::lines::MAX_LINE_BYTES + 10);
    let bad = [
        "set depth 0",
        "set depth 61",
        "set depth x",
        "set contempt 100000",
        "set time 5",
        "ping",
        "ping x",
        "hint 0",
        "hint x",
        "go now",
        "analyze now",
        "nboard",
        "\u{1b}[2J",
        long.as_str(),
    ];
    let mut script = String::from("set contempt 50\nlearn\n");
    for b in bad {
        script.push_str(b);
        script.push('\n');
    }
    let mut input = format!("nboard 2\n{script}").into_bytes();
    input.extend_from_slice(b"\xff\xfe\n\nping 9\n");
    let out = transcript(&input);
    let lines: Vec<String> = out.lines().map(str::to_string).collect();
    assert_eq!(lines[..2], ["set myname ryoshi", "learned"]);
    // One error per bad line (the invalid UTF-8 line is an unknown command), nothing else.
    assert_eq!(errors(&lines).len(), bad.len() + 1, "{lines:#?}");
    assert_eq!(lines.len(), 2 + bad.len() + 1 + 1);
    assert_eq!(lines.last().unwrap(), "pong 9");
    assert!(lines.iter().all(|l| l.len() < 300));
}

#[test]
fn the_subcommand_and_the_first_line_agree() {
    let script =
        "nboard 2\nset depth 3\nset contempt 0\nping 1\nlearn\nmove F5\nset game x\nping 2\n";
    let plain: Vec<String> = transcript(script.as_bytes())
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(subcommand(script), plain);
    assert_eq!(
        plain,
        [
            "set myname ryoshi",
            "set myname ryoshi-3",
            "pong 1",
            "learned",
            "status error: set game: a GGF game starts with '(;'",
            "pong 2"
        ]
    );
}

#[test]
fn a_long_first_line_is_read_whole_by_either_loop() {
    // The first-line look stops at 4 KiB; the chosen loop still gets the whole line.
    let comment = format!("# {}\n", "nboard ".repeat(1000));
    let usi = format!("{comment}setoption name USI_Variant value othello\nmoves\n");
    assert_eq!(transcript(usi.as_bytes()).trim(), "d3 c4 f5 e6");
    let long_version = format!("nboard {}\nping 1\n", "2".repeat(5000));
    let lines: Vec<String> = transcript(long_version.as_bytes())
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("status error: nboard expects a protocol version"));
    assert_eq!(lines[1], "pong 1");
}

#[test]
fn usi_is_unchanged_when_the_first_line_is_not_nboard() {
    let out = transcript(
        b"setoption name USI_Variant value othello\nposition startpos moves f5\nmoves\n",
    );
    assert_eq!(out.trim(), "f4 d6 f6");
}

#[test]
fn the_readme_example_shows_hints_and_a_move() {
    let readme = include_str!("../README.md");
    let line = readme
        .lines()
        .find(|l| l.trim_end().ends_with("| cargo run --release -q -- nboard"))
        .expect("README has the NBoard example");
    let script = line
        .split_once("printf '")
        .and_then(|(_, r)| r.split_once("' |"))
        .expect("a printf example")
        .0
        .replace("\\n", "\n");
    let lines = subcommand(&script);
    assert!(errors(&lines).is_empty(), "{lines:#?}");
    let hints: Vec<SearchLine> = lines.iter().filter_map(|l| search_line(l)).collect();
    assert!(hints.iter().any(|s| s.depth == "4"), "{lines:#?}");
    let (mv, _) = lines.iter().find_map(|l| move_line(l)).expect("=== line");
    // `go` plays the best move of the deepest hint.
    let best = hints.iter().find(|s| s.depth == "4").unwrap();
    assert_eq!(mv, best.pv[..2]);
}

#[test]
fn a_closed_stdout_ends_a_deep_search() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    // The GUI is gone (its end of our stdout closed) but stdin stays open: the search's next
    // line fails to be written and ryoshi exits instead of thinking on for nobody.
    let mut child = Command::new(common::BIN)
        .arg("nboard")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ryoshi");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "nboard 2\nset depth 60\nhint 5").unwrap();
    stdin.flush().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first.trim(), "set myname ryoshi");
    drop(out);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(stdin);
    assert!(status.is_some(), "ryoshi kept running with nobody reading");
}

#[test]
fn a_flood_of_commands_behind_a_search_is_answered_in_order() {
    // More commands than ryoshi queues behind a search: the rest wait unread, none is lost.
    let mut script = String::from("set depth 9\nping 1\nhint 4\n");
    for _ in 0..3000 {
        script.push_str("learn\n");
    }
    script.push_str("ping 2\n");
    let lines = session(&script);
    let first_learned = lines.iter().position(|l| l == "learned").unwrap();
    let searches = lines.iter().filter(|l| l.starts_with("search ")).count();
    assert_eq!(searches, 4 * 9, "{:#?}", &lines[..first_learned]);
    assert_eq!(lines[first_learned - 1], "status ryoshi is waiting");
    assert!(lines[first_learned..first_learned + 3000]
        .iter()
        .all(|l| l == "learned"));
    assert_eq!(lines[first_learned + 3000..], ["pong 2"]);
}

#[test]
fn nboard_threads_solve_endgames_exactly() {
    // `ryoshi nboard --threads 2`: depth 9 solves from 18 empties, on two threads (from 16).
    for seed in [4u64, 5, 6] {
        let game = random_game_until(seed, 200, |p| {
            p.board.empties().count_ones() <= 18 && p.board.moves() != 0
        });
        let board = game.position.board;
        let lines = subcommand_with(
            &["--threads", "2"],
            &format!(
                "nboard 2\nset depth 9\nset game {}\nping 1\ngo\n",
                game.to_text()
            ),
        );
        let mut solver = Solver::new(20);
        let scored: Vec<(String, i32)> = squares(board.moves())
            .map(|sq| {
                let after = board.play_with(sq, flips(board.player, board.opponent, sq));
                (square_name(sq).to_ascii_uppercase(), -solver.score(&after))
            })
            .collect();
        let best = scored.iter().map(|&(_, s)| s).max().unwrap();
        let (mv, eval) = lines.iter().find_map(|l| move_line(l)).expect("=== line");
        assert_eq!(eval, Some(best as f64), "seed {seed}: {lines:#?}");
        assert!(
            scored.iter().any(|(m, s)| *m == mv && *s == best),
            "seed {seed}: {mv}"
        );
    }
}
