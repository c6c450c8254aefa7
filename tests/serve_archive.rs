//! The archive over real sockets: `/games` lists the kept games newest first, paged, with their
//! result, and `/record/<id>` serves each one's record with its type and file name.

mod serve_support;

use serve_support::Server;

/// The head of a response, and its body.
fn split(response: String) -> (String, String) {
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    (head.to_string(), body.to_string())
}

fn new_room(server: &Server, game: &str) -> (serve_support::Client, String) {
    let mut ws = server
        .socket(&format!("/room?new={game}"), &server.origin())
        .unwrap();
    let first = ws.until(|_| true).remove(0);
    let id = first.split_whitespace().nth(1).expect("an id").to_string();
    ws.until(|l| l.starts_with("state "));
    (ws, id)
}

#[test]
fn games_are_listed_newest_first_with_their_records() {
    let server = Server::start(2);
    let origin = server.origin();
    // A room where black plays f5 and resigns.
    let (mut room, room_id) = new_room(&server, "othello");
    room.send("move f5");
    room.until(|l| l.contains("\"moves\":[\"f5\"]"));
    room.send("resign");
    room.until(|l| l.contains("resigns"));
    // Then a Go game against the engine that ends with two passes.
    let mut ws = server.socket("/ws", &origin).unwrap();
    ws.send("setoption name USI_Variant value go\nusinewgame\nposition startpos moves E5 pass pass\nisready");
    let lines = ws.until(|l| l == "readyok");
    let go_id = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .expect("the game's id")
        .to_string();

    let (head, page) = split(server.get("/games", ""));
    assert!(
        head.starts_with("HTTP/1.1 200") && head.contains("text/html"),
        "{head}"
    );
    let (go_at, room_at) = (page.find(&go_id).unwrap(), page.find(&room_id).unwrap());
    assert!(go_at < room_at, "newest first:\n{page}");
    assert!(page.contains("white wins by resignation"), "{page}");
    assert!(page.contains(&format!("/play?room={room_id}")), "{page}");
    assert!(page.contains(&format!("/go?review={go_id}")), "{page}");
    assert!(page.contains(" wins by area score"), "{page}");
    assert!(page.contains("<td>3</td>"), "three moves:\n{page}");
    assert!(page.contains("<td>untimed</td>"), "{page}");

    let (head, sgf) = split(server.get(&format!("/record/{go_id}"), ""));
    assert!(
        head.contains("Content-Type: application/x-go-sgf"),
        "{head}"
    );
    assert!(
        head.contains(&format!("filename=\"ryoshi-go-{go_id}.sgf\"")),
        "{head}"
    );
    assert!(
        sgf.starts_with("(;") && sgf.contains(";B[eo];W[];B[]"),
        "{sgf}"
    );
    // The record reads back into a session as the same game.
    ws.send(&format!(
        "loadrecordtext {}\nmoves\nisready",
        sgf.replace('\n', " ")
    ));
    let back = ws.until(|l| l == "readyok");
    assert!(
        !back.iter().any(|l| l.starts_with("info string error")),
        "{back:?}"
    );

    let (head, ggf) = split(server.get(&format!("/record/{room_id}"), ""));
    assert!(
        head.contains("Content-Type: text/plain; charset=utf-8"),
        "{head}"
    );
    assert!(head.contains(".ggf\""), "{head}");
    assert!(ggf.to_ascii_lowercase().contains("f5"), "{ggf}");
    assert!(server
        .get("/record/nosuchgame", "")
        .starts_with("HTTP/1.1 404"));
}

#[test]
fn the_list_is_paged() {
    let server = Server::start(2);
    let ids: Vec<String> = (0..22).map(|_| new_room(&server, "go").1).collect();
    let (_, first) = split(server.get("/games", ""));
    assert!(first.contains("22 game(s)"), "{first}");
    assert!(first.contains("/games?page=2\">older"), "{first}");
    // The newest 20 on the first page, the two oldest on the second.
    assert!(first.contains(&ids[21]) && !first.contains(&ids[0]));
    let (_, second) = split(server.get("/games?page=2", ""));
    assert!(second.contains(&ids[0]) && second.contains(&ids[1]) && !second.contains(&ids[2]));
    assert!(second.contains("/games?page=1\">newer") && !second.contains("older"));
}

/// An engine page's Go game over by passes is archived with the judgement's dead stones off the
/// board, as the page shows its score, not with every stone alive.
#[test]
fn an_engine_go_game_is_archived_with_its_dead_stones_off() {
    // Black's wall on column E owns A–E, white's on F owns F–J, and a lone white stone sits at
    // B5 in black's side: alive, white wins by 35 (komi 7); off as dead, black wins by 1.
    let rows =
        "....XO.../....XO.../....XO.../....XO.../.O..XO.../....XO.../....XO.../....XO.../....XO...";
    let server = Server::start(2);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    ws.send(&format!(
        "setoption name USI_Variant value go\nusinewgame\nposition sfen 9 {rows} b moves pass pass\nscore\nisready"
    ));
    let lines = ws.until(|l| l == "readyok");
    let id = lines
        .iter()
        .find_map(|l| l.strip_prefix("info string game "))
        .expect("the game's id")
        .to_string();
    let shown = lines
        .iter()
        .find(|l| l.starts_with("score "))
        .expect("the page's score");
    assert!(shown.starts_with("score B+"), "{lines:?}");
    let (_, page) = split(server.get("/games", ""));
    assert!(page.contains("black wins by area score"), "{page}");
    let (_, sgf) = split(server.get(&format!("/record/{id}"), ""));
    let lead = shown.split_whitespace().nth(1).unwrap();
    assert!(sgf.contains(&format!("RE[{lead}]")), "{sgf}\n{shown}");
    let status = server.status();
    assert_eq!(status["go_judgements"], 1, "judged once: {status}");
}
