//! The NBoard protocol for Othello GUIs (`ryoshi nboard`, or a first input line `nboard N`):
//! a thin translator onto `othello` and `othello::search`. See protocol/nboard.md.
//!
//! It runs on [`driver::drive`], as the USI session does: a reader thread feeds lines, the
//! search worker its output, and the loop is the only writer of stdout. While a search runs,
//! `ping` stops it (its `pong` follows the search's last line), `quit` ends the session at once,
//! and every other command waits its turn.
//!
//! This file is that loop: the queue, the dispatch and the worker. The commands themselves are
//! in `commands.rs`, the searches they start in `task.rs`.

mod commands;
pub(crate) mod task;

use crate::games::record::Tags;
use crate::othello::ggf::{self, Record};
use crate::othello::Position;
use crate::protocol::driver::{self, Flow, Input};
use crate::protocol::lines;
use crate::search::{Control, Limits};
use crate::text::sanitize_message;
pub use commands::Failure;
use crossbeam_channel::{bounded, Sender};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::thread;
use task::Depth;

/// The name sent with `set myname`.
pub const NAME: &str = "ryoshi";
/// The depth before any `set depth`.
pub const DEFAULT_DEPTH: u32 = 8;
/// `set depth` accepts 1 to this.
pub const MAX_DEPTH: u32 = 60;
/// Commands kept waiting behind a running search; more wait unread.
const MAX_QUEUED: usize = 1000;
/// Output lines of the running search waiting for the loop.
const WORKER_LINES: usize = 1024;

enum Event {
    Out(String),
    /// A position of `analyze` and its value for the side to move there, in centi-discs: kept
    /// as the eval of the move played from it (for `record`), then sent.
    Analysis(task::Spot, i32),
    Finished,
}

/// Runs the NBoard loop until `quit`, the end of the input (after which queued commands and
/// a running search finish first), or a failed write to `output`.
pub fn run<R: BufRead + Send + 'static, W: Write>(input: R, output: W) {
    run_with(input, output, 1);
}

/// As [`run`], the exact solves on `threads` threads.
pub fn run_with<R: BufRead + Send + 'static, W: Write>(input: R, output: W, threads: usize) {
    // Input is bounded twice: the channel, and the commands queued behind a search; when the
    // queue is full the reader waits until the search ends.
    let lines = driver::spawn_reader(input, 64);
    // The worker's output waits for room: it is the protocol's answer and is never dropped,
    // and a client that stops reading holds the worker, not our memory.
    let (work_tx, work_rx) = bounded(WORKER_LINES);
    driver::drive(&mut Front::new(output, work_tx, threads), lines, work_rx);
}

impl<W: Write> driver::Front for Front<W> {
    type Event = Event;

    fn reading(&self) -> bool {
        self.queue.len() < MAX_QUEUED
    }

    fn on_input(&mut self, input: Input) -> Flow {
        match input {
            Input::Eof => Flow::Continue,
            input => {
                if let Input::Line(l) = &input {
                    crate::logging::input(l);
                }
                self.on_line(input)
            }
        }
    }

    fn on_event(&mut self, event: Event) -> Flow {
        match event {
            Event::Out(line) => {
                self.line(&line);
                Flow::Continue
            }
            Event::Analysis(spot, score) => {
                self.keep_analysis(&spot, score);
                self.line(&task::analysis_line(&spot, score));
                Flow::Continue
            }
            Event::Finished => {
                self.busy = None;
                self.drain()
            }
        }
    }

    fn finished(&mut self, input_ended: bool) -> bool {
        self.gone || (input_ended && self.busy.is_none() && self.queue.is_empty())
    }
}

struct Front<W: Write> {
    out: W,
    /// The game of the last accepted `set game` and the moves played since; None after a
    /// refused `set game`, so that no request is answered for a position NBoard no longer
    /// shows (it matches replies by `pong` only: a stale `===` would be an illegal move).
    game: Option<Record>,
    /// The players, date, place and clocks of the last accepted `set game`, for `record`.
    tags: Tags,
    depth: Depth,
    /// The control of the running search.
    busy: Option<Arc<Control>>,
    /// Commands that arrived during a search.
    queue: VecDeque<Input>,
    tx: Sender<Event>,
    /// Writing to stdout failed.
    gone: bool,
}

