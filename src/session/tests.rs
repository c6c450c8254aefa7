//! The session's own stopping rules, through [`run`] fed by a pipe: the rules that need the
//! loop and a real search thread, beside the queue's in `pending.rs`.

use super::run;
use parking_lot::Mutex;
use std::io::{BufReader, Write};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// The session's output, readable while it runs.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn lines(&self) -> Vec<String> {
        let out = self.0.lock();
        String::from_utf8_lossy(&out)
            .lines()
            .map(String::from)
            .collect()
    }
}

const LONG: Duration = Duration::from_secs(20);

/// Runs a session on `script`, and closes its input once a line of the output satisfies
/// `before_end`; the output, once the session has ended by itself (panics when it has not
/// within 20 s: these once hung for ever).
fn session(script: &str, before_end: impl Fn(&str) -> bool) -> Vec<String> {
    let (reader, mut writer) = std::io::pipe().expect("a pipe");
    let out = Shared::default();
    let session_out = out.clone();
    let session = thread::spawn(move || run(BufReader::new(reader), session_out));
    writer
        .write_all(script.as_bytes())
        .expect("the script is written");
    let deadline = Instant::now() + LONG;
    while !out.lines().iter().any(|l| before_end(l)) {
        assert!(Instant::now() < deadline, "{:#?}", out.lines());
        thread::sleep(Duration::from_millis(10));
    }
    drop(writer);
    while !session.is_finished() {
        assert!(
            Instant::now() < deadline,
            "still running: {:#?}",
            out.lines()
        );
        thread::sleep(Duration::from_millis(10));
    }
    out.lines()
}

fn bestmoves(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

// 7b25b98: quit stops the running search, then runs what waited behind it, stopping each
// search those commands start at once; every `go` gets its bestmove and nothing after quit is
// read.
#[test]
fn quit_stops_each_search_that_waited_behind_it() {
    let script =
        "position startpos\ngo infinite\nposition startpos moves 7g7f\ngo infinite\nquit\nd\n";
    let lines = session(script, |l| l.starts_with("bestmove"));
    assert_eq!(bestmoves(&lines), 2, "{lines:#?}");
    assert!(!lines.iter().any(|l| l.starts_with("sfen ")), "{lines:#?}");
}

// 7b25b98: at the end of input, a search that waits for `stop` but has ended by itself (its
// bestmove held) sends that bestmove, and the session runs what waited and ends.
#[test]
fn the_end_of_input_sends_a_held_bestmove_and_ends() {
    for go in ["go infinite depth 1", "go depth 1 ponder"] {
        let script = format!("position startpos\n{go}\n");
        let lines = session(&script, |l| l.starts_with("info depth 1 "));
        assert_eq!(bestmoves(&lines), 1, "{go}: {lines:#?}");
    }
    let script = "position startpos\ngo infinite depth 1\nd\ngo infinite depth 1\n";
    let lines = session(script, |l| l.starts_with("info depth 1 "));
    assert_eq!(bestmoves(&lines), 2, "{lines:#?}");
    assert!(lines.iter().any(|l| l.starts_with("sfen ")), "{lines:#?}");
}
