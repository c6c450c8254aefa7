//! One game in progress as the code outside `games` sees it, whatever the game: the match
//! referee, the session and serve's rooms read sides, positions, moves and endings through
//! [`GameView`], in protocol notation, and never through a game's own types or `d`'s text.

use super::rules::{GameEnd, Rules, Side};

/// A game in progress behind one object-safe interface, in protocol notation.
pub trait GameView: Send {
    /// Who is to move now (after any automatic pass).
    fn side_to_move(&self) -> Side;

    /// The current position in the game's notation (the text after `position sfen`).
    fn position(&self) -> String;

    /// The legal moves in protocol notation, in the rules' fixed order.
    fn legal_moves(&self) -> Vec<String>;

    /// Reads one move, checks it and plays it; returns it as engines should be sent it
    /// (canonical notation). On error the position is unchanged and the error says why.
    fn play(&mut self, mv: &str) -> Result<String, MoveError>;

    /// Takes back the last move played through this view; false when there is none.
    fn undo(&mut self) -> bool;

    /// Whether the game has ended by the rules, who won and why.
    fn game_end(&self) -> Option<GameEnd>;

    /// A board diagram for a game record; empty when the game has none.
    fn diagram(&self) -> Vec<String>;
}

/// The view of every game: its [`Rules`] with the positions before each move, for `undo`.
#[derive(Clone)]
pub struct Played<R: Rules> {
    game: R,
    before: Vec<R>,
}

/// Why [`Played::play_move`] refuses a move.
#[derive(Debug, thiserror::Error)]
pub enum PlayError<E: std::error::Error + 'static> {
    /// No move is played after the end.
    #[error("the game is over ({0})")]
    GameOver(GameEnd),
    /// The game's rules refuse it, in their words.
    #[error(transparent)]
    Rules(E),
}

/// Why [`GameView::play`] refuses a move, whatever the game.
#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    /// No move is played after the end.
    #[error("the game is over ({0})")]
    GameOver(GameEnd),
    /// The game's rules refuse it, with their own error (its text is the protocol's).
    #[error(transparent)]
    Rules(Box<dyn std::error::Error + Send + Sync>),
}

impl<E: std::error::Error + Send + Sync + 'static> From<PlayError<E>> for MoveError {
    fn from(e: PlayError<E>) -> MoveError {
        match e {
            PlayError::GameOver(end) => MoveError::GameOver(end),
            PlayError::Rules(e) => MoveError::Rules(Box::new(e)),
        }
    }
}

error_text!(derived: MoveError);

impl<R: Rules> Default for Played<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Rules> Played<R> {
    /// The game from the rules' standard start.
    pub fn new() -> Self {
        Self::from_rules(R::start())
    }

    /// The game from `game`.
    pub fn from_rules(game: R) -> Self {
        Played {
            game,
            before: Vec::new(),
        }
    }

    /// The current game's rules.
    pub fn rules(&self) -> &R {
        &self.game
    }

    /// Starts again from `game`, forgetting the moves played.
    pub fn reset(&mut self, game: R) {
        self.game = game;
        self.before.clear();
    }

    /// [`GameView::play`] with the rules' typed error.
    pub fn play_move(&mut self, text: &str) -> Result<String, PlayError<R::Error>> {
        if let Some(end) = self.game.outcome() {
            return Err(PlayError::GameOver(end));
        }
        let mv = self.game.parse_move(text).map_err(PlayError::Rules)?;
        let canonical = self.game.move_text(mv);
        let mut next = self.game.clone();
        next.play(mv).map_err(PlayError::Rules)?;
        self.before.push(std::mem::replace(&mut self.game, next));
        Ok(canonical)
    }
}

impl<R: Rules> GameView for Played<R> {
    fn side_to_move(&self) -> Side {
        self.game.side_to_move()
    }

    fn position(&self) -> String {
        self.game.to_text()
    }

    fn legal_moves(&self) -> Vec<String> {
        let moves = self.game.legal_moves();
        moves
            .into_iter()
            .map(|mv| self.game.move_text(mv))
            .collect()
    }

    fn play(&mut self, mv: &str) -> Result<String, MoveError> {
        Ok(self.play_move(mv)?)
    }

    fn undo(&mut self) -> bool {
        match self.before.pop() {
            Some(previous) => {
                self.game = previous;
                true
            }
            None => false,
        }
    }

    fn game_end(&self) -> Option<GameEnd> {
        self.game.outcome()
    }

    fn diagram(&self) -> Vec<String> {
        self.game.diagram()
    }
}