fn is_ping(input: &Input) -> bool {
    matches!(input, Input::Line(l) if l.split_whitespace().next() == Some("ping"))
}

impl<W: Write> Front<W> {
    fn new(out: W, tx: Sender<Event>, threads: usize) -> Self {
        Front {
            out,
            game: Some(Record::from_start(Position::START)),
            tags: Tags::default(),
            depth: Depth {
                threads: threads.max(1),
                ..Depth::new(DEFAULT_DEPTH)
            },
            busy: None,
            queue: VecDeque::new(),
            tx,
            gone: false,
        }
    }

    fn line(&mut self, text: &str) {
        crate::logging::output(text);
        // A closed stdout means the GUI is gone: nobody reads what a search would find.
        if writeln!(self.out, "{text}")
            .and_then(|_| self.out.flush())
            .is_err()
        {
            self.gone = true;
        }
    }

    /// NBoard shows `status` text to the user and ignores lines it does not know, so an error
    /// is one `status error: ...` line.
    fn error(&mut self, message: &str) {
        self.line(&format!("status error: {}", sanitize_message(message)));
    }

    fn on_line(&mut self, input: Input) -> Flow {
        let Some(control) = &self.busy else {
            return self.execute(input);
        };
        match &input {
            Input::Line(l) if l.split_whitespace().next() == Some("quit") => return Flow::Quit,
            _ if is_ping(&input) => control.stop(),
            _ => {}
        }
        self.queue.push_back(input);
        Flow::Continue
    }

    fn drain(&mut self) -> Flow {
        while self.busy.is_none() {
            let Some(input) = self.queue.pop_front() else {
                break;
            };
            if self.execute(input) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    fn execute(&mut self, input: Input) -> Flow {
        let line = match input {
            Input::Line(line) => line,
            Input::TooLong(head) => {
                // A `set game` refused for its length is refused as any other: no game until
                // the next accepted one (a stale `===` would be illegal in NBoard's game).
                let words: Vec<&str> = head.split_whitespace().take(2).collect();
                if words == ["set", "game"] {
                    self.game = None;
                    self.tags = Tags::default();
                }
                self.error(&lines::too_long_message());
                return Flow::Continue;
            }
            Input::Eof => return Flow::Continue,
        };
        let text = line.trim();
        let (command, rest) = match text.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim_start()),
            None => (text, ""),
        };
        let result = match command {
            "" => Ok(()),
            "quit" => return Flow::Quit,
            "nboard" => self.nboard(rest),
            "set" => self.set(rest),
            "move" => self.play(rest),
            "ping" => self.ping(rest),
            "learn" => {
                self.line("learned");
                Ok(())
            }
            "go" => self.go(rest),
            "hint" => self.hint(rest),
            "analyze" => self.analyze(rest),
            "record" => self.record(rest),
            // NBoard 1.1 sends a bare move (`F5`) instead of `move F5`.
            _ if rest.is_empty() && ggf::parse_move_item(command).is_ok() => self.play(command),
            _ => Err(Failure::UnknownCommand(command.into())),
        };
        if let Err(e) = result {
            self.error(&e.to_string());
        }
        Flow::Continue
    }

    /// Runs a search on the worker thread between `status ryoshi is thinking` and
    /// `status ryoshi is waiting`.
    fn start<F>(&mut self, movetime: Option<u64>, job: F)
    where
        F: FnOnce(&Control, &mut dyn FnMut(Event)) + Send + 'static,
    {
        let limits = Limits {
            depth: Some(self.depth.plies),
            movetime,
            ..Default::default()
        };
        let control = Arc::new(Control::new(limits, 0));
        // A ping already waiting makes this search obsolete before it starts.
        if self.queue.iter().any(is_ping) {
            control.stop();
        }
        self.line(&format!("status {NAME} is thinking"));
        self.busy = Some(control.clone());
        let tx = self.tx.clone();
        let spawned = thread::Builder::new().spawn(move || {
            let mut send = |event: Event| {
                let _ = tx.send(event);
            };
            job(&control, &mut send);
            send(Event::Out(format!("status {NAME} is waiting")));
            send(Event::Finished);
        });
        // The system refused a thread: no search, and the engine stays ready for the next line.
        if let Err(e) = spawned {
            self.busy = None;
            self.error(&format!("cannot start a search: {e}"));
            self.line(&format!("status {NAME} is waiting"));
        }
    }
}
