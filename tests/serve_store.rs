//! The server's game database over real sockets: a room and an engine page go on after
//! `kill -9` and a restart on the same file, a second server on the file is refused, and a
//! damaged file is refused at start. Every server here has a temporary database of its own.

mod serve_support;

use serve_support::{temp_dir, Client, Server};

fn start_on(db: &std::path::Path) -> Server {
    Server::start_with(2, &["--db", &db.display().to_string()])
}

fn state_with(ws: &mut Client, moves: &str) -> String {
    ws.until(|l| l.starts_with("state ") && l.contains(moves))
        .pop()
        .expect("a state")
}

#[test]
fn a_room_goes_on_after_kill_9_with_the_same_seats() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let mut server = start_on(&db);
    let origin = server.origin();
    let mut a = server.socket("/room?new=othello", &origin).unwrap();
    let first = a.until(|_| true).remove(0);
    let words: Vec<&str> = first.split_whitespace().collect();
    let (id, seat, invite) = (
        words[1].to_string(),
        words[3].to_string(),
        words[5].to_string(),
    );
    let mut b = server
        .socket(&format!("/room?room={id}&seat={invite}"), &origin)
        .unwrap();
    a.send("move f5");
    state_with(&mut b, "\"moves\":[\"f5\"]");
    b.send("move d6");
    // The last move a player was shown is on disk when it is shown.
    state_with(&mut a, "\"moves\":[\"f5\",\"d6\"]");
    server.kill();

    let server = start_on(&db);
    let origin = server.origin();
    let mut a = server
        .socket(&format!("/room?room={id}&seat={seat}"), &origin)
        .unwrap();
    let s = state_with(&mut a, "\"moves\":[\"f5\",\"d6\"]");
    assert!(
        s.contains("\"you\":\"black\"") && s.contains("\"turn\":\"black\""),
        "{s}"
    );
    let mut b = server
        .socket(&format!("/room?room={id}&seat={invite}"), &origin)
        .unwrap();
    assert!(state_with(&mut b, "\"moves\"").contains("\"you\":\"white\""));
    a.send("move c3");
    state_with(&mut b, "\"moves\":[\"f5\",\"d6\",\"c3\"]");
    // The tokens are checked as before: a forged one is refused, a spectator only watches.
    let forged = server
        .socket(&format!("/room?room={id}&seat={}", "0".repeat(32)), &origin)
        .unwrap()
        .until(|_| true)
        .remove(0);
    assert!(forged.contains("does not belong"), "{forged}");
    let mut watcher = server.socket(&format!("/room?room={id}"), &origin).unwrap();
    assert!(state_with(&mut watcher, "c3").contains("\"you\":\"spectator\""));
    // The seat tokens are not in the file, only their hashes.
    drop(server);
    let bytes = std::fs::read(&db).unwrap_or_default();
    let wal = std::fs::read(dir.join("games.db-wal")).unwrap_or_default();
    for token in [&seat, &invite] {
        let found = |b: &[u8]| b.windows(token.len()).any(|w| w == token.as_bytes());
        assert!(
            !found(&bytes) && !found(&wal),
            "a seat token is stored in clear"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_engine_page_reloads_into_its_game_after_kill_9() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let mut server = start_on(&db);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    ws.send("setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6\nisready");
    let lines = ws.until(|l| l == "readyok");
    let id = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .unwrap_or_else(|| panic!("no game id in {lines:?}"))
        .to_string();
    server.kill();

    let server = start_on(&db);
    let mut ws = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    assert_eq!(
        ws.until(|_| true).remove(0),
        format!("info string game {id} othello position startpos moves f5 d6")
    );
    // The page sends its game again and plays on: the same game grows.
    ws.send("setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6");
    ws.send("position startpos moves f5 d6 c3\nisready");
    let lines = ws.until(|l| l == "readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string game")),
        "{lines:?}"
    );
    drop(ws);
    let mut again = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    assert!(again.until(|_| true)[0].ends_with("moves f5 d6 c3"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_second_server_on_the_same_file_refuses() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let server = start_on(&db);
    let args = ["--db".to_string(), db.display().to_string()];
    let refused = Server::try_spawn(2, &args)
        .err()
        .expect("a second server refuses");
    assert!(
        refused.contains("in use by another ryoshi serve"),
        "{refused}"
    );
    // The first one is unharmed.
    assert!(server.get("/status", "").starts_with("HTTP/1.1 200"));
    drop(server);
    assert!(
        Server::try_spawn(2, &args).is_ok(),
        "the file is free again"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_damaged_file_is_refused_at_start() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    std::fs::write(
        &db,
        b"this is no database, only some text that is long enough".repeat(100),
    )
    .unwrap();
    let args = ["--db".to_string(), db.display().to_string()];
    let refused = Server::try_spawn(2, &args)
        .err()
        .expect("a damaged file refuses");
    assert!(
        refused.contains("is not a ryoshi game database or is damaged"),
        "{refused}"
    );
    assert_eq!(refused.lines().count(), 1, "{refused}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Sends `lines` and `isready`; the lines up to `readyok`.
fn ask(ws: &mut Client, lines: &str) -> Vec<String> {
    ws.send(&format!("{lines}\nisready"));
    let mut got = ws.until(|l| l == "readyok");
    got.pop();
    got
}

/// The body of `GET path`, which must answer 200.
fn page(server: &Server, path: &str) -> String {
    let response = server.get(path, "");
    assert!(response.starts_with("HTTP/1.1 200"), "{path}: {response}");
    response.split_once("\r\n\r\n").unwrap().1.to_string()
}

#[test]
fn two_tabs_on_one_game_never_mix_their_moves() {
    let server = Server::start(8);
    let origin = server.origin();
    let mut a = server.socket("/ws", &origin).unwrap();
    let lines = ask(
        &mut a,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6 c3",
    );
    let id = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .unwrap_or_else(|| panic!("no game id in {lines:?}"))
        .to_string();
    // A second tab opens the same game, then each plays its own line from it.
    let mut b = server.socket(&format!("/ws?game={id}"), &origin).unwrap();
    b.until(|l| l.starts_with("info string game "));
    ask(&mut b, "setoption name USI_Variant value othello");
    assert_eq!(
        ask(
            &mut a,
            "position startpos moves f5 d6 c3 d3 c4\nname black Ann"
        ),
        Vec::<String>::new()
    );
    // Nor does a tab that has not seen the other's moves name the sides of the game or draw
    // its graph: those were the other's moves' to keep.
    let told = ask(&mut b, "name black Bob\ngraph 1:10 2:20");
    assert_eq!(told.len(), 2, "{told:?}");
    for line in &told {
        assert!(
            line.contains("changed in another tab meanwhile"),
            "{told:?}"
        );
    }
    let told = ask(&mut b, "position startpos moves f5 d6 c3 f4");
    let fork = told
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the second tab is not told of its new game: {told:?}"))
        .to_string();
    assert_ne!(fork, id);
    assert!(told[0].contains("changed in another tab"), "{told:?}");
    ask(&mut a, "position startpos moves f5 d6 c3 d3 c4 b3");
    ask(&mut b, "position startpos moves f5 d6 c3 f4 f3");

    // Each game holds one tab's line, whole, and replays into its record.
    let ggf = page(&server, &format!("/record/{id}"));
    assert!(
        ggf.trim_end().ends_with("B[F5]W[D6]B[C3]W[D3]B[C4]W[B3];)"),
        "{ggf}"
    );
    let other = page(&server, &format!("/record/{fork}"));
    assert!(
        other.trim_end().ends_with("B[F5]W[D6]B[C3]W[F4]B[F3];)"),
        "{other}"
    );
    drop((a, b));
    for (game, moves) in [(&id, "f5 d6 c3 d3 c4 b3"), (&fork, "f5 d6 c3 f4 f3")] {
        let mut again = server.socket(&format!("/ws?game={game}"), &origin).unwrap();
        assert_eq!(
            again.until(|_| true).remove(0),
            format!("info string game {game} othello position startpos moves {moves}")
        );
    }
    // The archive counts the moves each game holds, and names the first game's black as the
    // tab that played it did.
    let games = page(&server, "/games");
    assert!(
        games.contains("<td>6</td>") && games.contains("<td>5</td>"),
        "{games}"
    );
    assert!(games.contains("Ann") && !games.contains("Bob"), "{games}");
}

#[test]
fn another_programs_database_is_refused_and_left_as_it_was() {
    for schema in [
        "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');",
        // A table of the same name is not enough: ryoshi's tables come with its schema version.
        "CREATE TABLE games (id TEXT, score INTEGER); INSERT INTO games VALUES ('x', 1);",
    ] {
        let dir = temp_dir();
        let db = dir.join("other.db");
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(schema)
            .unwrap();
        let before = std::fs::read(&db).unwrap();
        let args = ["--db".to_string(), db.display().to_string()];
        let refused = Server::try_spawn(2, &args)
            .err()
            .expect("another program's database refuses");
        assert_eq!(
            refused.trim_end(),
            format!(
                "ryoshi: the game database {} is not a ryoshi game database; move it away or \
                 give another file with --db PATH",
                db.display()
            ),
            "{schema}"
        );
        assert!(std::fs::read(&db).unwrap() == before, "changed: {schema}");
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            (mode.as_str(), version, tables),
            ("delete", 0, 1),
            "{schema}"
        );
        drop(conn);
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// What a socket on `path` is told before its first `readyok`.
fn first_lines(server: &Server, path: &str) -> Vec<String> {
    let mut ws = server.socket(path, &server.origin()).unwrap();
    ask(&mut ws, "")
}

#[test]
fn a_game_the_page_cannot_go_on_with_is_said_in_one_line() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let mut server = start_on(&db);
    let new_game = "; this tab begins a new game";
    assert_eq!(
        first_lines(&server, "/ws?game=0123456789abcdef"),
        [format!(
            "info string error: no game '0123456789abcdef' is kept{new_game}"
        )]
    );
    // The id is the client's text: it is quoted printable, never as lines of its own.
    assert_eq!(
        first_lines(&server, "/ws?game=x%0Ainfo%20string%20game%20y"),
        [format!(
            "info string error: no game 'x?info string game y' is kept{new_game}"
        )]
    );
    let mut room = server
        .socket("/room?new=othello", &server.origin())
        .unwrap();
    let room_id = room.until(|_| true)[0]
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    assert_eq!(
        first_lines(&server, &format!("/ws?game={room_id}")),
        [format!(
            "info string error: the game {room_id} is played in a room (/play?room={room_id}){new_game}"
        )]
    );
    // A game whose moves no longer replay (a move changed by hand in the file).
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let lines = ask(
        &mut ws,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6",
    );
    let id = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .unwrap()
        .to_string();
    server.kill();
    drop((ws, room));
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE moves SET move = 'a1' WHERE game = ?1 AND ply = 1",
            [&id],
        )
        .unwrap();
    let server = start_on(&db);
    let mut ws = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    assert_eq!(
        ask(&mut ws, ""),
        [format!(
            "info string error: the game {id} is kept but does not replay{new_game}"
        )]
    );
    // It does: a game of its own.
    let lines = ask(
        &mut ws,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5",
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string game ") && !l.contains(&id)),
        "{lines:?}"
    );
    let record = server.get(&format!("/record/{id}"), "");
    assert!(record.starts_with("HTTP/1.1 500"), "{record}");
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_message_keeps_a_bounded_number_of_games_and_the_next_goes_on() {
    // Room for a socket per game read back, however late the server sees them closed.
    let server = Server::start(16);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    // Twelve games in one message: the tab keeps eight of them (`MESSAGE_WORK`), the engine
    // plays all twelve, and one line says what was not kept.
    let firsts = [
        "D4", "E4", "F4", "G4", "H4", "J4", "K4", "L4", "M4", "N4", "O4", "P4",
    ];
    let mut message = String::from("setoption name USI_Variant value go");
    for mv in firsts {
        message += &format!("\nusinewgame\nposition startpos moves {mv}");
    }
    let lines = ask(&mut ws, &message);
    let ids: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info string game "))
        .map(str::to_string)
        .collect();
    assert_eq!(ids.len(), 8, "{lines:?}");
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(
        errors[0].contains("its last 4 were sent to the engine but not kept"),
        "{lines:?}"
    );
    let opened = |id: &str| {
        let mut again = server
            .socket(&format!("/ws?game={id}"), &server.origin())
            .unwrap();
        again.until(|_| true).remove(0)
    };
    for (id, mv) in ids.iter().zip(firsts) {
        assert_eq!(
            opened(id),
            format!("info string game {id} go position startpos moves {mv}")
        );
    }
    // The session is in the last game; the next message keeps it, as a game of its own.
    let lines = ask(&mut ws, "position startpos moves P4 Q16");
    let id = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .unwrap_or_else(|| panic!("no game id in {lines:?}"))
        .to_string();
    assert!(!ids.contains(&id));
    assert_eq!(
        opened(&id),
        format!("info string game {id} go position startpos moves P4 Q16")
    );
}

/// What ryoshi's schema version 5 made (migrations 1 to 5 of src/serve/store.rs, as they were
/// then): a room's end agreement was the `go_ends` table's columns.
const SCHEMA_5: &str = "CREATE TABLE games (
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
    ALTER TABLE games ADD COLUMN clock TEXT;
    ALTER TABLE games ADD COLUMN clock_left0 INTEGER;
    ALTER TABLE games ADD COLUMN clock_left1 INTEGER;
    ALTER TABLE games ADD COLUMN clock_periods0 INTEGER;
    ALTER TABLE games ADD COLUMN clock_periods1 INTEGER;
    ALTER TABLE games ADD COLUMN clock_running INTEGER;
    ALTER TABLE games ADD COLUMN clock_since INTEGER;
    ALTER TABLE games ADD COLUMN clock_flagged INTEGER;
    ALTER TABLE games ADD COLUMN name0 TEXT;
    ALTER TABLE games ADD COLUMN name1 TEXT;
    CREATE TABLE points (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        score INTEGER NOT NULL,
        lead REAL,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID;
    CREATE TABLE go_ends (
        game TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        resumed INTEGER NOT NULL DEFAULT 0,
        dead TEXT,
        accepted INTEGER NOT NULL DEFAULT 0,
        score TEXT
    ) WITHOUT ROWID;
    ALTER TABLE games ADD COLUMN rules TEXT;
    PRAGMA user_version = 5;";

/// A Go room in its scoring phase kept by schema version 5 (the lone white stone marked dead,
/// black's acceptance given) goes on after the upgrade where it was: the same marking and
/// acceptance, not judged again, and white's accept of the version shown ends it with the
/// marking's score.
#[test]
fn a_version_5_database_keeps_its_rooms_scoring() {
    let dir = temp_dir();
    let db = dir.join("games.db");
    let rows = "....XO.../....XO.../....XO.../....XO.../.O..XO.../....XO.../....XO.../....XO.../\
                ....XO...";
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(SCHEMA_5).unwrap();
        // The seats of `abc` and `def`, as SHA-1.
        conn.execute(
            "INSERT INTO games (id, kind, game, start, seat0, seat1, created, updated, plies)
             VALUES ('00000000000000bb', 'room', 'go', ?1,
                     'a9993e364706816aba3e25717850c26c9cd0d89d',
                     '589c22335a381f122d129225f5c0ba3056ed5811', 1, 1, 2)",
            [format!("sfen 9 {rows} b")],
        )
        .unwrap();
        conn.execute_batch(
            "INSERT INTO moves VALUES ('00000000000000bb', 0, 'pass'), ('00000000000000bb', 1, 'pass');
             INSERT INTO go_ends (game, resumed, dead, accepted) VALUES ('00000000000000bb', 0, 'B5', 1);",
        )
        .unwrap();
    }
    let server = start_on(&db);
    let origin = server.origin();
    let mut white = server
        .socket("/room?room=00000000000000bb&seat=def", &origin)
        .unwrap();
    let line = state_with(&mut white, "\"phase\":\"scoring\"");
    let state: serde_json::Value = serde_json::from_str(&line["state ".len()..]).unwrap();
    assert_eq!(
        state["scoring"]["dead"],
        serde_json::json!(["B5"]),
        "{state}"
    );
    assert_eq!(
        state["scoring"]["accepted"],
        serde_json::json!([true, false])
    );
    assert_eq!(state["scoring"]["score"], "B+1.5");
    assert_eq!(server.status()["go_judgements"], 0, "read back, not judged");
    let version = &state["scoring"]["version"];
    white.send(&format!("accept {version}"));
    state_with(&mut white, "\"over\":\"black wins by area score\"");
    let _ = std::fs::remove_dir_all(dir);
}
