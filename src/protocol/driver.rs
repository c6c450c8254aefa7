//! The loop of every text front end with a worker behind it (the USI session, NBoard): a reader
//! thread feeds lines, the worker feeds events, and this loop, the only writer of the output,
//! hands each to the front end in the order it arrives. GTP reads through the same reader.

use super::lines;
use crossbeam_channel::{bounded, never, select, Receiver};
use std::io::BufRead;
use std::thread;

/// How much of a line over the cap is passed on (a GTP id has a few digits).
pub const HEAD_BYTES: usize = 64;

/// What the reader thread sends.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    /// One line, without its `\n` (a `\r` before it is kept), invalid UTF-8 replaced.
    Line(String),
    /// A line over [`lines::MAX_LINE_BYTES`]: it fails without being parsed. It holds the
    /// line's first [`HEAD_BYTES`] bytes, for a protocol that answers with the command's id.
    TooLong(String),
    /// The input ended (or failed); the last thing sent.
    Eof,
}

/// Reads `input` on its own thread into a channel of `capacity` lines: when they all wait, the
/// reader waits, so a client that floods fills its pipe, not our memory. The thread ends at the
/// end of the input or when the receiver is dropped.
pub fn spawn_reader<R: BufRead + Send + 'static>(mut input: R, capacity: usize) -> Receiver<Input> {
    let (tx, rx) = bounded(capacity);
    // Without the thread (the system refused one) the sender is dropped: the input has ended.
    let spawned = thread::Builder::new().spawn(move || {
        let mut buf = Vec::new();
        loop {
            let msg = match lines::read_line(&mut input, &mut buf, lines::MAX_LINE_BYTES) {
                // A failed input ends as its end does: nothing more comes from it.
                lines::Read::Eof | lines::Read::Failed(_) => Input::Eof,
                lines::Read::TooLong => {
                    let head = &buf[..buf.len().min(HEAD_BYTES)];
                    Input::TooLong(String::from_utf8_lossy(head).into_owned())
                }
                lines::Read::Line => Input::Line(String::from_utf8_lossy(&buf).into_owned()),
            };
            let eof = msg == Input::Eof;
            if tx.send(msg).is_err() || eof {
                return;
            }
        }
    });
    if let Err(e) = spawned {
        eprintln!("ryoshi: cannot start the input reader: {e}");
    }
    rx
}

/// Whether the loop goes on after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// A front end driven by [`drive`].
pub trait Front {
    /// What its worker sends back (reports, output lines, "finished").
    type Event;
    /// Whether another line may be read now. False while the commands waiting for the worker
    /// are at their cap: the reader, and so the client, then waits.
    fn reading(&self) -> bool;
    /// A line from the client, or the end of the input.
    fn on_input(&mut self, input: Input) -> Flow;
    fn on_event(&mut self, event: Self::Event) -> Flow;
    /// Asked after every step: is the session over? `input_ended` once [`Input::Eof`] came.
    fn finished(&mut self, input_ended: bool) -> bool;
}

/// Runs `front` until it quits or says it is finished. A closed event channel ends the loop too
/// (the front end holds a sender, so it only closes with the front end).
pub fn drive<F: Front>(front: &mut F, lines: Receiver<Input>, events: Receiver<F::Event>) {
    let mut ended = false;
    loop {
        let line_source = if ended || !front.reading() {
            never()
        } else {
            lines.clone()
        };
        let flow = select! {
            recv(line_source) -> input => {
                let input = input.unwrap_or(Input::Eof);
                ended |= input == Input::Eof;
                front.on_input(input)
            }
            recv(events) -> event => match event {
                Ok(event) => front.on_event(event),
                Err(_) => Flow::Quit,
            },
        };
        if flow == Flow::Quit || front.finished(ended) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::{unbounded, Sender};

    /// Echoes lines, holds them while "busy", and finishes when input ended and nothing waits.
    struct Echo {
        seen: Vec<String>,
        busy: bool,
        held: Vec<String>,
        tx: Sender<()>,
    }

    impl Front for Echo {
        type Event = ();
        fn reading(&self) -> bool {
            self.held.len() < 2
        }
        fn on_input(&mut self, input: Input) -> Flow {
            match input {
                Input::Line(l) if l == "quit" => Flow::Quit,
                Input::Line(l) if l == "work" => {
                    self.busy = true;
                    let _ = self.tx.send(());
                    Flow::Continue
                }
                Input::Line(l) if self.busy => {
                    self.held.push(l);
                    Flow::Continue
                }
                Input::Line(l) => {
                    self.seen.push(l);
                    Flow::Continue
                }
                Input::TooLong(_) => {
                    self.seen.push("too long".into());
                    Flow::Continue
                }
                Input::Eof => Flow::Continue,
            }
        }
        fn on_event(&mut self, _: ()) -> Flow {
            self.busy = false;
            self.seen.append(&mut self.held);
            Flow::Continue
        }
        fn finished(&mut self, input_ended: bool) -> bool {
            input_ended && !self.busy
        }
    }

    fn run(text: &'static [u8]) -> Vec<String> {
        let (tx, rx) = unbounded();
        let mut echo = Echo {
            seen: Vec::new(),
            busy: false,
            held: Vec::new(),
            tx,
        };
        drive(&mut echo, spawn_reader(text, 1), rx);
        echo.seen
    }

    #[test]
    fn lines_in_order_and_work_finishes_before_the_end() {
        assert_eq!(run(b"a\nwork\nb\nc\n"), ["a", "b", "c"]);
        assert_eq!(run(b"a\nquit\nb\n"), ["a"]);
        // An unterminated last line is a line; invalid UTF-8 is replaced, not fatal.
        assert_eq!(run(b"a\n\xff"), ["a", "\u{fffd}"]);
    }
}
