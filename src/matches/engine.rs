//! An engine process spoken to over USI (GTP in `gtp.rs`), with a timeout on every read.
//!
//! A reader thread per engine turns its stdout into lines on a channel, so the runner can wait
//! with `recv_timeout` and never blocks on a hung engine. Engines run in their own process group:
//! Ctrl-C in the terminal reaches only the runner, which then ends the games itself, and killing
//! an engine also kills anything it started (a wrapper script's children).

// SAFETY: allowed for fcntl, waitid and poll on the engines' pipes and processes (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::config::EngineConfig;
use super::iolog::Tap;
use crate::protocol::lines;
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError};
use std::fs::OpenOptions;
use std::io::{BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How an exchange with an engine failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No answer before the deadline.
    Timeout(String),
    /// The process exited, closed its pipe, or could not be started.
    Crash(String),
    /// A GTP engine answered `?` to a command it must accept (its words).
    Refused(String),
    /// The runner is stopping (Ctrl-C or a decided SPRT); not the engine's fault.
    Stopped,
}

/// Of each output line the runner keeps this many bytes: every word it reads (`bestmove`, an
/// option's name, `depth` and `score`, 200 characters of `info string`) comes well before.
const KEEP_BYTES: usize = 4096;

/// Lines read ahead of the runner, at most; then the engine waits on its pipe. With
/// [`KEEP_BYTES`] this bounds the memory an engine flooding `info` can make the runner hold.
const QUEUE_LINES: usize = 256;

/// The longest single wait, so a stop request is noticed promptly.
const POLL: Duration = Duration::from_millis(50);

/// How long a line to the engine may wait for room in its input pipe: an engine that has
/// stopped reading its input (its 64 KiB pipe full) is given up on after this, never waited on
/// for ever.
const WRITE_WAIT: Duration = Duration::from_secs(5);
/// The same for `quit`, after which the engine is killed anyway.
const QUIT_WAIT: Duration = Duration::from_millis(500);

/// Options an engine may declare at `usi`: far more than any engine has, few enough that one
/// flooding `option` lines cannot make the runner hold more than a few MiB.
const MAX_OPTIONS: usize = 1024;

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<String>>,
    /// Option names the engine declared at `usi`; a GTP engine's `list_commands`.
    pub declared: Vec<String>,
    /// GTP: the command that asks for a move (`genmove` unless configured otherwise).
    pub(super) genmove: &'static str,
    /// The id of the next GTP command (answers to earlier ones are skipped).
    pub(super) next_id: u64,
    /// The process has been waited for: its id may be reused, so no more group kills.
    reaped: bool,
    /// USI: the handshake's `isready` has just been answered, so the next game needs none.
    pub(super) synced: bool,
    /// `--log`: where every line to and from the engine is written.
    tap: Option<Tap>,
}

