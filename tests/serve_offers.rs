//! Offers between a room's players over real sockets (protocol/serve.md, "Offers"): the lines
//! refused, an offer that waits across a restart of the server and is then accepted (a draw, in
//! `/games` and the record), and a rematch whose seats are the same links, the colours swapped.

mod serve_support;

use serve_support::{join, new_room, start_on, state, temp_dir, Client, Server};

/// The next error line.
fn error(ws: &mut Client) -> String {
    ws.until(|l| l.starts_with("info string error:"))
        .pop()
        .unwrap()
}

fn plies(n: usize) -> impl Fn(&serde_json::Value) -> bool {
    move |s| s["moves"].as_array().map(Vec::len) == Some(n)
}

#[test]
fn a_draw_offer_waits_across_a_restart_and_is_kept_once_accepted() {
    let folder = temp_dir();
    let db = folder.join("games.db");
    let mut server = start_on(&db);
    let (mut a, id, seat, invite) = new_room(&server, "new=othello");
    let mut b = join(&server, &id, &invite);
    let mut watcher = join(&server, &id, "");
    assert_eq!(state(&mut a, plies(0))["draws"], true);
    watcher.send("offer draw");
    assert_eq!(
        error(&mut watcher),
        "info string error: a spectator cannot offer, accept or decline"
    );
    a.send("offer nothing");
    assert!(error(&mut a).contains("expected offer, accept, decline or withdraw"));
    a.send("move f5");
    state(&mut b, plies(1));
    a.send("offer draw");
    let s = state(&mut watcher, |s| s["offers"] != serde_json::json!([]));
    assert_eq!(
        s["offers"],
        serde_json::json!([{"kind": "draw", "by": "black"}])
    );
    assert_eq!(s["note"], "black offers a draw");
    a.send("offer draw");
    assert!(error(&mut a).contains("you have offered a draw already"));
    server.kill();
    drop((a, b, watcher));
    let server = start_on(&db);
    let mut b = join(&server, &id, &invite);
    let s = state(&mut b, plies(1));
    assert_eq!(
        s["offers"],
        serde_json::json!([{"kind": "draw", "by": "black"}])
    );
    let mut a = join(&server, &id, &seat);
    b.send("accept draw");
    let s = state(&mut a, |s| !s["over"].is_null());
    assert_eq!(s["over"], "draw by agreement");
    assert_eq!(s["offers"], serde_json::json!([]));
    let games = server.get("/games", "");
    assert!(games.contains("draw by agreement"), "{games}");
    let ggf = server.get(&format!("/record/{id}"), "");
    assert!(ggf.contains("RE[0.00]"), "{ggf}");
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn a_rematch_opens_with_the_same_links_and_the_colours_swapped() {
    let server = Server::start(2);
    let (mut a, id, seat, invite) = new_room(&server, "new=go&clock=60%2B1");
    let mut b = join(&server, &id, &invite);
    assert_eq!(state(&mut b, plies(0))["draws"], false);
    b.send("offer draw");
    assert!(error(&mut b).contains("a draw by agreement is not a result of go"));
    a.send("offer rematch");
    assert_eq!(
        error(&mut a),
        "info string error: a rematch is offered once the game is over"
    );
    a.send("resign");
    state(&mut b, |s| !s["over"].is_null());
    b.send("offer rematch");
    state(&mut a, |s| s["offers"] != serde_json::json!([]));
    a.send("accept rematch");
    let s = state(&mut b, |s| !s["rematch"].is_null());
    let new = s["rematch"].as_str().unwrap().to_string();
    assert_ne!(new, id);
    // The same tokens, the colours swapped: the invited player now moves first.
    let mut b2 = join(&server, &new, &invite);
    let s = state(&mut b2, plies(0));
    assert_eq!(
        (s["you"].as_str(), s["turn"].as_str()),
        (Some("black"), Some("black"))
    );
    assert_eq!(s["clock"]["spec"], "60+1");
    let mut a2 = join(&server, &new, &seat);
    assert_eq!(state(&mut a2, plies(0))["you"], "white");
    b2.send("move E5");
    state(&mut a2, plies(1));
}
