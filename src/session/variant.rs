//! What the session asks of each game, in two halves. [`Shared`] (positions, moves, legal
//! moves, side to move, the board) is written once here over the game's
//! [`crate::games::rules::Rules`], the code the match referee runs too, so the engine and the
//! referee read moves and positions the same way. [`Variant`] is the rest, per game: the search
//! job, perft, bench and the game-only commands. A game's adapter implements [`Adapter`] (where
//! it keeps the game, and what it words its own way) and [`Variant`]; it is [`Shared`] through
//! the impl below, which also answers the record commands every game has.

use super::options::{Options, Spec};
use super::record;
use crate::games::record::{GameRecord, RecordError, Recordable, Tags, TimeTerms};
use crate::games::rules::GameEnd;
use crate::games::rules::Rules;
use crate::games::view::{GameView, Played};
use crate::protocol::{Args, StartSpec};
use crate::search::{Job, Limits, MateJob};
use crate::stop::{Budget, Flag};
use std::borrow::Borrow;

/// Where an extension command writes its lines (flushed one by one, so long jobs stream).
pub type Out<'a> = &'a mut dyn FnMut(&str);

/// A perft count: per root action (in notation) the leaves below it, or `None` when `stop` was
/// raised before it finished.
pub type PerftJob = Box<dyn FnOnce(Flag) -> Option<Vec<(String, u64)>> + Send>;

/// Why a session command is refused: the text after `info string error: `.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The game refuses it, in its words (the adapter's error).
    #[error("{0}")]
    Game(Box<dyn std::error::Error + Send + Sync>),
    /// Another game's own command, which this game has no use for.
    #[error("{command} is not available in {game}")]
    NotAvailable {
        command: &'static str,
        game: &'static str,
    },
    /// A line that is no command.
    #[error(transparent)]
    Parse(#[from] crate::protocol::parse::ParseError),
    /// A `position` line that does not parse (the position is then refused, see `go`).
    #[error(transparent)]
    Position(crate::protocol::parse::ParseError),
    /// `setoption` refused.
    #[error(transparent)]
    Option(super::options::OptionError),
    /// The operating system would not start the `what` thread.
    #[error("cannot start the {what} thread: {error}")]
    Thread {
        what: &'static str,
        error: std::io::Error,
    },
}

crate::games::error_text!(derived: SessionError);

impl SessionError {
    pub fn game(e: impl std::error::Error + Send + Sync + 'static) -> SessionError {
        SessionError::Game(Box::new(e))
    }

    /// `command`, another game's, is not one `game` answers.
    pub fn not_available(command: &'static str, game: &'static str) -> SessionError {
        SessionError::NotAvailable { command, game }
    }
}

/// The half of a session's game that its rules answer, the same for every game.
pub trait Shared: Send {
    /// Replaces the position, all or nothing. On a bad move the error names it.
    fn set_position(
        &mut self,
        start: &StartSpec,
        moves: &[String],
        options: &Options,
    ) -> Result<(), SessionError>;

    /// `d`: the human-readable board; the last line is `sfen <position>`.
    fn display(&self) -> Vec<String>;

    /// The current game as the rules see it (as `options` set them now): side to move, legal
    /// moves and the ending, the same answers the match referee and the rooms get, never read
    /// off `display`'s text.
    fn view(&self, options: &Options) -> Box<dyn GameView>;

    /// `record`, `loadrecord` or `loadrecordtext` (`name`, one of [`record::COMMANDS`]):
    /// prints the game so far in its format, or loads a record with its whole history, all or
    /// nothing (protocol/usi.md, "Game records").
    fn record_command(
        &mut self,
        name: &str,
        args: Args,
        options: &Options,
        out: Out,
    ) -> Result<(), SessionError>;

    /// What `record` writes besides the moves, until the next position: the server's kept
    /// games carry their players, an end the rules do not see (a resignation, a fallen flag,
    /// a score the players agreed) and their clock.
    fn set_record_facts(&mut self, facts: RecordFacts);
}

/// A kept game's facts beyond its moves, for [`Shared::set_record_facts`].
#[derive(Clone, Debug, Default)]
pub struct RecordFacts {
    /// The names, the first player's first.
    pub players: [Option<String>; 2],
    /// How the game ended, with the first player's lead when a score decided it.
    pub end: Option<(GameEnd, Option<f64>)>,
    /// Over on the board, its result not known yet (its end agreement not reached): `?`, SGF's
    /// unknown result.
    pub unsettled: bool,
    pub time: Option<TimeTerms>,
}

/// The game as a session keeps it: the adapter's record of it, and what the record it was
/// loaded from said besides the moves (players, rules, ..., and each move's note), written back
/// by `record`; a `position` command clears them.
#[derive(Clone, Debug)]
pub struct Kept<R> {
    pub record: R,
    pub tags: Tags,
    /// The loaded moves' notes (`/eval/time`), one per move from the start.
    pub notes: Vec<String>,
}

