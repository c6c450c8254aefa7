//! The controller: owns the current game, the options and the running search, and is the only
//! writer of stdout. A reader thread feeds it lines over a channel; the search thread feeds it
//! reports over another; it waits on both with `select!`.

pub mod options;
pub mod record;
pub mod variant;

use crate::games::rules::Side;
use crate::protocol::driver::{self, Flow, Input};
use crate::protocol::{lines, parse_line, Args, Command, GoParams};
use crate::search::game::{WIN, WIN_BOUND};
use crate::search::{Control, Info, Limits, Outcome, Report};
use crate::stop::{Budget, Flag};
use crossbeam_channel::{bounded, Receiver, Sender};
use options::{Options, VariantName};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread;
use variant::{SessionError, Variant};

pub const ENGINE_NAME: &str = concat!("ryoshi ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the ryoshi developers";

/// Lines read ahead of the loop; when they are all waiting, the reader waits.
pub const LINE_QUEUE: usize = 16;
/// Commands that may wait for a running search to end (with the errors of lines after them)...
pub const MAX_PENDING: usize = 256;
/// ...and the bytes of their lines (one line always fits, however long).
pub const MAX_PENDING_BYTES: usize = 1 << 20;

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
    /// queued are dropped and the session ends) and the work budget of `count`/`solve`.
    pub budget: Budget,
    /// Largest table or `count` step of this session, in bytes ([`crate::memory::limit_thread`]).
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

/// What the registry (`lib.rs`) gives the session for each game: its adapter, made fresh at
/// the game's start position, and the names of its own commands.
pub trait Registered {
    fn new_variant(self) -> Box<dyn Variant>;
    fn commands(self) -> &'static [&'static str];
}

