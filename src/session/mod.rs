//! The controller: owns the current game, the options and the running search, and is the only
//! writer of stdout. A reader thread feeds it lines over a channel; the search thread feeds it
//! reports over another; it waits on both with `select!`.

mod commands;
mod jobs;
pub mod options;
mod pending;
pub mod record;
mod report;
#[cfg(test)]
mod tests;
pub mod variant;

use crate::protocol::driver::{self, Flow, Input};
use crate::protocol::{lines, parse_line, Command};
use crate::registry::Game;
use crate::search::{Control, Info, Outcome, Report};
use crate::stop::{Budget, Flag};
use crossbeam_channel::{bounded, Receiver, Sender};
use options::Options;
use pending::{Arrival, Pending, Push, Step};
pub use report::{info_line, score_text};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::thread;
use variant::{SessionError, Variant};

pub const ENGINE_NAME: &str = concat!("ryoshi ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the ryoshi developers";

/// Lines read ahead of the loop; when they are all waiting, the reader waits.
pub const LINE_QUEUE: usize = 16;
pub use pending::{MAX_PENDING, MAX_PENDING_BYTES};

/// Search reports waiting for the loop. A search's progress lines (a few a second) are dropped
/// beyond it, so a client that stops reading its output while `go infinite` runs costs a fixed
/// amount of memory; the last message of a search (its bestmove, count or mate answer) waits
/// for room instead, and the loop always takes it.
const SEARCH_EVENTS: usize = 1024;

/// What happens to a line that arrives while [`MAX_PENDING`] commands wait for a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// The loop stops reading until the search ends, so the writer waits (stdin: a GUI piping
    /// lines never loses one, and a search with commands queued behind it always ends).
    Wait,
    /// The line is refused with one `info string error:` line; `stop`, `isready` and `quit`
    /// still get through (a served tab).
    Refuse,
}

/// How a session runs: stdin/stdout takes the default (no limits, lines wait).
#[derive(Clone)]
pub struct Settings {
    pub overflow: Overflow,
    /// The interrupt (raised when a served tab closes: the running job stops, the lines still
    /// queued are dropped and the session ends) and the work budget of the games' own commands.
    pub budget: Budget,
    /// Largest table, or step of a game's own command, of this session, in bytes
    /// ([`crate::memory::limit_thread`]).
    pub memory_bytes: Option<u64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            overflow: Overflow::Wait,
            budget: Budget::default(),
            memory_bytes: None,
        }
    }
}

enum SearchMsg {
    Report(Report),
    Done(Outcome),
    /// A `go perft` ended: the divide, or `None` when it was stopped.
    PerftDone(Option<Vec<(String, u64)>>),
    /// The `checkmate ...` line of a `go mate` search.
    Mate(String),
}

/// What the crate's root (`lib.rs`, from the registry's list) gives the session for each game: its adapter, made fresh at
/// the game's start position, the names of its own commands, its own options, the shared
/// options it ignores, its names of `loadrecordtext` and which of its commands a served
/// session refuses ([`variant::Adapter::served_refusal`]).
pub trait Registered {
    fn new_variant(self) -> Box<dyn Variant>;
    fn commands(self) -> &'static [&'static str];
    fn options(self) -> &'static [options::Spec];
    fn ignored_options(self) -> &'static [&'static str];
    fn record_text_aliases(self) -> &'static [&'static str];
    fn served_refusal(self, name: &str, args: &str) -> Option<String>;
}

/// A fresh game of the given variant at its start position.
pub fn new_variant(name: Game) -> Box<dyn Variant> {
    name.new_variant()
}

/// Runs the protocol loop until `quit` or the end of the input.
pub fn run<R: BufRead + Send + 'static, W: Write>(input: R, output: W) {
    run_with(input, output, Settings::default());
}

/// [`run`] with the given settings, on the calling thread (which takes its memory budget).
pub fn run_with<R: BufRead + Send + 'static, W: Write>(input: R, output: W, settings: Settings) {
    let interrupt = settings.budget.interrupt.clone();
    let overflow = settings.overflow;
    crate::memory::limit_thread(settings.memory_bytes);
    let lines = driver::spawn_reader(input, LINE_QUEUE);
    let mut session = Session::new(output, settings.budget);
    let events = session.search_rx.clone();
    driver::drive(
        &mut Looped {
            session: &mut session,
            overflow,
            interrupt,
        },
        lines,
        events,
    );
}

/// The session as [`driver::drive`] runs it, with how it is served.
struct Looped<'a, W: Write> {
    session: &'a mut Session<W>,
    overflow: Overflow,
    interrupt: Flag,
}

impl<W: Write> driver::Front for Looped<'_, W> {
    type Event = SearchMsg;

    fn reading(&self) -> bool {
        self.overflow == Overflow::Refuse || !self.session.pending.is_full()
    }

    fn on_input(&mut self, input: Input) -> Flow {
        if self.interrupt.is_raised() {
            return Flow::Continue;
        }
        match input {
            Input::Line(line) => {
                crate::logging::input(&line);
                self.session.on_line(&line)
            }
            Input::TooLong(_) => {
                self.session.error(&lines::too_long_message());
                Flow::Continue
            }
            Input::Eof => Flow::Continue,
        }
    }

    fn on_event(&mut self, msg: SearchMsg) -> Flow {
        self.session.on_search(msg)
    }

    fn finished(&mut self, input_ended: bool) -> bool {
        let session = &mut *self.session;
        if self.interrupt.is_raised() {
            session.abandon();
            return true;
        }
        if !input_ended {
            return false;
        }
        // No more input: let a timed search finish, stop one that never would, run what
        // waited behind it (stopping each such search it starts), then exit.
        loop {
            match &session.search {
                None => return session.pending.is_empty(),
                Some(running) if !running.waits_for_client => return false,
                Some(_) => {
                    session.stop_search();
                    // Still running: its bestmove comes with its end, an event.
                    if session.search.is_some() {
                        return false;
                    }
                    // A bestmove it held was sent: the waiting commands run now.
                    if session.drain_pending() == Flow::Quit {
                        return true;
                    }
                }
            }
        }
    }
}

