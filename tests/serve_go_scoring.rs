//! Go rooms' end over real sockets, as KGS and OGS have it: two passes open a scoring phase
//! with the server's proposal of the dead stones, either player toggles a group (which clears
//! both acceptances), both accept and the game ends with one verdict, the area score of the
//! agreed marking; `resume` goes back to play. What was marked and agreed survives `kill -9`
//! and is read back, never judged again (`/status`'s `go_judgements`).

mod serve_support;

use serde_json::{json, Value};
use serve_support::{temp_dir, Client, Server};

/// Black's wall on column E owns A–E, white's on F owns F–J, and a lone white stone sits at B5
/// in black's side: counted alive (Tromp-Taylor) white wins by 35.5; taken off as dead (Go's
/// `score` judges it so) black wins by 1.5. The dead stone decides the winner.
const START: &str =
    "9_....XO.../....XO.../....XO.../....XO.../.O..XO.../....XO.../....XO.../....XO.../....XO..._b";

struct Room {
    id: String,
    black_seat: String,
    white_seat: String,
    black: Client,
    white: Client,
}

fn open(server: &Server) -> Room {
    open_with(server, "")
}

/// A room opened with `query` added to its `new=` request (`&clock=...`).
fn open_with(server: &Server, query: &str) -> Room {
    let origin = server.origin();
    let mut black = server
        .socket(&format!("/room?new=go&start={START}{query}"), &origin)
        .unwrap();
    let first = black.until(|_| true).remove(0);
    let w: Vec<&str> = first.split_whitespace().collect();
    let (id, black_seat, white_seat) = (w[1].to_string(), w[3].to_string(), w[5].to_string());
    let white = join(server, &id, &white_seat);
    Room {
        id,
        black_seat,
        white_seat,
        black,
        white,
    }
}

fn join(server: &Server, id: &str, seat: &str) -> Client {
    server
        .socket(&format!("/room?room={id}&seat={seat}"), &server.origin())
        .unwrap()
}

/// The next state for which `pick` holds (earlier ones are skipped).
fn state(ws: &mut Client, pick: impl Fn(&Value) -> bool) -> Value {
    let parse = |l: &str| -> Option<Value> { serde_json::from_str(l.strip_prefix("state ")?).ok() };
    let lines = ws.until(|l| parse(l).is_some_and(|s| pick(&s)));
    parse(lines.last().unwrap()).unwrap()
}

fn error(ws: &mut Client) -> String {
    ws.until(|l| l.starts_with("info string error:"))
        .pop()
        .unwrap()
}

/// Both pass; the scoring state, then the one with the proposal (as white sees them).
fn pass_out(room: &mut Room) -> (Value, Value) {
    room.black.send("move pass");
    state(&mut room.white, |s| {
        s["moves"].as_array().is_some_and(|m| m.len() == 1)
    });
    let sent = std::time::Instant::now();
    room.white.send("move pass");
    let scoring = state(&mut room.white, |s| {
        s["moves"].as_array().is_some_and(|m| m.len() == 2)
    });
    // Two passes do not end the game: nobody moves, nothing is over yet.
    assert_eq!(scoring["phase"], "scoring", "{scoring}");
    assert_eq!(scoring["over"], Value::Null, "{scoring}");
    assert_eq!(scoring["legal"], json!([]));
    let shown = sent.elapsed();
    let proposal = state(&mut room.white, |s| !s["scoring"]["dead"].is_null());
    println!(
        "second pass: the scoring phase shown after {} ms, the proposal after {} ms",
        shown.as_millis(),
        sent.elapsed().as_millis()
    );
    (scoring, proposal)
}

