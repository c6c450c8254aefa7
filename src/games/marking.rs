//! Games whose end is scored after the players mark the dead stones (Go, as KGS and OGS score
//! it): what a room's scoring phase needs from the rules, on the game's own position text (as
//! its view writes it) and point names.

/// Why a block cannot be marked.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum MarkingError {
    /// The game keeps no dead stones.
    #[error("this game has no dead stones to mark")]
    NoMarking,
    /// The position text does not read as the game's.
    #[error("the position does not read")]
    Position,
    /// No stone at the point (as sent).
    #[error("no stone at '{}'", crate::text::printable(.0))]
    NoStone(String),
}

/// Which stones a click on one marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Its chain: its colour's stones joined to it (Go's block), as OGS marks a click.
    Chain,
    /// Its group: its colour's stones reachable through that colour and the empty points that
    /// touch no stone of the other colour (a dead group of several chains inside the other
    /// side's area), which OGS offers after the chain.
    Group,
}

/// The marking's rules. Every position is the text of the game's view (`position()`); `None`
/// when it does not read.
pub trait DeadStones: Sync {
    /// Whether these moves (those since play last resumed) stop play for marking: Go's two
    /// passes in a row.
    fn play_stopped(&self, moves: &[String]) -> bool;
    /// `dead` with the stones `reach` takes from `point` toggled: all dead when any of them was
    /// alive, else all alive. An error when no stone is there.
    fn toggle(
        &self,
        position: &str,
        dead: &[String],
        point: &str,
        reach: Reach,
    ) -> Result<Vec<String>, MarkingError>;
    /// The stones of the group at `point` ([`Reach::Group`]) marked otherwise than the stone
    /// there: what a toggle of the group would change after its chain was toggled.
    fn spread(
        &self,
        position: &str,
        dead: &[String],
        point: &str,
    ) -> Result<Vec<String>, MarkingError>;
    /// The score line of a marking, as the game's `score` command writes it
    /// (`score <B+n|W+n|0> komi <k>`).
    fn score_line(&self, position: &str, dead: &[String]) -> Option<String>;
    /// The lines the game's `score` command prints for a marking: `score`, then the dead
    /// stones of each side (`dead b ...`, `dead w ...`).
    fn score_lines(&self, position: &str, score: String, dead: &[String]) -> Option<Vec<String>>;
    /// The empty points each side owns once `dead` is taken off: [first's, second's].
    fn territory(&self, position: &str, dead: &[String]) -> Option<[Vec<String>; 2]>;
    /// The komi the marking's score counts.
    fn komi(&self) -> f64;
}
