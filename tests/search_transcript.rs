//! The search as a GUI sees it: `go` in its forms, `stop`, `isready` mid-search, `ponderhit`,
//! `gameover`, EOF, exactly one `bestmove` per `go`, and reproducible fixed-depth/node searches.

mod common;
use common::{transcript, Engine};
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(20);

fn bestmoves(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("bestmove")).collect()
}

fn legal_moves(position: &str) -> Vec<String> {
    let out = transcript(format!("{position}\nmoves\n").as_bytes());
    out.lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The line before each bestmove is a numeric info line whose pv starts with the bestmove.
fn check_final_info(out: &str) {
    let lines: Vec<&str> = out.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(best) = line.strip_prefix("bestmove ") {
            let best = best.split_whitespace().next().unwrap();
            let info = lines[i - 1];
            assert!(info.starts_with("info depth "), "{info}");
            let score: Vec<&str> = info
                .split_whitespace()
                .skip_while(|t| *t != "score")
                .take(3)
                .collect();
            assert!(score[1] == "cp" || score[1] == "mate", "{info}");
            assert!(score[2].parse::<i32>().is_ok(), "{info}");
            for key in ["nodes", "nps", "time"] {
                assert!(
                    info.split_whitespace().any(|t| t == key),
                    "{key} missing: {info}"
                );
            }
            if best != "resign" {
                let pv: Vec<&str> = info
                    .split_whitespace()
                    .skip_while(|t| *t != "pv")
                    .skip(1)
                    .collect();
                assert_eq!(pv.first(), Some(&best), "{info}");
            }
        }
    }
}

#[test]
fn go_with_clocks_plays_a_legal_move_with_a_numeric_final_info() {
    let position = "position startpos moves 7g7f 3c3d";
    let out = transcript(format!("{position}\ngo btime 2000 wtime 2000 byoyomi 200\n").as_bytes());
    let best = bestmoves(&out);
    assert_eq!(best.len(), 1, "{out}");
    let mv = best[0].split_whitespace().nth(1).unwrap();
    assert!(
        legal_moves(position).iter().any(|m| m == mv),
        "{mv} is not legal: {out}"
    );
    check_final_info(&out);
}

#[test]
fn bare_go_answers_by_itself() {
    let mut e = Engine::start();
    e.send("position startpos");
    let t0 = Instant::now();
    e.send("go");
    let lines = e.read_until(LONG, |l| l.starts_with("bestmove"));
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t0.elapsed()
    );
    check_final_info(&lines.join("\n"));
}

#[test]
fn isready_during_infinite_search_then_stop() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    // The search is under way once it reports (a handshake, not a sleep).
    let mut lines = e.read_until(LONG, |l| l.starts_with("info depth"));
    e.send("isready");
    lines.extend(e.read_until(LONG, |l| l == "readyok"));
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    // No bestmove comes by itself.
    if let Some(l) = e.next_line(Duration::from_millis(700)) {
        assert!(!l.starts_with("bestmove"), "{l}");
        lines.push(l);
    }
    e.send("stop");
    lines.extend(e.read_until(LONG, |l| l.starts_with("bestmove")));
    // The whole stream: the final info line may be the last progress line, sent before `stop`.
    check_final_info(&lines.join("\n"));
    e.send("stop"); // double stop: ignored
    e.send("isready");
    let after = e.read_until(LONG, |l| l == "readyok");
    assert_eq!(
        after,
        vec!["readyok"],
        "a second stop must not give a second bestmove"
    );
}

#[test]
fn stop_when_idle_is_ignored() {
    let out = transcript(b"stop\nstop\nisready\n");
    assert_eq!(out, "readyok\n");
}

#[test]
fn go_while_a_timed_search_runs_waits_and_both_answer() {
    let out = transcript(b"position startpos\ngo movetime 300\ngo movetime 300\nisready\n");
    assert_eq!(bestmoves(&out).len(), 2, "{out}");
    check_final_info(&out);
}

#[test]
fn a_command_during_an_infinite_search_stops_it_first() {
    let out =
        transcript(b"position startpos\ngo infinite\nposition startpos moves 7g7f\ngo depth 1\n");
    assert_eq!(bestmoves(&out).len(), 2, "{out}");
    check_final_info(&out);
}

#[test]
fn eof_during_searches_exits_cleanly_with_one_bestmove_each() {
    // transcript() asserts a clean exit with quiet stderr.
    assert_eq!(
        bestmoves(&transcript(b"position startpos\ngo movetime 200\n")).len(),
        1
    );
    assert_eq!(
        bestmoves(&transcript(b"position startpos\ngo infinite\n")).len(),
        1
    );
    assert_eq!(
        bestmoves(&transcript(b"position startpos\ngo ponder\n")).len(),
        1
    );
    assert_eq!(
        bestmoves(&transcript(b"position startpos\ngo infinite\nquit\n")).len(),
        1
    );
}

