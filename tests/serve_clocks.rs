//! Clocks in rooms over real sockets (protocol/serve.md, `/room` and Kept games): a flag falls
//! with nobody moving and the game is lost on time, stored so; think time is charged and the
//! increment added; a restart keeps the clocks and charges nobody for the time it was down; a
//! bad time control is refused; an old database is brought up to date and keeps its games.

mod serve_support;

use serve_support::{join, new_room, start_on, state, temp_dir, Frame, Server};
use std::time::{Duration, Instant};

fn plies(n: usize) -> impl Fn(&serde_json::Value) -> bool {
    move |s| s["moves"].as_array().map(Vec::len) == Some(n)
}

fn left(s: &serde_json::Value, side: usize) -> i64 {
    s["clock"]["left_ms"][side].as_i64().unwrap()
}

#[test]
fn a_flag_falls_with_nobody_moving_and_the_game_is_lost_on_time() {
    let server = Server::start(2);
    let (mut a, id, _, invite) = new_room(&server, "new=othello&clock=1%2B0");
    let mut b = join(&server, &id, &invite);
    let s = state(&mut a, plies(0));
    assert_eq!(s["clock"]["spec"], "1+0");
    assert_eq!(s["clock"]["running"], serde_json::Value::Null, "{s}");
    // The first move is not timed; from it white's second runs out, and nobody moves again.
    a.send("move f5");
    let moved = Instant::now();
    let s = state(&mut b, plies(1));
    assert_eq!(s["clock"]["running"], "white", "{s}");
    let over = state(&mut b, |s| !s["over"].is_null());
    let waited = moved.elapsed();
    println!("the flag of a 1 s clock fell {waited:?} after the move was sent");
    assert_eq!(over["over"], "black wins by time forfeit", "{over}");
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    assert_eq!(over["clock"]["flagged"], "white");
    assert_eq!(over["clock"]["running"], serde_json::Value::Null);
    assert_eq!(left(&over, 1), 0);
    assert_eq!(over["legal"], serde_json::json!([]));
    assert_eq!(
        state(&mut a, |s| !s["over"].is_null())["over"],
        "black wins by time forfeit"
    );
    // Too late to move now.
    b.send("move d6");
    let refused = b.until(|l| l.starts_with("info string error:")).pop();
    assert!(
        refused.is_some_and(|l| l.contains("the game is over: black wins by time forfeit")),
        "a move after the flag"
    );
    // Stored so: the archive lists it as a loss on time.
    let games = server.get("/games", "");
    assert!(games.contains("black wins by time forfeit"), "{games}");
    // The record says it where its format can: Go's SGF, with the time control.
    let (mut a, id, _, _) = new_room(&server, "new=go&clock=1%2B0");
    a.send("move E5");
    state(&mut a, |s| !s["over"].is_null());
    let sgf = server.get(&format!("/record/{id}"), "");
    for prop in ["TM[1]", "OT[0 fischer]", "RE[B+T]"] {
        assert!(sgf.contains(prop), "{prop} in {sgf}");
    }
}

