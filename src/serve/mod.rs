//! `ryoshi serve`: a local web server for playing and analysing in a browser.
//!
//! Plain `std::net` with a thread per connection, a hand-written HTTP head parser and WebSocket
//! framing (`ws.rs`): a page needs one GET per file and one socket per tab, which is a few hundred
//! lines, and this way no crate (and its own dependencies) joins the build. Each tab's socket
//! drives its own protocol session (`tab.rs`, the same `session::run` as stdin/stdout); shared
//! two-player games live in `room.rs`. The pages are embedded with `include_str!`.

pub(crate) mod http;
pub(crate) mod room;
pub(crate) mod tab;
pub mod ws;

use http::{Gate, Request};
use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;
use tab::{Socket, Tab};

/// Longest WebSocket message accepted (a long commented SGF fits).
pub const MAX_MESSAGE: usize = 256 << 10;
/// Open connections at once (each holds a thread); more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 128;
/// Engine sessions at once, unless `--max-sessions` says otherwise.
pub const DEFAULT_MAX_SESSIONS: usize = 8;

pub struct Config {
    pub host: String,
    pub port: u16,
    pub max_sessions: usize,
}

struct Server {
    gate: Gate,
    max_sessions: usize,
    sessions: AtomicUsize,
    connections: AtomicUsize,
    next_id: AtomicU64,
}

/// The files of the pages, embedded: (path, content type, text).
macro_rules! asset {
    ($path:literal, $kind:literal, $file:literal) => {
        ($path, $kind, include_str!(concat!("web/", $file)))
    };
}
const ASSETS: &[(&str, &str, &str)] = &[
    asset!("/", "text/html", "index.html"),
    asset!("/quantum", "text/html", "quantum.html"),
    asset!("/othello", "text/html", "othello.html"),
    asset!("/go", "text/html", "go.html"),
    asset!("/play", "text/html", "play.html"),
    asset!("/assets/style.css", "text/css", "style.css"),
    asset!("/assets/engine.js", "text/javascript", "engine.js"),
    asset!("/assets/qboard.js", "text/javascript", "qboard.js"),
    asset!("/assets/quantum.js", "text/javascript", "quantum.js"),
    asset!("/assets/othello.js", "text/javascript", "othello.js"),
    asset!("/assets/goboard.js", "text/javascript", "goboard.js"),
    asset!("/assets/go.js", "text/javascript", "go.js"),
    asset!("/assets/play.js", "text/javascript", "play.js"),
];

fn is_loopback(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "localhost" | "::1" | "[::1]")
}

/// Why the server cannot start.
#[derive(Debug)]
pub enum ServeError {
    Listen {
        host: String,
        port: u16,
        error: io::Error,
    },
    /// The bound socket has no address.
    Address(io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            ServeError::Listen { host, port, error } => {
                write!(f, "cannot listen on {host}:{port}: {error}")
            }
            ServeError::Address(error) => error.fmt(f),
        }
    }
}

crate::games::error_text!(ServeError);

/// Binds, prints the URL, and serves until the process is stopped.
pub fn run(config: &Config) -> Result<(), String> {
    let listener = bind(config)?;
    let port = listener.local_addr().map_err(ServeError::Address)?.port();
    if !is_loopback(&config.host) {
        eprintln!(
            "ryoshi serve: warning: listening on {} — anyone who can reach this address can use the engine",
            config.host
        );
    }
    let shown = if config.host.contains(':') && !config.host.starts_with('[') {
        format!("[{}]", config.host)
    } else {
        config.host.clone()
    };
    println!("ryoshi serve: http://{shown}:{port}/");
    let _ = io::stdout().flush();
    serve(listener, config, port);
    Ok(())
}

pub fn bind(config: &Config) -> Result<TcpListener, ServeError> {
    let host = config.host.trim_start_matches('[').trim_end_matches(']');
    TcpListener::bind((host, config.port)).map_err(|error| ServeError::Listen {
        host: config.host.clone(),
        port: config.port,
        error,
    })
}

/// Answers connections until the process is stopped.
pub fn serve(listener: TcpListener, config: &Config, port: u16) {
    let server = Arc::new(Server {
        gate: Gate::new(&config.host, port),
        max_sessions: config.max_sessions,
        sessions: AtomicUsize::new(0),
        connections: AtomicUsize::new(0),
        next_id: AtomicU64::new(1),
    });
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        if server.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            server.connections.fetch_sub(1, Ordering::SeqCst);
            let _ = http::text(
                &mut stream,
                "503 Service Unavailable",
                "too many connections\n",
            );
            continue;
        }
        let server = Arc::clone(&server);
        let spawned = thread::Builder::new()
            .name("connection".into())
            .spawn(move || {
                connection(&server, stream);
                server.connections.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // No thread to answer with; the stream was moved into the closure and is closed.
            eprintln!("ryoshi serve: cannot start a connection thread");
        }
    }
}

