//! Starts `ryoshi serve` on a free port, and a minimal WebSocket client for the tests.
#![allow(dead_code)]
// SAFETY: allowed for raw socket calls (a half-open connection, a small receive buffer) and
// sysconf (libc). Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_ryoshi");

pub struct Server {
    child: Child,
    /// The folder of the server's own temporary game database, removed with the server.
    own_db: Option<std::path::PathBuf>,
    pub url: String,
    /// `127.0.0.1:port`
    pub host: String,
}

impl Server {
    pub fn start(max_sessions: usize) -> Server {
        Server::spawn(max_sessions, &[])
    }

    /// A server run by another build of ryoshi (the toy game's, `target/toy/ryoshi`).
    pub fn start_bin(bin: &str, max_sessions: usize) -> Server {
        let dir = temp_dir();
        let db = dir.join("games.db").display().to_string();
        let args = ["--db".to_string(), db];
        let mut server =
            Server::try_spawn_bin(bin, max_sessions, &args).unwrap_or_else(|e| panic!("{e}"));
        server.own_db = Some(dir);
        server
    }

    fn spawn(max_sessions: usize, args: &[&str]) -> Server {
        // Never the user's database: a fresh one in a folder of its own, unless the test
        // gives its own `--db`.
        let own_db = (!args.contains(&"--db")).then(temp_dir);
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        if let Some(dir) = &own_db {
            all.push("--db".into());
            all.push(dir.join("games.db").display().to_string());
        }
        let mut server = Server::try_spawn(max_sessions, &all).unwrap_or_else(|e| panic!("{e}"));
        server.own_db = own_db;
        server
    }

    /// Starts a server, or says why it did not start (its stderr).
    pub fn try_spawn(max_sessions: usize, args: &[String]) -> Result<Server, String> {
        Server::try_spawn_bin(BIN, max_sessions, args)
    }

    fn try_spawn_bin(bin: &str, max_sessions: usize, args: &[String]) -> Result<Server, String> {
        let sandbox = temp_dir();
        let mut child = Command::new(bin)
            .args(["serve", "--port", "0", "--max-sessions"])
            .arg(max_sessions.to_string())
            .args(args)
            // Belt and braces: a server started without --db still stays out of the user's.
            .env("XDG_DATA_HOME", &sandbox)
            .env("HOME", &sandbox)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ryoshi serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL line");
        if line.is_empty() {
            let out = child.wait_with_output().expect("the server's exit");
            let _ = std::fs::remove_dir_all(&sandbox);
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let _ = std::fs::remove_dir_all(&sandbox);
        let url = line
            .trim()
            .strip_prefix("ryoshi serve: ")
            .expect("ryoshi serve: <url>")
            .to_string();
        let host = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        Ok(Server {
            child,
            url,
            host,
            own_db: None,
        })
    }

    /// Stops the server as `kill -9` does, and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Stops the server as `kill -9` does, and gives what it wrote on stderr.
    pub fn kill_for_stderr(&mut self) -> String {
        self.kill();
        let mut err = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let _ = stderr.read_to_string(&mut err);
        }
        err
    }

