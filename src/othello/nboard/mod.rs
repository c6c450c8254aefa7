//! The NBoard protocol for Othello GUIs (`ryoshi nboard`, or a first input line `nboard N`):
//! a thin translator onto `othello` and `othello::search`. See protocol/nboard.md.
//!
//! It runs on [`driver::drive`], as the USI session does: a reader thread feeds lines, the
//! search worker its output, and the loop is the only writer of stdout. While a search runs, `ping` stops it (its `pong` follows the search's last line),
//! `quit` ends the session at once, and every other command waits its turn.

pub(crate) mod task;

use crate::othello::ggf::{self, GgfError, MoveItem, Played, Record};
use crate::othello::Position;
use crate::protocol::driver::{self, Flow, Input};
use crate::protocol::lines;
use crate::search::{Control, Limits};
use crate::text::{printable, sanitize_message};
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
    Finished,
}

/// Runs the NBoard loop until `quit`, the end of the input (after which queued commands and
/// a running search finish first), or a failed write to `output`.
pub fn run<R: BufRead + Send + 'static, W: Write>(input: R, output: W) {
    // Input is bounded twice: the channel, and the commands queued behind a search; when the
    // queue is full the reader waits until the search ends.
    let lines = driver::spawn_reader(input, 64);
    // The worker's output waits for room: it is the protocol's answer and is never dropped,
    // and a client that stops reading holds the worker, not our memory.
    let (work_tx, work_rx) = bounded(WORKER_LINES);
    driver::drive(&mut Front::new(output, work_tx), lines, work_rx);
}

impl<W: Write> driver::Front for Front<W> {
    type Event = Event;

    fn reading(&self) -> bool {
        self.queue.len() < MAX_QUEUED
    }

    fn on_input(&mut self, input: Input) -> Flow {
        match input {
            Input::Eof => Flow::Continue,
            input => self.on_line(input),
        }
    }

