//! `ryoshi serve` without a browser: pages, Host and Origin checks, message bounds, the session
//! cap, and what a served session refuses. Talks raw HTTP and WebSocket frames to the binary.

mod serve_support;

use serve_support::{Frame, Server};
use std::thread;
use std::time::{Duration, Instant};

fn wait_for_sessions(server: &Server, n: u64) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = server.status();
        if status["sessions"] == n || Instant::now() > deadline {
            return status;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn pages_and_host_check() {
    let server = Server::start(2);
    assert!(server.url.starts_with("http://127.0.0.1:"));
    for path in [
        "/",
        "/quantum",
        "/othello",
        "/go",
        "/play",
        "/puzzle",
        "/puzzles.txt",
        "/assets/engine.js",
    ] {
        let r = server.get(path, "");
        assert!(r.starts_with("HTTP/1.1 200"), "{path}: {r}");
        assert!(r.contains("Content-Security-Policy"), "{path}");
    }
    assert!(server.get("/nothing", "").starts_with("HTTP/1.1 404"));
    // DNS rebinding: a page of another name that resolves to us is not served.
    let r = std::net::TcpStream::connect(&server.host).map(|mut s| {
        use std::io::{Read, Write};
        write!(s, "GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n").unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    });
    assert!(r.unwrap().starts_with("HTTP/1.1 403"));
}

#[test]
fn websocket_origin_is_checked() {
    let server = Server::start(2);
    assert!(server.socket("/ws", "http://evil.example").is_none());
    assert!(server.socket("/ws", "null").is_none());
    let other_port = format!("http://{}1", server.host);
    assert!(server.socket("/ws", &other_port).is_none());
    let mut ok = server.socket("/ws", &server.origin()).expect("own origin");
    ok.send("isready");
    ok.until(|l| l == "readyok");
    assert_eq!(server.status()["sessions"], 1);
}

#[test]
fn oversized_and_garbage_messages_get_errors() {
    let server = Server::start(2);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    let mut other = server.socket("/ws", &server.origin()).unwrap();
    ws.send_frame(2, &[0, 1, 2, 255]);
    ws.send_frame(1, &[0xC3, 0x28]);
    ws.send("usi usi usi");
    ws.send("isready");
    let lines = ws.until(|l| l == "readyok");
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert_eq!(errors.len(), 3, "{lines:?}");
    assert!(errors[0].contains("UTF-8") && errors[1].contains("UTF-8"));
    // A message over the limit is never read whole: one error line, then status 1009.
    ws.send(&"x".repeat(300 << 10));
    let refused = ws.until(|l| l.starts_with("info string error: ")).pop();
    assert_eq!(
        refused.as_deref(),
        Some("info string error: message of 307200 bytes refused (at most 262144)")
    );
    assert_eq!(ws.next(), Some(Frame::Close(1009)));
    // The other tab never noticed.
    other.send("position startpos moves 7g7f\nd");
    let d = other.until(|l| l.starts_with("sfen "));
    assert!(d.last().unwrap().contains("Q[KRGSLP]"), "{d:?}");
    // A protocol violation (an unmasked frame) closes that socket only.
    let mut bad = server.socket("/ws", &server.origin()).unwrap();
    use std::io::Write;
    bad.stream
        .write_all(&serve_support::frame_bytes(1, true, b"isready", None))
        .unwrap();
    assert!(matches!(bad.next(), Some(Frame::Close(1002))));
    other.send("isready");
    other.until(|l| l == "readyok");
}

/// Issue 70: a 200 KiB SGF of passes (within the page's upload limit) loaded, but the page's
/// `position` of its game was longer than a message and the socket closed with 1009. Such a
/// record is refused before loading, with the reason, and the socket goes on; a long record
/// whose game the page can send back loads, and its position is taken.
#[test]
fn a_record_the_page_could_not_send_back_is_refused_before_loading() {
    let server = Server::start(2);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    ws.send("setoption name USI_Variant value go\nusinewgame");
    let sgf = |moves: usize| format!("(;GM[1]FF[4]SZ[9]{})", ";B[];W[]".repeat(moves / 2));
    let long = sgf(200 * 1024 / 4 - 32);
    assert!(long.len() <= 200 * 1024, "within the page's upload limit");
    ws.send(&format!("loadrecordtext {long}\nd\nisready"));
    let lines = ws.until(|l| l == "readyok");
    let refused: Vec<&String> = lines.iter().filter(|l| l.contains("error")).collect();
    assert!(
        refused.len() == 1 && refused[0].contains("is not loaded"),
        "{refused:?}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("info string loaded")));
    // The session's own board (19×19), not the record's (9×9).
    let sfen = lines.iter().find(|l| l.starts_with("sfen "));
    assert!(sfen.is_some_and(|l| l.starts_with("sfen 19 ")), "{sfen:?}");
    // The longest game a page sends back loads, and comes back whole.
    let fits = sgf(ryoshi::serve::MAX_MESSAGE / 2 / 5 - 400);
    ws.send(&format!("loadrecordtext {fits}\nisready"));
    let lines = ws.until(|l| l == "readyok");
    let loaded = lines
        .iter()
        .find(|l| l.starts_with("info string loaded go "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    let position = loaded.trim_start_matches("info string loaded go ");
    assert!(position.len() > 100_000);
    // As the page's review download sends it: the game twice, in one message.
    ws.send(&format!("{position}\nrecord\n{position}\nisready"));
    let lines = ws.until(|l| l == "readyok");
    assert!(
        !lines.iter().any(|l| l.contains("error")),
        "{:?}",
        &lines[..2]
    );
}

/// RFC 6455 7.4: a close status no endpoint may send is answered 1002, an allowed one 1000;
/// a close reason that is not UTF-8 fails the connection (1007).
#[test]
fn close_frames_are_answered_as_rfc_6455_says() {
    let server = Server::start(2);
    let close = |code: u16, reason: &[u8]| {
        // A room socket each (closed engine sessions give their places back a little later).
        let mut ws = server
            .socket("/room?new=othello", &server.origin())
            .unwrap();
        let mut payload = code.to_be_bytes().to_vec();
        payload.extend_from_slice(reason);
        ws.send_frame(8, &payload);
        loop {
            match ws.next() {
                Some(Frame::Close(answer)) => return answer,
                Some(_) => continue,
                None => panic!("no close frame for {code}"),
            }
        }
    };
    for code in [999, 1005, 1006, 1015, 5000] {
        assert_eq!(close(code, b""), 1002, "{code}");
    }
    for code in [1000, 1001, 3000, 4000] {
        assert_eq!(close(code, b"bye"), 1000, "{code}");
    }
    assert_eq!(close(1000, b"\xff\xfe"), 1007);
}

/// RFC 6455 5.4: control frames may come between the fragments of a message. A ping there is
/// answered with its pong, and the message is read whole.
#[test]
fn a_ping_between_fragments_keeps_the_socket() {
    let server = Server::start(2);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    ws.send_fragment(1, false, b"usi\nis");
    ws.send_fragment(9, true, b"between");
    ws.send_fragment(0, false, b"re");
    ws.send_fragment(10, true, b"");
    ws.send_fragment(0, true, b"ady");
    let mut pongs = 0;
    let mut lines = Vec::new();
    loop {
        match ws.next() {
            Some(Frame::Other(10)) => pongs += 1,
            Some(Frame::Other(9)) => ws.send_frame(10, b""),
            Some(Frame::Text(t)) => {
                let done = t == "readyok";
                lines.push(t);
                if done {
                    break;
                }
            }
            other => panic!("expected the answers, got {other:?} after {lines:?}"),
        }
    }
    assert_eq!(pongs, 1, "{lines:?}");
    assert!(lines.iter().any(|l| l == "usiok"), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string error")),
        "{lines:?}"
    );
}

/// Sends `request` whole, then reads the answer to its end: the status line, and whether the
/// stream ended cleanly (a reset loses the answer when it comes before the client reads it).
fn answer_to(server: &Server, request: &[u8]) -> (String, std::io::Result<usize>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(&server.host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // The server may answer (and stop reading) before all of it is sent.
    let _ = s.write_all(request);
    // Some of it may still be on its way when the server closes.
    thread::sleep(Duration::from_millis(300));
    let mut out = Vec::new();
    let ended = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    (text.lines().next().unwrap_or("").to_string(), ended)
}

/// Every refusal is read by the client before the socket closes: what the client sent beyond
/// the head is read and dropped, and the stream ends without a reset.
#[test]
fn refusals_are_read_before_the_close() {
    let server = Server::start(2);
    let host = &server.host;
    let body = "x=1&".repeat(16 << 10);
    let post = format!(
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, ended) = answer_to(&server, post.as_bytes());
    assert_eq!(status, "HTTP/1.1 405 Method Not Allowed");
    assert!(ended.is_ok(), "{ended:?}");
    let big = format!(
        "GET / HTTP/1.1\r\nHost: {host}\r\nX-Big: {}\r\n\r\n",
        "a".repeat(17 << 10)
    );
    let (status, ended) = answer_to(&server, big.as_bytes());
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert!(ended.is_ok(), "{ended:?}");
    // A refused upgrade, with a first frame sent at once behind its head.
    let mut upgrade = format!(
        "GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
         Origin: http://evil.example\r\n\r\n"
    )
    .into_bytes();
    upgrade.extend(serve_support::frame_bytes(
        1,
        true,
        &[b'x'; 4000],
        Some([1, 2, 3, 4]),
    ));
    let (status, ended) = answer_to(&server, &upgrade);
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    assert!(ended.is_ok(), "{ended:?}");
    // The lingering connections are gone, and pages are served as before.
    assert!(server.get("/", "").starts_with("HTTP/1.1 200"));
}

#[test]
fn session_cap_refuses_clearly_and_closed_tabs_end_their_sessions() {
    let server = Server::start(2);
    let before = server.status();
    let mut a = server.socket("/ws", &server.origin()).unwrap();
    let mut b = server.socket("/ws", &server.origin()).unwrap();
    // Both searching without end; closing must stop the search threads too.
    for ws in [&mut a, &mut b] {
        ws.send("go infinite");
        ws.until(|l| l.starts_with("info depth"));
    }
    let mut c = server.socket("/ws", &server.origin()).unwrap();
    match c.next() {
        Some(Frame::Text(t)) => assert!(t.contains("too many engine sessions"), "{t}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.next(), Some(Frame::Close(1013)));
    let busy = server.status();
    assert_eq!(busy["sessions"], 2);
    drop(a);
    drop(b);
    let after = wait_for_sessions(&server, 0);
    assert_eq!(after["sessions"], 0, "{after}");
    let deadline = Instant::now() + Duration::from_secs(10);
    // One reading decides (a connection thread of an earlier status request may still be
    // finishing at the next one).
    let now = loop {
        let now = server.status();
        if now["threads"].as_u64() <= before["threads"].as_u64() || Instant::now() >= deadline {
            break now;
        }
        thread::sleep(Duration::from_millis(50));
    };
    assert!(
        now["threads"].as_u64() <= before["threads"].as_u64(),
        "threads before {before}, now {now}"
    );
    // The freed places are usable again; `quit` ends a session and its socket.
    let mut d = server.socket("/ws", &server.origin()).unwrap();
    d.send("isready");
    d.until(|l| l == "readyok");
    d.send("quit");
    assert_eq!(d.next(), Some(Frame::Close(1000)));
    assert_eq!(wait_for_sessions(&server, 0)["sessions"], 0);
}

#[test]
fn served_sessions_never_touch_files() {
    let server = Server::start(2);
    let mut ws = server.socket("/ws", &server.origin()).unwrap();
    ws.send("setoption name USI_Variant value go");
    for refused in [
        "loadsgf /etc/passwd",
        "go perft 5",
        "setoption name USI_Hash value 4096",
        "setoption name Threads value 2",
    ] {
        ws.send(refused);
        let line = ws.until(|_| true).remove(0);
        assert!(line.starts_with("info string error: "), "{refused}: {line}");
        assert!(line.contains("served session"), "{refused}: {line}");
    }
    // The SGF itself is fine.
    ws.send("loadsgftext (;GM[1]SZ[5]AB[cc]PL[W])\nd");
    let d = ws.until(|l| l.starts_with("sfen "));
    assert_eq!(d.last().unwrap(), "sfen 5 ...../...../..X../...../..... w");
}

#[test]
fn rooms_referee_over_raw_sockets() {
    let server = Server::start(2);
    let origin = server.origin();
    let mut a = server.socket("/room?new=othello", &origin).unwrap();
    let first = a.until(|_| true).remove(0);
    let words: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(words[0], "room", "{first}");
    let (id, invite) = (words[1].to_string(), words[5].to_string());
    a.until(|l| l.starts_with("state "));
    let mut b = server
        .socket(&format!("/room?room={id}&seat={invite}"), &origin)
        .unwrap();
    let state = b.until(|l| l.starts_with("state ")).remove(0);
    assert!(state.contains("\"you\":\"white\""), "{state}");
    b.send("move f5");
    assert!(b.until(|_| true)[0].contains("it is black's turn"));
    a.send("move f5");
    for ws in [&mut a, &mut b] {
        // (The creator saw a state when the opponent joined, with its "connected" flags.)
        let s = ws
            .until(|l| l.starts_with("state ") && l.contains("\"moves\":[\"f5\"]"))
            .pop()
            .unwrap();
        assert!(s.contains("\"connected\":[true,true]"), "{s}");
    }
    b.send("resign");
    let s = a
        .until(|l| l.starts_with("state ") && l.contains("resigns"))
        .pop()
        .unwrap();
    assert!(s.contains("\"over\":\"white resigns\""), "{s}");
    assert!(server
        .socket(&format!("/room?room={id}&seat=forged"), &origin)
        .unwrap()
        .until(|_| true)[0]
        .contains("does not belong"));
}

#[test]
fn loadsgftext_works_on_stdin_too() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(serve_support::BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"setoption name USI_Variant value go\nloadsgftext (;SZ[5]AB[aa][bb];W[cc])\nd\n\
              loadsgftext (;SZ[5]AB[zz\nd\nundo\nd\n",
        )
        .unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let sfens: Vec<&str> = out.lines().filter(|l| l.starts_with("sfen ")).collect();
    assert_eq!(
        sfens,
        [
            "sfen 5 X..../.X.../..O../...../..... b",
            "sfen 5 X..../.X.../..O../...../..... b",
            // undo restores the state before W[cc]: the setup alone, white to move (the first
            // move's colour, without a PL: go.md, "Records").
            "sfen 5 X..../.X.../...../...../..... w",
        ],
        "{out}"
    );
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("info string error: "))
            .count(),
        1,
        "{out}"
    );
}
