//! What every game's rules offer, in protocol notation: the one trait the match referee and the
//! engine's session (`session::variant::Shared`) both wrap, implemented once per game. The list
//! of games is `registry`.

use std::fmt;

/// A player by the order of play: `First` moves first (`black` in most games).
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

    /// The verdict `as_str` names; None for any other text.
    pub fn parse(text: &str) -> Option<Verdict> {
        [
            Verdict::Win(Side::First),
            Verdict::Win(Side::Second),
            Verdict::Draw,
        ]
        .into_iter()
        .find(|v| v.as_str() == text)
    }

    /// `1-0`, `0-1` or `1/2-1/2`, first player's score first.
    pub fn score(self) -> &'static str {
        match self {
            Verdict::Win(Side::First) => "1-0",
            Verdict::Win(Side::Second) => "0-1",
            Verdict::Draw => "1/2-1/2",
        }
    }

    /// The first player wins on `ordering == Greater` (more points, more area, ...).
    pub fn from_ordering(ordering: std::cmp::Ordering) -> Verdict {
        match ordering {
            std::cmp::Ordering::Greater => Verdict::Win(Side::First),
            std::cmp::Ordering::Less => Verdict::Win(Side::Second),
            std::cmp::Ordering::Equal => Verdict::Draw,
        }
    }
}

/// Why a game ended. The rules name their own endings ([`Reason::Rule`]: each game words them,
/// so a new game adds none here); the rest are the referee's, as lichess's game status carries
/// resignations and flags beside mates. [`Reason::as_str`] is the word the results file, the
/// record and the pages show (`protocol/match.md`, "How games end").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// An ending by the game's rules, in its words: `king capture`, `area score`, ...
    Rule(&'static str),
    /// The move list reached the match's `max_plies`.
    MaxPlies,
    /// The opening of the schedule could not be played.
    BadOpening,
    /// An engine's move does not parse or is not legal.
    IllegalMove,
    /// An engine resigned.
    Resign,
    /// An engine's flag fell.
    TimeForfeit,
    /// An engine did not answer in time off the clock.
    Timeout,
    /// A GTP engine refused a move the referee accepted.
    RefusedMove,
    /// An engine refused a set-up command.
    RefusedCommand,
    /// An engine could not start, or exited.
    Crash,
    /// Neither engine could get ready.
    BothEnginesFailed,
    /// The runner adjudicated the game by the engines' scores (resign or draw adjudication).
    Adjudication,
    /// The runner stopped.
    Stopped,
    /// Both players agreed to a draw (a room's draw offer accepted).
    Agreement,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Rule(words) => words,
            Reason::MaxPlies => "max plies",
            Reason::BadOpening => "bad opening",
            Reason::IllegalMove => "illegal move",
            Reason::Resign => "resign",
            Reason::TimeForfeit => "time forfeit",
            Reason::Timeout => "timeout",
            Reason::RefusedMove => "refused move",
            Reason::RefusedCommand => "refused command",
            Reason::Crash => "crash",
            Reason::BothEnginesFailed => "both engines failed",
            Reason::Adjudication => "adjudication",
            Reason::Stopped => "stopped",
            Reason::Agreement => "agreement",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a game ended: who won and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameEnd {
    pub verdict: Verdict,
    pub reason: Reason,
}

impl GameEnd {
    /// An ending by the game's own rules.
    pub fn by_rule(verdict: Verdict, words: &'static str) -> GameEnd {
        GameEnd {
            verdict,
            reason: Reason::Rule(words),
        }
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.verdict.as_str(), self.reason)
    }
}

/// The board sizes a match may choose (`board_size`), both ends included, and the standard one
/// (the board of `startpos`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardSizes {
    pub min: usize,
    pub max: usize,
    pub standard: usize,
}

/// A number of a game's own that a match may set (a key of `[match]`), declared by the game in
/// its [`MatchSettings::options`]: the runner checks it, records it, tells the engines and hands
/// it to the rules' [`Rules::final_score`] and the record's tags without knowing what it means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchOption {
    /// The `[match]` key, also the key of the results' `conditions`.
    pub key: &'static str,
    /// The value of a match that sets none.
    pub default: f64,
    /// The USI option a USI engine is set it by before its first game (if it declares it).
    pub usi_option: Option<&'static str>,
    /// The GTP command that tells a GTP engine it before each game (`<command> <value>`).
    pub gtp_command: Option<&'static str>,
}

/// The values a match plays a game's [`MatchOption`]s under (the match's or the defaults).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OptionValues(Vec<(MatchOption, f64)>);

impl OptionValues {
    /// `options` with their values: `set`'s, or their defaults.
    pub fn new(options: &[MatchOption], set: impl Fn(&str) -> Option<f64>) -> OptionValues {
        let values = options
            .iter()
            .map(|o| (*o, set(o.key).unwrap_or(o.default)));
        OptionValues(values.collect())
    }