#[test]
fn the_dead_stones_decide_and_one_verdict_says_so() {
    let server = Server::start(2);
    let mut room = open(&server);
    let (_, proposal) = pass_out(&mut room);
    // The server's proposal: Go's `score` judgement, with the score it gives.
    assert_eq!(proposal["scoring"]["dead"], json!(["B5"]), "{proposal}");
    assert_eq!(proposal["scoring"]["score"], "B+1.5");
    assert_eq!(proposal["scoring"]["accepted"], json!([false, false]));
    assert_eq!(
        proposal["score"],
        json!(["score B+1.5 komi 7.5", "dead b", "dead w B5"])
    );
    room.black.send("move D4");
    assert!(error(&mut room.black).contains("scoring phase"));
    room.black.send("accept");
    let half = state(&mut room.white, |s| s["scoring"]["accepted"][0] == true);
    assert_eq!(half["over"], Value::Null);
    // Not agreed yet: the record's result is SGF's unknown (the rules' count would say white).
    let sgf = server.get(&format!("/record/{}", room.id), "");
    assert!(sgf.contains(";B[];W[]") && sgf.contains("RE[?]"), "{sgf}");
    room.white.send("accept");
    let end = state(&mut room.black, |s| !s["over"].is_null());
    // One winner: the verdict and the score come from the same marking.
    assert_eq!(end["over"], "black wins by area score", "{end}");
    assert_eq!(end["phase"], "over");
    assert_eq!(
        end["score"],
        json!(["score B+1.5 komi 7.5", "dead b", "dead w B5"])
    );
    // The archive says the same.
    let games = server.get("/games", "");
    assert!(games.contains("black wins by area score"), "{games}");
    let sgf = server.get(&format!("/record/{}", room.id), "");
    assert!(sgf.contains("RE[B+1.5]") && !sgf.contains("RE[W"), "{sgf}");
    room.white.send("resume");
    assert!(error(&mut room.white).contains("the game is over"));
    assert_eq!(server.status()["go_judgements"], 1);
}

#[test]
fn a_toggle_clears_both_acceptances_and_spectators_cannot_mark() {
    let server = Server::start(2);
    let mut room = open(&server);
    let (_, proposal) = pass_out(&mut room);
    let mut watcher = server
        .socket(&format!("/room?room={}", room.id), &server.origin())
        .unwrap();
    state(&mut watcher, |_| true);
    for line in ["dead B5", "accept", "resume"] {
        watcher.send(line);
        assert!(error(&mut watcher).contains("a spectator cannot"), "{line}");
    }
    room.black.send("accept");
    state(&mut room.white, |s| {
        s["scoring"]["accepted"] == json!([true, false])
    });
    // White says B5 lives: its whole group toggles, both acceptances are cleared.
    room.white.send("dead b5");
    let s = state(&mut room.black, |s| s["scoring"]["dead"] == json!([]));
    assert_eq!(s["scoring"]["accepted"], json!([false, false]), "{s}");
    assert_eq!(s["scoring"]["score"], "W+35.5");
    assert_eq!(s["note"], "white marks B5 alive");
    room.black.send("dead A1");
    assert!(error(&mut room.black).contains("no stone at 'A1'"));
    // An acceptance sent for the marking before white's change is refused.
    room.black
        .send(&format!("accept {}", proposal["scoring"]["version"]));
    assert!(error(&mut room.black).contains("changed meanwhile"));
    assert_ne!(proposal["scoring"]["version"], s["scoring"]["version"]);
    room.black
        .send(&format!("accept {}", s["scoring"]["version"]));
    // Accepted by both as it stands: white's marking, white's win.
    state(&mut room.white, |s| s["scoring"]["accepted"][0] == true);
    room.white.send("accept");
    let end = state(&mut room.black, |s| !s["over"].is_null());
    assert_eq!(end["over"], "white wins by area score", "{end}");
    assert_eq!(end["score"][0], "score W+35.5 komi 7.5");
}

