//! Engine pages' games over real sockets: a new game after `usinewgame` gets its own id and the
//! last one is kept.

mod serve_support;

use serve_support::{Client, Server};

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

/// The kept game `id` as a socket going on with it is told it.
fn kept(server: &Server, id: &str) -> String {
    let mut ws = server
        .socket(&format!("/ws?game={id}"), &server.origin())
        .unwrap();
    ws.until(|_| true).remove(0)
}

#[test]
fn a_new_game_from_the_same_start_gets_its_own_id() {
    let server = Server::start(4);
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
    // Without `usinewgame`, the same start is a takeback of the current game.
    let lines = ask(&mut ws, "position startpos\nposition startpos moves d3");
    assert_eq!(new_id(&lines), None, "{lines:?}");
    assert_eq!(
        kept(&server, &second),
        format!("info string game {second} othello position startpos moves d3")
    );
}
