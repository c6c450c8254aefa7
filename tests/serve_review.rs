//! The review board's side of the server, over real sockets: stepping back through a kept game
//! changes nothing until a move is played from there; an uploaded record (`loadrecordtext`) is
//! read back to the page as `info string loaded ...`, and a bad one gets one error and changes
//! nothing; a room's game opens on an engine page for review, and a room answers `view <ply>`
//! to the one socket that asked, for anyone in it, changing nothing.

mod serve_support;

use serve_support::{Client, Server};

/// Sends `lines` and `isready`; the lines up to `readyok`.
fn ask(ws: &mut Client, lines: &str) -> Vec<String> {
    ws.send(&format!("{lines}\nisready"));
    let mut got = ws.until(|l| l == "readyok");
    got.pop();
    got
}

/// The moves of the kept game `id`, as a socket going on with it is told them.
fn kept(server: &Server, id: &str) -> String {
    let mut ws = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    ws.until(|_| true).remove(0)
}

fn game_id(lines: &[String]) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .unwrap_or_else(|| panic!("no game id in {lines:?}"))
        .to_string()
}

#[test]
fn stepping_back_changes_nothing_until_a_move_is_played_from_there() {
    let server = Server::start(4);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let lines = ask(
        &mut ws,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6 c3 d3",
    );
    let id = game_id(&lines);
    // The review board steps back to the start and forward again.
    for moves in ["", " moves f5", " moves f5 d6", " moves f5 d6 c3"] {
        let lines = ask(&mut ws, &format!("position startpos{moves}\nd"));
        assert!(
            !lines.iter().any(|l| l.starts_with("info string")),
            "{lines:?}"
        );
    }
    assert_eq!(
        kept(&server, &id),
        format!("info string game {id} othello position startpos moves f5 d6 c3 d3")
    );
    // A move other than the game's from ply 2 is a takeback there: the same game, shortened.
    let lines = ask(&mut ws, "position startpos moves f5 d6 c5");
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(
        kept(&server, &id),
        format!("info string game {id} othello position startpos moves f5 d6 c5")
    );
}

#[test]
fn a_game_opened_for_review_is_copied_only_when_played_on() {
    let server = Server::start(4);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let id = game_id(&ask(
        &mut ws,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6 c3",
    ));
    drop(ws);
    let mut review = server
        .socket(&format!("/ws?review={id}"), &server.origin())
        .unwrap();
    assert_eq!(
        review.until(|_| true).remove(0),
        format!("info string game {id} othello position startpos moves f5 d6 c3")
    );
    let lines = ask(
        &mut review,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6 c3\nposition startpos moves f5\nposition startpos",
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("info string game")),
        "stepping made a copy: {lines:?}"
    );
    let copy = game_id(&ask(&mut review, "position startpos moves f5 f6"));
    assert_ne!(copy, id);
    assert!(kept(&server, &id).ends_with("moves f5 d6 c3"));
    assert!(kept(&server, &copy).ends_with("moves f5 f6"));
}

#[test]
fn an_uploaded_record_is_read_back_and_a_bad_one_changes_nothing() {
    let server = Server::start(4);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let id = game_id(&ask(
        &mut ws,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6",
    ));
    let before = ask(&mut ws, "d");
    // Bad records: bad syntax, an illegal move, another game's format, an empty text.
    for bad in [
        "(;GM[Othello]PC[x]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[f5]W[a1];)",
        "f5a1",
        "(;GM[1]FF[4]SZ[9];B[ee])",
        "(;",
    ] {
        let lines = ask(&mut ws, &format!("loadrecordtext {bad}"));
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with("info string error:"))
                .count(),
            1,
            "{bad}: {lines:?}"
        );
        assert_eq!(lines.len(), 1, "{bad}: one line only: {lines:?}");
        assert_eq!(ask(&mut ws, "d"), before, "{bad} changed the position");
    }
    assert!(kept(&server, &id).ends_with("moves f5 d6"));

    // A good one: the transcript's game comes back to the page, the session holds it, and the
    // kept game is untouched until the page sends it as its position.
    let lines = ask(&mut ws, "loadrecordtext f5d6c3d3c4\nd");
    assert_eq!(
        lines[0],
        "info string loaded othello position sfen ---------------------------OX------XO--------------------------- b moves f5 d6 c3 d3 c4"
    );
    assert!(lines.iter().any(|l| l.starts_with("black X ")), "{lines:?}");
    assert!(kept(&server, &id).ends_with("moves f5 d6"));
    // Sent back as the page's position, it is a new kept game.
    let copy = game_id(&ask(
        &mut ws,
        "position sfen ---------------------------OX------XO--------------------------- b moves f5 d6 c3 d3 c4",
    ));
    assert_ne!(copy, id);

    // `loadsgftext` is Go's: another game refuses it, and the server says nothing of it.
    let lines = ask(&mut ws, "loadsgftext f5d6");
    assert!(
        lines.len() == 1 && lines[0].starts_with("info string error: "),
        "{lines:?}"
    );

    // Go's SGF too, through loadsgftext as well; a record over a message's size is refused by
    // the socket before the session or the reader sees it.
    ask(&mut ws, "setoption name USI_Variant value go\nusinewgame");
    let lines = ask(&mut ws, "loadsgftext (;GM[1]FF[4]SZ[9];B[ee];W[cc];B[])");
    assert!(
        lines[0].starts_with("info string loaded go position sfen 9 ")
            && lines[0].ends_with(" moves E5 C7 pass"),
        "{lines:?}"
    );
    let huge = format!("loadrecordtext (;GM[1]SZ[9]C[{}])", "x".repeat(300 << 10));
    ws.send(&huge);
    let refused = ws.until(|l| l.starts_with("info string"));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].starts_with("info string error: message of ")
            && refused[0].ends_with("refused (at most 262144)"),
        "{refused:?}"
    );
    // The rest of it is never read, so the socket cannot go on (protocol/serve.md).
    assert_eq!(ws.next(), Some(serve_support::Frame::Close(1009)));
}

