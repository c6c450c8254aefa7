//! Drives the real `ryoshi` binary over stdin/stdout.
#![allow(dead_code)]

pub mod shogitter;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_ryoshi");

/// Path of a fixture under `tests/data/` (provenance and licences in tests/data/README.md).
pub fn data_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// The bytes of a fixture under `tests/data/`; a missing file panics with its full path.
pub fn read_data(rel: &str) -> Vec<u8> {
    let path = data_path(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `read_data` as UTF-8 text.
pub fn read_data_text(rel: &str) -> String {
    let path = data_path(rel);
    String::from_utf8(read_data(rel)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Feeds `input` to a fresh engine, closes stdin, and returns all of stdout (60 s at most).
pub fn transcript(input: &[u8]) -> String {
    run(&[], input).0
}

/// `transcript` for `ryoshi gtp`; the whole script must be read (the engine quits only at its
/// end).
pub fn gtp_transcript(script: &str) -> String {
    gtp_transcript_with(&[], script)
}

/// [`gtp_transcript`] with `ryoshi gtp`'s options (`--playouts 200`, ...).
pub fn gtp_transcript_with(args: &[&str], script: &str) -> String {
    let mut all = vec!["gtp"];
    all.extend_from_slice(args);
    let (out, written) = run(&all, script.as_bytes());
    written.expect("the whole script written");
    out
}

/// `transcript` with the address space held to `kib` KiB (`ulimit -v`), so that the system
/// refuses memory and threads long before the machine would.
pub fn transcript_within(kib: u64, input: &[u8]) -> String {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(format!("ulimit -v {kib} && exec '{BIN}'"));
    run_command(sh, input).0
}

/// Runs the binary with `args` on `input`; stdout, and whether all of `input` was written.
fn run(args: &[&str], input: &[u8]) -> (String, std::io::Result<()>) {
    let mut command = Command::new(BIN);
    command.args(args);
    run_command(command, input)
}

fn run_command(mut command: Command, input: &[u8]) -> (String, std::io::Result<()>) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ryoshi");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = thread::spawn(move || stdin.write_all(&data));
    let out = wait_output(child, Duration::from_secs(60));
    let written = writer.join().expect("writer thread");
    (out, written)
}

fn wait_output(child: Child, limit: Duration) -> String {
    let (tx, rx) = channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx
        .recv_timeout(limit)
        .expect("ryoshi did not exit in time")
        .expect("ryoshi output");
    assert!(
        output.status.success(),
        "ryoshi exited with {:?}",
        output.status
    );
    assert!(
        output.stderr.is_empty(),
        "stderr not quiet: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

/// An engine process driven line by line, for tests that depend on timing.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Self::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ryoshi");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines,
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to ryoshi");
        stdin.flush().expect("flush");
    }

    /// The process id (for /proc/PID/...).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None after `limit`.
    pub fn next_line(&mut self, limit: Duration) -> Option<String> {
        match self.lines.recv_timeout(limit) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first one for which `stop` holds; panics after `limit`.
    pub fn read_until(&mut self, limit: Duration, stop: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = stop(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                None => panic!("timed out; lines so far: {seen:#?}"),
            }
        }
    }

    /// Waits for the process to exit; true when it did within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            thread::sleep(Duration::from_millis(5));
        }
        false
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
