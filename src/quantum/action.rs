//! Actions and their protocol notation (`7g7f`, `8h2b+`, `Q[RSL]~*5e`).

use super::position::{origin_of, Position, Ruleset, HAND};
use super::qsfen;
use super::types::*;
use crate::games::error_text;

/// One action. A drop names a hand piece by index; generated drops always use the lowest
/// index of its interchangeable class (same holder, origin and exact set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Move {
        from: Square,
        to: Square,
        promote: bool,
    },
    Drop {
        piece: u8,
        to: Square,
    },
}

impl Action {
    /// The destination square.
    pub fn to(self) -> Square {
        match self {
            Action::Move { to, .. } | Action::Drop { to, .. } => to,
        }
    }
}

/// Why a text is not an action here. The texts are the caller's, as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// A king was captured: nothing more is legal.
    #[error("the game is over (a king was captured)")]
    GameOver,
    /// Well-formed, but not legal in this position.
    #[error("not a legal action in this position")]
    Illegal,
    #[error("bad drop square '{0}'")]
    BadDropSquare(String),
    #[error("bad hand piece '{0}'")]
    BadHandPiece(String),
    #[error("no {0} in the hand of the side to move")]
    NotInHand(String),
    /// Neither a move nor a drop.
    #[error("'{0}' is not a move (like 7g7f, 8h2b+ or P*5e)")]
    NotAnAction(String),
    #[error("the piece on {0} is not the mover's")]
    NotMovers(String),
    #[error("no piece on {0}")]
    NoPiece(String),
}

error_text!(derived: ActionError);

/// The hand token of a piece as a drop names it: uppercase, `Q`/letter, `[TYPES]`, `~`.
/// `bare` is [`Position::bare_q`].
pub fn hand_token(pos: &Position, index: usize, bare: u64) -> String {
    let p = pos.piece(index);
    let origin = origin_of(index);
    let mut s = qsfen::letters_of(p.mask, bare & (1 << index) != 0);
    if origin != p.owner {
        s.push('~');
    }
    s
}

impl Position {
    /// The protocol notation of an action in this position.
    pub fn action_name(&self, action: Action) -> String {
        let bare = match action {
            Action::Drop { .. } => self.bare_q(),
            Action::Move { .. } => 0,
        };
        self.name_with(action, bare)
    }

    /// Names of many actions (computes the bare-`Q` pieces once).
    pub fn action_names(&self, actions: &[Action]) -> Vec<String> {
        let bare = self.bare_q();
        actions.iter().map(|&a| self.name_with(a, bare)).collect()
    }

    fn name_with(&self, action: Action, bare: u64) -> String {
        match action {
            Action::Move { from, to, promote } => format!(
                "{}{}{}",
                square_name(from),
                square_name(to),
                if promote { "+" } else { "" }
            ),
            Action::Drop { piece, to } => {
                format!(
                    "{}*{}",
                    hand_token(self, piece as usize, bare),
                    square_name(to)
                )
            }
        }
    }

    /// Reads an action in protocol notation and checks that it is legal here.
    pub fn parse_action(&self, text: &str, rules: &Ruleset) -> Result<Action, ActionError> {
        let action = self.read_action(text)?;
        if self.winner.is_some() {
            return Err(ActionError::GameOver);
        }
        if self.is_legal(action, rules) {
            Ok(action)
        } else {
            Err(ActionError::Illegal)
        }
    }

    /// Reads the notation only (the action need not be legal).
    fn read_action(&self, text: &str) -> Result<Action, ActionError> {
        if let Some((token, square)) = text.split_once('*') {
            let to =
                parse_square(square).ok_or_else(|| ActionError::BadDropSquare(square.into()))?;
            let (mask, foreign) = qsfen::parse_hand_token(token)
                .ok_or_else(|| ActionError::BadHandPiece(token.into()))?;
            let origin = if foreign {
                self.side.opponent()
            } else {
                self.side
            };
            // A bare Q names a piece that is written as a bare Q.
            let bare = self.bare_q();
            let in_hand = |i: usize| {
                let p = self.piece(i);
                p.square == HAND && p.owner == self.side && origin_of(i) == origin
            };
            let named = (0..PIECES).find(|&i| {
                in_hand(i)
                    && match mask {
                        Some(m) => self.piece(i).mask == m,
                        None => bare & (1 << i) != 0,
                    }
            });
            // Failing that, a bare Q still names the one uncertain piece of its origin in hand:
            // an earlier `bare_q` (before 767a25c's `loose_mask` by origin, likely) wrote some
            // pieces bare that today's does not, and the tuner's data hold such records.
            let uncertain = || {
                if mask.is_some() {
                    return None;
                }
                let mut pieces =
                    (0..PIECES).filter(|&i| in_hand(i) && candidate_count(self.piece(i).mask) >= 2);
                let first = pieces.next();
                first.filter(|_| pieces.next().is_none())
            };
            let piece = named
                .or_else(uncertain)
                .ok_or_else(|| ActionError::NotInHand(token.into()))?;
            return Ok(Action::Drop {
                piece: piece as u8,
                to,
            });
        }
        let bad = || ActionError::NotAnAction(text.into());
        let (body, promote) = match text.strip_suffix('+') {
            Some(body) => (body, true),
            None => (text, false),
        };
        if body.len() != 4 || !body.is_ascii() {
            return Err(bad());
        }
        let from = parse_square(&body[..2]).ok_or_else(bad)?;
        let to = parse_square(&body[2..]).ok_or_else(bad)?;
        match self.piece_at(from) {
            Some(i) if self.piece(i).owner == self.side => {}
            Some(_) => return Err(ActionError::NotMovers(body[..2].into())),
            None => return Err(ActionError::NoPiece(body[..2].into())),
        }
        Ok(Action::Move { from, to, promote })
    }
}