    fn on_event(&mut self, event: Event) -> Flow {
        match event {
            Event::Out(line) => {
                self.line(&line);
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
    fn new(out: W, tx: Sender<Event>) -> Self {
        Front {
            out,
            game: Some(Record::from_start(Position::START)),
            depth: Depth(DEFAULT_DEPTH),
            busy: None,
            queue: VecDeque::new(),
            tx,
            gone: false,
        }
    }

    fn line(&mut self, text: &str) {
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
            Input::TooLong => {
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
            // NBoard 1.1 sends a bare move (`F5`) instead of `move F5`.
            _ if rest.is_empty() && ggf::parse_move_item(command).is_ok() => self.play(command),
            _ => Err(Failure::UnknownCommand(command.into())),
        };
        if let Err(e) = result {
            self.error(&e.to_string());
        }
        Flow::Continue
    }

    fn nboard(&mut self, rest: &str) -> Result<(), Failure> {
        match rest.parse::<u32>() {
            Ok(v) if v >= 1 => {
                self.line(&format!("set myname {NAME}"));
                Ok(())
            }
            _ => Err(Failure::Version(rest.into())),
        }
    }

    fn set(&mut self, rest: &str) -> Result<(), Failure> {
        let (what, value) = match rest.split_once(char::is_whitespace) {
            Some((w, v)) => (w, v.trim()),
            None => (rest, ""),
        };
        match what {
            "game" => match ggf::parse(value) {
                Ok(game) => {
                    self.game = Some(game);
                    Ok(())
                }
                Err(e) => {
                    self.game = None;
                    Err(Failure::Game(e))
                }
            },
            "depth" => match value.parse::<u32>() {
                Ok(d) if (1..=MAX_DEPTH).contains(&d) => {
                    self.depth = Depth(d);
                    self.line(&format!("set myname {NAME}-{d}"));
                    Ok(())
                }
                _ => Err(Failure::Depth(value.into())),
            },
            // Checked, then accepted without effect: the search has no contempt (a proven draw
            // scores 0 for both sides).
            "contempt" => match value.parse::<i32>() {
                Ok(c) if c.abs() <= 6400 => Ok(()),
                _ => Err(Failure::Contempt(value.into())),
            },
            other => Err(Failure::Setting(other.into())),
        }
    }

    /// The game, unless the last `set game` was refused.
    fn game(&self, command: &'static str) -> Result<&Record, Failure> {
        self.game.as_ref().ok_or(Failure::NoGame(command))
    }

    fn play(&mut self, text: &str) -> Result<(), Failure> {
        let item = ggf::parse_move_item(text).map_err(Failure::MoveText)?;
        let position = self.game("move")?.position;
        let played =
            ggf::play(&position, item.square).map_err(|e| Failure::Move(item.to_text(), e))?;
        let Some(game) = self.game.as_mut() else {
            return Err(Failure::NoGame("move"));
        };
        let black = position.black_to_move;
        match played {
            Played::Moved(next) => {
                game.moves.push((black, item));
                game.position = next;
            }
            Played::PassedThenMoved(next) => {
                let pass = MoveItem {
                    square: None,
                    eval: None,
                    time: None,
                };
                game.moves.push((black, pass));
                game.moves.push((!black, item));
                game.position = next;
            }
        }
        Ok(())
    }

    fn ping(&mut self, rest: &str) -> Result<(), Failure> {
        let n: i64 = rest.parse().map_err(|_| Failure::Ping(rest.into()))?;
        self.line(&format!("pong {n}"));
        Ok(())
    }

    /// Refuses a search when the game is over; false when the side to move must pass.
    fn searchable(&self, command: &'static str) -> Result<bool, Failure> {
        let board = self.game(command)?.position.board;
        if board.is_game_over() {
            return Err(Failure::GameOver(command));
        }
        Ok(board.moves() != 0)
    }

    fn go(&mut self, rest: &str) -> Result<(), Failure> {
        if !rest.is_empty() {
            return Err(Failure::GoArguments);
        }
        if !self.searchable("go")? {
            self.line("=== PA");
            return Ok(());
        }
        let game = self.game("go")?;
        let board = game.position.board;
        let movetime = game
            .remaining_ms(game.position.black_to_move)
            .map(|left| task::move_budget_ms(left, board.empties().count_ones()));
        let depth = self.depth;
        self.start(movetime, move |control, out| {
            task::go(&board, depth, control, out)
        });
        Ok(())
    }

    fn hint(&mut self, rest: &str) -> Result<(), Failure> {
        let n = if rest.is_empty() {
            1
        } else {
            match rest.parse::<u32>() {
                Ok(n) if n >= 1 => n as usize,
                _ => return Err(Failure::Hint(rest.into())),
            }
        };
        self.searchable("hint")?;
        let (board, depth) = (self.game("hint")?.position.board, self.depth);
        self.start(None, move |control, out| {
            task::hint(&board, n, depth, control, out)
        });
        Ok(())
    }

    /// `analyze`: every position of the game evaluated, from the last to the first.
    fn analyze(&mut self, rest: &str) -> Result<(), Failure> {
        if !rest.is_empty() {
            return Err(Failure::Arguments("analyze"));
        }
        let positions = task::game_positions(self.game("analyze")?);
        let depth = self.depth;
        self.start(None, move |control, out| {
            task::analyze(&positions, depth, control, out)
        });
        Ok(())
    }

    /// Runs a search on the worker thread between `status ryoshi is thinking` and
    /// `status ryoshi is waiting`.
    fn start<F>(&mut self, movetime: Option<u64>, job: F)
    where
        F: FnOnce(&Control, &mut dyn FnMut(String)) + Send + 'static,
    {
        let limits = Limits {
            depth: Some(self.depth.0),
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
        thread::spawn(move || {
            let mut out = |line: String| {
                let _ = tx.send(Event::Out(line));
            };
            job(&control, &mut out);
            out(format!("status {NAME} is waiting"));
            let _ = tx.send(Event::Finished);
        });
    }
}

/// Why a command is refused: its Display is the text of the `status error: ...` line. Texts
/// from the input are written printable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("unknown command '{}'", printable(.0))]
    UnknownCommand(String),
    #[error("nboard expects a protocol version of 1 or more, not '{}'", printable(.0))]
    Version(String),
    /// `set game`: the GGF text is refused.
    #[error("set game: {0}")]
    Game(GgfError),
    #[error("set depth expects 1 to {MAX_DEPTH}, not '{}'", printable(.0))]
    Depth(String),
    #[error(
        "set contempt expects centi-discs from -6400 to 6400, not '{}'",
        printable(.0)
    )]
    Contempt(String),
    #[error("set {} is not supported (game, depth, contempt)", printable(.0))]
    Setting(String),
    /// `move`: the move text is refused.
    #[error("move: {0}")]
    MoveText(GgfError),
    /// `move`: the move (as GGF writes it) is refused.
    #[error("move {0}: {1}")]
    Move(String, GgfError),
    #[error("ping expects an integer, not '{}'", printable(.0))]
    Ping(String),
    /// `go` or `hint` after the end of the game.
    #[error("{0}: the game is over")]
    GameOver(&'static str),
    /// `go`, `hint` or `move` after a refused `set game`.
    #[error("{0}: no game, the last set game was refused (send a set game that is accepted)")]
    NoGame(&'static str),
    #[error("go takes no arguments")]
    GoArguments,
    /// A command that takes no arguments got some.
    #[error("{0} takes no arguments")]
    Arguments(&'static str),
    #[error("hint expects a number of moves of 1 or more, not '{}'", printable(.0))]
    Hint(String),
}