impl Engine {
    /// Starts the process and runs the handshake: `usi`/`usiok`, the options, `isready`/`readyok`.
    /// `first_options` go before the configured ones (the match's `USI_Variant`), and only when
    /// the engine declared them.
    pub fn start(
        config: &EngineConfig,
        base_dir: &Path,
        first_options: &[(&str, String)],
        timeout: Duration,
        stop: &AtomicBool,
        tap: Option<Tap>,
    ) -> Result<Engine, Failure> {
        let mut engine = Engine::spawn(config, base_dir, tap)?;
        engine.send("usi")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = engine.recv(deadline, stop, "usiok")?;
            let mut words = line.split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some("usiok"), _, _) => break,
                (Some("option"), Some("name"), Some(name)) => {
                    if engine.declared.len() == MAX_OPTIONS {
                        return Err(Failure::Crash(format!(
                            "it declared more than {MAX_OPTIONS} options before `usiok`"
                        )));
                    }
                    engine.declared.push(name.into());
                }
                _ => {}
            }
        }
        for (name, value) in first_options {
            if engine.declared.iter().any(|d| d == name) {
                engine.send(&format!("setoption name {name} value {value}"))?;
            }
        }
        for (name, value) in &config.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.sync(timeout, stop)?;
        engine.synced = true;
        Ok(engine)
    }

    pub(super) fn spawn(
        config: &EngineConfig,
        base_dir: &Path,
        tap: Option<Tap>,
    ) -> Result<Engine, Failure> {
        let resolve = |p: &Path| {
            if p.is_absolute() || base_dir.as_os_str().is_empty() {
                p.to_path_buf()
            } else {
                base_dir.join(p)
            }
        };
        // A command with a slash is a path (relative to the configuration); a bare name is
        // looked up on PATH.
        let cmd = if config.cmd.contains('/') {
            // Absolute: a relative path would be looked up from `working_dir`, not from here.
            let path = resolve(Path::new(&config.cmd));
            std::path::absolute(&path).unwrap_or(path)
        } else {
            config.cmd.clone().into()
        };
        let mut command = Command::new(&cmd);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if let Some(dir) = &config.working_dir {
            command.current_dir(resolve(dir));
        }
        match &config.stderr {
            Some(path) => {
                let file = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(resolve(path))
                    .map_err(|e| Failure::Crash(format!("cannot open {}: {e}", path.display())))?;
                command.stderr(file);
            }
            None => {
                command.stderr(Stdio::null());
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| Failure::Crash(format!("cannot start `{}`: {e}", cmd.display())))?;
        // A second Ctrl-C kills it on the runner's way out.
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(child.id()) {
            super::signal::register_group(pid);
        }
        let stdout = child.stdout.take();
        let stdin = child.stdin.take();
        #[cfg(unix)]
        if let Some(stdin) = &stdin {
            use std::os::fd::AsRawFd;
            let fd = stdin.as_raw_fd();
            // SAFETY: fcntl on a descriptor this process owns; only the status flags change.
            // Non-blocking, so that `send` can give up on an engine that does not read.
            unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
                    return Err(Failure::Crash("cannot set up its input".into()));
                }
            }
        }
        let lines = read_lines(stdout, tap.clone());
        Ok(Engine {
            child,
            stdin,
            lines,
            declared: Vec::new(),
            genmove: "genmove",
            next_id: 1,
            reaped: false,
            synced: false,
            tap,
        })
    }

    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.send_within(line, WRITE_WAIT)
    }

    /// Sends `line`, waiting at most `wait` for the engine to read what was sent before.
    fn send_within(&mut self, line: &str, wait: Duration) -> Result<(), Failure> {
        if let Some(tap) = &self.tap {
            tap.sent(line);
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Crash("its input is closed".into()));
        };
        match write_within(stdin, format!("{line}\n").as_bytes(), Instant::now() + wait) {
            Ok(()) => Ok(()),
            Err(Written::Full) => Err(Failure::Timeout(format!(
                "it did not read its input for {} ms",
                wait.as_millis()
            ))),
            Err(Written::Failed(e)) => Err(Failure::Crash(format!(
                "cannot write to it: {e}{}",
                self.exit_note()
            ))),
        }
    }

    /// The next line, waiting until `deadline` at most; `waiting_for` names what was expected.
    pub fn recv(
        &mut self,
        deadline: Instant,
        stop: &AtomicBool,
        waiting_for: &str,
    ) -> Result<String, Failure> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(Failure::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Failure::Timeout(format!("no `{waiting_for}` in time")));
            }
            match self.lines.recv_timeout((deadline - now).min(POLL)) {
                Ok(Some(line)) => return Ok(line),
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(Failure::Crash(format!(
                        "its output closed while waiting for `{waiting_for}`{}",
                        self.exit_note()
                    )))
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Discards lines already received (an extra `bestmove` from a confused engine must not
    /// answer the next `go`); `Err` when the output has closed.
    pub fn drain(&mut self) -> Result<(), Failure> {
        // Only what is queued now: an engine that keeps flooding must not keep this looping.
        for _ in 0..self.lines.len() {
            let Ok(line) = self.lines.try_recv() else {
                break;
            };
            if line.is_none() {
                return Err(Failure::Crash(format!(
                    "its output closed{}",
                    self.exit_note()
                )));
            }
        }
        Ok(())
    }

    /// From now on the engine plays game `game` (for `--log`).
    pub fn set_game(&self, game: usize) {
        if let Some(tap) = &self.tap {
            tap.set_game(game);
        }
    }

    /// `isready` → `readyok`, skipping anything left over (a late `bestmove`, `info` lines).
    pub fn sync(&mut self, timeout: Duration, stop: &AtomicBool) -> Result<(), Failure> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.recv(deadline, stop, "readyok")?.trim() != "readyok" {}
        Ok(())
    }

    /// ` (exit status N)` when the process has already exited.
    fn exit_note(&mut self) -> String {
        // Give a dying process a moment so the note can say how it ended.
        for _ in 0..10 {
            if self.has_exited() {
                self.kill_group();
                self.forget_group();
                if let Ok(Some(status)) = self.child.try_wait() {
                    self.reaped = true;
                    return format!(" ({status})");
                }
            }
            thread::sleep(Duration::from_millis(5));
        }
        String::new()
    }

    /// Sends `quit` and gives the engine a moment to exit before killing it.
    pub fn quit(mut self) {
        let _ = self.send_within("quit", QUIT_WAIT);
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline && !self.has_exited() {
            thread::sleep(Duration::from_millis(5));
        }
        // Drop kills what it left behind (its group) and reaps it.
    }

    /// Whether the process has exited, without reaping it: while it is unreaped its id (and so
    /// its process group's) cannot be reused, and the group can still be killed safely.
    fn has_exited(&self) -> bool {
        if self.reaped {
            return true;
        }
        #[cfg(unix)]
        {
            let pid: libc::id_t = self.child.id();
            // SAFETY: waitid writes only into `info`; WNOWAIT leaves the child unreaped.
            unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let r = libc::waitid(
                    libc::P_PID,
                    pid,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                );
                r == 0 && info.si_pid() != 0
            }
        }
        #[cfg(not(unix))]
        false
    }

    /// The group was killed and its leader is about to be reaped (after which its id may be
    /// another process's): a second Ctrl-C no longer needs to kill it.
    fn forget_group(&self) {
        #[cfg(unix)]
        if !self.reaped {
            if let Ok(pid) = i32::try_from(self.child.id()) {
                super::signal::unregister_group(pid);
            }
        }
    }

    /// SIGKILL to the engine's process group (the engine and whatever it started), while the
    /// leader is unreaped.
    fn kill_group(&self) {
        #[cfg(unix)]
        if !self.reaped {
            if let Ok(pid) = i32::try_from(self.child.id()) {
                super::signal::kill_group(pid);
            }
        }
    }
}

