//! The controller: owns the current game, the options and the running search, and is the only
//! writer of stdout. A reader thread feeds it lines over a channel; the search thread feeds it
//! reports over another; it waits on both with `select!`.

pub mod go;
pub mod options;
pub mod othello;
pub mod quantum;
pub mod variant;

use crate::protocol::{parse_line, Command, GoParams};
use crate::search::{Control, Info, Limits, Outcome, Report};
use crossbeam_channel::{never, select, unbounded, Receiver, Sender};
use options::{Options, VariantName};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::thread;
use variant::Variant;

/// Longest line kept; the rest of a longer line is dropped (and the line is then rejected).
const MAX_LINE_BYTES: usize = 4 << 20;

pub const ENGINE_NAME: &str = concat!("ryoshi ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the ryoshi developers";

enum Input {
    Line(String),
    Eof,
}

enum SearchMsg {
    Report(Report),
    Done(Outcome),
    /// The `checkmate ...` line of a `go mate` search.
    Mate(String),
}

/// A fresh game of the given variant at its start position.
pub fn new_variant(name: VariantName) -> Box<dyn Variant> {
    match name {
        VariantName::QuantumShogi => Box::new(quantum::QuantumVariant::new()),
        VariantName::Othello => Box::new(othello::OthelloVariant::new()),
        VariantName::Go => Box::new(go::GoVariant::new()),
    }
}

/// Runs the protocol loop until `quit` or the end of the input.
pub fn run<R: BufRead + Send + 'static, W: Write>(input: R, output: W) {
    let (line_tx, line_rx) = unbounded();
    thread::spawn(move || read_lines(input, line_tx));
    let mut session = Session::new(output);
    let mut lines = Some(line_rx);
    let mut eof = false;
    loop {
        let line_source = lines.clone().unwrap_or_else(never);
        let search_source = session.search_rx.clone();
        select! {
            recv(line_source) -> msg => match msg {
                Ok(Input::Line(line)) => {
                    if session.on_line(&line) == Flow::Quit {
                        break;
                    }
                }
                Ok(Input::Eof) | Err(_) => {
                    lines = None;
                    eof = true;
                }
            },
            recv(search_source) -> msg => {
                if let Ok(msg) = msg {
                    if session.on_search(msg) == Flow::Quit {
                        break;
                    }
                }
            }
        }
        if eof {
            // No more input: let a timed search finish, stop one that never would, then exit.
            if let Some(running) = &session.search {
                if running.waits_for_client {
                    session.stop_search();
                }
            } else if session.pending.is_empty() {
                break;
            }
        }
    }
}

