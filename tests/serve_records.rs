//! What the server keeps with a game besides its moves, over real sockets: a new game after
//! `usinewgame` gets its own id and the last one is kept; the players' names (a room's seats,
//! an engine page's sides) in the state, /games and the records; the evaluation graph's points,
//! bounded, read back and cut with the game; both after a restart.

mod serve_support;

use serve_support::{temp_dir, Client, Server};

/// Sends `lines` and `isready`; the lines up to `readyok`.
fn ask(ws: &mut Client, lines: &str) -> Vec<String> {
    ws.send(&format!("{lines}\nisready"));
    let mut got = ws.until(|l| l == "readyok");
    got.pop();
    got
}

/// The id a `info string game <id>` line gives, if any.
fn new_id(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .map(str::to_string)
}

/// Ends the session of `ws` and waits for its socket to close, so that its place under the
/// cap of sessions per address is free for the next socket.
fn end(mut ws: Client) {
    ws.send("quit");
    while !matches!(ws.next(), None | Some(serve_support::Frame::Close(_))) {}
}

/// The kept game `id` as a socket going on with it is told it.
fn kept(server: &Server, id: &str) -> String {
    let mut ws = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    let first = ws.until(|_| true).remove(0);
    end(ws);
    first
}

#[test]
fn a_new_game_from_the_same_start_gets_its_own_id() {
    let server = Server::start(8);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let first = new_id(&ask(
        &mut ws,
        "setoption name USI_Variant value othello\nusinewgame\nposition startpos moves f5 d6",
    ))
    .expect("the first game's id");
    // New game, as the page's button sends it: the start again, then the first move.
    let lines = ask(&mut ws, "usinewgame\nposition startpos");
    assert_eq!(new_id(&lines), None, "no game before its first move");
    let second = new_id(&ask(&mut ws, "position startpos moves f5")).expect("a new id");
    assert_ne!(first, second);
    assert_eq!(
        kept(&server, &first),
        format!("info string game {first} othello position startpos moves f5 d6")
    );
    assert_eq!(
        kept(&server, &second),
        format!("info string game {second} othello position startpos moves f5")
    );
    // A refused position (a bad pasted start) and the page's own position again: no new game.
    let lines = ask(
        &mut ws,
        "usinewgame\nposition sfen XX b\nposition startpos moves f5",
    );
    assert_eq!(new_id(&lines), None, "{lines:?}");
    assert!(body(server.get("/games", "")).contains("2 game(s)"));
    // Without `usinewgame`, the same start is a takeback of the current game.
    let lines = ask(&mut ws, "position startpos\nposition startpos moves d3");
    assert_eq!(new_id(&lines), None, "{lines:?}");
    assert_eq!(
        kept(&server, &second),
        format!("info string game {second} othello position startpos moves d3")
    );
}

/// The head of a response, and its body.
fn body(response: String) -> String {
    response
        .split_once("\r\n\r\n")
        .expect("a head and a body")
        .1
        .to_string()
}

/// The last state line's JSON.
fn state(lines: &[String]) -> serde_json::Value {
    let line = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("state "))
        .expect("a state");
    serde_json::from_str(line).unwrap()
}

#[test]
fn room_players_name_themselves_and_records_carry_the_names() {
    let server = Server::start(2);
    let origin = server.origin();
    let mut black = server.socket("/room?new=othello", &origin).unwrap();
    let first = black.until(|_| true).remove(0);
    let words: Vec<&str> = first.split_whitespace().collect();
    let (id, invite) = (words[1].to_string(), words[5].to_string());
    black.until(|l| l.starts_with("state "));
    let mut white = server
        .socket(&format!("/room?room={id}&seat={invite}"), &origin)
        .unwrap();
    white.until(|l| l.starts_with("state "));
    black.until(|l| l.starts_with("state "));
    let mut watcher = server.socket(&format!("/room?room={id}"), &origin).unwrap();
    assert_eq!(
        state(&watcher.until(|l| l.starts_with("state ")))["names"],
        serde_json::json!([null, null])
    );
    black.until(|l| l.starts_with("state "));
    white.until(|l| l.starts_with("state "));

    let name = "<b>Al]ce\\";
    black.send(&format!("name {name}"));
    let seen = state(&white.until(|l| l.starts_with("state ")));
    assert_eq!(seen["names"], serde_json::json!([name, null]));
    white.send("name  Bob ");
    let seen = state(&black.until(|l| l.contains("\"Bob\"")));
    assert_eq!(seen["names"], serde_json::json!([name, "Bob"]));
    // Refused, each with one line, and nothing changes: a spectator, a control character, a
    // name too long.
    watcher.send("name Eve");
    assert_eq!(
        watcher
            .until(|l| l.starts_with("info string error"))
            .pop()
            .unwrap(),
        "info string error: a spectator has no seat to name"
    );
    for bad in ["name B\u{1b}ob", &format!("name {}", "x".repeat(41))] {
        white.send(bad);
        let refused = white.until(|l| l.starts_with("info string error"));
        assert!(refused.last().unwrap().contains("name"), "{refused:?}");
    }
    black.send("move f5");
    let seen = state(&white.until(|l| l.contains("\"moves\":[\"f5\"]")));
    assert_eq!(seen["names"], serde_json::json!([name, "Bob"]));

    // The archive shows them (as HTML text), the record carries them (GGF escapes `]`, `\`).
    let games = body(server.get("/games", ""));
    assert!(
        games.contains("&lt;b&gt;Al]ce\\ (black) and Bob (white): two players"),
        "{games}"
    );
    let ggf = body(server.get(&format!("/record/{id}"), ""));
    assert!(ggf.contains("PB[<b>Al\\]ce\\\\]PW[Bob]"), "{ggf}");
    // Taken back: an empty name.
    white.send("name");
    black.until(|l| {
        l.strip_prefix("state ").is_some_and(|s| {
            serde_json::from_str::<serde_json::Value>(s).unwrap()["names"]
                == serde_json::json!([name, null])
        })
    });
    assert!(!body(server.get(&format!("/record/{id}"), "")).contains("PW["));
}