    /// The value of option `key`; `None` when the game declares no such option.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.0.iter().find(|(o, _)| o.key == key).map(|&(_, v)| v)
    }

    /// Each option with its value, in the game's order.
    pub fn iter(&self) -> impl Iterator<Item = (&MatchOption, f64)> {
        self.0.iter().map(|(o, v)| (o, *v))
    }
}

/// What a match's configuration may set of a game, and whether GTP carries it: the match
/// runner's questions to a game, answered by its rules ([`Rules::MATCH`]), so the runner names
/// none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchSettings {
    /// The sizes `board_size` may choose; `None`: one board, and a match refuses `board_size`.
    pub board_sizes: Option<BoardSizes>,
    /// The game's own numbers a match may set; a match refuses the keys of other games'.
    pub options: &'static [MatchOption],
    /// Whether GTP engines play it (GTP has commands for the games it carries only).
    pub gtp: bool,
}

impl MatchSettings {
    /// A game of one board, with no numbers of its own, that GTP does not carry.
    pub const NONE: MatchSettings = MatchSettings {
        board_sizes: None,
        options: &[],
        gtp: false,
    };
}

/// One game in progress (position plus whatever history the rules need), in protocol notation.
pub trait Rules: Clone + Send + 'static {
    /// The `USI_Variant` name.
    const NAME: &'static str;
    /// What people call the game, for titles and links (`Quantum shogi`); the `NAME` unless
    /// the game says otherwise.
    const TITLE: &'static str = Self::NAME;
    /// What the first and the second player are called (`black`, ...).
    const PLAYERS: [&'static str; 2];
    type Move: Copy;
    /// What a match may set of the game (board size, its own numbers) and whether GTP carries
    /// it.
    const MATCH: MatchSettings = MatchSettings::NONE;
    /// Whether two players may end a game as a draw by agreement (a room's draw offer): only
    /// where a draw is a result the game has.
    const DRAW_BY_AGREEMENT: bool = true;
    /// Why a position text, a move text or a move is refused (the message is the protocol's).
    type Error: std::error::Error + Send + Sync + 'static;

    /// The standard start (`position startpos`).
    fn start() -> Self;
    /// A position in the game's notation (the text after `position sfen`).
    fn from_text(text: &str) -> Result<Self, Self::Error>;
    /// The current position in the game's notation.
    fn to_text(&self) -> String;
    /// Reads one move and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, Self::Error>;
    /// A move as the engines should be sent it (canonical notation), in the current position.
    fn move_text(&self, mv: Self::Move) -> String;
    /// The legal moves, in a fixed order (random openings pick from it by index).
    fn legal_moves(&self) -> Vec<Self::Move>;
    /// Plays a legal move (one from `parse_move` or `legal_moves`).
    fn play(&mut self, mv: Self::Move) -> Result<(), Self::Error>;
    /// Whether the game has ended by the rules, and how.
    fn outcome(&self) -> Option<GameEnd>;
    /// Who is to move now (after any automatic pass).
    fn side_to_move(&self) -> Side;
    /// A board diagram for a game record; empty when the game has none.
    fn diagram(&self) -> Vec<String> {
        Vec::new()
    }

    /// The standard start on a board of `size` (a match's `board_size`); `None` when the game
    /// has no such board. Games of one size ignore it.
    fn start_sized(size: usize) -> Option<Self> {
        let _ = size;
        Some(Self::start())
    }

    /// The referee's score of an ended game: the first player's lead (an area, a count of
    /// pieces), under the match's values of the game's own [`MatchOption`]s; `None` for a game
    /// that is not decided by a score. A match's referee takes the verdict of a scored end from
    /// it.
    fn final_score(&self, options: &OptionValues) -> Option<f64> {
        let _ = options;
        None
    }

    /// The game's record format (its [`Recordable`](super::record::Recordable) impl, as
    /// `Some(RecordFormat::of())`), which the match runner writes its games and reads openings
    /// in; `None` for a game without one.
    fn record_format() -> Option<super::record::RecordFormat<Self>> {
        None
    }

    /// The game's end-of-game agreement, which rooms run once its moves stop play; `None`
    /// for a game that ends by its rules alone.
    fn end_agreement() -> Option<&'static dyn super::end::EndAgreement> {
        None
    }

    /// The GTP moves (`play <colour> <move>`, in order, from an empty board after
    /// `clear_board`) that set up this position for a GTP engine; `None` when GTP cannot set it
    /// up (a GTP engine then starts from the standard start only).
    fn gtp_setup(&self) -> Option<Vec<(Side, String)>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_reads_back_from_its_text_and_nothing_else_does() {
        for v in [
            Verdict::Win(Side::First),
            Verdict::Win(Side::Second),
            Verdict::Draw,
        ] {
            assert_eq!(Verdict::parse(v.as_str()), Some(v));
        }
        for text in ["", "win", "First", "draw "] {
            assert_eq!(Verdict::parse(text), None, "{text:?}");
        }
    }
}