#[test]
fn gameover_stops_the_search_and_the_engine_goes_on() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.read_until(LONG, |l| l.starts_with("info depth"));
    e.send("gameover");
    e.read_until(LONG, |l| l.starts_with("bestmove"));
    e.send("gameover lose");
    e.send("isready");
    assert_eq!(e.read_until(LONG, |l| l == "readyok"), vec!["readyok"]);
}

#[test]
fn ponder_waits_for_ponderhit_then_runs_on_the_clock() {
    let mut e = Engine::start();
    e.send("position startpos moves 7g7f");
    e.send("go ponder btime 1000 wtime 1000 byoyomi 300");
    assert!(
        e.next_line(Duration::from_millis(800))
            .is_none_or(|l| !l.starts_with("bestmove")),
        "no bestmove while pondering"
    );
    let t0 = Instant::now();
    e.send("ponderhit");
    e.read_until(LONG, |l| l.starts_with("bestmove"));
    assert!(t0.elapsed() < Duration::from_secs(5));
    // ponderhit with fresh clocks.
    e.send("go ponder btime 1000 wtime 1000");
    e.read_until(LONG, |l| l.starts_with("info depth"));
    e.send("ponderhit btime 500 wtime 500 byoyomi 100");
    let lines = e.read_until(LONG, |l| l.starts_with("bestmove"));
    check_final_info(&lines.join("\n"));
}

#[test]
fn fixed_depth_and_node_searches_are_reproducible() {
    let script = b"position startpos moves 7g7f 3c3d 2g2f\ngo depth 2\nusinewgame\ngo nodes 3000\n";
    // Everything but the clock readings must repeat exactly.
    let strip = |out: String| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("bestmove") || l.starts_with("info depth"))
            .map(|l| {
                let mut kept = Vec::new();
                let mut tokens = l.split_whitespace();
                while let Some(t) = tokens.next() {
                    if t == "time" || t == "nps" {
                        tokens.next();
                    } else {
                        kept.push(t);
                    }
                }
                kept.join(" ")
            })
            .collect()
    };
    let a = strip(transcript(script));
    let b = strip(transcript(script));
    assert_eq!(a, b);
    assert_eq!(a.iter().filter(|l| l.starts_with("bestmove")).count(), 2);
}

#[test]
fn no_legal_action_resigns() {
    let out = transcript(
        b"position sfen KRBGGSSG~G~/PPPPPPPPP/9/9/4k4/9/9/9/9 b 4q[NL]~17q 1\ngo movetime 100\n",
    );
    assert_eq!(bestmoves(&out), vec!["bestmove resign"], "{out}");
    check_final_info(&out);
}

#[test]
fn bench_is_deterministic() {
    let nodes = |out: String| out.lines().last().map(str::to_string).unwrap_or_default();
    let a = nodes(transcript(b"bench\n"));
    assert!(a.starts_with("Nodes searched: "), "{a}");
    assert_eq!(a, nodes(transcript(b"bench\n")));
}

#[test]
fn baseline_strategies_play_legal_moves() {
    let position = "position startpos moves 7g7f 3c3d";
    let legal = legal_moves(position);
    for strategy in ["random", "possibilityist"] {
        let out = transcript(
            format!("setoption name Strategy value {strategy}\n{position}\ngo\ngo\n").as_bytes(),
        );
        let best = bestmoves(&out);
        assert_eq!(best.len(), 2, "{out}");
        // Seeded: the same position gives the same choice.
        assert_eq!(best[0], best[1]);
        let mv = best[0].split_whitespace().nth(1).unwrap();
        assert!(legal.iter().any(|m| m == mv), "{strategy}: {mv}");
        check_final_info(&out);
    }
}

/// Each completed depth is reported once: the final line before `bestmove` does not repeat the
/// last progress line (the time aside).
#[test]
fn go_depth_reports_each_depth_once() {
    for depth in [1, 2] {
        let out = transcript(format!("position startpos\ngo depth {depth}\n").as_bytes());
        check_final_info(&out);
        for d in 1..=depth {
            let prefix = format!("info depth {d} ");
            let n = out.lines().filter(|l| l.starts_with(&prefix)).count();
            assert_eq!(n, 1, "depth {d} of go depth {depth}:\n{out}");
        }
    }
}

