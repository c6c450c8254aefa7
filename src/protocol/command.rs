//! The commands a client may send, as typed values. Parsing lives in `parse.rs`.

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartSpec {
    Startpos,
    /// The position fields as given (variant-specific; validated by the game).
    Sfen(Vec<String>),
}

/// Limits and modes of a `go` search. Times are in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub btime: Option<u64>,
    pub wtime: Option<u64>,
    pub binc: Option<u64>,
    pub winc: Option<u64>,
    pub byoyomi: Option<u64>,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOutcome {
    Win,
    Lose,
    Draw,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Usi,
    IsReady,
    UsiNewGame,
    Quit,
    Stop,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        start: StartSpec,
        moves: Vec<String>,
    },
    Go(GoParams),
    Perft(u32),
    /// `go mate <ms>` (Some) or `go mate [infinite]` (None).
    Mate(Option<u64>),
    PonderHit(GoParams),
    GameOver(Option<GameOutcome>),
    Display,
    Moves,
    Bench,
    /// A word the protocol does not know: the selected game's own command (`count`, `benson`,
    /// ...), read by the game ([`super::args::Args`]). `args` is the rest of the line as sent,
    /// from the separator after the name.
    Extension {
        name: String,
        args: String,
    },
}

impl Command {
    /// Commands that act at once even while a search runs.
    pub fn is_immediate(&self) -> bool {
        matches!(
            self,
            Command::IsReady
                | Command::Stop
                | Command::PonderHit(_)
                | Command::GameOver(_)
                | Command::Quit
        )
    }

    /// Commands that start a search (or a search-like job: mate, perft).
    pub fn starts_search(&self) -> bool {
        matches!(self, Command::Go(_) | Command::Mate(_) | Command::Perft(_))
    }

    /// Immediate commands that speak of "the search": the one the client last started.
    pub fn is_about_the_search(&self) -> bool {
        matches!(
            self,
            Command::Stop | Command::PonderHit(_) | Command::GameOver(_)
        )
    }
}
