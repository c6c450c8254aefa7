//! The match runner against fake engines (a Python script playing Nim) that crash, hang, close
//! their pipe, send illegal moves or garbage, resign, flag or never answer: every game ends with
//! the right result and reason, misbehaving engines are restarted, and the match completes.

mod match_support;

use match_support::*;
use ryoshi::matches::results::parse_record;
use ryoshi::matches::stats::SprtState;
use ryoshi::matches::{GameView, Referee, Side, Verdict};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// A fake engine: its name, its mode (see fake_engine.py) and the mode's number.
type Fake<'a> = (&'a str, &'a str, u32);

const GOOD: Fake = ("good", "good", 0);

fn config(engines: &str, names: &[&str], extra: &str) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    format!(
        "{engines}[match]\nvariant = \"othello\"\nengines = [{}]\n{extra}\n",
        names.join(", ")
    )
}

/// A config whose engines are `players`, defined and listed in that order.
fn fake_config(dir: &Path, players: &[Fake], extra: &str) -> String {
    let engines: String = players
        .iter()
        .map(|&(name, mode, n)| fake(dir, name, mode, n))
        .collect();
    let names: Vec<&str> = players.iter().map(|p| p.0).collect();
    config(&engines, &names, extra)
}

/// Runs a match between `players` in a fresh scratch folder named after `tag`.
fn fake_match(tag: &str, players: &[Fake], extra: &str) -> Run {
    let dir = scratch(tag);
    run(&dir, &fake_config(&dir, players, extra))
}

/// What the results say about how game 1 ended.
fn first_detail(run: &Run) -> &str {
    run.results[0]["detail"].as_str().unwrap()
}

/// Checks that every game was lost by `loser` for `reason`.
fn all_lost(run: &Run, loser: &str, reason: &str, games: usize) {
    assert_eq!(run.results.len(), games, "{}", run.output);
    for r in &run.results {
        let winner_side = if r["first"] == loser {
            "second"
        } else {
            "first"
        };
        assert_eq!(r["result"], winner_side, "{r}");
        assert_eq!(r["reason"], reason, "{r}");
    }
    assert_eq!(run.summary.finished, games);
    assert!(run.output.contains("Finished match"), "{}", run.output);
}

#[test]
fn perfect_players_swap_colours_and_records_replay() {
    let dir = scratch("match-good");
    let text = fake_config(
        &dir,
        &[("alice", "good", 0), ("bob", "good", 0)],
        "games = 6\nbyoyomi_ms = 2000\nopening_plies = 2\nseed = 11",
    );
    let run = run(&dir, &text);
    assert_eq!(run.results.len(), 6);
    let mut alice_points = 0.0;
    for (i, r) in run.results.iter().enumerate() {
        assert_eq!(r["game"], i + 1);
        // Games 2k+1 and 2k+2 share an opening with the colours swapped.
        let partner = &run.results[i ^ 1];
        assert_eq!(r["opening"], partner["opening"]);
        assert_eq!(r["first"], partner["second"]);
        assert_eq!(r["first"], if i % 2 == 0 { "alice" } else { "bob" });
        // Perfect Nim: the side to move after the opening wins unless the pile is a multiple of 4.
        let opening = r["opening"].as_str().unwrap();
        let taken: u32 = opening
            .split_whitespace()
            .skip(2)
            .map(|m| m.parse::<u32>().unwrap())
            .sum();
        let want = if (21 - taken).is_multiple_of(4) {
            "second"
        } else {
            "first"
        };
        assert_eq!(r["result"], want, "{r}");
        assert_eq!(r["reason"], "last token");
        assert_eq!(r["opening_plies"], 2);
        let moves = r["moves"].as_array().unwrap();
        assert_eq!(r["plies"], moves.len() + 2);
        let winner = r[r["result"].as_str().unwrap()].as_str().unwrap();
        if winner == "alice" {
            alice_points += 1.0;
        }
        // The record replays legally and ends the game the same way.
        let record = std::fs::read_to_string(r["record"].as_str().unwrap()).unwrap();
        let (start, record_moves) = parse_record(&record).unwrap();
        assert_eq!(start, "startpos");
        let mut nim = Nim::new();
        nim.set_start(None).unwrap();
        for mv in &record_moves {
            assert!(nim.game_end().is_none());
            nim.play(mv).unwrap();
        }
        let end = nim.game_end().expect("the record reaches the end");
        let side = if want == "first" {
            Side::First
        } else {
            Side::Second
        };
        assert_eq!(end.verdict, Verdict::Win(side));
        assert_eq!(record_moves.len() as u64, r["plies"].as_u64().unwrap());
        assert!(record.contains("Result: "), "{record}");
    }
    // The openings differ (seeded), and the score adds up.
    let openings: Vec<&Value> = run.results.iter().map(|r| &r["opening"]).collect();
    assert!(openings[0] != openings[2] || openings[2] != openings[4]);
    let t = run.summary.pairs[0].tally;
    assert_eq!(t.games(), 6);
    assert_eq!(t.wins as f64 + t.draws as f64 / 2.0, alice_points);
    assert!(run.output.contains(&t.score_line("alice", "bob")));
    assert_eq!(starts(&dir, "alice"), 1);
    assert_eq!(starts(&dir, "bob"), 1);

    // The same seed gives the same openings again.
    let again = match_support::run(&scratch("match-good-again"), &text);
    let first: Vec<&Value> = again.results.iter().map(|r| &r["opening"]).collect();
    assert_eq!(first, openings);
}

