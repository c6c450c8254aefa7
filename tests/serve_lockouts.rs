//! The two lockouts of issue 43, pinned over real sockets: rooms opened and left can no longer
//! stop new rooms (the table moves idle rooms to the store), and strangers' idle sockets can no
//! longer keep a player out of their seat or take every engine session (limits per client
//! address, and a player's own seat outside the room-socket cap).

mod serve_support;

use serve_support::{Client, Frame, Server};
use std::time::Duration;

/// A room socket, waiting a little while the server gives back the places of sockets just
/// closed (it learns of a close after the client).
fn open(server: &Server, path: &str) -> Client {
    for _ in 0..100 {
        if let Some(ws) = server.socket(path, &server.origin()) {
            return ws;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{path} stays refused");
}

/// Closes a socket the way a browser does, and waits for the server's close.
fn close(mut ws: Client) {
    ws.send_frame(8, &1000u16.to_be_bytes());
    while let Some(frame) = ws.next() {
        if let Frame::Close(_) = frame {
            break;
        }
    }
}

#[test]
fn rooms_left_after_a_move_never_stop_new_rooms() {
    let server = Server::start(2);
    let mut first = None;
    // More rooms than the table keeps, each played once and left (0.34 s of a script used to
    // refuse every new room for 30 minutes).
    for i in 0..ryoshi::serve::room_table_size() + 6 {
        let mut ws = open(&server, "/room?new=othello");
        let words: Vec<String> = ws.until(|_| true)[0]
            .split_whitespace()
            .map(str::to_string)
            .collect();
        ws.send("move f5");
        ws.until(|l| l.contains("\"moves\":[\"f5\"]"));
        if i == 0 {
            first = Some((words[1].clone(), words[3].clone()));
        }
        close(ws);
    }
    let mut ws = open(&server, "/room?new=go");
    assert!(ws.until(|_| true)[0].starts_with("room "));
    let rooms = server.status()["rooms"].as_u64().unwrap();
    assert!(
        rooms as usize <= ryoshi::serve::room_table_size() + 1,
        "{rooms} in memory"
    );
    // The first room went to the store and comes back whole.
    let (id, seat) = first.unwrap();
    let mut back = open(&server, &format!("/room?room={id}&seat={seat}"));
    let s = back.until(|l| l.starts_with("state ")).remove(0);
    assert!(
        s.contains("\"moves\":[\"f5\"]") && s.contains("\"you\":\"black\""),
        "{s}"
    );
}

#[test]
fn strangers_sockets_never_keep_a_player_out() {
    let server = Server::start(4);
    let origin = server.origin();
    let mut player = server.socket("/room?new=othello", &origin).unwrap();
    let words: Vec<String> = player.until(|_| true)[0]
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let (id, seat) = (words[1].clone(), words[3].clone());
    player.until(|l| l.starts_with("state "));
    drop(player);
    // Strangers on other addresses fill every room socket, each address to its own cap.
    let (per_address, all) = (
        ryoshi::serve::MAX_ROOM_SOCKETS_PER_ADDRESS,
        ryoshi::serve::MAX_ROOM_SOCKETS,
    );
    let strangers: Vec<Client> = (0..all)
        .map(|i| {
            let from = [127, 0, 0, 2 + (i / per_address) as u8];
            let mut ws = server
                .socket_from(from, "/room?new=go")
                .unwrap_or_else(|| panic!("socket {i} is under the caps"));
            assert!(ws.until(|_| true)[0].starts_with("room "));
            ws
        })
        .collect();
    // A socket more from an address at its cap is refused, and so is one past the global cap.
    let refused = server.get_from([127, 0, 0, 2], "/room?new=go");
    assert!(refused.contains("from your address (at most"), "{refused}");
    let refused = server.get_from([127, 0, 0, 99], "/room?new=go");
    assert!(
        refused.contains("too many room connections (at most"),
        "{refused}"
    );
    // The player comes back to their seat all the same, and engine tabs still open.
    let mut player = server
        .socket(&format!("/room?room={id}&seat={seat}"), &origin)
        .expect("a player's own seat is never refused for strangers' sockets");
    let s = player.until(|l| l.starts_with("state ")).remove(0);
    assert!(s.contains("\"you\":\"black\""), "{s}");
    let mut tab = server.socket("/ws", &origin).unwrap();
    tab.send("isready");
    tab.until(|l| l == "readyok");
    drop(strangers);
}

#[test]
fn one_address_never_takes_every_engine_session() {
    let server = Server::start(4);
    let per_address = ryoshi::serve::engine_sessions_per_address(4);
    assert_eq!(per_address, 3);
    let mut tabs: Vec<Client> = (0..per_address)
        .map(|_| server.socket_from([127, 0, 0, 2], "/ws").unwrap())
        .collect();
    for tab in &mut tabs {
        tab.send("isready");
        tab.until(|l| l == "readyok");
    }
    let mut more = server.socket_from([127, 0, 0, 2], "/ws").unwrap();
    let refusal = more.until(|_| true).remove(0);
    assert!(
        refusal.contains("from your address (3 at most)"),
        "{refusal}"
    );
    assert_eq!(more.next(), Some(Frame::Close(1013)));
    let mut other = server.socket_from([127, 0, 0, 3], "/ws").unwrap();
    other.send("isready");
    other.until(|l| l == "readyok");
}

#[test]
fn players_seats_never_take_every_connection() {
    let server = Server::start(2);
    let seats: Vec<String> = (0..8)
        .map(|_| {
            let mut ws = open(&server, "/room?new=go");
            let words: Vec<String> = ws.until(|_| true)[0]
                .split_whitespace()
                .map(str::to_string)
                .collect();
            close(ws);
            format!("/room?room={}&seat={}", words[1], words[3])
        })
        .collect();
    // Four addresses open their own seats, 16 to a room, as many as they are let: each seat
    // is theirs, so no cap for strangers' sockets applies.
    let mut held = Vec::new();
    for a in 0..4 {
        for j in 0..32 {
            let path = &seats[(a * 32 + j) / 16];
            held.extend(server.socket_from([127, 0, 0, 2 + a as u8], path));
        }
    }
    // Pages are still served, and engine tabs still open.
    let page = server.get("/", "");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    let mut tab = server.socket("/ws", &server.origin()).unwrap();
    tab.send("isready");
    tab.until(|l| l == "readyok");
    assert_eq!(held.len(), ryoshi::serve::MAX_PLAYER_SOCKETS);
    let refused = server.get_from([127, 0, 0, 9], &seats[7]);
    assert!(
        refused.starts_with("HTTP/1.1 503")
            && refused.contains("too many players' seats are open (at most 32)"),
        "{refused}"
    );
}
