//! One browser tab's engine: the protocol session of stdin/stdout (`session::run`), fed with the
//! lines of the tab's WebSocket messages and writing each output line as one text frame. The only
//! difference from stdin/stdout is the policy below, applied before a line reaches the session.

use super::ws;
use crate::protocol::{parse_line, Command};
use crate::registry::Game;
use crate::session::{Overflow, Registered, Settings};
use crate::stop::{Budget, Flag};
use crossbeam_channel::{bounded, Receiver, Sender};
use parking_lot::Mutex;
use std::io::{self, BufRead, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// Deepest `go perft` a served session runs (it cannot be interrupted; depth 4 of a game with
/// many moves a ply takes minutes).
pub const MAX_SERVED_PERFT: u32 = 3;
/// Table size a served session starts with, in MiB (a person's opponent, many tabs at once).
pub const SERVED_HASH_MB: u64 = 16;
/// Messages a tab may have waiting for its session (each at most [`super::MAX_MESSAGE`]); a
/// message beyond them is refused whole with one error line.
pub const MESSAGE_QUEUE: usize = 8;
/// Memory one table, or one step of a game's own command, of a served session may take, in MiB.
pub const SERVED_MEMORY_MB: u64 = 256;

/// Why a served session refuses a command, or None when it may run. Served sessions never touch
/// the file system and never start work that cannot be stopped and would run for minutes. A
/// game's own command is its game's to refuse (`Adapter::served_refusal`), whichever game the
/// session plays now: a line later in the same message may change it.
pub fn refusal(command: &Command) -> Option<String> {
    match command {
        Command::Extension { name, .. } if name == "loadrecord" => Some(
            "loadrecord reads a file, which a served session may not do; send the record itself with loadrecordtext"
                .into(),
        ),
        Command::Bench => Some(
            "bench runs minutes of searches that cannot be stopped; run ryoshi bench instead"
                .into(),
        ),
        Command::Perft(d) if *d > MAX_SERVED_PERFT => Some(format!(
            "go perft deeper than {MAX_SERVED_PERFT} is not available in a served session"
        )),
        Command::Extension { name, args } => Game::ALL
            .iter()
            .find_map(|game| game.served_refusal(name, args)),
        Command::SetOption { name, .. }
            if name.eq_ignore_ascii_case(crate::session::options::DEBUG_LOG) =>
        {
            Some("DebugLog writes a file, which a served session may not do".into())
        }
        Command::SetOption { name, value } => {
            let spec = crate::session::options::find(name)?;
            let max = spec.served_max()?;
            match value.as_deref().and_then(|v| v.parse::<u64>().ok()) {
                Some(v) if v > max => Some(format!(
                    "{} above {max} is not available in a served session",
                    spec.name()
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Frames waiting to be written to one socket. A room broadcast that finds them all taken drops
/// the socket (a reader that does not read is not waited on); the session's own lines wait up to
/// [`SEND_WAIT`] for room.
pub const SOCKET_QUEUE: usize = 64;
/// How long the session waits for room in its socket's queue (and a write for the client).
pub const SEND_WAIT: Duration = Duration::from_secs(10);

enum Out {
    Message(ws::Message),
    /// The close frame's status and reason: written last, then the socket is shut.
    Close(u16, String),
}

/// The socket's writing half, shared by the session, the room broadcasts, the pinger and the
/// connection thread: frames go through a bounded queue to the socket's writer thread, so no
/// sender ever blocks on another's slow reader. A failed or refused write marks it dead and
/// shuts the socket (the reader sees the end and the connection ends).
#[derive(Clone)]
pub struct Socket {
    inner: Arc<SocketShared>,
}

struct SocketShared {
    queue: Sender<Out>,
    /// For shutting the socket from any thread.
    stream: TcpStream,
    state: Mutex<SocketState>,
}

struct SocketState {
    alive: bool,
    /// A close frame was queued: nothing may follow it.
    closed: bool,
}

impl Socket {
    /// The writing half of `stream`, with its writer thread.
    pub fn new(stream: TcpStream) -> io::Result<Socket> {
        let (queue, frames) = bounded::<Out>(SOCKET_QUEUE);
        let writer = stream.try_clone()?;
        let _ = writer.set_write_timeout(Some(SEND_WAIT));
        let mut writer = ws::Writer::new(writer);
        let socket = Socket {
            inner: Arc::new(SocketShared {
                queue,
                stream,
                state: Mutex::new(SocketState {
                    alive: true,
                    closed: false,
                }),
            }),
        };
        let weak = Arc::downgrade(&socket.inner);
        thread::Builder::new()
            .name("socket writer".into())
            .spawn(move || {
                // Ends when every handle is gone (the queue disconnects) or after the close.
                for out in frames {
                    match out {
                        Out::Message(message) => {
                            if writer.send(message) {
                                continue;
                            }
                            writer.shutdown();
                        }
                        Out::Close(code, reason) => writer.close(code, &reason),
                    }
                    if let Some(inner) = weak.upgrade() {
                        inner.state.lock().alive = false;
                    }
                    return;
                }
            })?;
        Ok(socket)
    }

    /// Whether both handles are the same socket.
    pub fn same(&self, other: &Socket) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether the client is still there, as far as this end knows (no write failed, no
    /// close frame queued).
    pub fn is_open(&self) -> bool {
        let s = self.inner.state.lock();
        s.alive && !s.closed
    }

    /// Marks the socket dead and shuts it: its reader ends, and so does the connection.
    pub fn drop_client(&self) {
        self.inner.state.lock().alive = false;
        let _ = self.inner.stream.shutdown(std::net::Shutdown::Both);
    }

    /// Queues a message, waiting up to [`SEND_WAIT`] for room (the session's own output).
    pub fn send(&self, message: ws::Message) {
        if self.is_open()
            && self
                .inner
                .queue
                .send_timeout(Out::Message(message), SEND_WAIT)
                .is_err()
        {
            self.drop_client();
        }
    }

    /// Queues a message without waiting: a socket whose queue is full is dropped (broadcasts,
    /// pings).
    pub fn offer(&self, message: ws::Message) {
        if self.is_open() && self.inner.queue.try_send(Out::Message(message)).is_err() {
            self.drop_client();
        }
    }

    pub fn send_line(&self, text: &str) {
        self.send(ws::Message::text(text));
    }

    pub fn offer_line(&self, text: &str) {
        self.offer(ws::Message::text(text));
    }

    /// Ends the connection: one close frame after the frames queued, then the socket is shut
    /// (the reader sees the end).
    pub fn close(&self, code: u16, reason: &str) {
        {
            let mut s = self.inner.state.lock();
            if s.closed {
                return;
            }
            s.closed = true;
            if !s.alive {
                drop(s);
                self.drop_client();
                return;
            }
        }
        let frame = Out::Close(code, reason.to_string());
        if self.inner.queue.send_timeout(frame, SEND_WAIT).is_err() {
            self.drop_client();
        }
    }

    pub fn error(&self, message: &str) {
        self.send_line(&format!("info string error: {message}"));
    }
}

/// The session's output: each complete line becomes one text frame.
struct FrameWriter {
    socket: Socket,
    pending: Vec<u8>,
}

impl Write for FrameWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(i) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line[..i]);
            self.socket.send_line(text.trim_end_matches('\r'));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The session's input: lines forwarded by the connection thread; end of input when it hangs up
/// or raises the interrupt (what is still queued is dropped).
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    interrupt: Flag,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(out.len());
            out[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChannelReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos >= self.buf.len() {
            if self.interrupt.is_raised() {
                return Ok(&[]);
            }
            match self.rx.recv() {
                Ok(bytes) => {
                    self.buf = bytes;
                    self.pos = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        if self.interrupt.is_raised() {
            return Ok(&[]);
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }
}

/// A running session for one tab.
pub struct Tab {
    input: Option<Sender<Vec<u8>>>,
    interrupt: Flag,
    socket: Socket,
    thread: Option<thread::JoinHandle<()>>,
}

impl Tab {
    pub fn start(socket: Socket) -> io::Result<Tab> {
        // Bounded: a tab that floods the session is refused, never piled up (and the session's
        // own queues refuse rather than wait: see `Overflow::Refuse`).
        let (tx, rx) = bounded(MESSAGE_QUEUE);
        let interrupt = Flag::new();
        let reader = ChannelReader {
            rx,
            interrupt: interrupt.clone(),
            buf: Vec::new(),
            pos: 0,
        };
        let settings = Settings {
            overflow: Overflow::Refuse,
            budget: Budget {
                interrupt: interrupt.clone(),
                capped: true,
            },
            memory_bytes: Some(SERVED_MEMORY_MB << 20),
        };
        let writer = FrameWriter {
            socket: socket.clone(),
            pending: Vec::new(),
        };
        let closer = socket.clone();
        let thread = thread::Builder::new()
            .name("served session".into())
            .spawn(move || {
                crate::session::run_with(reader, writer, settings);
                // `quit` from the page ends the session; the tab's socket goes with it.
                closer.close(1000, "session ended");
            })?;
        let tab = Tab {
            input: Some(tx),
            interrupt,
            socket,
            thread: Some(thread),
        };
        tab.forward(&format!("setoption name USI_Hash value {SERVED_HASH_MB}"));
        Ok(tab)
    }

    fn forward(&self, line: &str) {
        self.forward_bytes(format!("{line}\n").into_bytes(), 1, |_| {});
    }

    /// Queues `bytes` (`lines` lines) for the session, or refuses them whole with one error
    /// line when [`MESSAGE_QUEUE`] messages are waiting already; `before` sees them first
    /// when they are queued (only this thread queues, so a queue with room keeps it).
    fn forward_bytes(&self, bytes: Vec<u8>, lines: usize, before: impl FnOnce(&[u8])) {
        let Some(tx) = &self.input else { return };
        if tx.is_full() {
            self.socket.error(&format!(
                "the engine is busy and {MESSAGE_QUEUE} messages wait already; \
                 message of {lines} line(s) refused"
            ));
            return;
        }
        before(&bytes);
        let _ = tx.try_send(bytes);
    }

    /// One WebSocket text message: its lines go to the session together, except those refused
    /// and those the server answers itself (`ours`). `before` sees the lines the session will
    /// run, with the server's own in their places, before the session runs them (so that what
    /// the server says of them comes before the session's answers).
    pub fn message(
        &self,
        text: &str,
        ours: impl Fn(&str) -> bool,
        refuses: impl Fn(&Command) -> Option<String>,
        before: impl FnOnce(&str),
    ) {
        let mut accepted = Vec::with_capacity(text.len() + 1);
        let mut seen = String::new();
        let mut lines = 0;
        for line in text.split('\n') {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            if ours(line) {
                seen.push_str(line);
                seen.push('\n');
                continue;
            }
            if let Ok(Some(command)) = parse_line(line) {
                if let Some(why) = refusal(&command).or_else(|| refuses(&command)) {
                    self.socket.error(&why);
                    continue;
                }
            }
            // Lines that do not parse go to the session too: it answers them as stdin would.
            accepted.extend_from_slice(line.as_bytes());
            accepted.push(b'\n');
            seen.push_str(line);
            seen.push('\n');
            lines += 1;
        }
        if lines > 0 {
            self.forward_bytes(accepted, lines, |_| before(&seen));
        } else if !seen.is_empty() {
            before(&seen);
        }
    }

    /// The tab is gone: stop the running job, drop the lines still queued, end the session and
    /// wait for its threads.
    pub fn close(mut self) {
        self.interrupt.raise();
        self.input = None;
        if let Some(handle) = self.thread.take() {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::*;
    use crate::protocol::parse_line;

    fn refused(line: &str) -> Option<String> {
        refusal(&parse_line(line).unwrap().unwrap())
    }

    #[test]
    fn a_served_session_may_not_open_a_debug_log() {
        let why = refused("setoption name debuglog value /tmp/x.log");
        assert!(why.is_some_and(|why| why.contains("DebugLog")));
    }

    #[test]
    fn each_game_refuses_its_own_commands_whatever_the_session_plays() {
        // The games' words, through the registry: no game is selected here.
        let why = refused("loadsgf /etc/passwd").expect("a file read");
        assert!(why.starts_with("loadsgf reads a file"), "{why}");
        let why = refused("count 9").expect("too deep");
        assert_eq!(
            why,
            "count deeper than 8 is not available in a served session"
        );
        for line in [
            "count 8",
            "count x",
            "loadsgftext (;SZ[5])",
            "solve",
            "undo",
        ] {
            assert_eq!(refused(line), None, "{line}");
        }
        let why = refused("loadrecord /etc/passwd").expect("a file read");
        assert!(why.starts_with("loadrecord reads a file"), "{why}");
    }
}