/// The engine's output as lines on a bounded channel, read on a thread of its own (`None` at
/// its end), so that the runner waits with a timeout and never on the pipe.
fn read_lines(stdout: Option<ChildStdout>, reader_tap: Option<Tap>) -> Receiver<Option<String>> {
    let (tx, lines) = bounded(QUEUE_LINES);
    if let Some(stdout) = stdout {
        // Without a reader thread (the system refused one) the sender is dropped: the engine's
        // output has ended, and it is lost as at a crash.
        let _ = thread::Builder::new().spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                let line = match lines::read_line(&mut reader, &mut buf, lines::MAX_LINE_BYTES) {
                    // The engine's output ends either way: it is lost, as at a crash.
                    lines::Read::Eof | lines::Read::Failed(_) => break,
                    // A line over the cap fails: it is passed on empty, which no exchange
                    // accepts as an answer.
                    lines::Read::TooLong => String::new(),
                    lines::Read::Line => {
                        // Garbage bytes are kept visible rather than ending the stream.
                        let kept = &buf[..buf.len().min(KEEP_BYTES)];
                        let text = String::from_utf8_lossy(kept);
                        text.trim_end_matches(['\n', '\r']).to_string()
                    }
                };
                if let Some(tap) = &reader_tap {
                    tap.read(&line);
                }
                if tx.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
    }
    lines
}

/// Why a line could not be written.
enum Written {
    /// The pipe stayed full until the deadline: the engine does not read.
    Full,
    Failed(std::io::Error),
}

/// Writes all of `bytes` to the engine's (non-blocking) input by `deadline`.
fn write_within(
    stdin: &mut ChildStdin,
    mut bytes: &[u8],
    deadline: Instant,
) -> Result<(), Written> {
    use std::io::ErrorKind;
    while !bytes.is_empty() {
        match stdin.write(bytes) {
            Ok(0) => return Err(Written::Failed(ErrorKind::WriteZero.into())),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(Written::Full);
                }
                wait_writable(stdin, (deadline - now).min(POLL));
            }
            Err(e) => return Err(Written::Failed(e)),
        }
    }
    Ok(())
}

/// Waits until the pipe has room, or `wait` has passed.
fn wait_writable(stdin: &ChildStdin, wait: Duration) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let mut fd = libc::pollfd {
            fd: stdin.as_raw_fd(),
            events: libc::POLLOUT,
            revents: 0,
        };
        // SAFETY: poll reads and writes only the one pollfd given.
        unsafe {
            libc::poll(&mut fd, 1, wait.as_millis().min(1000) as libc::c_int);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = stdin;
        thread::sleep(wait.min(Duration::from_millis(5)));
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        // The whole process group (a wrapper's children too, also when the engine itself
        // exited normally), while the leader's id is still ours: an exited but unreaped leader
        // keeps it reserved. Every reap in this file comes after such a kill.
        self.kill_group();
        self.forget_group();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
