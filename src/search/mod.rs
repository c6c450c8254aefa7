//! Game-independent search machinery: limits, the shared control block (stop flag, clock,
//! ponder state), the time manager, and the typed reports a search sends. Never prints.

pub(crate) mod alphabeta;
pub(crate) mod control;
pub(crate) mod game;
pub mod helpers;
pub(crate) mod limits;
pub(crate) mod time;
pub mod tt;

pub use alphabeta::Searcher;
pub use control::Control;
pub use game::SearchGame;
pub use limits::Limits;

/// One progress report of a search, in protocol-neutral form (moves already in notation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    /// Centipawns (or the game's own unit) from the side to move's point of view.
    pub score: i32,
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
    pub multipv: Option<u32>,
    pub hashfull: Option<u32>,
}

/// What a running search tells the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    Info(Info),
    /// Free text, sent as `info string ...`.
    Text(String),
}

/// The end of a search: the final numeric info line and the move (None = resign).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub info: Info,
    pub best: Option<String>,
    pub ponder: Option<String>,
}

/// A search ready to run on the search thread.
pub type Job = Box<dyn FnOnce(&Control, &mut dyn FnMut(Report)) -> Outcome + Send>;

/// A `go mate` search ready to run on the search thread; it returns its `checkmate ...` line.
pub type MateJob = Box<dyn FnOnce(&Control) -> String + Send>;