#[test]
fn engine_pages_name_both_sides_and_the_session_never_sees_it() {
    let server = Server::start(2);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    // A game without names keeps the record it had.
    let lines = ask(&mut ws, "usinewgame\nposition startpos moves 7g7f");
    let plain = new_id(&lines).unwrap_or_else(|| panic!("{lines:?}"));
    let kifu = body(server.get(&format!("/record/{plain}"), ""));
    assert!(
        !kifu.contains("[Sente ") && !kifu.contains("[Gote "),
        "{kifu}"
    );

    // Refused by the server itself, one line each, the session never told.
    for (bad, why) in [
        ("name purple Eve", "the side is sente or gote"),
        ("name sente A\tB", "control characters"),
        ("name", "the side is sente or gote"),
    ] {
        let lines = ask(&mut ws, bad);
        assert_eq!(lines.len(), 1, "{bad}: {lines:?}");
        assert!(lines[0].starts_with("info string error: ") && lines[0].contains(why));
    }
    let lines = ask(
        &mut ws,
        "usinewgame\nposition startpos\nname sente Alice \"A\"\nname gote ryoshi 0.1.0\n\
         position startpos moves 7g7f",
    );
    let id = new_id(&lines).expect("a new game");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let kifu = body(server.get(&format!("/record/{id}"), ""));
    assert!(
        kifu.contains("[Sente \"Alice \\\"A\\\"\"]\n[Gote \"ryoshi 0.1.0\"]"),
        "{kifu}"
    );
    // A name given during the game is kept with it; /games lists both.
    ask(
        &mut ws,
        "name gote ryoshi 0.2.0\nposition startpos moves 7g7f 3c3d",
    );
    let games = body(server.get("/games", ""));
    assert!(
        games.contains(
            "Alice &quot;A&quot; (sente) and ryoshi 0.2.0 (gote): a player and the engine"
        ),
        "{games}"
    );
    assert!(
        games.contains("<td>sente and gote: a player and the engine</td>"),
        "{games}"
    );
}

/// The `info string graph` line a socket opening the kept game `id` is told, if any.
fn kept_graph(server: &Server, id: &str, how: &str) -> Option<String> {
    let mut ws = server
        .socket(&format!("/ws?{how}={id}"), &server.origin())
        .unwrap();
    let graph = ask(&mut ws, "")
        .into_iter()
        .find_map(|l| l.strip_prefix("info string graph ").map(str::to_string));
    end(ws);
    graph
}