#[test]
fn crash_mid_game_loses_and_restarts() {
    let run = fake_match(
        "match-crash",
        &[GOOD, ("crasher", "crash", 2)],
        "games = 4\nbyoyomi_ms = 2000\ncrash_limit = 0",
    );
    all_lost(&run, "crasher", "crash", 4);
    assert!(first_detail(&run).contains("exit status: 3"));
    assert_eq!(starts(&run.dir, "crasher"), 4, "restarted for every game");
    assert_eq!(starts(&run.dir, "good"), 1);
    assert!(run
        .output
        .contains("Score of good vs crasher: 4 - 0 - 0  [1.000] 4"));
}

#[test]
fn hang_on_the_clock_is_a_time_forfeit() {
    let t0 = Instant::now();
    let run = fake_match(
        "match-hang",
        &[GOOD, ("sleepy", "hang", 2)],
        "games = 2\nbyoyomi_ms = 300\nmargin_ms = 300",
    );
    all_lost(&run, "sleepy", "time forfeit", 2);
    assert_eq!(starts(&run.dir, "sleepy"), 2);
    assert!(t0.elapsed() < Duration::from_secs(10));
}

#[test]
fn hang_under_a_node_limit_times_out() {
    let run = fake_match(
        "match-hang-nodes",
        &[("sleepy", "hang", 1), GOOD],
        "games = 2\nnodes = 1000\ntimeout_ms = 3000",
    );
    all_lost(&run, "sleepy", "timeout", 2);
    assert_eq!(starts(&run.dir, "sleepy"), 2);
}

#[test]
fn closed_pipe_is_a_crash() {
    let run = fake_match(
        "match-close",
        &[GOOD, ("closer", "close", 1)],
        "games = 2\nmovetime_ms = 1000",
    );
    all_lost(&run, "closer", "crash", 2);
    assert_eq!(starts(&run.dir, "closer"), 2);
}

#[test]
fn illegal_move_loses_without_restart() {
    let run = fake_match(
        "match-illegal",
        &[GOOD, ("cheat", "illegal", 1)],
        "games = 2\nbyoyomi_ms = 2000",
    );
    all_lost(&run, "cheat", "illegal move", 2);
    let detail = first_detail(&run);
    assert!(
        detail.contains("`7`") && detail.contains("cannot take 7"),
        "{detail}"
    );
    // An illegal move is not a reason to restart the process.
    assert_eq!(starts(&run.dir, "cheat"), 1);
}

#[test]
fn garbage_is_an_illegal_move() {
    let run = fake_match(
        "match-garbage",
        &[("noise", "garbage", 2), GOOD],
        "games = 2\nbyoyomi_ms = 2000",
    );
    assert_eq!(run.results.len(), 2);
    // Game 1: the second `go` of the process is garbage; game 2 (same process) plays on.
    assert_eq!(run.results[0]["result"], "second");
    assert_eq!(run.results[0]["reason"], "illegal move");
    assert_eq!(run.results[1]["reason"], "last token");
}

