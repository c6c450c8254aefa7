//! The upgraded connections: which WebSocket a request may open (an engine tab at `/ws`, a room
//! at `/room`), reading its frames until it closes, and the pinger that keeps live tabs open
//! and finds the dead ones. The sessions behind them live in `tab.rs` and `room.rs`.

// SAFETY: allowed for malloc_trim after a socket closes (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::limits::{
    close_answered, engine_sessions_per_address, limit_send_buffer, paces_of, take_shared,
    AddressSlot, Held, Use, MAX_MESSAGE, MAX_PLAYER_SOCKETS, MAX_PLAYER_SOCKETS_PER_ADDRESS,
    MAX_ROOM_SOCKETS, MAX_ROOM_SOCKETS_PER_ADDRESS,
};
use super::tab::{Socket, Tab};
use super::tab_game::{record_refusal, TabGame};
use super::waits::{Stopwatch, Timing};
use super::{http, room, ws, Server};
use http::Request;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

/// The upgrade's key when the request may open a socket; otherwise the status and body of the
/// refusal.
fn accepted_key(server: &Server, req: &Request) -> Result<String, (&'static str, String)> {
    if let Err(why) = server.gate.check_origin(req) {
        return Err(("403 Forbidden", format!("{why}\n")));
    }
    let Some(key) = req
        .header("sec-websocket-key")
        .filter(|k| ws::valid_key(k))
        .map(str::to_string)
    else {
        return Err((
            "400 Bad Request",
            "Sec-WebSocket-Key must be the base64 of 16 bytes\n".into(),
        ));
    };
    if req.header("sec-websocket-version") != Some("13") {
        return Err(("426 Upgrade Required", "WebSocket version 13\n".into()));
    }
    match req.path.as_str() {
        "/ws" | "/room" => Ok(key),
        _ => Err(("404 Not Found", "no such socket\n".into())),
    }
}

/// Upgrades the connection to the socket the request asks for and serves it until it closes;
/// `on_status` gets the status code sent (`101`, or the refusal's) as soon as it is known.
pub(super) fn upgrade(
    server: &Server,
    req: &Request,
    mut stream: TcpStream,
    on_status: impl FnOnce(&str),
) {
    let key = match accepted_key(server, req) {
        Ok(key) => key,
        Err((status, body)) => {
            on_status(status.split(' ').next().unwrap_or(status));
            let _ = http::text(&mut stream, status, &body);
            close_answered(server, stream);
            return;
        }
    };
    // Room sockets have their own caps, so that rooms cannot take every connection, and every
    // cap is per client address too; a player joining their own seat is counted apart.
    let ip = stream
        .peer_addr()
        .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |a| a.ip());
    let mut places = (None, None);
    let mut what = None;
    if req.path == "/room" {
        let player = req.param("new").is_none()
            && room::is_player(
                &server.store,
                &req.param("room").unwrap_or_default(),
                &req.param("seat").unwrap_or_default(),
            );
        what = Some(if player { Use::Player } else { Use::Room });
        let refused = if player {
            match AddressSlot::take(server, ip, Use::Player, MAX_PLAYER_SOCKETS_PER_ADDRESS) {
                None => Some(format!(
                    "too many of your seats are open from your address (at most {MAX_PLAYER_SOCKETS_PER_ADDRESS})"
                )),
                Some(place) => {
                    places.1 = Some(place);
                    places.0 = take_shared(
                        server,
                        &server.player_sockets,
                        MAX_PLAYER_SOCKETS,
                        ip,
                        Use::Player,
                    );
                    places.0.is_none().then(|| {
                        format!("too many players' seats are open (at most {MAX_PLAYER_SOCKETS})")
                    })
                }
            }
        } else {
            match AddressSlot::take(server, ip, Use::Room, MAX_ROOM_SOCKETS_PER_ADDRESS) {
                None => Some(format!(
                    "too many room connections from your address (at most {MAX_ROOM_SOCKETS_PER_ADDRESS})"
                )),
                Some(place) => {
                    places.1 = Some(place);
                    places.0 =
                        take_shared(server, &server.room_sockets, MAX_ROOM_SOCKETS, ip, Use::Room);
                    places.0.is_none().then(|| {
                        format!("too many room connections (at most {MAX_ROOM_SOCKETS})")
                    })
                }
            }
        };
        if let Some(why) = refused {
            on_status("503");
            let _ = http::text(&mut stream, "503 Service Unavailable", &format!("{why}\n"));
            drop(places);
            close_answered(server, stream);
            return;
        }
    }
    on_status("101");
    if http::upgrade(&mut stream, &key).is_err() {
        return;
    }
    serve_socket(server, req, stream, what, ip);
    drop(places);
}

