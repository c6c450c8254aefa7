//! `go mate` through the real binary: one `checkmate` line for every request, found mates that
//! replay to a king capture, `nomate`, `timeout` on the clock and on `stop`, `isready` during
//! the search, and `notimplemented` in Othello and Go.

mod common;
use common::{transcript, Engine};
use std::time::Duration;

const LONG: Duration = Duration::from_secs(20);

fn checkmates(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("checkmate")).collect()
}

#[test]
fn answers_each_request_with_one_checkmate_line() {
    let out = transcript(
        b"position sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1\n\
          go mate 5000\n\
          position startpos\n\
          go mate 5000\n\
          position sfen 9/kp7/g8/llG6/9/9/PPPPPPPPP/9/LNS1KGSNL b RB15Q~ 1\n\
          go mate 1\n\
          go mate 20000\n",
    );
    let answers = checkmates(&out);
    assert_eq!(
        answers[..3],
        [
            "checkmate G*5b 5a5b 5c5b",
            "checkmate nomate",
            "checkmate timeout"
        ],
        "{out}"
    );
    // A mate search answers as soon as it knows: here a 7-ply line.
    assert_eq!(answers.len(), 4, "{out}");
    let line: Vec<&str> = answers[3].split_whitespace().skip(1).collect();
    assert_eq!(line.len(), 7, "{out}");
    assert!(!out.contains("bestmove"), "{out}");
}

#[test]
fn the_mate_line_replays_to_a_king_capture() {
    let start = "position sfen 9/kp7/g8/llG6/9/9/PPPPPPPPP/9/LNS1KGSNL b RB15Q~ 1";
    let out = transcript(format!("{start}\ngo mate 20000\n").as_bytes());
    let answer = checkmates(&out)[0].to_string();
    let line = answer.strip_prefix("checkmate ").unwrap();
    let out = transcript(format!("{start} moves {line}\nd\n").as_bytes());
    assert!(out.contains("winner: b (king capture)"), "{out}");
}

#[test]
fn stop_and_isready_act_during_the_search() {
    let mut engine = Engine::start();
    // Gote's king has shelter enough that the search runs on.
    engine.send("position sfen 9/2k6/s2g5/9/9/9/PPPPPPPPP/9/LN1GKGSNL b RBS17Q~ 1");
    engine.send("go mate infinite");
    engine.send("isready");
    let lines = engine.read_until(LONG, |l| l == "readyok");
    assert_eq!(lines, ["readyok"]);
    // The search takes seconds here; stopped at once (no sleep that a faster machine would
    // outrun), it can only answer timeout.
    engine.send("stop");
    let lines = engine.read_until(LONG, |l| l.starts_with("checkmate"));
    assert_eq!(lines, ["checkmate timeout"]);
    // A queued command waits for the answer, and an infinite mate search is stopped by it.
    engine.send("go mate infinite");
    engine.send("moves");
    let lines = engine.read_until(LONG, |l| !l.starts_with("checkmate"));
    assert_eq!(lines[0], "checkmate timeout");
    assert!(lines[1].contains("R*5e"), "{lines:?}");
}

#[test]
fn othello_and_go_answer_notimplemented() {
    for variant in ["othello", "go"] {
        let out = transcript(
            format!("setoption name USI_Variant value {variant}\ngo mate 100\nisready\n")
                .as_bytes(),
        );
        assert_eq!(
            out.lines().collect::<Vec<_>>(),
            ["checkmate notimplemented", "readyok"]
        );
    }
}

#[test]
fn a_bad_limit_is_an_error() {
    let out = transcript(b"go mate soon\n");
    assert!(out.starts_with("info string error:"), "{out}");
    assert!(checkmates(&out).is_empty());
}
