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
use parking_lot::Mutex;
use std::io::{self, Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use tab::{Socket, Tab};

/// Longest WebSocket message accepted (a long commented SGF fits).
pub const MAX_MESSAGE: usize = 256 << 10;
/// Open connections at once (each holds a thread); more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 128;
/// Engine sessions at once, unless `--max-sessions` says otherwise.
pub const DEFAULT_MAX_SESSIONS: usize = 8;
/// Room sockets (players and spectators of all rooms) at once: the rest of the connections stay
/// free for pages and engine tabs.
pub const MAX_ROOM_SOCKETS: usize = 64;
/// The whole request head must arrive within this time (not per read: a byte every few seconds
/// does not keep a connection).
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// A WebSocket that sends nothing (not even the pong to the server's ping) for this long is
/// closed, unless `--idle-timeout` says otherwise; pings go out three times as often.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Config {
    pub host: String,
    pub port: u16,
    pub max_sessions: usize,
    /// More host names the server answers to (`--allow-host`), for non-loopback bindings.
    pub allow_hosts: Vec<String>,
    pub idle_timeout: Duration,
}

struct Server {
    gate: Gate,
    max_sessions: usize,
    idle_timeout: Duration,
    sessions: AtomicUsize,
    connections: AtomicUsize,
    room_sockets: AtomicUsize,
    next_id: AtomicU64,
    /// Connections still reading their request head, oldest first: when every connection is
    /// taken, the oldest of them is shut to make room (a slowloris holds heads open; a page sends
    /// its head at once).
    heads: Mutex<Vec<(u64, Instant, TcpStream)>>,
    /// Upgraded sockets, for the pinger.
    sockets: Mutex<Vec<(u64, Socket)>>,
}

/// A taken place in one of the server's counters, given back when dropped (whatever path the
/// connection takes, and when its thread could not even start).
struct Slot<'a>(&'a AtomicUsize);

impl<'a> Slot<'a> {
    /// A place under `max`, or None.
    fn take(counter: &'a AtomicUsize, max: usize) -> Option<Slot<'a>> {
        counter
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(counter))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The connection counter's place, owned (it moves into the connection thread).
struct ConnectionSlot(Arc<Server>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::SeqCst);
    }
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

/// The address to bind: `localhost` or an IP address as the standard library reads it
/// (`127.1` is refused rather than bound under a name that no browser would send back).
fn bind_address(host: &str) -> Result<IpAddr, ServeError> {
    if host == "localhost" {
        return Ok(IpAddr::from([127, 0, 0, 1]));
    }
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .map_err(|_| ServeError::Host(host.to_string()))
}

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {host}:{port}: {error}")]
    Listen {
        host: String,
        port: u16,
        error: io::Error,
    },
    /// The bound socket has no address.
    #[error(transparent)]
    Address(io::Error),
    /// `--host` is neither an IP address nor `localhost`.
    #[error(
        "--host {0}: give an IP address (127.0.0.1, ::1, 0.0.0.0, a LAN address) or \
         localhost; other names the server should answer to go in --allow-host"
    )]
    Host(String),
}

crate::games::error_text!(derived: ServeError);

/// Binds, prints the URL, and serves until the process is stopped.
pub fn run(config: &Config) -> Result<(), String> {
    let listener = bind(config)?;
    let port = listener.local_addr().map_err(ServeError::Address)?.port();
    if !is_loopback(&config.host) {
        eprintln!(
            "ryoshi serve: warning: listening on {}: anyone who can reach this address can use \
             the engine and the rooms, from a browser or a script, with no password. Web pages \
             of other sites cannot (the Host and Origin are checked); a name of this machine \
             other than its IP address must be given with --allow-host NAME.",
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
    let address = bind_address(&config.host)?;
    TcpListener::bind((address, config.port)).map_err(|error| ServeError::Listen {
        host: config.host.clone(),
        port: config.port,
        error,
    })
}

/// Answers connections until the process is stopped.
pub fn serve(listener: TcpListener, config: &Config, port: u16) {
    let mut gate = Gate::new(&config.host, port);
    gate.allow(&config.allow_hosts, port);
    let server = Arc::new(Server {
        gate,
        max_sessions: config.max_sessions,
        idle_timeout: config.idle_timeout,
        sessions: AtomicUsize::new(0),
        connections: AtomicUsize::new(0),
        room_sockets: AtomicUsize::new(0),
        next_id: AtomicU64::new(1),
        heads: Mutex::new(Vec::new()),
        sockets: Mutex::new(Vec::new()),
    });
    {
        let server = Arc::clone(&server);
        let spawned = thread::Builder::new()
            .name("pinger".into())
            .spawn(move || pinger(&server));
        if spawned.is_err() {
            eprintln!("ryoshi serve: cannot start the pinger thread; idle sockets time out");
        }
    }
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        if server.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS
            && !evict_oldest_head(&server)
        {
            server.connections.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = http::text(
                &mut stream,
                "503 Service Unavailable",
                "too many connections\n",
            );
            continue;
        }
        // From here the place is given back however the connection ends (or fails to start).
        let slot = ConnectionSlot(Arc::clone(&server));
        let spawned = thread::Builder::new()
            .name("connection".into())
            .spawn(move || {
                connection(&slot.0, stream);
                drop(slot);
            });
        if spawned.is_err() {
            // The closure (the stream and the slot) was dropped: the place is free again.
            eprintln!("ryoshi serve: cannot start a connection thread");
        }
    }
}

/// Shuts the connection that has been reading its head the longest; whether there was one. Its
/// thread ends at once and gives its place back; meanwhile the new connection is let in.
fn evict_oldest_head(server: &Server) -> bool {
    let mut heads = server.heads.lock();
    if heads.is_empty() {
        return false;
    }
    let (_, _, stream) = heads.remove(0);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    true
}

/// Pings every upgraded socket now and then: a live tab's browser answers with a pong (which
/// keeps its socket under the idle timeout); a socket whose queue is full is dropped.
fn pinger(server: &Server) {
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
            socket.offer_bytes(&ws::frame(ws::OP_PING, b""));
        }
    }
}

