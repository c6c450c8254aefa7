//! A game record for a referee or session: the positions so far (by key), the current
//! position, and the end of the game (king capture, no legal action, fourfold repetition).
//! History lives here, not in [`Position`].

use super::action::{Action, ActionError};
use super::position::{Position, Ruleset};
use super::types::Color;
use crate::games::error_text;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The winner captured a king that was certainly K.
    KingCapture { winner: Color },
    /// The side to move had no legal action and loses.
    NoLegalAction { loser: Color },
    /// The same state (board, hands, side to move, candidate sets) occurred a fourth time.
    FourfoldRepetition,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::KingCapture { winner } => write!(f, "king captured, {} wins", winner.letter()),
            Ending::NoLegalAction { loser } => {
                write!(f, "no legal action, {} loses", loser.letter())
            }
            Ending::FourfoldRepetition => f.write_str("fourfold repetition, a draw"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Record {
    position: Position,
    /// Keys of every position so far, the current one last.
    keys: Vec<u64>,
    rules: Ruleset,
    /// The position the game started from, and the actions played since (a game record's
    /// history: `undo` replays all but the last).
    start: Position,
    actions: Vec<Action>,
}

impl Record {
    pub fn new(position: Position, rules: Ruleset) -> Record {
        Record {
            keys: vec![position.key()],
            start: position.clone(),
            position,
            rules,
            actions: Vec::new(),
        }
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.start
    }

    /// The actions played since the start, oldest first.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Takes back the last action (the position is replayed from the start); false when there
    /// is none.
    pub fn undo(&mut self) -> bool {
        if self.actions.pop().is_none() {
            return false;
        }
        let mut position = self.start.clone();
        for &action in &self.actions {
            // Each action was legal when it was played, from the same positions.
            let applied = position.apply(action);
            debug_assert!(applied);
        }
        self.position = position;
        self.keys.pop();
        true
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn rules(&self) -> Ruleset {
        self.rules
    }

    /// The same game, its history kept, under other rules (an option changed since).
    pub fn under(&self, rules: Ruleset) -> Record {
        Record {
            rules,
            ..self.clone()
        }
    }

    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// How often the current position has occurred (1 the first time).
    pub fn repetitions(&self) -> usize {
        let now = self.position.key();
        self.keys.iter().filter(|&&k| k == now).count()
    }

    /// The end of the game, if it has ended.
    pub fn ending(&self) -> Option<Ending> {
        if let Some(winner) = self.position.winner() {
            return Some(Ending::KingCapture { winner });
        }
        if self.repetitions() >= 4 {
            return Some(Ending::FourfoldRepetition);
        }
        if self.position.count_legal(&self.rules) == 0 {
            return Some(Ending::NoLegalAction {
                loser: self.position.side_to_move(),
            });
        }
        None
    }

    /// Plays a legal action.
    pub fn play(&mut self, action: Action) -> Result<(), PlayError> {
        if let Some(ending) = self.ending() {
            return Err(PlayError::Over(ending));
        }
        if !self.position.is_legal(action, &self.rules) {
            return Err(PlayError::Illegal);
        }
        self.commit(action)
    }

    /// Parses an action in protocol notation, checks it and plays it.
    pub fn play_str(&mut self, text: &str) -> Result<Action, PlayError> {
        if let Some(ending) = self.ending() {
            return Err(PlayError::Over(ending));
        }
        let action = self.position.parse_action(text, &self.rules)?;
        self.commit(action)?;
        Ok(action)
    }

    /// Plays a checked action, all or nothing (a checked action is always consistent).
    fn commit(&mut self, action: Action) -> Result<(), PlayError> {
        let mut next = self.position.clone();
        if !next.apply(action) {
            return Err(PlayError::Illegal);
        }
        self.position = next;
        self.keys.push(self.position.key());
        self.actions.push(action);
        Ok(())
    }
}

/// Why a record refuses an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over ({0})")]
    Over(Ending),
    #[error("illegal action")]
    Illegal,
    #[error(transparent)]
    Action(ActionError),
}

error_text!(derived: PlayError);

/// Why the rules refuse a position text or a move (the referee's and the session's error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Position(super::qsfen::QsfenError),
    #[error(transparent)]
    Play(PlayError),
}

error_text!(derived: RecordError);

impl From<ActionError> for RecordError {
    fn from(e: ActionError) -> Self {
        RecordError::Play(PlayError::Action(e))
    }
}

impl From<PlayError> for RecordError {
    fn from(e: PlayError) -> Self {
        RecordError::Play(e)
    }
}

impl From<ActionError> for PlayError {
    fn from(e: ActionError) -> Self {
        PlayError::Action(e)
    }
}

/// Quantum shogi for a referee: king capture wins, no legal action loses, fourfold repetition
/// (of the whole state, candidate sets included) is a draw; default rules (`KakuteiNifu` on).
impl crate::games::rules::Rules for Record {
    const NAME: &'static str = "quantumshogi";
    const TITLE: &'static str = "Quantum shogi";
    const PLAYERS: [&'static str; 2] = ["sente", "gote"];
    type Move = Action;
    type Error = RecordError;

    fn record_format() -> Option<crate::games::record::RecordFormat<Self>> {
        Some(crate::games::record::RecordFormat::of())
    }

    fn start() -> Self {
        Record::new(Position::start(), Ruleset::default())
    }

    fn from_text(text: &str) -> Result<Self, RecordError> {
        let position = super::qsfen::read(text).map_err(RecordError::Position)?;
        Ok(Record::new(position, Ruleset::default()))
    }

    fn to_text(&self) -> String {
        super::qsfen::write(&self.position)
    }

    fn parse_move(&self, text: &str) -> Result<Action, RecordError> {
        Ok(self.position.parse_action(text, &self.rules)?)
    }

    fn move_text(&self, mv: Action) -> String {
        self.position.action_name(mv)
    }

    fn legal_moves(&self) -> Vec<Action> {
        // A drawn game has no moves, as `play` says (a captured king's has none already).
        if self.repetitions() >= 4 {
            return Vec::new();
        }
        let mut actions = self.position.legal_actions(&self.rules);
        // Sorted by name, so random openings depend on the seed alone, not on generation order.
        actions.sort_by_cached_key(|&a| self.position.action_name(a));
        actions
    }

    fn play(&mut self, mv: Action) -> Result<(), RecordError> {
        Ok(Record::play(self, mv)?)
    }

    fn outcome(&self) -> Option<crate::games::rules::GameEnd> {
        use crate::games::rules::{GameEnd, Verdict};
        let (verdict, reason) = match self.ending()? {
            Ending::KingCapture { winner } => (Verdict::Win(side(winner)), "king capture"),
            Ending::NoLegalAction { loser } => {
                (Verdict::Win(side(loser).other()), "no legal action")
            }
            Ending::FourfoldRepetition => (Verdict::Draw, "repetition"),
        };
        Some(GameEnd::by_rule(verdict, reason))
    }

    fn side_to_move(&self) -> crate::games::rules::Side {
        side(self.position.side_to_move())
    }

    fn diagram(&self) -> Vec<String> {
        super::qsfen::diagram(&self.position)
    }
}

fn side(side: Color) -> crate::games::rules::Side {
    match side {
        Color::Black => crate::games::rules::Side::First,
        Color::White => crate::games::rules::Side::Second,
    }
}