fn connection(server: &Server, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let req = match http::read_request(&mut stream) {
        Ok(req) => req,
        Err(why) => {
            let _ = http::text(&mut stream, "400 Bad Request", &format!("{why}\n"));
            return;
        }
    };
    if let Err(why) = server.gate.host(&req) {
        let _ = http::text(&mut stream, "403 Forbidden", &format!("{why}\n"));
        return;
    }
    if req.method != "GET" {
        let _ = http::text(&mut stream, "405 Method Not Allowed", "only GET\n");
        return;
    }
    if req.is_websocket() {
        if let Err(why) = server.gate.check_origin(&req) {
            let _ = http::text(&mut stream, "403 Forbidden", &format!("{why}\n"));
            return;
        }
        let Some(key) = req
            .header("sec-websocket-key")
            .filter(|k| ws::valid_key(k))
            .map(str::to_string)
        else {
            let _ = http::text(
                &mut stream,
                "400 Bad Request",
                "Sec-WebSocket-Key must be the base64 of 16 bytes\n",
            );
            return;
        };
        if req.header("sec-websocket-version") != Some("13") {
            let _ = http::text(
                &mut stream,
                "426 Upgrade Required",
                "WebSocket version 13\n",
            );
            return;
        }
        match req.path.as_str() {
            "/ws" | "/room" => {}
            _ => {
                let _ = http::text(&mut stream, "404 Not Found", "no such socket\n");
                return;
            }
        }
        if http::upgrade(&mut stream, &key).is_err() {
            return;
        }
        // An idle tab may wait for hours; a stuck reader of our frames may not block the engine.
        let _ = stream.set_read_timeout(None);
        if req.path == "/ws" {
            engine_socket(server, stream);
        } else {
            room_socket(server, &req, stream);
        }
        return;
    }
    let _ = match req.path.as_str() {
        "/status" => {
            let body = status(server);
            http::respond(&mut stream, "200 OK", "application/json", body.as_bytes())
        }
        path => match ASSETS.iter().find(|(p, _, _)| *p == path) {
            Some((_, kind, body)) => http::respond(
                &mut stream,
                "200 OK",
                &format!("{kind}; charset=utf-8"),
                body.as_bytes(),
            ),
            None => http::text(&mut stream, "404 Not Found", "not found\n"),
        },
    };
}

/// Counters for tests and curious people: sessions, rooms, connections, and the process's
/// threads and resident memory as the kernel reports them.
fn status(server: &Server) -> String {
    let proc_status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> Option<u64> {
        proc_status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    serde_json::json!({
        "sessions": server.sessions.load(Ordering::SeqCst),
        "max_sessions": server.max_sessions,
        "rooms": room::count(),
        "connections": server.connections.load(Ordering::SeqCst),
        "threads": field("Threads:"),
        "rss_kb": field("VmRSS:"),
    })
    .to_string()
}

/// Reads the tab's frames until it closes; `on_text` gets each text message.
fn read_frames(stream: &TcpStream, socket: &Socket, mut on_text: impl FnMut(&str)) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = ws::Reader::new(io::BufReader::new(read_half), MAX_MESSAGE);
    loop {
        match reader.next_message() {
            Ok(ws::Message::Text(text)) => on_text(&text),
            Ok(ws::Message::NotText) => socket.error("messages must be UTF-8 text"),
            Ok(ws::Message::TooLong(n)) => socket.error(&format!(
                "message of {n} bytes refused (at most {MAX_MESSAGE})"
            )),
            Ok(ws::Message::Ping(body)) => socket.send_bytes(&ws::pong_frame(&body)),
            Ok(ws::Message::Close) => {
                socket.close(1000, "");
                break;
            }
            Err(e) => {
                socket.close(1002, &e.to_string());
                break;
            }
        }
    }
}

fn engine_socket(server: &Server, stream: TcpStream) {
    let Ok(write_half) = stream.try_clone() else {
        return;
    };
    let socket = Socket::new(write_half);
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
            read_frames(&stream, &socket, |text| tab.message(text));
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

fn room_socket(server: &Server, req: &Request, stream: TcpStream) {
    let Ok(write_half) = stream.try_clone() else {
        return;
    };
    let socket = Socket::new(write_half);
    let conn = server.next_id.fetch_add(1, Ordering::SeqCst);
    let (id, token) = match req.param("new") {
        Some(game) => {
            let Some(variant) = crate::session::options::VariantName::named(&game) else {
                socket.error("unknown game (othello, go or quantumshogi)");
                return;
            };
            // `start=<field>_<field>...`: a set-up position (underscores for spaces).
            let start = req
                .param("start")
                .map(|s| s.split('_').map(str::to_string).collect());
            match room::create(variant, start) {
                Ok((id, seats)) => {
                    socket.send_line(&format!("room {id} seat {} invite {}", seats[0], seats[1]));
                    (id, Some(seats[0].clone()))
                }
                Err(why) => {
                    socket.error(&why.to_string());
                    return;
                }
            }
        }
        None => (req.param("room").unwrap_or_default(), req.param("seat")),
    };
    let seat = match room::join(&id, token.as_deref(), conn, &socket) {
        Ok(seat) => seat,
        Err(why) => {
            socket.error(&why.to_string());
            socket.close(1008, "cannot join");
            return;
        }
    };
    read_frames(&stream, &socket, |text| {
        room::message(&id, seat, text, &socket)
    });
    room::leave(&id, conn);
}