    /// `GET path` with the given extra header lines; the whole response.
    pub fn get(&self, path: &str, headers: &str) -> String {
        let mut s = TcpStream::connect(&self.host).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}\r\n",
            self.host
        )
        .unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// `get` from the local address `source`, as an upgrade to a WebSocket: the whole response.
    pub fn get_from(&self, source: [u8; 4], path: &str) -> String {
        let mut s = self.connect_from(source);
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
             Origin: {}\r\n\r\n",
            self.host,
            self.origin()
        )
        .unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    pub fn status(&self) -> serde_json::Value {
        let response = self.get("/status", "");
        let body = response.split("\r\n\r\n").nth(1).expect("a body");
        serde_json::from_str(body).expect("JSON status")
    }

    /// Opens a WebSocket with the given Origin; None when the upgrade is refused.
    pub fn socket(&self, path: &str, origin: &str) -> Option<Client> {
        self.socket_over(
            TcpStream::connect(&self.host).expect("connect"),
            path,
            origin,
        )
    }

    /// A socket whose receive buffer is `bytes`, set before connecting (so the window the
    /// server sees stays that small): a reader that never reads fills up at once.
    pub fn socket_small(&self, path: &str, origin: &str, bytes: i32) -> Option<Client> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let addr: std::net::SocketAddrV4 = self.host.parse().expect("an IPv4 host");
        // SAFETY: plain socket calls on a descriptor owned here, then handed to TcpStream.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0);
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVBUF,
                &bytes as *const i32 as *const libc::c_void,
                std::mem::size_of::<i32>() as libc::socklen_t,
            );
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: addr.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from(*addr.ip()).to_be(),
                },
                sin_zero: [0; 8],
            };
            let r = libc::connect(
                fd,
                &sin as *const libc::sockaddr_in as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            );
            assert_eq!(r, 0, "connect");
            let stream = TcpStream::from_raw_fd(fd);
            let _ = stream.as_raw_fd();
            self.socket_over(stream, path, origin)
        }
    }

    /// A socket from the local address `source` (any of 127.0.0.0/8 reaches the loopback), as a
    /// client on another machine would be; None when the upgrade is refused.
    pub fn socket_from(&self, source: [u8; 4], path: &str) -> Option<Client> {
        self.socket_over(self.connect_from(source), path, &self.origin())
    }

    /// A plain connection from the local address `source`.
    pub fn connect_from(&self, source: [u8; 4]) -> TcpStream {
        use std::os::fd::FromRawFd;
        let addr: std::net::SocketAddrV4 = self.host.parse().expect("an IPv4 host");
        let sockaddr = |ip: u32, port: u16| libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr { s_addr: ip.to_be() },
            sin_zero: [0; 8],
        };
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        // SAFETY: plain socket calls on a descriptor owned here, then handed to TcpStream.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0);
            let local = sockaddr(u32::from(std::net::Ipv4Addr::from(source)), 0);
            let r = libc::bind(fd, &local as *const _ as *const libc::sockaddr, len);
            assert_eq!(r, 0, "bind to {source:?}");
            let remote = sockaddr(u32::from(*addr.ip()), addr.port());
            let r = libc::connect(fd, &remote as *const _ as *const libc::sockaddr, len);
            assert_eq!(r, 0, "connect");
            TcpStream::from_raw_fd(fd)
        }
    }

    fn socket_over(&self, mut s: TcpStream, path: &str, origin: &str) -> Option<Client> {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
             Origin: {origin}\r\n\r\n",
            self.host
        )
        .unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            if s.read(&mut byte).unwrap_or(0) == 0 {
                break;
            }
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        if !head.starts_with("HTTP/1.1 101") {
            return None;
        }
        assert!(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
        Some(Client { stream: s })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU seconds the server process has used so far (user and system, from /proc).
    pub fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("/proc/<pid>/stat");
        // The fields after the command name (which may hold spaces) begin after its ')'.
        let fields: Vec<&str> = stat[stat.rfind(')').expect(")") + 2..]
            .split_whitespace()
            .collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        // SAFETY: sysconf has no preconditions.
        ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
    }

    /// Resident memory of the server process now, in MiB (its `/status`).
    pub fn rss_mib(&self) -> f64 {
        self.status()["rss_kb"].as_f64().expect("rss_kb") / 1024.0
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.host)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = &self.own_db {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A new empty folder under the system's temporary folder.
pub fn temp_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ryoshi-serve-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

pub struct Client {
    pub stream: TcpStream,
}

/// What the server sent.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    Text(String),
    Close(u16),
    Other(u8),
}