#[test]
fn the_graph_is_kept_with_the_game_bounded_and_cut_with_it() {
    let server = Server::start(8);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let lines = ask(&mut ws, "graph 1:10");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("no game is kept yet"), "{lines:?}");
    let id = new_id(&ask(
        &mut ws,
        "setoption name USI_Variant value go\nusinewgame\nposition startpos moves E5 C3 G7",
    ))
    .unwrap();
    assert_eq!(kept_graph(&server, &id, "game"), None);
    // Kept, read back by whoever opens the game, and never seen by the session.
    let lines = ask(&mut ws, "graph 1:120:2.5 2:-40:-0.5\ngraph 3:7");
    assert!(lines.is_empty(), "{lines:?}");
    let points = "1:120:2.5 2:-40:-0.5 3:7";
    assert_eq!(kept_graph(&server, &id, "game").as_deref(), Some(points));
    assert_eq!(kept_graph(&server, &id, "review").as_deref(), Some(points));
    // Forged or oversize: one error line each, and nothing changes (not even the good points).
    for bad in [
        "graph 1:1 2:2 3:3 1:4".to_string(),
        "graph 4:10".into(),
        "graph 0:10".into(),
        "graph 1:10 2:ten".into(),
        "graph 1:10:NaN".into(),
        "graph 1:99999999999".into(),
        "graph 1:<b>".into(),
        "graph".into(),
        format!("graph {}", "1:1 ".repeat(5000)),
    ] {
        let lines = ask(&mut ws, &bad);
        assert_eq!(lines.len(), 1, "{}: {lines:?}", &bad[..bad.len().min(40)]);
        assert!(
            lines[0].starts_with("info string error: graph: "),
            "{lines:?}"
        );
    }
    assert_eq!(kept_graph(&server, &id, "game").as_deref(), Some(points));
    // A takeback keeps the points of the moves still the same.
    ask(&mut ws, "position startpos moves E5 D4");
    assert_eq!(
        kept_graph(&server, &id, "game").as_deref(),
        Some("1:120:2.5")
    );

    // A finished game keeps its analysis too, and a copy played on from it the shared part.
    let done = new_id(&ask(
        &mut ws,
        "usinewgame\nposition startpos\nposition startpos moves E5 pass pass",
    ))
    .unwrap();
    let mut review = server
        .socket(&format!("/ws?review={done}"), &server.origin())
        .unwrap();
    let lines = ask(
        &mut review,
        "setoption name USI_Variant value go\nusinewgame\nposition startpos moves E5 pass pass\n\
         graph 1:5 2:6 3:6",
    );
    assert!(
        lines.iter().all(|l| !l.starts_with("info string error")),
        "{lines:?}"
    );
    assert_eq!(
        kept_graph(&server, &done, "review").as_deref(),
        Some("1:5 2:6 3:6")
    );
    // Whoever opens it next cannot rewrite that graph.
    let mut other = server
        .socket(&format!("/ws?game={done}"), &server.origin())
        .unwrap();
    ask(&mut other, "graph 1:-99 2:-99 3:-99");
    end(other);
    assert_eq!(
        kept_graph(&server, &done, "review").as_deref(),
        Some("1:5 2:6 3:6")
    );
    let copy = new_id(&ask(&mut review, "position startpos moves E5 pass C3")).unwrap();
    assert_ne!(copy, done);
    assert_eq!(
        kept_graph(&server, &copy, "game").as_deref(),
        Some("1:5 2:6")
    );
    assert_eq!(
        kept_graph(&server, &done, "review").as_deref(),
        Some("1:5 2:6 3:6")
    );
}

#[test]
fn names_and_the_graph_survive_a_restart() {
    let db = temp_dir().join("games.db");
    let mut server = Server::start_with(8, &["--db", &db.display().to_string()]);
    let origin = server.origin();
    let mut room = server.socket("/room?new=go", &origin).unwrap();
    let first = room.until(|_| true).remove(0);
    let words: Vec<&str> = first.split_whitespace().collect();
    let (room_id, seat) = (words[1].to_string(), words[3].to_string());
    room.send("name Alice");
    room.until(|l| l.contains("\"names\":[\"Alice\",null]"));
    let mut ws = server.socket("/ws", &origin).unwrap();
    let id = new_id(&ask(
        &mut ws,
        "setoption name USI_Variant value othello\nname white ryoshi\nusinewgame\n\
         position startpos moves f5 d6\ngraph 1:100 2:-200",
    ))
    .unwrap();
    server.kill();

    let server = Server::start_with(8, &["--db", &db.display().to_string()]);
    let mut room = server
        .socket(
            &format!("/room?room={room_id}&seat={seat}"),
            &server.origin(),
        )
        .unwrap();
    let seen = state(&room.until(|l| l.starts_with("state ")));
    assert_eq!(seen["names"], serde_json::json!(["Alice", null]));
    assert_eq!(
        kept_graph(&server, &id, "game").as_deref(),
        Some("1:100 2:-200")
    );
    let ggf = body(server.get(&format!("/record/{id}"), ""));
    assert!(ggf.contains("PW[ryoshi]") && !ggf.contains("PB["), "{ggf}");
}

#[test]
fn a_quantum_game_without_kakutei_nifu_is_kept_under_its_rules() {
    let server = Server::start(8);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    // Pawns on every file but the fifth: P~*5e is legal only with KakuteiNifu off.
    let start = "sfen qqqqqqqq1/1q5q1/qqqqqqqqq/9/9/9/QQQQPQQQQ/1Q5Q1/QQQQQQQQQ b P~ 1";
    let lines = ask(
        &mut ws,
        &format!(
            "setoption name USI_Variant value quantumshogi\n\
             setoption name KakuteiNifu value false\nusinewgame\nposition {start} moves 5g5f"
        ),
    );
    let id = new_id(&lines).expect("the game's id");
    let mut moves = "5g5f".to_string();
    for mv in ["5c5d", "P~*5e", "5d5e"] {
        moves = format!("{moves} {mv}");
        let lines = ask(&mut ws, &format!("position {start} moves {moves}"));
        assert!(lines.is_empty(), "{mv}: {lines:?}");
    }
    end(ws);
    assert_eq!(
        kept(&server, &id),
        format!("info string game {id} quantumshogi position {start} moves {moves}")
    );
    let kifu = body(server.get(&format!("/record/{id}"), ""));
    assert!(kifu.contains("[KakuteiNifu \"off\"]"), "{kifu}");
    assert!(body(server.get("/games", "")).contains("<td>4</td>"));
}