#[test]
fn think_time_is_charged_and_the_increment_added() {
    let server = Server::start(2);
    let (mut a, id, _, invite) = new_room(&server, "new=othello&clock=60%2B5");
    let mut b = join(&server, &id, &invite);
    a.send("move f5");
    let s = state(&mut b, plies(1));
    // Not timed: black's clock did not change; white's runs from the state (as of its sending).
    assert_eq!(left(&s, 0), 60_000, "{s}");
    assert!((59_000..=60_000).contains(&left(&s, 1)), "{s}");
    std::thread::sleep(Duration::from_millis(400));
    b.send("move d6");
    let s = state(&mut a, plies(2));
    assert_eq!(s["clock"]["running"], "black", "{s}");
    // 400 ms and a little more were charged, then 5 s added.
    let white = left(&s, 1);
    assert!(
        (64_000..=64_600).contains(&white),
        "white has {white} ms after thinking 400 ms with a 5 s increment"
    );
    assert!((59_000..=60_000).contains(&left(&s, 0)), "{s}");
    // The archive lists the room with its time control.
    let games = server.get("/games", "");
    assert!(games.contains("<th>clock</th>"), "{games}");
    assert!(games.contains("<td>60+5</td>"), "{games}");

    // Byoyomi: one period of 1 s overrun is used up, the next is kept.
    let (mut a, id, _, invite) = new_room(&server, "new=othello&clock=0b1x3");
    let mut b = join(&server, &id, &invite);
    a.send("move f5");
    let s = state(&mut b, plies(1));
    assert_eq!(s["clock"]["periods_left"], serde_json::json!([3, 3]), "{s}");
    assert_eq!(s["clock"]["period_ms"], 1000);
    std::thread::sleep(Duration::from_millis(1300));
    b.send("move d6");
    let s = state(&mut a, plies(2));
    assert_eq!(s["clock"]["periods_left"], serde_json::json!([3, 2]), "{s}");
    assert_eq!(s["over"], serde_json::Value::Null);
}

#[test]
fn a_restart_keeps_the_clocks_and_charges_nobody_for_the_time_down() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let mut server = start_on(&db);
    let (mut a, id, seat, invite) = new_room(&server, "new=othello&clock=600b30x3");
    let mut b = join(&server, &id, &invite);
    a.send("move f5");
    state(&mut b, plies(1));
    std::thread::sleep(Duration::from_millis(300));
    b.send("move d6");
    let before = state(&mut a, plies(2));
    let white = left(&before, 1);
    assert!(white < 600_000 - 250, "{before}");
    server.kill();
    // Down for 2 s: nobody's time runs meanwhile.
    std::thread::sleep(Duration::from_secs(2));
    let server = start_on(&db);
    let mut a = join(&server, &id, &seat);
    let after = state(&mut a, plies(2));
    let clock = &after["clock"];
    assert_eq!(clock["spec"], "600b30x3", "{after}");
    assert_eq!(
        (clock["period_ms"].as_i64(), clock["periods"].as_i64()),
        (Some(30_000), Some(3))
    );
    assert_eq!(clock["running"], "black");
    assert_eq!(
        left(&after, 1),
        white,
        "white's clock, not running, is as it was"
    );
    let black = left(&after, 0);
    assert!(
        black > 600_000 - 1000,
        "black was charged {} ms for the time the server was down",
        600_000 - black
    );
    assert_eq!(clock["periods_left"], serde_json::json!([3, 3]));
    // The game goes on under the same clock.
    a.send("move c3");
    let s = state(&mut a, plies(3));
    assert_eq!(s["clock"]["running"], "white");
    drop(server);

    // A flag falls after a restart too, with nobody connected: the timer is armed at start.
    let mut server = start_on(&db);
    let (mut a, id, _, invite) = new_room(&server, "new=othello&clock=1%2B0");
    let mut b = join(&server, &id, &invite);
    a.send("move f5");
    state(&mut b, plies(1));
    server.kill();
    drop((a, b));
    let server = start_on(&db);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let games = server.get("/games", "");
        if games.contains("black wins by time forfeit") {
            break;
        }
        assert!(Instant::now() < deadline, "no flag fell after the restart");
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut w = server
        .socket(&format!("/room?room={id}"), &server.origin())
        .unwrap();
    assert_eq!(
        state(&mut w, |_| true)["over"],
        "black wins by time forfeit"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_clock_that_does_not_read_costs_only_its_room_after_a_restart() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let mut server = start_on(&db);
    let mut rooms = Vec::new();
    for _ in 0..2 {
        let (mut a, id, _, invite) = new_room(&server, "new=othello&clock=1%2B0");
        let mut b = join(&server, &id, &invite);
        a.send("move f5");
        state(&mut b, plies(1));
        rooms.push((id, a, b));
    }
    server.kill();
    // The first room's row (the first one read back) is damaged; the second's flag still falls.
    let bad = rooms[0].0.clone();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE games SET clock_left0 = 'not a time' WHERE id = ?1",
            [&bad],
        )
        .unwrap();
    }
    drop(rooms);
    let mut server = start_on(&db);
    let deadline = Instant::now() + Duration::from_secs(5);
    // Nobody joins: only the timer armed at start can let the flag fall.
    loop {
        let games = server.get("/games", "");
        if games.contains("black wins by time forfeit") {
            break;
        }
        assert!(Instant::now() < deadline, "no flag fell after the restart");
        std::thread::sleep(Duration::from_millis(200));
    }
    let err = server.kill_for_stderr();
    let said: Vec<&str> = err.lines().filter(|l| l.contains(&bad)).collect();
    assert!(
        said.len() == 1 && said[0].contains("clock"),
        "the damaged room is said once: {err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_bad_clock_is_refused_and_none_is_untimed() {
    let server = Server::start(2);
    for (spec, why) in [
        ("600x", "expected <main>+<increment>"),
        ("99999%2B0", "the main time is at most 10800 s"),
        ("600%2B601", "the increment is at most 600 s"),
        ("600b30x11", "the number of periods is at most 10"),
        ("0%2B0", "a clock needs some time"),
    ] {
        let mut ws = server
            .socket(&format!("/room?new=othello&clock={spec}"), &server.origin())
            .unwrap();
        let line = ws.until(|_| true).remove(0);
        assert!(
            line.starts_with("info string error: clock '") && line.contains(why),
            "{spec}: {line}"
        );
        assert_eq!(ws.next(), Some(Frame::Close(1008)), "{spec}");
    }
    for query in ["new=othello", "new=othello&clock="] {
        let (mut a, ..) = new_room(&server, query);
        assert!(state(&mut a, |_| true)["clock"].is_null(), "{query}");
    }
}