/// Reads lines as bytes (so invalid UTF-8 cannot stop the reader), bounded in length.
fn read_lines<R: BufRead>(mut input: R, tx: Sender<Input>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let mut saw_newline = false;
        loop {
            let chunk = match input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            if chunk.is_empty() {
                break;
            }
            let (take, found) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..take.min(room)]);
            input.consume(take);
            if found {
                saw_newline = true;
                break;
            }
        }
        if line.is_empty() && !saw_newline {
            let _ = tx.send(Input::Eof);
            return;
        }
        let text = String::from_utf8_lossy(&line).into_owned();
        if tx.send(Input::Line(text)).is_err() {
            return;
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Running {
    control: Arc<Control>,
    /// Infinite or still pondering: the bestmove waits for `stop` or `ponderhit`.
    waits_for_client: bool,
    /// The search ended while the bestmove had to wait.
    held: Option<Outcome>,
    thread: Option<thread::JoinHandle<()>>,
}

struct Session<W: Write> {
    out: W,
    options: Options,
    game: Box<dyn Variant>,
    search: Option<Running>,
    /// Commands that arrived during a search and need the engine idle.
    pending: VecDeque<Command>,
    search_tx: Sender<SearchMsg>,
    search_rx: Receiver<SearchMsg>,
}

impl<W: Write> Session<W> {
    fn new(out: W) -> Self {
        let options = Options::default();
        let (search_tx, search_rx) = unbounded();
        Session {
            out,
            game: new_variant(options.variant),
            options,
            search: None,
            pending: VecDeque::new(),
            search_tx,
            search_rx,
        }
    }

    fn line(&mut self, text: &str) {
        // A closed stdout leaves nothing to tell; the session keeps going until input ends.
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
    }

    fn error(&mut self, message: &str) {
        let one_line: String = message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.line(&format!("info string error: {one_line}"));
    }

    fn on_line(&mut self, line: &str) -> Flow {
        match parse_line(line) {
            Ok(Some(command)) => self.on_command(command),
            Ok(None) => Flow::Continue,
            Err(e) => {
                self.error(&e.to_string());
                Flow::Continue
            }
        }
    }

    fn on_command(&mut self, command: Command) -> Flow {
        if let Some(running) = &self.search {
            if !command.is_immediate() {
                // A search that never ends by itself is stopped; a timed one finishes first.
                if running.waits_for_client {
                    self.stop_search();
                }
                self.pending.push_back(command);
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
            Command::Perft(depth) => self.game.perft(depth, &self.options).map(|divide| {
                let total: u64 = divide.iter().map(|(_, n)| n).sum();
                for (action, count) in divide {
                    self.line(&format!("{action}: {count}"));
                }
                self.line(&format!("Nodes searched: {total}"));
            }),
            Command::Display => {
                for row in self.game.display() {
                    self.line(&row);
                }
                Ok(())
            }
            Command::Moves => {
                let moves = self.game.legal_moves(&self.options).join(" ");
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
            extension => self.extension(&extension),
        };
        if let Err(message) = result {
            self.error(&message);
        }
        Flow::Continue
    }

    fn extension(&mut self, command: &Command) -> Result<(), String> {
        let Session {
            out, game, options, ..
        } = self;
        game.extension(command, options, &mut |l: &str| {
            let _ = writeln!(out, "{l}");
            let _ = out.flush();
        })
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let before = self.options.variant;
        self.options.set(name, value).map_err(|e| e.to_string())?;
        if self.options.variant != before {
            self.game = new_variant(self.options.variant);
        }
        Ok(())
    }

    fn limits(&self, params: &GoParams) -> Limits {
        let first = self.game.first_player_to_move();
        Limits {
            time: if first { params.btime } else { params.wtime },
            inc: if first { params.binc } else { params.winc },
            byoyomi: params.byoyomi,
            movetime: params.movetime,
            depth: params.depth,
            nodes: params.nodes,
            infinite: params.infinite,
            ponder: params.ponder,
        }
    }

    fn start_search(&mut self, params: &GoParams) {
        let limits = self.limits(params);
        let job = self.game.search(&limits, &self.options);
        self.spawn(limits, "bestmove resign", move |control, tx| {
            let mut report = |r: Report| {
                let _ = tx.send(SearchMsg::Report(r));
            };
            let outcome = job(control, &mut report);
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
            let _ = tx.send(SearchMsg::Mate(job(control)));
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
            }
            SearchMsg::Report(Report::Text(text)) => self.line(&format!("info string {text}")),
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
            let Some(command) = self.pending.pop_front() else {
                break;
            };
            if self.execute(command) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    /// Sends the final info line and the one `bestmove` of this search.
    fn finish(&mut self, outcome: Outcome) {
        if let Some(mut running) = self.search.take() {
            if let Some(handle) = running.thread.take() {
                let _ = handle.join();
            }
        }
        let line = info_line(&outcome.info);
        self.line(&line);
        let bestmove = match (&outcome.best, &outcome.ponder) {
            (None, _) => "bestmove resign".to_string(),
            (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
            (Some(best), None) => format!("bestmove {best}"),
        };
        self.line(&bestmove);
    }
}

/// `info depth D seldepth S [multipv K] score cp X nodes N nps P [hashfull H] time T [pv ...]`.
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
        " score cp {} nodes {} nps {}",
        info.score, info.nodes, nps
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
