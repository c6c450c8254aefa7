//! What the client allows a search: clocks, fixed limits and modes (all times in milliseconds).

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Remaining time and increment of the side to move.
    pub time: Option<u64>,
    pub inc: Option<u64>,
    pub byoyomi: Option<u64>,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// The moves the main time left must last: GTP's Canadian byo-yomi count, or the game's
    /// estimate of the moves it has left; `None`: [`crate::search::time`]'s
    /// default share.
    pub moves_to_go: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
}

/// The search time when the client gives no limit at all.
pub const DEFAULT_MOVETIME_MS: u64 = 450;

impl Limits {
    /// A search that never ends by itself (it waits for `stop` or `ponderhit`).
    pub fn waits_for_client(&self) -> bool {
        self.infinite || self.ponder
    }
}