#[test]
fn a_rooms_game_opens_for_review_on_its_engine_page() {
    let server = Server::start(4);
    let mut room = server
        .socket("/room?new=othello", &server.origin())
        .unwrap();
    let first = room.until(|_| true).remove(0);
    let id = first.split_whitespace().nth(1).unwrap().to_string();
    room.until(|l| l.starts_with("state "));
    room.send("move f5");
    room.until(|l| l.contains("\"moves\":[\"f5\"]"));
    let mut ws = server
        .socket(&format!("/ws?review={id}"), &server.origin())
        .unwrap();
    assert_eq!(
        ws.until(|_| true).remove(0),
        format!("info string game {id} othello position startpos moves f5")
    );
    // Not as its own game: `game=` goes on only with an engine page's games.
    let mut other = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    let lines = ask(&mut other, "d");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string game")),
        "{lines:?}"
    );
    let page = server.get("/games", "");
    assert!(
        page.contains(&format!("/othello?review={id}"))
            && page.contains(&format!("/play?room={id}")),
        "{page}"
    );
}

/// The JSON of a `state` or `view` line.
fn json(line: &str, kind: &str) -> serde_json::Value {
    let text = line
        .strip_prefix(kind)
        .unwrap_or_else(|| panic!("not a {kind}line: {line}"));
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_room_shows_any_earlier_ply_to_whoever_asks_and_changes_nothing() {
    let server = Server::start(4);
    let mut first = server
        .socket("/room?new=quantumshogi", &server.origin())
        .unwrap();
    let opened = first.until(|_| true).remove(0);
    let words: Vec<&str> = opened.split_whitespace().collect();
    let (id, invite) = (words[1].to_string(), words[5].to_string());
    let mut sfens = vec![json(
        &first.until(|l| l.starts_with("state ")).pop().unwrap(),
        "state ",
    )["sfen"]
        .clone()];
    let mut second = server
        .socket(&format!("/room?room={id}&seat={invite}"), &server.origin())
        .unwrap();
    second.until(|l| l.starts_with("state "));
    first.until(|l| l.starts_with("state "));
    for (who, mv, moves) in [
        (&mut first, "7g7f", r#""moves":["7g7f"]"#),
        (&mut second, "3c3d", r#""moves":["7g7f","3c3d"]"#),
    ] {
        who.send(&format!("move {mv}"));
        let state = json(&who.until(|l| l.contains(moves)).pop().unwrap(), "state ");
        sfens.push(state["sfen"].clone());
    }
    first.until(|l| l.contains(r#""moves":["7g7f","3c3d"]"#));
    let mut watcher = server
        .socket(&format!("/room?room={id}"), &server.origin())
        .unwrap();
    watcher.until(|l| l.starts_with("state "));
    // The players are told the spectator came.
    first.until(|l| l.starts_with("state "));
    second.until(|l| l.starts_with("state "));
    // A spectator steps back to every ply: the position the players were shown then.
    for (ply, last) in [(0, None), (1, Some("7g7f")), (2, Some("3c3d"))] {
        watcher.send(&format!("view {ply}"));
        let view = json(&watcher.until(|_| true).remove(0), "view ");
        assert_eq!(view["ply"], ply);
        assert_eq!(view["plies"], 2);
        assert_eq!(view["sfen"], sfens[ply]);
        assert_eq!(view["last"].as_str(), last);
        assert_eq!(view["turn"], ["sente", "gote"][ply % 2]);
        let display: Vec<String> = serde_json::from_value(view["display"].clone()).unwrap();
        assert!(
            display.iter().any(|l| l.starts_with("sfen ")),
            "{display:?}"
        );
    }
    // Plies the game does not have: one error line each, and the socket goes on.
    for bad in ["3", "-1", "x", "99999999999999999999999"] {
        watcher.send(&format!("view {bad}"));
        let line = watcher.until(|_| true).remove(0);
        assert_eq!(
            line,
            format!("info string error: no ply '{bad}' to view: this game has plies 0 to 2")
        );
    }
    // A player may look back too; the answer goes to that socket alone, and the game is as it
    // was: the next line anyone gets is the state after the next move, with three moves.
    second.send("view 1");
    assert_eq!(json(&second.until(|_| true).remove(0), "view ")["ply"], 1);
    first.send("move 2g2f");
    for socket in [&mut first, &mut second, &mut watcher] {
        let state = json(&socket.until(|_| true).remove(0), "state ");
        assert_eq!(state["moves"], serde_json::json!(["7g7f", "3c3d", "2g2f"]));
    }
    // After the end, the finished game is stepped through the same way.
    second.send("resign");
    watcher.until(|l| l.contains("gote resigns"));
    watcher.send("view 3");
    let view = json(&watcher.until(|_| true).remove(0), "view ");
    assert_eq!(
        (view["ply"].clone(), view["last"].clone()),
        (3.into(), "2g2f".into())
    );
}