struct Running {
    /// Its stop flag is also what a `go perft` polls.
    control: Arc<Control>,
    /// Infinite or still pondering: the bestmove waits for `stop` or `ponderhit`.
    waits_for_client: bool,
    /// The search ended while the bestmove had to wait.
    held: Option<Outcome>,
    /// The last line sent, when it was this search's numeric `info` line: the final line
    /// repeats it only if it says something new (`go depth 1` prints one `depth 1` line), so
    /// the line before `bestmove` is still always an `info depth` line.
    last_info: Option<Info>,
    thread: Option<thread::JoinHandle<()>>,
}

struct Session<W: Write> {
    out: W,
    options: Options,
    game: Box<dyn Variant>,
    search: Option<Running>,
    /// Commands that arrived during a search and need the engine idle, and the errors of lines
    /// that came after them.
    pending: Pending,
    search_tx: Sender<SearchMsg>,
    search_rx: Receiver<SearchMsg>,
    /// What may stop a game's own command run on this thread.
    budget: Budget,
    /// The last `position` was refused: `go` answers `bestmove resign` until one is accepted
    /// (or the game is replaced by a variant switch or a loaded record).
    position_refused: bool,
}

impl<W: Write> Session<W> {
    fn new(out: W, budget: Budget) -> Self {
        let options = Options::default();
        let (search_tx, search_rx) = bounded(SEARCH_EVENTS);
        Session {
            out,
            game: new_variant(options.variant),
            options,
            search: None,
            pending: Pending::default(),
            search_tx,
            search_rx,
            budget,
            position_refused: false,
        }
    }

    fn line(&mut self, text: &str) {
        // A closed stdout leaves nothing to tell; the session keeps going until input ends.
        crate::logging::output(text);
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
        if let Some(running) = &mut self.search {
            running.last_info = None;
        }
    }

    fn error(&mut self, message: &str) {
        let safe = crate::text::sanitize_message(message);
        self.line(&format!("info string error: {safe}"));
    }

    /// The running search, as the queue sees it.
    fn search_state(&self) -> pending::Search {
        match &self.search {
            None => pending::Search::Idle,
            Some(running) if running.waits_for_client => pending::Search::WaitsForClient,
            Some(_) => pending::Search::Timed,
        }
    }

    /// Queues a command (or an error) behind the running search; refused when the queue is
    /// full (only a [`Overflow::Refuse`] loop reads lines then).
    fn queue(&mut self, item: pending::Item, bytes: usize) {
        if self.pending.push(item, bytes) == Push::Full {
            self.error(&format!(
                "{} commands are waiting for the search to end already; line refused",
                self.pending.len()
            ));
        }
    }

    /// The session is being given up (its tab closed): the queue is dropped, the running job
    /// stopped and waited for.
    fn abandon(&mut self) {
        self.pending.clear();
        self.stop_search();
        self.wait_for_search();
    }

    fn on_line(&mut self, line: &str) -> Flow {
        match parse_line(line) {
            Ok(Some(command)) => self.on_command(command, line.len()),
            Ok(None) => Flow::Continue,
            Err(e) => {
                let e = if line.split_whitespace().next() == Some("position") {
                    SessionError::Position(e)
                } else {
                    SessionError::Parse(e)
                };
                if self.pending.is_empty() {
                    self.refused(&e);
                } else {
                    self.queue(Err(e), line.len());
                }
                Flow::Continue
            }
        }
    }

    /// Answers a line refused before it ran (in its turn, if it waited behind a search).
    fn refused(&mut self, e: &SessionError) {
        if matches!(e, SessionError::Position(_)) {
            self.position_refused = true;
        }
        self.error(&e.to_string());
    }

    fn on_command(&mut self, command: Command, bytes: usize) -> Flow {
        match self.pending.arrival(&command, self.search_state()) {
            Arrival::ForTheWaitingSearch => {
                self.queue(Ok(command), bytes);
                Flow::Continue
            }
            Arrival::Wait { stop_first } => {
                if stop_first {
                    self.stop_search();
                }
                self.queue(Ok(command), bytes);
                self.drain_pending()
            }
            Arrival::Run => match self.execute(command) {
                Flow::Quit => Flow::Quit,
                Flow::Continue => self.drain_pending(),
            },
        }
    }

    /// Runs what queued up during a search, as far as the queue's rules let it: until one of
    /// the commands starts another search that the next one has to wait for.
    fn drain_pending(&mut self) -> Flow {
        loop {
            match self.pending.next(self.search_state()) {
                Step::Done => return Flow::Continue,
                Step::StopSearch => self.stop_search(),
                Step::Run(Err(e)) => self.refused(&e),
                Step::Run(Ok(command)) => {
                    if self.execute(command) == Flow::Quit {
                        return Flow::Quit;
                    }
                }
            }
        }
    }
}
