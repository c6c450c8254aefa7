//! GTP v2 for Go (`ryoshi gtp`): no banner; each command gets `=id result` or `?id error`
//! followed by an empty line. See protocol/gtp.md.
//!
//! This file holds the engine's state, the failures, and the dispatch of a command to its
//! family: board setup (`setup.rs`), play and genmove (`genmove.rs`), scoring and status
//! (`status.rs`), time (`clock.rs`) and analysis (`analyze.rs`); `run.rs` is the loop around
//! them. Each command is a method named after it in its family's file, so that `execute` reads
//! as the list of commands and what each expects.

pub mod analyze;
mod clock;
mod genmove;
mod record;
mod run;
mod setup;
mod status;

use crate::go::analysis::Analysis;
use crate::go::katago::rules::{KataRules, RulesError};
use crate::go::score::Judgement;
use crate::go::search::mcts::{Mcts, Snapshot};
use crate::go::{Board, Color, HandicapError, Illegal, Position, SizeError};
pub use analyze::Args;
use clock::{Clock, ClockError};
pub use run::{run, run_with, OutputError};

/// The komi until a `komi` command sets another: 7.5, as GNU Go, KataGo and most servers use
/// with area scoring.
pub const DEFAULT_KOMI: f64 = 7.5;

pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "loadsgf",
    "printsgf",
    "final_status_list",
    "final_score",
    "unconditional_status",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "time_settings",
    "kgs-time_settings",
    "time_left",
    "kgs-genmove_cleanup",
    "analyze",
    "lz-analyze",
    "kata-analyze",
    "genmove_analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "kata-get-rules",
    "kata-set-rules",
];

/// The GTP engine state: the game, the komi, the clock, and the last analysis and end-of-game
/// judgement (each kept with what it was made of).
pub struct Gtp {
    game: Position,
    komi: f64,
    clock: Clock,
    cache: Option<(Board, Option<usize>, Analysis)>,
    judged: Option<Judged>,
    /// Handicap stones placed by a handicap command: (moves in the record just after them,
    /// count). White gets a point per stone at the count, as under Chinese rules.
    handicap: Option<(usize, usize)>,
    args: Args,
    /// The search, allocated at the first command that needs it.
    engine: Option<Mcts>,
    /// The last search's position (with the side that moved first), its komi and its result.
    last: Option<(Position, f64, Snapshot)>,
    /// Black's win rate (a fraction) after each move of `game.moves()` the engine searched,
    /// for the record's `SBKV`.
    winrates: Vec<Option<f64>>,
}

/// An end-of-game judgement and what it was made of: the position and the komi (the play-on
/// searches behind it are won or lost by the komi).
struct Judged {
    board: Board,
    to_move: Color,
    ko: Option<usize>,
    komi: f64,
    judgement: Judgement,
}

impl Default for Gtp {
    fn default() -> Self {
        Self::new()
    }
}

/// What a command produced: the reply text, success or failure, and whether to stop.
pub struct Reply {
    pub ok: bool,
    pub text: String,
    pub quit: bool,
    /// An analysis to stream after the `=` (the text is then empty).
    pub stream: Option<analyze::Request>,
}

impl Reply {
    /// A refusal: `?` and `text`, and the session goes on.
    fn failure(text: String) -> Reply {
        Reply {
            ok: false,
            text,
            quit: false,
            stream: None,
        }
    }

    /// A command's outcome; only a success may end the session.
    fn of(result: Result<String, Failure>, quit: bool) -> Reply {
        match result {
            Ok(text) => Reply {
                ok: true,
                text,
                quit,
                stream: None,
            },
            Err(failure) => Reply::failure(failure.to_string()),
        }
    }
}

/// Why a command failed: its Display is the text after `? ` (GTP 2's standard messages where
/// the standard has one).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Failure {
    #[error("{command} expects {count} argument(s)")]
    Arguments { command: String, count: usize },
    #[error("unknown command")]
    UnknownCommand,
    #[error("invalid color")]
    InvalidColor,
    #[error("invalid coordinate")]
    InvalidCoordinate,
    #[error("illegal move")]
    IllegalMove,
    #[error("board not empty")]
    BoardNotEmpty,
    #[error("invalid number of stones")]
    InvalidStones,
    #[error("bad vertex list")]
    BadVertexList,
    #[error("cannot undo")]
    CannotUndo,
    #[error("invalid status")]
    InvalidStatus,
    /// `what` (boardsize, handicap, move number) is not an integer.
    #[error("{0} not an integer")]
    NotInteger(&'static str),
    #[error("unacceptable size")]
    UnacceptableSize,
    #[error("komi not a float")]
    KomiNotFloat,
    #[error("loadsgf expects a file name and an optional move number")]
    LoadsgfArguments,
    /// `loadsgf ... game N` with N not a whole number from 1.
    #[error("game number not a whole number from 1")]
    GameNumber,
    /// `printsgf <file>`: the file cannot be written.
    #[error("cannot write '{path}': {why}")]
    CannotWrite { path: String, why: String },
    /// `loadsgf`: the file cannot be read or is not a game.
    #[error("cannot open or parse '{path}': {why}")]
    CannotLoad { path: String, why: String },
    #[error(transparent)]
    Clock(#[from] ClockError),
    #[error(transparent)]
    Handicap(#[from] HandicapError),
    #[error(transparent)]
    Size(#[from] SizeError),
    /// The move chooser picked a move the rules refuse (a bug).
    #[error("internal error: chosen move illegal ({0})")]
    ChosenIllegal(Illegal),
    #[error(
        "expected [color] [interval] [interval <cs>] [ownership true|false] \
         [rootInfo true|false] [minmoves <n>] [maxmoves <n>] \
         [avoid|allow <color> <vertex,...> <plies>]"
    )]
    AnalyzeArguments,
    /// The search tree could not be allocated.
    #[error("{0}")]
    Memory(String),
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// `kata-set-rules` with rules ryoshi does not play.
    #[error("rules not supported: {0}")]
    OtherRules(String),
}

/// `kata-set-rules <name|json>`: accepted when the rules are ryoshi's own (KataGo's `chinese`,
/// `friendlyPassOk` either way), refused with how they differ otherwise.
fn set_rules(args: &[&str]) -> Result<String, Failure> {
    let text = args.join(" ");
    let rules = KataRules::parse(&serde_json::Value::String(text))?;
    let mut differences = rules.differences();
    if rules.white_handicap_bonus != KataRules::ours().white_handicap_bonus {
        differences.push(format!(
            "whiteHandicapBonus {} (ryoshi gives white N)",
            rules.white_handicap_bonus
        ));
    }
    if differences.is_empty() {
        Ok(String::new())
    } else {
        Err(Failure::OtherRules(differences.join(", ")))
    }
}

fn parse_color(text: &str) -> Result<Color, Failure> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(Failure::InvalidColor),
    }
}

