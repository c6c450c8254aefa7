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
    // A socket more from an address at its cap is refused. A fifth address shares the global
    // cap: its sockets take the places of the others' until it holds its share (64 / 5).
    let refused = server.get_from([127, 0, 0, 2], "/room?new=go");
    assert!(refused.contains("from your address (at most"), "{refused}");
    let fifth: Vec<Client> = (0..all / 5)
        .map(|i| {
            server
                .socket_from([127, 0, 0, 99], "/room?new=go")
                .unwrap_or_else(|| panic!("socket {i} of the fifth address is within its share"))
        })
        .collect();
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
    drop((strangers, fifth));
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
    let seats: Vec<String> = (0..9)
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
    // The seats are shared among the addresses present: a fifth address takes its share (32 /
    // 5) of them, and no more.
    let all = ryoshi::serve::MAX_PLAYER_SOCKETS;
    for i in 0..all / 5 {
        let ws = server.socket_from([127, 0, 0, 9], &seats[8]);
        held.push(ws.unwrap_or_else(|| panic!("seat {i} of the fifth address is its share")));
    }
    let refused = server.get_from([127, 0, 0, 9], &seats[8]);
    assert!(
        refused.starts_with("HTTP/1.1 503")
            && refused.contains("too many players' seats are open (at most 32)"),
        "{refused}"
    );
}

/// Issue 70: four addresses holding 16 room sockets each used to take all 64, and every other
/// player's new room got 503. Ten addresses now each hold what their caps allow, and an
/// eleventh still makes a room and plays in it: the caps are shared among the addresses present,
/// the idle sockets of the address holding the most giving way.
#[test]
fn ten_full_addresses_leave_room_for_an_eleventh() {
    let server = Server::start(2);
    let per_address = ryoshi::serve::MAX_ROOM_SOCKETS_PER_ADDRESS;
    let words = |ws: &mut Client| -> Vec<String> {
        ws.until(|_| true)[0]
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let mut held = Vec::new();
    for a in 0..10u8 {
        let from = [127, 0, 0, 2 + a];
        let mut invites = Vec::new();
        for _ in 0..per_address {
            if let Some(mut ws) = server.socket_from(from, "/room?new=othello") {
                let w = words(&mut ws);
                invites.push(format!("/room?room={}&seat={}", w[1], w[5]));
                held.push(ws);
            }
        }
        for path in &invites {
            held.extend(server.socket_from(from, path));
        }
    }
    // The first socket of all was idle longest, on an address holding more than its share.
    match held[0].until(|l| l.contains("make room")).pop() {
        Some(l) => assert!(
            l.starts_with("info string error: closed to make room"),
            "{l}"
        ),
        None => unreachable!(),
    }
    assert_eq!(held[0].next(), Some(Frame::Close(1013)));
    // No more sockets than the caps allow are open (the status request is one more).
    // (A closed socket's thread ends just after it gives its place back: waited for.)
    let caps = ryoshi::serve::MAX_ROOM_SOCKETS + ryoshi::serve::MAX_PLAYER_SOCKETS;
    let mut open = usize::MAX;
    for _ in 0..100 {
        open = server.status()["connections"].as_u64().unwrap() as usize;
        if open <= caps + 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(open <= caps + 1, "{open} connections");
    // The eleventh address makes a room, joins its other seat, and both play.
    let from = [127, 0, 0, 12];
    let mut black = server
        .socket_from(from, "/room?new=othello")
        .expect("a new room from an eleventh address");
    let w = words(&mut black);
    let path = format!("/room?room={}&seat={}", w[1], w[5]);
    let mut white = server
        .socket_from(from, &path)
        .expect("its other seat from the same address");
    black.until(|l| l.starts_with("state ") && l.contains("\"you\":\"black\""));
    black.send("move f5");
    white.until(|l| l.contains("\"moves\":[\"f5\"]") && l.contains("\"you\":\"white\""));
    white.send("move f6");
    black.until(|l| l.contains("\"moves\":[\"f5\",\"f6\"]"));
    drop(held);
}
