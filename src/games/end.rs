//! The end-of-game agreement a game may provide (the rules' `end_agreement`): once its moves
//! stop play, the server proposes how the game stands (from the game's own judgement), either
//! player changes the proposal, and when both accept the same one the game ends with the
//! verdict the game draws from it; `resume` goes back to play. The server keeps the phase, the acceptances and the resume; what a
//! proposal and a verdict say is the game's text, which the server stores and never reads.

/// What the room says of the agreement, in the game's words (in its errors and its state).
#[derive(Debug, Clone, Copy)]
pub struct EndTexts {
    /// The phase's name: the state's `phase` while agreeing, and the state's field holding it.
    pub phase: &'static str,
    /// What stops play, said after the phase's name when a message comes outside it.
    pub begins: &'static str,
    /// How a player changes the proposal (the message), said when a move comes in the phase.
    pub change: &'static str,
    /// What a spectator cannot do besides accepting and resuming.
    pub act: &'static str,
    /// The proposal, as the subject of `... are being judged` and `... changed meanwhile`.
    pub proposal: &'static str,
}

/// A player's change to the proposal, as the game made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The proposal after it.
    pub proposal: String,
    /// What the room is told, after the player's name (`marks D4 dead`).
    pub note: String,
    /// A question to that player, shown in the agreement's state (its fields added) until
    /// the next action; not stored.
    pub aside: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The agreement's part of the room's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The game's fields of the agreement's state (the server adds `accepted` and `version`).
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// The state's `score`: the lines the game's judgement command prints for the proposal.
    pub lines: Option<Vec<String>>,
}

/// The rules of a game's end agreement. Positions are the text of the game's view
/// (`position()`); a proposal and a verdict are the game's own texts (the server's `None`: not
/// judged yet, not agreed yet).
pub trait EndAgreement: Sync {
    /// What the room says of it.
    fn texts(&self) -> &'static EndTexts;
    /// The first words of the room messages that change the proposal.
    fn verbs(&self) -> &'static [&'static str];
    /// Whether these moves (those since play last resumed) stop play for the agreement.
    fn play_stopped(&self, moves: &[String]) -> bool;
    /// The game's command (a session extension) whose lines judge how the game stands.
    fn judge_command(&self) -> &'static str;
    /// The server's proposal, from the lines of the judgement command.
    fn proposal(&self, judgement: &[String]) -> String;
    /// A player's message `words` (its first word one of [`EndAgreement::verbs`]) applied to
    /// `proposal`, or why not (the game's text).
    fn change(&self, position: &str, proposal: &str, words: &[&str]) -> Result<Change, Refusal>;
    /// The verdict of `proposal` once both accepted it (a line of the game's).
    fn verdict(&self, position: &str, proposal: &str) -> Option<String>;
    /// The result and the reason a verdict ends the game with (`white wins`, `area score`).
    fn ending(&self, verdict: &str) -> (String, String);
    /// The first player's lead a verdict gives, for the game's record.
    fn lead(&self, verdict: &str) -> Option<f64>;
    /// What the state shows of `proposal` (`None`: being judged) and of the agreed `verdict`.
    fn shown(&self, position: &str, proposal: Option<&str>, verdict: Option<&str>) -> Shown;
}

/// Why a game refused a player's change to the proposal, in the game's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);