/// The passes stop the clock for the scoring phase; a resume starts the side to move's again,
/// so the move after it is timed.
#[test]
fn resume_restarts_the_clock() {
    let server = Server::start(2);
    let mut room = open_with(&server, "&clock=600%2B0");
    let (scoring, _) = pass_out(&mut room);
    assert_eq!(scoring["clock"]["running"], Value::Null, "{scoring}");
    room.white.send("resume");
    let s = state(&mut room.black, |s| s["note"] == "white resumes play");
    assert_eq!(s["clock"]["running"], "black", "{s}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    room.black.send("move C5");
    let s = state(&mut room.white, |s| {
        s["moves"].as_array().is_some_and(|m| m.len() == 3)
    });
    let left = s["clock"]["left_ms"][0].as_u64().unwrap();
    assert!(
        left <= 600_000 - 300,
        "black's move after the resume was timed: {s}"
    );
    assert_eq!(s["clock"]["running"], "white", "{s}");
}

#[test]
fn resume_goes_back_to_play_and_two_more_passes_score_again() {
    let server = Server::start(2);
    let mut room = open(&server);
    pass_out(&mut room);
    room.black.send("accept");
    state(&mut room.white, |s| s["scoring"]["accepted"][0] == true);
    room.white.send("resume");
    let s = state(&mut room.black, |s| s["note"] == "white resumes play");
    assert_eq!(s["phase"], "play");
    assert_eq!(s["turn"], "black");
    assert_eq!(s["scoring"], Value::Null);
    assert!(s["legal"].as_array().is_some_and(|l| !l.is_empty()));
    // A pass right after the resume is one pass, not a third in a row.
    room.black.send("move pass");
    let s = state(&mut room.white, |s| {
        s["moves"].as_array().unwrap().len() == 3
    });
    assert_eq!(s["phase"], "play");
    room.white.send("move C5");
    state(&mut room.black, |s| {
        s["moves"].as_array().unwrap().len() == 4
    });
    room.black.send("move pass");
    state(&mut room.white, |s| {
        s["moves"].as_array().unwrap().len() == 5
    });
    room.white.send("move pass");
    let again = state(&mut room.black, |s| {
        s["moves"].as_array().unwrap().len() == 6 && !s["scoring"]["dead"].is_null()
    });
    assert_eq!(again["scoring"]["accepted"], json!([false, false]));
    assert!(again["scoring"]["dead"].is_array(), "{again}");
    assert_eq!(server.status()["go_judgements"], 2);
    // Resigning stays possible in the scoring phase.
    room.white.send("resign");
    let end = state(&mut room.black, |s| !s["over"].is_null());
    assert_eq!(end["over"], "white resigns");
}

#[test]
fn a_restart_keeps_the_marking_and_the_agreed_score_without_judging_again() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let start = || Server::start_with(2, &["--db", &db.display().to_string()]);
    let mut server = start();
    let mut room = open(&server);
    let (_, proposal) = pass_out(&mut room);
    room.white.send("dead B5");
    state(&mut room.black, |s| s["scoring"]["dead"] == json!([]));
    room.white.send("accept");
    let seen = state(&mut room.black, |s| s["scoring"]["accepted"][1] == true);
    server.kill();

    // The scoring phase goes on where it was: white's marking and acceptance, no judgement.
    let mut server = start();
    let mut black = join(&server, &room.id, &room.black_seat);
    let s = state(&mut black, |_| true);
    assert_eq!(s["phase"], "scoring", "{s}");
    assert_eq!(s["scoring"]["dead"], json!([]));
    assert_eq!(s["scoring"]["accepted"], json!([false, true]));
    // The marking's version is the marking's own: the proposal's, which white changed, is
    // still refused after the restart, the one black saw before it is still taken.
    let version = |s: &Value| s["scoring"]["version"].as_u64().unwrap();
    assert_eq!(version(&s), version(&seen), "{s}");
    assert_ne!(version(&proposal), version(&seen));
    black.send(&format!("accept {}", version(&proposal)));
    assert!(error(&mut black).contains("changed meanwhile"));
    black.send(&format!("accept {}", version(&seen)));
    let end = state(&mut black, |s| !s["over"].is_null());
    assert_eq!(end["over"], "white wins by area score");
    assert_eq!(server.status()["go_judgements"], 0);
    server.kill();

    let server = start();
    let mut white = join(&server, &room.id, &room.white_seat);
    let s = state(&mut white, |_| true);
    assert_eq!(s["over"], "white wins by area score", "{s}");
    assert_eq!(s["score"], end["score"]);
    assert_eq!(server.status()["go_judgements"], 0);
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_scoring_phase_cut_before_its_proposal_is_judged_at_the_next_join() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let start = || Server::start_with(2, &["--db", &db.display().to_string()]);
    let mut server = start();
    let mut room = open(&server);
    room.black.send("move pass");
    state(&mut room.white, |s| {
        s["moves"].as_array().unwrap().len() == 1
    });
    room.white.send("move pass");
    // Killed at once: the proposal may or may not be kept; either way it comes back.
    state(&mut room.black, |s| s["phase"] == "scoring");
    server.kill();
    let server = start();
    let mut black = join(&server, &room.id, &room.black_seat);
    let s = state(&mut black, |s| !s["scoring"]["dead"].is_null());
    assert_eq!(s["scoring"]["dead"], json!(["B5"]), "{s}");
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}