/// Serves an upgraded connection, an engine page's or a room's (`what`), until it closes.
fn serve_socket(
    server: &Server,
    req: &Request,
    stream: TcpStream,
    what: Option<Use>,
    ip: std::net::IpAddr,
) {
    // An idle tab may wait for hours, answering the pinger's pings; a socket that sends
    // nothing at all for the idle timeout is closed.
    let _ = stream.set_read_timeout(Some(server.idle_timeout));
    limit_send_buffer(&stream);
    // Each frame is written whole: Nagle's wait for the client's (delayed) acknowledgement of
    // the previous one would add 40 ms to a move's round trip.
    let _ = stream.set_nodelay(true);
    let Ok(write_half) = stream.try_clone() else {
        return;
    };
    let Ok(socket) = Socket::new(write_half) else {
        return;
    };
    let id = server.next_id.fetch_add(1, Ordering::SeqCst);
    server.sockets.lock().push((id, socket.clone()));
    match what {
        None => engine_socket(server, req, &stream, &socket, ip),
        Some(what) => {
            let held = Held::register(server, ip, what, &socket);
            room_socket(server, req, &stream, &socket, id, &held);
        }
    }
    server.sockets.lock().retain(|(i, _)| *i != id);
}

/// Pings every upgraded socket now and then: a live tab's browser answers with a pong (which
/// keeps its socket under the idle timeout); a socket whose queue is full is dropped.
pub(super) fn pinger(server: &Server) {
    let every = (server.idle_timeout / 3).max(Duration::from_millis(100));
    loop {
        thread::sleep(every);
        let sockets: Vec<Socket> = server
            .sockets
            .lock()
            .iter()
            .map(|(_, s)| s.clone())
            .collect();
        for socket in sockets {
            socket.offer(ws::Message::Ping(ws::Bytes::new()));
        }
    }
}

/// Reads the tab's frames until it closes; `on_text` gets each text message.
fn read_frames(stream: &TcpStream, socket: &Socket, mut on_text: impl FnMut(&str)) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = ws::Reader::new(read_half);
    // A client gone (a write failed) may have left messages in the kernel's buffer: they are
    // not worth reading, and a paced room socket would hold its place while it read them.
    while socket.is_open() {
        match reader.next_message() {
            ws::Incoming::Text(text) => on_text(&text),
            ws::Incoming::NotText => socket.error("messages must be UTF-8 text"),
            ws::Incoming::Ping(body) => socket.send(ws::Message::Pong(body)),
            ws::Incoming::TooLong(n) => {
                socket.error(&format!(
                    "message of {n} bytes refused (at most {MAX_MESSAGE})"
                ));
                socket.close(1009, "message too big");
                break;
            }
            ws::Incoming::Close(1000) => {
                socket.close(1000, "");
                break;
            }
            ws::Incoming::Close(code) => {
                socket.close(code, "a close status no endpoint may send");
                break;
            }
            ws::Incoming::BadClose => {
                socket.close(1007, "a close reason must be UTF-8");
                break;
            }
            ws::Incoming::Idle => {
                socket.close(1001, "idle");
                break;
            }
            ws::Incoming::Broken(why) => {
                socket.close(1002, &why);
                break;
            }
        }
    }
}