/// Replies keep the order of the lines: commands that wait behind a running search, and the
/// error of a bad line sent after them, are answered in the order they were sent.
#[test]
fn an_error_waits_behind_the_commands_sent_before_it() {
    let out = transcript(
        b"position startpos\ngo movetime 300\nposition startpos moves 7g7f\nd\nposiiton x\nmoves\n",
    );
    let at = |pred: &dyn Fn(&str) -> bool| {
        out.lines()
            .position(pred)
            .unwrap_or_else(|| panic!("missing line:\n{out}"))
    };
    let bestmove = at(&|l| l.starts_with("bestmove "));
    let sfen = at(&|l| l.starts_with("sfen ") && l.ends_with(" w - 2"));
    let error = at(&|l| l.starts_with("info string error: unknown command 'posiiton'"));
    let moves = at(&|l| l.contains("3c3d"));
    assert!(bestmove < sfen && sfen < error && error < moves, "{out}");
}

/// Every line the engine writes for `script` (sent at once, then the end of input); panics
/// unless it exits within 20 s (a hang here once spun at full CPU for ever).
fn lines_until_exit(script: &str) -> Vec<String> {
    let mut e = Engine::start();
    for line in script.lines() {
        e.send(line);
    }
    e.close_stdin();
    let deadline = Instant::now() + LONG;
    let mut lines = Vec::new();
    while let Some(line) = e.next_line(deadline.saturating_duration_since(Instant::now())) {
        lines.push(line);
    }
    assert!(
        e.wait_exit(Duration::from_secs(1)),
        "still running: {lines:#?}"
    );
    lines
}

fn count_bestmoves(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

#[test]
fn quit_stops_the_searches_of_the_commands_waiting_behind_it() {
    // The second `go infinite` waited behind the first; quit stopped the first, then ran the
    // second and waited for it for ever.
    let lines = lines_until_exit(
        "position startpos\ngo infinite\nposition startpos moves 7g7f\ngo infinite\nquit\nd\n",
    );
    assert_eq!(count_bestmoves(&lines), 2, "{lines:#?}");
    // Nothing after quit is read.
    assert!(!lines.iter().any(|l| l.starts_with("sfen ")), "{lines:#?}");
    // A timed search behind quit does not get its time either.
    let started = Instant::now();
    let lines =
        lines_until_exit("position startpos\ngo movetime 5000\nd\ngo movetime 5000\nquit\n");
    assert_eq!(count_bestmoves(&lines), 2, "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with("sfen ")), "{lines:#?}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_end_of_input_after_a_search_that_ended_by_itself_exits() {
    // The search ended (its bestmove held for `stop`) before the input did: the engine sent
    // the bestmove at the end of input and then waited for ever.
    for go in ["go infinite depth 1", "go depth 1 ponder"] {
        let mut e = Engine::start();
        e.send("position startpos");
        e.send(go);
        e.read_until(LONG, |l| l.starts_with("info depth 1 "));
        std::thread::sleep(Duration::from_millis(300));
        e.close_stdin();
        let lines = e.read_until(LONG, |l| l.starts_with("bestmove"));
        assert!(e.wait_exit(LONG), "{go}: still running after {lines:#?}");
    }
}

#[test]
fn a_stop_sent_after_a_waiting_go_stops_that_go() {
    // Each `stop` acted on the search running when it arrived, not on the `go` before it that
    // still waited: bestmoves went missing and the last `go infinite` ran for ever.
    let script = "position startpos\n".to_string() + &"go infinite\nstop\n".repeat(20);
    let lines = lines_until_exit(&script);
    assert_eq!(count_bestmoves(&lines), 20, "{lines:#?}");
    // A finished game answers at once, which is where the bestmoves were lost.
    let script = "position sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1 moves G*5b 5a5b 5c5b\n"
        .to_string()
        + &"go infinite\nstop\n".repeat(20)
        + "quit\n";
    let lines = lines_until_exit(&script);
    assert_eq!(count_bestmoves(&lines), 20, "{lines:#?}");
}

#[test]
fn a_command_behind_a_waiting_infinite_go_stops_it_once_it_runs() {
    // The `stop` after `d` waited behind `d`, and `d` behind a search that never ends by itself:
    // with stdin open (a GUI waiting for the bestmove) nothing came.
    let mut e = Engine::start();
    for line in [
        "position startpos",
        "go movetime 300",
        "go infinite",
        "d",
        "stop",
    ] {
        e.send(line);
    }
    let lines = e.read_until(LONG, |l| l.starts_with("sfen "));
    assert_eq!(count_bestmoves(&lines), 2, "{lines:#?}");
    // A `ponderhit` right behind a waiting `go ponder` turns it into a search on the clock
    // as soon as it starts: it ends by itself, stdin still open.
    for line in ["go movetime 300", "go ponder movetime 300", "ponderhit"] {
        e.send(line);
    }
    let seen = std::cell::Cell::new(0);
    let lines = e.read_until(LONG, |l| {
        seen.set(seen.get() + usize::from(l.starts_with("bestmove")));
        seen.get() == 2
    });
    assert_eq!(count_bestmoves(&lines), 2, "{lines:#?}");
}
