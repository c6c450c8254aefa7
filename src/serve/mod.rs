//! `ryoshi serve`: a local web server for playing and analysing in a browser.
//!
//! Plain `std::net` with a thread per connection: a page needs one GET per file and one socket
//! per tab. The request head is parsed by `httparse` (`http.rs`), the WebSocket framing is
//! `tungstenite`'s (`ws.rs`); why the rest of HTTP stays ours is in protocol/serve.md. Each tab's socket
//! drives its own protocol session (`tab.rs`, the same `session::run` as stdin/stdout); shared
//! two-player games live in `room.rs`. The pages are embedded with `include_str!`.
//!
//! The server is cut by what each part does: `routes.rs` answers a connection's request,
//! `sockets.rs` serves the WebSockets it upgrades to, and `limits.rs` holds what one client may
//! take. This file starts the server and owns the state they share.

mod archive;
mod clock;
mod end;
pub(crate) mod http;
mod limits;
mod names;
mod offers;
pub mod pages;
mod played;
pub(crate) mod room;
mod routes;
mod sockets;
pub mod store;
pub(crate) mod tab;
mod tab_game;
mod waits;
pub mod ws;

use http::Gate;
use limits::ConnectionSlot;
pub use limits::{
    engine_sessions_per_address, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_SESSIONS, HEAD_DEADLINE,
    MAX_CONNECTIONS, MAX_MESSAGE, MAX_PLAYER_SOCKETS, MAX_PLAYER_SOCKETS_PER_ADDRESS,
    MAX_ROOM_SOCKETS, MAX_ROOM_SOCKETS_PER_ADDRESS, SOCKET_SEND_BUFFER,
};
use parking_lot::Mutex;
use std::io::{self, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use store::{Store, StoreError};
use tab::Socket;

/// Rooms kept in memory while others wait in the store ([`room::MAX_ROOMS`]).
pub fn room_table_size() -> usize {
    room::MAX_ROOMS
}

pub struct Config {
    pub host: String,
    pub port: u16,
    pub max_sessions: usize,
    /// More host names the server answers to (`--allow-host`), for non-loopback bindings.
    pub allow_hosts: Vec<String>,
    pub idle_timeout: Duration,
    /// The game database (`--db`); None: [`store::default_path`].
    pub db: Option<std::path::PathBuf>,
    /// `--debug-timing`: a room socket answers `timing` with where its last message's time went.
    pub debug_timing: bool,
}

struct Server {
    store: Store,
    gate: Gate,
    max_sessions: usize,
    idle_timeout: Duration,
    debug_timing: bool,
    sessions: AtomicUsize,
    connections: AtomicUsize,
    room_sockets: AtomicUsize,
    player_sockets: AtomicUsize,
    next_id: AtomicU64,
    /// Connections still reading their request head, oldest first: when every connection is
    /// taken, the oldest of them is shut to make room (a slowloris holds heads open; a page sends
    /// its head at once).
    heads: Mutex<Vec<(u64, Instant, TcpStream)>>,
    /// Upgraded sockets, for the pinger.
    sockets: Mutex<Vec<(u64, Socket)>>,
    /// Places each client address holds ([`limits::AddressSlot`]).
    per_address: Mutex<ahash::AHashMap<(IpAddr, limits::Use), usize>>,
    /// Room sockets holding places under the global caps, oldest first ([`limits::take_shared`]).
    holders: Mutex<Vec<Arc<limits::Holder>>>,
    /// The paces of the rooms' seats, by room and seat ([`limits::paces_of`]).
    paces: Mutex<ahash::AHashMap<(String, usize), std::sync::Weak<limits::Paces>>>,
}

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
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no --db PATH was given and neither XDG_DATA_HOME nor HOME is set")]
    NoDataDir,
}

crate::games::error_text!(derived: ServeError);

/// Binds, prints the URL, and serves until the process is stopped.
pub fn run(config: &Config) -> Result<(), ServeError> {
    // A refused --host is said before the database is opened (or made).
    bind_address(&config.host)?;
    let path = match &config.db {
        Some(path) => path.clone(),
        None => store::default_path().ok_or(ServeError::NoDataDir)?,
    };
    let store = Store::open(&path)?;
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
    serve(listener, config, port, store);
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

/// The rooms' clocks: the time the server was down is charged to nobody (protocol/serve.md), and
/// one thread lets the flags fall.
fn start_clocks(server: &Arc<Server>) {
    clock::set_boot(store::now_ms());
    if let Err(e) = room::arm_stored_clocks(&server.store) {
        eprintln!("ryoshi serve: the rooms' clocks cannot be read: {e}");
    }
    let server = Arc::clone(server);
    let spawned = thread::Builder::new()
        .name("clocks".into())
        .spawn(move || clock::run(store::now_ms, |id| room::clock_due(&server.store, id)));
    if spawned.is_err() {
        eprintln!("ryoshi serve: cannot start the clocks' thread; flags fall only at a move");
    }
}

/// Answers connections until the process is stopped.
pub fn serve(listener: TcpListener, config: &Config, port: u16, store: Store) {
    let mut gate = Gate::new(&config.host, port);
    gate.allow(&config.allow_hosts, port);
    let server = Arc::new(Server {
        store,
        gate,
        max_sessions: config.max_sessions,
        idle_timeout: config.idle_timeout,
        debug_timing: config.debug_timing,
        sessions: AtomicUsize::new(0),
        connections: AtomicUsize::new(0),
        room_sockets: AtomicUsize::new(0),
        player_sockets: AtomicUsize::new(0),
        next_id: AtomicU64::new(1),
        heads: Mutex::new(Vec::new()),
        sockets: Mutex::new(Vec::new()),
        per_address: Mutex::new(ahash::AHashMap::new()),
        holders: Mutex::new(Vec::new()),
        paces: Mutex::new(ahash::AHashMap::new()),
    });
    start_clocks(&server);
    {
        let server = Arc::clone(&server);
        let spawned = thread::Builder::new()
            .name("pinger".into())
            .spawn(move || sockets::pinger(&server));
        if spawned.is_err() {
            eprintln!("ryoshi serve: cannot start the pinger thread; idle sockets time out");
        }
    }
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        if server.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS
            && !limits::evict_oldest_head(&server)
        {
            server.connections.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = http::text(
                &mut stream,
                "503 Service Unavailable",
                "too many connections\n",
            );
            limits::close_refused(stream);
            continue;
        }
        // From here the place is given back however the connection ends (or fails to start).
        let slot = ConnectionSlot(Arc::clone(&server));
        let spawned = thread::Builder::new()
            .name("connection".into())
            .spawn(move || {
                routes::connection(&slot.0, stream);
                drop(slot);
            });
        if spawned.is_err() {
            // The closure (the stream and the slot) was dropped: the place is free again.
            eprintln!("ryoshi serve: cannot start a connection thread");
        }
    }
}
