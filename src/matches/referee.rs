//! The referee: what the runner asks of a game's rules. One implementation per variant, over the
//! game's public API; the runner itself knows nothing about any game.

use std::fmt;

/// A player by the order of play: `First` moves first (sente in shogi, black in Othello).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Side::First => "first",
            Side::Second => "second",
        }
    }
}

/// The result of a game from the order of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Win(Side),
    Draw,
}

impl Verdict {
    /// `first`, `second` or `draw` (the `result` field of the results file).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Win(side) => side.as_str(),
            Verdict::Draw => "draw",
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`, first player's score first.
    pub fn score(self) -> &'static str {
        match self {
            Verdict::Win(Side::First) => "1-0",
            Verdict::Win(Side::Second) => "0-1",
            Verdict::Draw => "1/2-1/2",
        }
    }
}

/// How a game ended by the rules: who won and why (`king capture`, `no legal action`,
/// `repetition`, `disc count`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEnd {
    pub verdict: Verdict,
    pub reason: String,
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.verdict.as_str(), self.reason)
    }
}

/// The rules of one game in progress, in protocol notation.
pub trait Referee: Send {
    /// Starts a new game: `None` is the variant's standard start (`startpos`), `Some(text)` the
    /// position text that follows `sfen` in a `position` command.
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), String>;

    /// Parses and checks one move in protocol notation and plays it; returns the move as the
    /// engines should be sent it (canonical notation). On error the position is unchanged.
    fn play(&mut self, mv: &str) -> Result<String, String>;

    /// Who is to move now (after any automatic pass).
    fn side_to_move(&self) -> Side;

    /// The legal moves in protocol notation (used to pick random openings).
    fn legal_moves(&self) -> Vec<String>;

    /// Whether the game has ended by the rules in the current position, and how.
    fn game_end(&self) -> Option<GameEnd>;

    /// The current position in the variant's notation (the text after `sfen`).
    fn position(&self) -> String;

    /// A board diagram for the game record; empty when the game has none.
    fn diagram(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Makes a fresh referee for each game (games run on several threads).
pub type RefereeFactory = dyn Fn() -> Box<dyn Referee> + Send + Sync;