fn engine_socket(
    server: &Server,
    req: &Request,
    stream: &TcpStream,
    socket: &Socket,
    ip: std::net::IpAddr,
) {
    let per_address = engine_sessions_per_address(server.max_sessions);
    let Some(_place) = AddressSlot::take(server, ip, Use::Engine, per_address) else {
        socket.error(&format!(
            "too many engine sessions are open from your address ({per_address} at most); \
             close another tab and reload"
        ));
        socket.close(1013, "too many sessions");
        return;
    };
    let open = server.sessions.fetch_add(1, Ordering::SeqCst);
    if open >= server.max_sessions {
        server.sessions.fetch_sub(1, Ordering::SeqCst);
        socket.error(&format!(
            "too many engine sessions are open ({} at most); close another tab and reload",
            server.max_sessions
        ));
        socket.close(1013, "too many sessions");
        return;
    }
    match Tab::start(socket.clone()) {
        Ok(tab) => {
            let (game, review) = (req.param("game"), req.param("review"));
            let mut kept = TabGame::open(&server.store, socket, game.as_deref(), review.as_deref());
            read_frames(stream, socket, |text| {
                let variant = kept.variant();
                let refuses = |command: &crate::protocol::Command| record_refusal(variant, command);
                tab.message(text, TabGame::takes, refuses, |lines| kept.observe(lines))
            });
            tab.close();
            give_back_memory();
        }
        Err(e) => socket.error(&format!("cannot start a session: {e}")),
    }
    server.sessions.fetch_sub(1, Ordering::SeqCst);
}

/// A closed session's hash table went back to the allocator, which keeps it in the thread's
/// arena; hand it back to the system so that the memory of closed tabs does not linger.
fn give_back_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn room_socket(
    server: &Server,
    req: &Request,
    stream: &TcpStream,
    socket: &Socket,
    conn: u64,
    held: &Held,
) {
    let (id, token) = match req.param("new") {
        Some(game) => {
            let Some(variant) = crate::registry::Game::named(&game) else {
                socket.error(&format!(
                    "unknown game ({})",
                    crate::text::listed(crate::registry::NAMES, "or")
                ));
                socket.close(1008, "cannot join");
                return;
            };
            // `start=<field>_<field>...`: a set-up position (underscores for spaces).
            let start = req
                .param("start")
                .map(|s| s.split('_').map(str::to_string).collect());
            // `clock=600+10`, `600b30`: a timed room (none or empty: untimed).
            let clock = match req.param("clock").filter(|c| !c.is_empty()) {
                None => None,
                Some(spec) => match super::clock::ClockSpec::parse(&spec) {
                    Ok(spec) => Some(spec),
                    Err(why) => {
                        socket.error(&why.to_string());
                        socket.close(1008, "cannot join");
                        return;
                    }
                },
            };
            match room::create(&server.store, variant, start, clock) {
                Ok((id, seats)) => {
                    socket.send_line(&format!("room {id} seat {} invite {}", seats[0], seats[1]));
                    (id, Some(seats[0].clone()))
                }
                Err(why) => {
                    socket.error(&why.to_string());
                    socket.close(1008, "cannot join");
                    return;
                }
            }
        }
        None => (req.param("room").unwrap_or_default(), req.param("seat")),
    };
    let (joined, seat) = match room::join(&server.store, &id, token.as_deref(), conn, socket) {
        Ok(joined) => joined,
        Err(why) => {
            socket.error(&why.to_string());
            socket.close(1008, "cannot join");
            return;
        }
    };
    let seat_index = match seat {
        room::Seat::First => Some(0),
        room::Seat::Second => Some(1),
        room::Seat::Spectator => None,
    };
    let paces = paces_of(server, &id, seat_index);
    let mut last = Timing::default();
    read_frames(stream, socket, |text| {
        held.touch();
        if server.debug_timing && text.trim() == "timing" {
            return socket.send_line(&format!("timing {}", last.json()));
        }
        thread::sleep(paces.take(text, Instant::now()));
        let watch = Stopwatch::start();
        room::message(&server.store, &joined, seat, text, socket);
        last = watch.read();
    });
    room::leave(joined, conn);
}
