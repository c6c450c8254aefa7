//! One browser tab's engine: the protocol session of stdin/stdout (`session::run`), fed with the
//! lines of the tab's WebSocket messages and writing each output line as one text frame. The only
//! difference from stdin/stdout is the policy below, applied before a line reaches the session.

use super::ws;
use crate::protocol::{parse_line, Command};
use crossbeam_channel::{bounded, Receiver, Sender};
use parking_lot::Mutex;
use std::io::{self, BufRead, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;

/// Deepest `go perft` a served session runs (it cannot be interrupted; depth 4 of quantum shogi
/// takes minutes).
pub const MAX_SERVED_PERFT: u32 = 3;
/// Deepest Othello `count` (depth 9 already keeps a few million positions).
pub const MAX_SERVED_COUNT: u32 = 8;
/// Table size a served session starts with, in MiB (a person's opponent, many tabs at once).
pub const SERVED_HASH_MB: u64 = 16;

/// Why a served session refuses a command, or None when it may run. Served sessions never touch
/// the file system and never start work that cannot be stopped and would run for minutes.
pub fn refusal(command: &Command) -> Option<String> {
    match command {
        Command::LoadSgf(_) => Some(
            "loadsgf reads a file, which a served session may not do; send the SGF itself with loadsgftext"
                .into(),
        ),
        Command::Perft(d) if *d > MAX_SERVED_PERFT => Some(format!(
            "go perft deeper than {MAX_SERVED_PERFT} is not available in a served session"
        )),
        Command::Count(d) if *d > MAX_SERVED_COUNT => Some(format!(
            "count deeper than {MAX_SERVED_COUNT} is not available in a served session"
        )),
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

/// The socket's writing half, shared by the session and the connection thread. A failed write
/// marks it dead; later lines are dropped (the reader sees the close and ends the session).
#[derive(Clone)]
pub struct Socket {
    inner: Arc<Mutex<SocketState>>,
}

struct SocketState {
    stream: TcpStream,
    alive: bool,
    /// A close frame was sent: nothing may follow it.
    closed: bool,
}

impl Socket {
    pub fn new(stream: TcpStream) -> Socket {
        Socket {
            inner: Arc::new(Mutex::new(SocketState {
                stream,
                alive: true,
                closed: false,
            })),
        }
    }

    pub fn send_bytes(&self, bytes: &[u8]) {
        let mut s = self.inner.lock();
        if s.alive
            && !s.closed
            && s.stream
                .write_all(bytes)
                .and_then(|_| s.stream.flush())
                .is_err()
        {
            s.alive = false;
        }
    }

    pub fn send_line(&self, text: &str) {
        self.send_bytes(&ws::text_frame(text));
    }

    /// Ends the connection: one close frame, then the socket is shut (the reader sees the end).
    pub fn close(&self, code: u16, reason: &str) {
        self.send_bytes(&ws::close_frame(code, reason));
        let mut s = self.inner.lock();
        s.closed = true;
        let _ = s.stream.shutdown(std::net::Shutdown::Both);
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

/// The session's input: lines forwarded by the connection thread; end of input when it hangs up.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
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
            match self.rx.recv() {
                Ok(bytes) => {
                    self.buf = bytes;
                    self.pos = 0;
                }
                Err(_) => return Ok(&[]),
            }
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
    socket: Socket,
    thread: Option<thread::JoinHandle<()>>,
}

impl Tab {
    pub fn start(socket: Socket) -> io::Result<Tab> {
        // Bounded: a tab that floods lines while the session is busy waits instead of piling up.
        let (tx, rx) = bounded(256);
        let reader = ChannelReader {
            rx,
            buf: Vec::new(),
            pos: 0,
        };
        let writer = FrameWriter {
            socket: socket.clone(),
            pending: Vec::new(),
        };
        let closer = socket.clone();
        let thread = thread::Builder::new()
            .name("served session".into())
            .spawn(move || {
                crate::session::run(reader, writer);
                // `quit` from the page ends the session; the tab's socket goes with it.
                closer.close(1000, "session ended");
            })?;
        let tab = Tab {
            input: Some(tx),
            socket,
            thread: Some(thread),
        };
        tab.forward(&format!("setoption name USI_Hash value {SERVED_HASH_MB}"));
        Ok(tab)
    }

    fn forward(&self, line: &str) {
        if let Some(tx) = &self.input {
            let mut bytes = line.as_bytes().to_vec();
            bytes.push(b'\n');
            let _ = tx.send(bytes);
        }
    }

    /// One WebSocket text message: each of its lines goes to the session unless refused.
    pub fn message(&self, text: &str) {
        for line in text.split('\n') {
            let line = line.trim_end_matches('\r');
            if let Ok(Some(command)) = parse_line(line) {
                if let Some(why) = refusal(&command) {
                    self.socket.error(&why);
                    continue;
                }
            }
            // Lines that do not parse go to the session too: it answers them as stdin would.
            self.forward(line);
        }
    }

    /// The tab is gone: stop any search, end the session and wait for its threads.
    pub fn close(mut self) {
        self.forward("quit");
        self.input = None;
        if let Some(handle) = self.thread.take() {
            let _ = handle.join();
        }
    }
}