impl<R> Kept<R> {
    /// A game set by a `position` command: no tags.
    pub fn new(record: R) -> Self {
        Kept {
            record,
            tags: Tags::default(),
            notes: Vec::new(),
        }
    }

    /// After `undo` left `plies` moves: the loaded result (and why it came) was the whole
    /// game's, and a note past the last move belongs to a move no longer played.
    pub fn undone(&mut self, plies: usize) {
        self.tags.result = None;
        self.tags.reason = None;
        self.notes.truncate(plies);
    }
}

/// How a game's session adapter holds its [`Rules`]: the record a `position` command builds,
/// and the few things the games word differently (the error naming a bad move, `d`'s lines,
/// the game written by `record`).
pub trait Adapter: Send {
    /// The game's rules, with its record format.
    type Rules: Recordable;
    /// The game's own commands (`count`, `benson`, ...), by name: the session sends
    /// these, and only these, to [`Variant::extension`].
    const COMMANDS: &'static [&'static str] = &[];
    /// The game's own options (`usi` declares them after the shared ones; the game reads them
    /// by name, as `options.halves(name)`).
    const OPTIONS: &'static [Spec] = &[];
    /// The shared options that change nothing in this game (`setoption` says so).
    const IGNORED_OPTIONS: &'static [&'static str] = &[];
    /// Older names of `loadrecordtext` among [`Adapter::COMMANDS`], which the game answers as
    /// it answers `loadrecordtext` (what GUIs of its field still send). A served session
    /// reads the record they carry as it reads `loadrecordtext`'s.
    const RECORD_TEXT_ALIASES: &'static [&'static str] = &[];

    /// Why a served session refuses one of the game's [`Adapter::COMMANDS`] (`name`, the rest
    /// of its line `args`) before the session sees it, or None when it may run. A served
    /// session never touches the file system and never starts work that cannot be stopped
    /// and would run for minutes; what a command may spend as it runs is its
    /// [`Budget`]'s.
    fn served_refusal(name: &str, args: &str) -> Option<String> {
        let _ = (name, args);
        None
    }
    /// The game so far as the session keeps it: the rules' state (the rules type itself for
    /// most games), with anything only the session needs beside it (what `undo` needs that
    /// the rules forget), made from a position by `from`.
    type Record: Send + Borrow<Self::Rules> + From<Self::Rules>;
    /// Why a position or a listed move is refused, as the game words it; the rules' errors
    /// convert into it.
    type Error: std::error::Error + Send + Sync + 'static + From<<Self::Rules as Rules>::Error>;

    /// Where the adapter keeps the current game.
    fn kept(&self) -> &Kept<Self::Record>;

    /// The same, to change it.
    fn kept_mut(&mut self) -> &mut Kept<Self::Record>;

    /// The current game's rules.
    fn rules(&self) -> &Self::Rules {
        self.kept().record.borrow()
    }

    /// Makes `record` the current game (the loaded record's tags go).
    fn set_record(&mut self, record: Self::Record) {
        *self.kept_mut() = Kept::new(record);
    }

    /// The record a `position` command starts from: the rules' start or position text
    /// ([`start`]) unless the game reads it otherwise.
    fn start(start: &StartSpec, options: &Options) -> Result<Self::Record, Self::Error> {
        let _ = options;
        Ok(self::start::<Self::Rules>(start)?.into())
    }

    /// Plays the `number`-th move (from 1) of a `position` command; the error is the message.
    fn play_listed(record: &mut Self::Record, number: usize, text: &str)
        -> Result<(), Self::Error>;

    /// The current rules as `options` set them now, when they differ (an option of the
    /// game's rules, read at each command).
    fn with_options(&self, options: &Options) -> Option<Self::Rules> {
        let _ = options;
        None
    }

    /// `d`'s board: the rules' diagram unless the game shows more.
    fn board(&self) -> Vec<String> {
        self.rules().diagram()
    }

    /// `d`'s lines between the board and `sfen <position>` (side to move, repetitions, ...).
    fn status(&self) -> Vec<String>;

    /// The game so far from its start, with the kept tags, as `record` writes it (`options`
    /// give what the tags leave out, as the rules' options).
    fn game_record(&self, options: &Options) -> GameRecord<Self::Rules>;

    /// `record`'s lines: [`Adapter::game_record`] in the game's format; no arguments unless
    /// the game takes some.
    fn write_record(&self, args: Args, options: &Options) -> Result<Vec<String>, SessionError> {
        args.none()?;
        let text = Self::Rules::write_record(&self.game_record(options));
        Ok(text.lines().map(String::from).collect())
    }

    /// The record a loaded game becomes: its moves replayed from its start, unless the
    /// session keeps more than the rules do.
    fn load_record(game: &GameRecord<Self::Rules>) -> Result<Self::Record, RecordError> {
        Ok(game.replay()?.into())
    }
}