/// One frame as a client sends it (RFC 6455 5.2): masked with `mask` unless it is None, final or
/// not. Written out here so that tests can send what no client library would.
pub fn frame_bytes(opcode: u8, fin: bool, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
    let mut out = vec![if fin { 0x80 } else { 0 } | opcode];
    let masked = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => out.push(masked | n as u8),
        n if n <= u16::MAX as usize => {
            out.push(masked | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(masked | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let mask = mask.unwrap_or_default();
    if masked != 0 {
        out.extend_from_slice(&mask);
    }
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    out
}

impl Client {
    pub fn send_frame(&mut self, opcode: u8, payload: &[u8]) {
        self.send_fragment(opcode, true, payload);
    }

    /// One frame of a message (`fin` false: more follow, as continuation frames of opcode 0).
    pub fn send_fragment(&mut self, opcode: u8, fin: bool, payload: &[u8]) {
        let frame = frame_bytes(opcode, fin, payload, Some([7, 1, 9, 3]));
        self.stream.write_all(&frame).expect("send");
    }

    pub fn send(&mut self, text: &str) {
        self.send_frame(1, text.as_bytes());
    }

    pub fn next(&mut self) -> Option<Frame> {
        let mut head = [0u8; 2];
        self.stream.read_exact(&mut head).ok()?;
        let mut len = (head[1] & 0x7F) as u64;
        if len == 126 {
            let mut b = [0u8; 2];
            self.stream.read_exact(&mut b).ok()?;
            len = u16::from_be_bytes(b) as u64;
        } else if len == 127 {
            let mut b = [0u8; 8];
            self.stream.read_exact(&mut b).ok()?;
            len = u64::from_be_bytes(b);
        }
        let mut body = vec![0u8; len as usize];
        self.stream.read_exact(&mut body).ok()?;
        Some(match head[0] & 0x0F {
            1 => Frame::Text(String::from_utf8(body).expect("UTF-8 text")),
            8 => Frame::Close(u16::from_be_bytes([body[0], body[1]])),
            op => Frame::Other(op),
        })
    }

    /// Text lines up to and including the first for which `stop` holds (the server's pings are
    /// answered on the way, as a browser does).
    pub fn until(&mut self, stop: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.next() {
                Some(Frame::Other(9)) => self.send_frame(10, b""),
                Some(Frame::Text(t)) => {
                    let done = stop(&t);
                    seen.push(t);
                    if done {
                        return seen;
                    }
                }
                other => panic!("expected text, got {other:?} after {seen:?}"),
            }
        }
    }
}

impl Server {
    /// `ryoshi serve` with extra arguments (after `--port 0 --max-sessions n`).
    pub fn start_with(max_sessions: usize, args: &[&str]) -> Server {
        Server::spawn(max_sessions, args)
    }
}

/// Runs `tests/browser/<script>` with `args` (chromium through playwright) and returns its
/// stdout, printed for the test's log; a script that fails fails the test with both outputs.
pub fn browser_script(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tests/browser/{script}"))
        .args(args)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    assert!(
        out.status.success(),
        "browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A server keeping its games in the database `db`.
pub fn start_on(db: &std::path::Path) -> Server {
    Server::start_with(2, &["--db", &db.display().to_string()])
}

/// A new room with `query` (`new=othello&clock=...`): (socket of the first seat, id, first
/// seat's token, invitation token).
pub fn new_room(server: &Server, query: &str) -> (Client, String, String, String) {
    let mut a = server
        .socket(&format!("/room?{query}"), &server.origin())
        .unwrap();
    let first = a.until(|_| true).remove(0);
    let w: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(w[0], "room", "{first}");
    (a, w[1].into(), w[3].into(), w[5].into())
}

/// A socket on the seat of room `id` that the token `seat` holds.
pub fn join(server: &Server, id: &str, seat: &str) -> Client {
    server
        .socket(&format!("/room?room={id}&seat={seat}"), &server.origin())
        .unwrap()
}

/// The next state whose JSON satisfies `stop`.
pub fn state(ws: &mut Client, stop: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    loop {
        let line = ws.until(|l| l.starts_with("state ")).pop().unwrap();
        let v: serde_json::Value = serde_json::from_str(&line["state ".len()..]).unwrap();
        if stop(&v) {
            return v;
        }
    }
}