impl Gtp {
    pub fn new() -> Gtp {
        Self::with_args(Args::default())
    }

    /// An engine with the command line's settings.
    pub fn with_args(args: Args) -> Gtp {
        Gtp {
            args,
            engine: None,
            last: None,
            winrates: Vec::new(),
            game: Position::empty(19).unwrap_or_else(|_| unreachable!("19 is a valid size")),
            komi: DEFAULT_KOMI,
            clock: Clock::default(),
            cache: None,
            judged: None,
            handicap: None,
        }
    }

    pub fn game(&self) -> &Position {
        &self.game
    }

    /// The handicap stones on the record.
    fn handicap_compensation(&self) -> usize {
        self.handicap.map_or(0, |(_, n)| n)
    }

    /// Runs one command line (already stripped of comments); `None` for a blank line.
    /// The id is echoed exactly as given (any number of digits).
    pub fn handle(&mut self, line: &str) -> Option<(Option<String>, Reply)> {
        let mut tokens = line.split_whitespace().peekable();
        let first = *tokens.peek()?;
        let id = if first.bytes().all(|b| b.is_ascii_digit()) {
            tokens.next();
            Some(first.to_string())
        } else {
            None
        };
        let Some(command) = tokens.next() else {
            return Some((id, Reply::failure("missing command".into())));
        };
        let args: Vec<&str> = tokens.collect();
        let mut quit = false;
        if let Some((format, genmove)) = analyze::command(command) {
            let reply = match analyze::parse(
                format,
                genmove,
                &args,
                self.game.to_move,
                self.game.board.size(),
            ) {
                Ok(request) => Reply {
                    ok: true,
                    text: String::new(),
                    quit: false,
                    stream: Some(request),
                },
                Err(failure) => Reply::failure(failure.to_string()),
            };
            return Some((id, reply));
        }
        let result = self.execute(command, &args, &mut quit);
        Some((id, Reply::of(result, quit)))
    }

    /// Sends a command to its family; the arity is checked here, before any argument.
    fn execute(
        &mut self,
        command: &str,
        args: &[&str],
        quit: &mut bool,
    ) -> Result<String, Failure> {
        let want = |n: usize| -> Result<(), Failure> {
            if args.len() == n {
                Ok(())
            } else {
                Err(Failure::Arguments {
                    command: command.into(),
                    count: n,
                })
            }
        };
        match command {
            "protocol_version" => want(0).map(|_| "2".into()),
            "name" => want(0).map(|_| "ryoshi".into()),
            "version" => want(0).map(|_| env!("CARGO_PKG_VERSION").into()),
            "known_command" => want(1).map(|_| COMMANDS.contains(&args[0]).to_string()),
            "list_commands" => want(0).map(|_| COMMANDS.join("\n")),
            "quit" => {
                *quit = true;
                Ok(String::new())
            }
            "boardsize" => want(1).and_then(|_| self.boardsize(args[0])),
            "clear_board" => want(0).and_then(|_| self.clear_board()),
            "komi" => want(1).and_then(|_| self.komi(args[0])),
            "undo" => want(0).and_then(|_| self.undo()),
            "showboard" => want(0).map(|_| self.showboard()),
            "loadsgf" => self.loadsgf(args),
            "printsgf" => self.printsgf(args),
            "fixed_handicap" => want(1).and_then(|_| self.fixed_handicap(args[0])),
            "place_free_handicap" => want(1).and_then(|_| self.place_free_handicap(args[0])),
            "set_free_handicap" => self.set_free_handicap(args),
            "play" => want(2).and_then(|_| self.play(args[0], args[1])),
            "genmove" => want(1).and_then(|_| self.genmove(args[0], false)),
            "kgs-genmove_cleanup" => want(1).and_then(|_| self.genmove(args[0], true)),
            "final_score" => want(0).and_then(|_| self.final_score()),
            "final_status_list" => want(1).and_then(|_| self.final_status_list(args[0])),
            "unconditional_status" => want(1).and_then(|_| self.unconditional_status(args[0])),
            "time_settings" => self.time_settings(args),
            "kgs-time_settings" => self.kgs_time_settings(args),
            "time_left" => want(3).and_then(|_| self.time_left(args)),
            "kata-get-rules" => want(0).map(|_| KataRules::ours().to_json()),
            "kata-set-rules" => set_rules(args),
            _ => Err(Failure::UnknownCommand),
        }
    }
}