/// Bytes the kernel may hold for one upgraded socket's client. Fixed (the default grows to
/// 4 MiB per socket): with the socket's queue ([`tab::SOCKET_QUEUE`] frames) it bounds what a
/// client that does not read costs, and how soon it is found out and dropped.
pub const SOCKET_SEND_BUFFER: i32 = 128 << 10;

fn limit_send_buffer(stream: &TcpStream) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let bytes: libc::c_int = SOCKET_SEND_BUFFER;
        // SAFETY: a valid socket descriptor and an int option of the right size.
        unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                &bytes as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}

/// Reads with a deadline for the whole read (each read waits only for the time left).
struct DeadlineReader<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the request head took too long",
            ));
        }
        self.stream.set_read_timeout(Some(left))?;
        (&mut &*self.stream).read(buf)
    }
}

fn read_head(server: &Server, stream: &TcpStream) -> Result<Request, http::RequestError> {
    let id = server.next_id.fetch_add(1, Ordering::SeqCst);
    if let Ok(clone) = stream.try_clone() {
        server.heads.lock().push((id, Instant::now(), clone));
    }
    let mut reader = DeadlineReader {
        stream,
        deadline: Instant::now() + HEAD_DEADLINE,
    };
    let req = http::read_request(&mut reader);
    server.heads.lock().retain(|(i, _, _)| *i != id);
    req
}

fn connection(server: &Server, mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let req = match read_head(server, &stream) {
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
        // Room sockets have their own cap, so that rooms cannot take every connection.
        let room_slot = if req.path == "/room" {
            let Some(slot) = Slot::take(&server.room_sockets, MAX_ROOM_SOCKETS) else {
                let _ = http::text(
                    &mut stream,
                    "503 Service Unavailable",
                    &format!("too many room connections (at most {MAX_ROOM_SOCKETS})\n"),
                );
                return;
            };
            Some(slot)
        } else {
            None
        };
        if http::upgrade(&mut stream, &key).is_err() {
            return;
        }
        // An idle tab may wait for hours, answering the pinger's pings; a socket that sends
        // nothing at all for the idle timeout is closed.
        let _ = stream.set_read_timeout(Some(server.idle_timeout));
        limit_send_buffer(&stream);
        let Ok(write_half) = stream.try_clone() else {
            return;
        };
        let Ok(socket) = Socket::new(write_half) else {
            return;
        };
        let id = server.next_id.fetch_add(1, Ordering::SeqCst);
        server.sockets.lock().push((id, socket.clone()));
        if req.path == "/ws" {
            engine_socket(server, &stream, &socket);
        } else {
            room_socket(&req, &stream, &socket, id);
        }
        server.sockets.lock().retain(|(i, _)| *i != id);
        drop(room_slot);
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
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                socket.close(1001, "idle");
                break;
            }
            Err(e) => {
                socket.close(1002, &e.to_string());
                break;
            }
        }
    }
}

fn engine_socket(server: &Server, stream: &TcpStream, socket: &Socket) {
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
            read_frames(stream, socket, |text| tab.message(text));
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

fn room_socket(req: &Request, stream: &TcpStream, socket: &Socket, conn: u64) {
    let (id, token) = match req.param("new") {
        Some(game) => {
            let Some(variant) = crate::session::options::VariantName::named(&game) else {
                socket.error("unknown game (othello, go or quantumshogi)");
                socket.close(1008, "cannot join");
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
                    socket.close(1008, "cannot join");
                    return;
                }
            }
        }
        None => (req.param("room").unwrap_or_default(), req.param("seat")),
    };
    let seat = match room::join(&id, token.as_deref(), conn, socket) {
        Ok(seat) => seat,
        Err(why) => {
            socket.error(&why.to_string());
            socket.close(1008, "cannot join");
            return;
        }
    };
    read_frames(stream, socket, |text| {
        room::message(&id, seat, text, socket)
    });
    room::leave(&id, conn);
}