/// A fresh game of the given variant at its start position.
pub fn new_variant(name: VariantName) -> Box<dyn Variant> {
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
        self.overflow == Overflow::Refuse || !self.session.pending_full()
    }

    fn on_input(&mut self, input: Input) -> Flow {
        if self.interrupt.is_raised() {
            return Flow::Continue;
        }
        match input {
            Input::Line(line) => self.session.on_line(&line),
            Input::TooLong => {
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
        // No more input: let a timed search finish, stop one that never would, then exit.
        match &session.search {
            Some(running) => {
                if running.waits_for_client {
                    session.stop_search();
                }
                false
            }
            None => session.pending.is_empty(),
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
    /// that came after them (answered in turn, so replies keep the order of the lines), with
    /// the length of their lines; bounded by [`MAX_PENDING`] and [`MAX_PENDING_BYTES`].
    pending: VecDeque<(Result<Command, SessionError>, usize)>,
    pending_bytes: usize,
    search_tx: Sender<SearchMsg>,
    search_rx: Receiver<SearchMsg>,
    /// What may stop a command run on this thread (`count`, `solve`).
    budget: Budget,
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
            pending: VecDeque::new(),
            pending_bytes: 0,
            search_tx,
            search_rx,
            budget,
        }
    }

    fn line(&mut self, text: &str) {
        // A closed stdout leaves nothing to tell; the session keeps going until input ends.
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

    fn pending_full(&self) -> bool {
        self.pending.len() >= MAX_PENDING || self.pending_bytes >= MAX_PENDING_BYTES
    }

    /// Queues a command (or an error) behind the running search; refused when the queue is
    /// full (only a [`Overflow::Refuse`] loop reads lines then).
    fn queue(&mut self, item: Result<Command, SessionError>, bytes: usize) {
        if self.pending_full() {
            self.error(&format!(
                "{} commands are waiting for the search to end already; line refused",
                self.pending.len()
            ));
            return;
        }
        self.pending_bytes += bytes;
        self.pending.push_back((item, bytes));
    }

    /// The session is being given up (its tab closed): the queue is dropped, the running job
    /// stopped and waited for.
    fn abandon(&mut self) {
        self.pending.clear();
        self.pending_bytes = 0;
        self.stop_search();
        self.wait_for_search();
    }

    fn on_line(&mut self, line: &str) -> Flow {
        match parse_line(line) {
            Ok(Some(command)) => self.on_command(command, line.len()),
            Ok(None) => Flow::Continue,
            Err(e) if !self.pending.is_empty() => {
                self.queue(Err(SessionError::Parse(e)), line.len());
                Flow::Continue
            }
            Err(e) => {
                self.error(&e.to_string());
                Flow::Continue
            }
        }
    }

    fn on_command(&mut self, command: Command, bytes: usize) -> Flow {
        if let Some(running) = &self.search {
            if !command.is_immediate() {
                // A search that never ends by itself is stopped; a timed one finishes first.
                if running.waits_for_client {
                    self.stop_search();
                }
                self.queue(Ok(command), bytes);
                return self.drain_pending();
            }
        }
        match self.execute(command) {
            Flow::Quit => Flow::Quit,
            Flow::Continue => self.drain_pending(),
        }
    }

    fn execute(&mut self, command: Command) -> Flow {
        let result = match command {
            Command::Usi => {
                self.line(&format!("id name {ENGINE_NAME}"));
                self.line(&format!("id author {ENGINE_AUTHOR}"));
                for declaration in Options::declarations() {
                    self.line(&declaration);
                }
                self.line("usiok");
                Ok(())
            }
            Command::IsReady => {
                // The hash table is (re)allocated here, as Stockfish does, unless a search
                // holds it.
                if self.search.is_none() {
                    self.prepare();
                }
                self.line("readyok");
                Ok(())
            }
            Command::UsiNewGame => {
                self.game.new_game();
                Ok(())
            }
            Command::Quit => {
                self.stop_search();
                self.wait_for_search();
                return Flow::Quit;
            }
            Command::Stop | Command::GameOver(_) => {
                self.stop_search();
                Ok(())
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves } => {
                self.game.set_position(&start, &moves, &self.options)
            }
            Command::Go(params) => {
                self.start_search(&params);
                Ok(())
            }
            Command::Mate(limit) => {
                self.start_mate(limit);
                Ok(())
            }
            Command::PonderHit(params) => {
                self.ponderhit(&params);
                Ok(())
            }
            Command::Perft(depth) => self.start_perft(depth),
            Command::Display => {
                for row in self.game.display() {
                    self.line(&row);
                }
                Ok(())
            }
            Command::Moves => {
                let moves = self.game.view(&self.options).legal_moves().join(" ");
                self.line(&moves);
                Ok(())
            }
            Command::Bench => {
                let mut lines = Vec::new();
                let result = self
                    .game
                    .bench(&self.options, &mut |l: &str| lines.push(l.to_string()));
                for l in lines {
                    self.line(&l);
                }
                result
            }
            Command::Extension { name, args } => self.extension(&name, &args),
        };
        if let Err(e) = result {
            self.error(&e.to_string());
        }
        Flow::Continue
    }

    /// A game's own command: the current game's, or refused as another game's or as unknown.
    fn extension(&mut self, name: &str, args: &str) -> Result<(), SessionError> {
        if !Registered::commands(self.options.variant).contains(&name) {
            let theirs = VariantName::ALL
                .iter()
                .flat_map(|&g| Registered::commands(g))
                .find(|&&c| c == name);
            return Err(match theirs {
                Some(command) => {
                    SessionError::not_available(command, self.options.variant.as_str())
                }
                None => SessionError::Parse(crate::protocol::args::unknown_command(name)),
            });
        }
        let Session {
            out,
            game,
            options,
            budget,
            ..
        } = self;
        game.extension(
            name,
            Args::new(name, args),
            options,
            budget,
            &mut |l: &str| {
                let _ = writeln!(out, "{l}");
                let _ = out.flush();
            },
        )
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), SessionError> {
        let before = self.options.variant;
        self.options
            .set(name, value)
            .map_err(SessionError::Option)?;
        if self.options.variant != before {
            self.game = new_variant(self.options.variant);
        }
        let Some(spec) = options::find(name) else {
            return Ok(());
        };
        if spec.reallocates() {
            self.prepare();
        }
        // Stored all the same (it acts once the game changes), but a GUI user should not
        // believe it changed this game's play.
        if !spec.acts_on(self.options.variant) {
            self.line(&format!(
                "info string {} has no effect on {}",
                spec.name(),
                self.options.variant.as_str()
            ));
        }
        Ok(())
    }

    /// Allocates the hash table the options ask for; one `info string` when it is smaller.
    fn prepare(&mut self) {
        if let Some(note) = self.game.prepare(&self.options) {
            self.line(&format!("info string {note}"));
        }
    }

    /// `go perft N` on its own thread: `isready` is answered and `stop` ends it meanwhile.
    fn start_perft(&mut self, depth: u32) -> Result<(), SessionError> {
        let mut notes = Vec::new();
        let job = self.game.perft(depth, &self.options, &mut |l: &str| {
            notes.push(l.to_string())
        });
        for note in notes {
            self.line(&note);
        }
        let job = job?;
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let control = Arc::new(Control::new(limits, 0));
        let flag = control.flag();
        let tx = self.search_tx.clone();
        let thread = thread::Builder::new()
            .name("perft".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let divide = catch_unwind(AssertUnwindSafe(|| job(flag))).unwrap_or_else(|_| {
                    let text = "error: perft failed".to_string();
                    let _ = tx.send(SearchMsg::Report(Report::Text(text)));
                    None
                });
                let _ = tx.send(SearchMsg::PerftDone(divide));
            })
            .map_err(|error| SessionError::Thread {
                what: "perft",
                error,
            })?;
        self.search = Some(Running {
            control,
            waits_for_client: false,
            held: None,
            thread: Some(thread),
            last_info: None,
        });
        Ok(())
    }

    fn finish_perft(&mut self, divide: Option<Vec<(String, u64)>>) {
        if let Some(mut running) = self.search.take() {
            if let Some(handle) = running.thread.take() {
                let _ = handle.join();
            }
        }
        let Some(divide) = divide else {
            self.line("info string perft stopped");
            return;
        };
        let total = divide.iter().fold(0u64, |t, (_, n)| t.saturating_add(*n));
        for (action, count) in divide {
            self.line(&format!("{action}: {count}"));
        }
        self.line(&format!("Nodes searched: {total}"));
    }

    fn limits(&self, params: &GoParams) -> Limits {
        let first = self.game.view(&self.options).side_to_move() == Side::First;
        Limits {
            time: if first { params.btime } else { params.wtime },
            inc: if first { params.binc } else { params.winc },
            byoyomi: params.byoyomi,
            movetime: params.movetime,
            depth: params.depth,
            nodes: params.nodes,
            moves_to_go: self.game.moves_to_go(),
            infinite: params.infinite,
            ponder: params.ponder,
        }
    }

    fn start_search(&mut self, params: &GoParams) {
        // The table is ready before the clock starts (allocating it could eat a movetime).
        self.prepare();
        let limits = self.limits(params);
        let job = self.game.search(&limits, &self.options);
        // Should the search fail, its one bestmove is still sent: a legal move, if any.
        let fallback = self
            .game
            .view(&self.options)
            .legal_moves()
            .into_iter()
            .next();
        self.spawn(limits, "bestmove resign", move |control, tx| {
            let mut report = |r: Report| {
                // Dropped when SEARCH_EVENTS wait: the loop is stuck writing to a client that
                // does not read, and a search must never wait for its client.
                let _ = tx.try_send(SearchMsg::Report(r));
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| job(control, &mut report)))
                .unwrap_or_else(|_| {
                    let text = "error: the search failed".to_string();
                    let _ = tx.send(SearchMsg::Report(Report::Text(text)));
                    Outcome {
                        info: Info {
                            time_ms: control.elapsed_ms(),
                            ..Info::default()
                        },
                        best: fallback,
                        ponder: None,
                    }
                });
            let _ = tx.send(SearchMsg::Done(outcome));
        });
    }

    /// `go mate [<ms>|infinite]`: runs like a `go` search (`stop`, `isready` and queued commands
    /// behave the same), but answers with one `checkmate ...` line as soon as it ends.
    fn start_mate(&mut self, limit: Option<u64>) {
        let Some(job) = self.game.mate(&self.options) else {
            self.line("checkmate notimplemented");
            return;
        };
        let limits = Limits {
            movetime: limit,
            infinite: limit.is_none(),
            ..Default::default()
        };
        self.spawn(limits, "checkmate timeout", move |control, tx| {
            let answer = catch_unwind(AssertUnwindSafe(|| job(control))).unwrap_or_else(|_| {
                let text = "error: the mate search failed".to_string();
                let _ = tx.send(SearchMsg::Report(Report::Text(text)));
                "checkmate timeout".to_string()
            });
            let _ = tx.send(SearchMsg::Mate(answer));
        });
    }

    /// Starts `body` on the search thread with a fresh control block for `limits`.
    fn spawn(
        &mut self,
        limits: Limits,
        on_failure: &str,
        body: impl FnOnce(&Control, &Sender<SearchMsg>) + Send + 'static,
    ) {
        let control = Arc::new(Control::new(limits.clone(), self.options.move_overhead_ms));
        let tx = self.search_tx.clone();
        let thread_control = Arc::clone(&control);
        let thread = thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || body(&thread_control, &tx));
        match thread {
            Ok(handle) => {
                self.search = Some(Running {
                    control,
                    waits_for_client: limits.waits_for_client(),
                    held: None,
                    last_info: None,
                    thread: Some(handle),
                })
            }
            Err(e) => {
                self.error(&format!("cannot start the search thread: {e}"));
                self.line(on_failure);
            }
        }
    }

    fn ponderhit(&mut self, params: &GoParams) {
        let fresh = [
            params.btime,
            params.wtime,
            params.binc,
            params.winc,
            params.byoyomi,
            params.movetime,
        ]
        .iter()
        .any(Option::is_some)
        .then(|| self.limits(params));
        let Some(running) = &mut self.search else {
            return;
        };
        if !running.control.is_pondering() {
            return;
        }
        running.control.ponderhit(fresh);
        running.waits_for_client = running.control.limits().infinite;
        if !running.waits_for_client {
            if let Some(outcome) = running.held.take() {
                self.finish(outcome);
            }
        }
    }

    /// Asks a running search to stop; a held bestmove is sent at once.
    fn stop_search(&mut self) {
        let Some(running) = &mut self.search else {
            return;
        };
        running.control.stop();
        running.waits_for_client = false;
        if let Some(outcome) = running.held.take() {
            self.finish(outcome);
        }
    }

    /// Blocks until the running search has sent its bestmove.
    fn wait_for_search(&mut self) {
        while self.search.is_some() {
            match self.search_rx.recv() {
                Ok(msg) => {
                    self.on_search(msg);
                }
                Err(_) => break,
            }
        }
    }

    fn on_search(&mut self, msg: SearchMsg) -> Flow {
        match msg {
            SearchMsg::Report(Report::Info(info)) => {
                let line = info_line(&info);
                self.line(&line);
                if let Some(running) = &mut self.search {
                    running.last_info = Some(info);
                }
            }
            SearchMsg::Report(Report::Text(text)) => self.line(&format!("info string {text}")),
            SearchMsg::PerftDone(divide) => self.finish_perft(divide),
            SearchMsg::Done(outcome) => {
                let Some(running) = &mut self.search else {
                    return Flow::Continue;
                };
                if running.waits_for_client {
                    running.held = Some(outcome);
                } else {
                    self.finish(outcome);
                }
            }
            SearchMsg::Mate(answer) => {
                // A mate answer is never held: `go mate infinite` answers when it knows.
                if let Some(mut running) = self.search.take() {
                    if let Some(handle) = running.thread.take() {
                        let _ = handle.join();
                    }
                }
                self.line(&answer);
            }
        }
        self.drain_pending()
    }

    /// Runs what queued up during a search, until one of the commands starts another.
    fn drain_pending(&mut self) -> Flow {
        while self.search.is_none() {
            let Some((item, bytes)) = self.pending.pop_front() else {
                break;
            };
            self.pending_bytes -= bytes;
            match item {
                Err(e) => self.error(&e.to_string()),
                Ok(command) => {
                    if self.execute(command) == Flow::Quit {
                        return Flow::Quit;
                    }
                }
            }
        }
        Flow::Continue
    }

    /// Sends the final info line and the one `bestmove` of this search.
    fn finish(&mut self, outcome: Outcome) {
        let mut last_info = None;
        if let Some(mut running) = self.search.take() {
            if let Some(handle) = running.thread.take() {
                let _ = handle.join();
            }
            last_info = running.last_info;
        }
        if !same_report(last_info.as_ref(), &outcome.info) {
            let line = info_line(&outcome.info);
            self.line(&line);
        }
        let bestmove = match (&outcome.best, &outcome.ponder) {
            (None, _) => "bestmove resign".to_string(),
            (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
            (Some(best), None) => format!("bestmove {best}"),
        };
        self.line(&bestmove);
    }
}