/// The rules' start (`startpos`) or position text (`sfen ...`).
pub fn start<R: Rules>(start: &StartSpec) -> Result<R, R::Error> {
    match start {
        StartSpec::Startpos => Ok(R::start()),
        StartSpec::Sfen(fields) => R::from_text(&fields.join(" ")),
    }
}

impl<A: Adapter> Shared for A {
    fn set_position(
        &mut self,
        start: &StartSpec,
        moves: &[String],
        options: &Options,
    ) -> Result<(), SessionError> {
        let mut record = A::start(start, options).map_err(SessionError::game)?;
        for (i, text) in moves.iter().enumerate() {
            A::play_listed(&mut record, i + 1, text).map_err(SessionError::game)?;
        }
        self.set_record(record);
        Ok(())
    }

    fn display(&self) -> Vec<String> {
        let mut lines = self.board();
        lines.extend(self.status());
        lines.push(format!("sfen {}", self.rules().to_text()));
        lines
    }

    fn view(&self, options: &Options) -> Box<dyn GameView> {
        let rules = self
            .with_options(options)
            .unwrap_or_else(|| self.rules().clone());
        Box::new(Played::from_rules(rules))
    }

    fn record_command(
        &mut self,
        name: &str,
        args: Args,
        options: &Options,
        out: Out,
    ) -> Result<(), SessionError> {
        if name == "record" {
            for line in self.write_record(args, options)? {
                out(&line);
            }
            return Ok(());
        }
        let game = record::read::<A::Rules>(name, args)?;
        let record = A::load_record(&game)?;
        *self.kept_mut() = Kept {
            record,
            tags: game.tags,
            notes: game.notes,
        };
        Ok(())
    }

    fn set_record_facts(&mut self, facts: RecordFacts) {
        let tags = &mut self.kept_mut().tags;
        tags.players = facts.players;
        if let Some((end, score)) = facts.end {
            tags.result = Some(A::Rules::result_tag(end, score));
            tags.reason = Some(end.reason.to_string());
        } else if facts.unsettled {
            tags.result = Some("?".into());
        }
        if let Some(terms) = &facts.time {
            A::Rules::time_tags(tags, terms);
        }
    }
}

/// The half of a session's game that is the game's own: the search and the game-only commands.
pub trait Variant: Shared {
    /// `usinewgame`: forget per-game state (history, tables); the position stays.
    fn new_game(&mut self) {}

    /// The start of a game a person opens on the pages without choosing one: `startpos`
    /// unless the game's usual start is too long for a casual game (a smaller board).
    fn casual_start(&self) -> StartSpec {
        StartSpec::Startpos
    }

    /// The squares a player to move should be warned of, where taking a piece would end the
    /// game (where the opponent could capture the side to move's king). The rooms send them to
    /// the page; empty for games without such a warning.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// `go perft N`: checks the request (depth, memory; notes go to `out` as whole lines) and
    /// returns the count, run off the session thread so that it can be stopped.
    fn perft(&self, depth: u32, options: &Options, out: Out) -> Result<PerftJob, SessionError>;

    /// Allocates what `options` ask for ahead of a search (the hash table), so that a failure
    /// is reported here and no search pays for it. A note when the table is smaller than asked.
    fn prepare(&mut self, options: &Options) -> Option<String> {
        let _ = options;
        None
    }

    /// `go`: a search over a copy of the current position.
    fn search(&self, limits: &Limits, options: &Options) -> Job;

    /// `go mate`: a search for a forced win by the side to move, or None when the variant has
    /// none (the session answers `checkmate notimplemented`).
    fn mate(&self, options: &Options) -> Option<MateJob> {
        let _ = options;
        None
    }

    /// `bench`: a fixed deterministic search; the last line must be `Nodes searched: <n>`.
    fn bench(&mut self, options: &Options, out: Out) -> Result<(), SessionError>;

    /// The moves the side to move is expected to have left, when the game can tell: the main
    /// time of `go btime/wtime` is shared over them. `None`: the time manager's own share.
    fn moves_to_go(&self) -> Option<u64> {
        None
    }

    /// Runs one of the adapter's [`Adapter::COMMANDS`], reading its arguments from `args`. Such a command
    /// runs on the session's thread, so `budget` is what may stop it (a served session's).
    fn extension(
        &mut self,
        name: &str,
        args: Args,
        options: &Options,
        budget: &Budget,
        out: Out,
    ) -> Result<(), SessionError> {
        let _ = (args, options, budget, out);
        Err(SessionError::Parse(crate::protocol::args::unknown_command(
            name,
        )))
    }
}