/// An engine that never finishes its handshake stops the match before its first game: the error
/// names it and its command, nothing is played, and it was started once.
#[test]
fn silent_engine_stops_the_match_before_its_first_game() {
    let dir = scratch("match-mute");
    let engines = fake(&dir, "good", "good", 0)
        + "stderr = \"good.log\"\n\n"
        + &fake(&dir, "mute", "mute", 0);
    let text = config(
        &engines,
        &["good", "mute"],
        "games = 2\nbyoyomi_ms = 100\ntimeout_ms = 1000",
    );
    let (result, output) = try_run(&dir, &text);
    let err = result.expect_err("the match must not run").to_string();
    assert!(err.starts_with("engine `mute` (cmd `python3 "), "{err}");
    assert!(err.contains("fake_engine.py mute 0"), "{err}");
    assert!(err.contains("timeout: no `usiok` in time"), "{err}");
    assert!(!output.contains("Finished"), "{output}");
    assert!(read_results(&dir.join("results.jsonl")).is_empty());
    assert_eq!(starts(&dir, "mute"), 1);
    assert_eq!(starts(&dir, "good"), 1);
    // The engine that did start was sent `quit`.
    assert_eq!(
        received(&dir, "good").last().map(String::as_str),
        Some("quit")
    );
}

/// An engine whose process is lost in `crash_limit` games in a row stops the match; the games
/// played are kept.
#[test]
fn an_engine_that_keeps_crashing_stops_the_match() {
    let dir = scratch("match-crash-limit");
    let text = fake_config(
        &dir,
        &[GOOD, ("crasher", "crash", 1)],
        "games = 10\nbyoyomi_ms = 2000\ncrash_limit = 3",
    );
    let (result, output) = try_run(&dir, &text);
    let err = result.expect_err("the match must stop").to_string();
    assert!(
        err.starts_with("engine `crasher` (cmd `python3 ") && err.contains("3 games in a row"),
        "{err}"
    );
    assert!(err.contains("crash: "), "{err}");
    // The worker may have begun one more game before the runner saw the third; it is kept.
    let results = read_results(&dir.join("results.jsonl"));
    assert!(matches!(results.len(), 3 | 4), "{output}");
    assert!(results.iter().all(|r| r["reason"] == "crash"));
    let head = format!(
        "Stopped: summary of the {} finished games of 10",
        results.len()
    );
    assert!(output.contains(&head), "{output}");
    assert!(!output.contains("Finished match"), "{output}");
}

#[test]
fn slow_engine_flags_on_a_sudden_death_clock() {
    let run = fake_match(
        "match-slow",
        &[GOOD, ("slow", "slow", 300)],
        "games = 2\nmain_ms = 400\nmargin_ms = 100",
    );
    all_lost(&run, "slow", "time forfeit", 2);
    // Flagged at its second move: 300 ms, then 300 ms against 100 ms left + 100 ms of margin.
    for r in &run.results {
        let want = if r["first"] == "slow" { 2 } else { 3 };
        assert_eq!(r["moves"].as_array().unwrap().len(), want, "{r}");
    }
}

#[test]
fn resignation_and_max_plies() {
    let run = fake_match(
        "match-resign",
        &[GOOD, ("quitter", "resign", 0)],
        "games = 2\nbyoyomi_ms = 500",
    );
    all_lost(&run, "quitter", "resign", 2);

    let run = fake_match(
        "match-null",
        &[("p", "null", 0), ("q", "null", 0)],
        "games = 2\nbyoyomi_ms = 500\nmax_plies = 6",
    );
    for r in &run.results {
        assert_eq!(r["result"], "draw");
        assert_eq!(r["reason"], "max plies");
        assert_eq!(r["plies"], 6);
    }
    assert!(run.output.contains("Score of p vs q: 0 - 0 - 2  [0.500] 2"));
}