/// Whether `last` already said what `info` says (the time, and so nps, aside).
fn same_report(last: Option<&Info>, info: &Info) -> bool {
    last.is_some_and(|last| {
        Info {
            time_ms: info.time_ms,
            ..last.clone()
        } == *info
    })
}

/// `cp X`, or for a score the search proved a forced win or loss, `mate N`: the plies to the
/// king capture, negative when the side to move is the one captured (as USI engines write it;
/// `mate -0` when it already has been).
pub fn score_text(score: i32) -> String {
    if score.abs() > WIN_BOUND {
        let plies = WIN - score.abs();
        format!("mate {}{plies}", if score < 0 { "-" } else { "" })
    } else {
        format!("cp {score}")
    }
}

/// `info depth D seldepth S [multipv K] score cp X|mate N nodes N nps P [hashfull H] time T [pv ...]`.
pub fn info_line(info: &Info) -> String {
    let nps = info.nodes.saturating_mul(1000) / info.time_ms.max(1);
    let mut line = format!(
        "info depth {} seldepth {}",
        info.depth,
        info.seldepth.max(info.depth)
    );
    if let Some(k) = info.multipv {
        line.push_str(&format!(" multipv {k}"));
    }
    line.push_str(&format!(
        " score {} nodes {} nps {}",
        score_text(info.score),
        info.nodes,
        nps
    ));
    if let Some(h) = info.hashfull {
        line.push_str(&format!(" hashfull {h}"));
    }
    line.push_str(&format!(" time {}", info.time_ms));
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}