/// The schema of version 1, as the first ryoshi with a database made it.
const SCHEMA_1: &str = "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        game TEXT NOT NULL,
        start TEXT NOT NULL,
        seat0 TEXT,
        seat1 TEXT,
        resigned INTEGER,
        result TEXT,
        reason TEXT,
        created INTEGER NOT NULL,
        updated INTEGER NOT NULL,
        plies INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX games_by_date ON games (created DESC, id);
    CREATE TABLE moves (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        move TEXT NOT NULL,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID;
    PRAGMA user_version = 1;";

#[test]
fn a_version_1_database_is_brought_up_to_date_and_keeps_its_rooms() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(SCHEMA_1).unwrap();
        // The seats of `abc` and `def`, as SHA-1.
        conn.execute_batch(
            "INSERT INTO games (id, kind, game, start, seat0, seat1, created, updated, plies)
             VALUES ('00000000000000aa', 'room', 'othello', 'startpos',
                     'a9993e364706816aba3e25717850c26c9cd0d89d',
                     '589c22335a381f122d129225f5c0ba3056ed5811', 1, 1, 2);
             INSERT INTO moves VALUES ('00000000000000aa', 0, 'f5'), ('00000000000000aa', 1, 'd6');",
        )
        .unwrap();
    }
    let server = start_on(&db);
    let mut a = join(&server, "00000000000000aa", "abc");
    let s = state(&mut a, |_| true);
    assert_eq!(s["moves"], serde_json::json!(["f5", "d6"]), "{s}");
    assert_eq!(s["you"], "black");
    assert!(s["clock"].is_null(), "an old room is untimed: {s}");
    a.send("move c3");
    state(&mut a, plies(3));
    drop(server);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(version > 1, "still version {version}");
    let (plies, clock): (i64, Option<String>) = conn
        .query_row(
            "SELECT plies, clock FROM games WHERE id = '00000000000000aa'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((plies, clock), (3, None));
    drop(conn);
    let _ = std::fs::remove_dir_all(dir);
}