#[test]
fn round_robin_in_parallel() {
    let dir = scratch("match-robin");
    let run = run_with(
        &dir,
        &fake_config(
            &dir,
            &[("a", "good", 0), ("b", "good", 0), ("c", "good", 0)],
            "games = 2\nconcurrency = 3\nmovetime_ms = 1000",
        ),
        &|| false,
        true,
    );
    assert_eq!(run.results.len(), 6);
    let mut numbers: Vec<u64> = run
        .results
        .iter()
        .map(|r| r["game"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    // From the start, perfect Nim is a first-player win: every pair splits 1 - 1.
    for pair in &run.summary.pairs {
        assert_eq!(
            (pair.tally.wins, pair.tally.losses, pair.tally.draws),
            (1, 1, 0)
        );
    }
    for line in [
        "Score of a vs b: 1 - 1 - 0",
        "Score of a vs c",
        "Score of b vs c",
    ] {
        assert!(run.output.contains(line), "{}", run.output);
    }
    assert_eq!(text_records(dir.join("records")), 6);
    // Everyone scored 2 of 4: the standings keep the listed order.
    let table: Vec<&str> = run
        .output
        .lines()
        .skip_while(|l| !l.starts_with("Rank"))
        .collect();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let row: Vec<&str> = table[i + 1].split_whitespace().collect();
        assert_eq!(row[..2], [(i + 1).to_string().as_str(), name]);
        assert_eq!(row[4..], ["4", "50.0%", "0.0%"]);
    }
}

/// The SPRT runs on game pairs (fastchess's pentanomial model) and decides only when a pair is
/// complete: 8 pairs won decide H1 at elo1 = 50, 7 do not.
#[test]
fn sprt_stops_a_one_sided_match_after_a_whole_pair() {
    let run = fake_match(
        "match-sprt",
        &[GOOD, ("quitter", "resign", 0)],
        "games = 200\nbyoyomi_ms = 500\n[match.sprt]\nelo0 = 0\nelo1 = 50\n",
    );
    assert_eq!(run.summary.sprt, Some(SprtState::H1));
    // The worker may have finished one more game before the runner saw the decision.
    assert!(matches!(run.summary.finished, 16 | 17), "{}", run.output);
    assert_eq!(run.results.len(), run.summary.finished);
    assert!(
        run.output.contains("Ptnml(0-2): [0, 0, 0, 0, 8]"),
        "{}",
        run.output
    );
    assert!(run.output.contains("H1 was accepted"), "{}", run.output);
}

#[test]
fn interrupt_keeps_finished_games() {
    let dir = scratch("match-interrupt");
    let t0 = Instant::now();
    // Interrupted once a game has finished (and 2.5 s have passed), however loaded the machine.
    let results = dir.join("results.jsonl");
    let run = run_in(
        &dir,
        &fake_config(
            &dir,
            &[("a", "slow", 60), ("b", "slow", 60)],
            "games = 100\nbyoyomi_ms = 1000\nconcurrency = 2",
        ),
        &move || {
            t0.elapsed() > Duration::from_millis(2500)
                && std::fs::metadata(&results).is_ok_and(|m| m.len() > 0)
        },
    );
    assert!(run.summary.interrupted);
    assert!(run.summary.finished >= 1 && run.summary.finished < 100);
    assert_eq!(run.results.len(), run.summary.finished);
    assert_eq!(text_records(dir.join("records")), run.summary.finished);
    let head = format!(
        "Interrupted: summary of the {} finished games of 100",
        run.summary.finished
    );
    assert!(run.output.contains(&head), "{}", run.output);
    assert!(!run.output.contains("Finished match"));
    assert!(t0.elapsed() < Duration::from_secs(6), "stopped promptly");
}

#[test]
fn engines_receive_the_usi_exchange() {
    let dir = scratch("match-exchange");
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let engines = fake(&dir, "a", "good", 0)
        + "working_dir = \"work\"\nstderr = \"a.log\"\noptions = { Hash = 16, Style = \"calm play\", Ponder = false }\n\n"
        + &fake(&dir, "b", "good", 0);
    let run = run(
        &dir,
        &config(
            &engines,
            &["a", "b"],
            "games = 2\nmain_ms = 5000\ninc_ms = 100\nmax_plies = 4",
        ),
    );
    assert_eq!(run.results.len(), 2);
    let log = std::fs::read_to_string(dir.join("a.log")).unwrap();
    let mut lines = log.lines();
    let cwd = lines.next().unwrap();
    assert!(cwd.starts_with("cwd ") && cwd.ends_with("/work"), "{cwd}");
    let received: Vec<&str> = lines.map(|l| l.strip_prefix("<< ").unwrap()).collect();
    let go = |line: &str| line.starts_with("go btime ") && line.ends_with(" binc 100 winc 100");
    // The handshake (its `isready` readies the first game), then per game: position/go pairs
    // and gameover; later games start with isready and usinewgame; then quit.
    assert_eq!(
        received[..7],
        [
            "usi",
            "setoption name USI_Variant value othello",
            "setoption name Hash value 16",
            "setoption name Ponder value false",
            "setoption name Style value calm play",
            "isready",
            "usinewgame",
        ]
    );
    // Game 1: a moves first (plies 1 and 3); a draw by max plies after 4 plies.
    assert_eq!(received[7], "position startpos");
    assert_eq!(received[8], "go btime 5000 wtime 5000 binc 100 winc 100");
    assert!(
        received[9].starts_with("position startpos moves 1 1"),
        "{}",
        received[9]
    );
    assert!(go(received[10]), "{}", received[10]);
    assert_eq!(received[11], "gameover draw");
    // Game 2: b moves first, so a sees the positions after plies 1 and 3.
    assert_eq!(received[12..14], ["isready", "usinewgame"]);
    assert_eq!(received[14], "position startpos moves 1");
    assert!(go(received[15]));
    assert_eq!(received[16], "position startpos moves 1 1 3");
    assert!(go(received[17]));
    assert_eq!(received[18..], ["gameover draw", "quit"]);
}

#[test]
fn a_stray_bestmove_does_not_answer_the_next_go() {
    let run = fake_match(
        "match-double",
        &[GOOD, ("double", "double", 0)],
        "games = 2\nbyoyomi_ms = 2000",
    );
    for r in &run.results {
        assert_eq!(r["reason"], "last token", "{r}");
    }
    // Perfect Nim from 21 tokens: the first player wins each game.
    assert!(run.output.contains("Score of good vs double: 1 - 1 - 0"));
}

/// Resign adjudication: an engine whose own score is -500 cp or lower for 2 of its moves in a
/// row loses by `adjudication`, at its second move.
#[test]
fn a_losing_score_is_adjudicated_a_loss() {
    let dir = scratch("match-adjudicate-resign");
    let text = fake_config(
        &dir,
        &[GOOD, ("gloomy", "score", 0)],
        "games = 2\nbyoyomi_ms = 2000\n[match.resign]\nmovecount = 2\nscore = 500\n",
    )
    .replace("\"score\", \"0\"", "\"score\", \"-800\"");
    let run = run(&dir, &text);
    all_lost(&run, "gloomy", "adjudication", 2);
    for r in &run.results {
        let detail = r["detail"].as_str().unwrap();
        assert!(detail.starts_with("resign adjudication"), "{detail}");
        // gloomy's second move: ply 4 when it moves second, ply 3 when first.
        let want = if r["first"] == "gloomy" { 3 } else { 4 };
        assert_eq!(r["plies"], want, "{r}");
    }
}

/// Draw adjudication: both scores within 10 cp for one move each, from move 1 on: a draw by
/// `adjudication` after two plies. Without the setting the same engines play Nim out.
#[test]
fn level_scores_are_adjudicated_a_draw() {
    let run = fake_match(
        "match-adjudicate-draw",
        &[("a", "good", 0), ("b", "good", 0)],
        "games = 2\nbyoyomi_ms = 2000\n[match.draw]\nmovenumber = 1\nmovecount = 1\nscore = 10\n",
    );
    assert_eq!(run.results.len(), 2);
    for r in &run.results {
        assert_eq!(
            (&r["result"], &r["reason"]),
            (&"draw".into(), &"adjudication".into()),
            "{r}"
        );
        assert_eq!(r["plies"], 2, "{r}");
    }
    let plain = fake_match(
        "match-adjudicate-off",
        &[("a", "good", 0), ("b", "good", 0)],
        "games = 2\nbyoyomi_ms = 2000",
    );
    assert!(plain.results.iter().all(|r| r["reason"] == "last token"));
}
