//! Actions and their protocol notation (`7g7f`, `8h2b+`, `Q[RSL]~*5e`).

use super::position::{origin_of, Position, Rules, HAND};
use super::qsfen;
use super::types::*;

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

/// The hand token of a piece as a drop names it: uppercase, `Q`/letter, `[TYPES]`, `~`.
pub fn hand_token(pos: &Position, index: usize) -> String {
    let p = pos.piece(index);
    let origin = origin_of(index);
    let mut s = qsfen::letters_of(p.mask, pos.unrestricted(origin));
    if origin != p.owner {
        s.push('~');
    }
    s
}

impl Position {
    /// The protocol notation of an action in this position.
    pub fn action_name(&self, action: Action) -> String {
        match action {
            Action::Move { from, to, promote } => format!(
                "{}{}{}",
                square_name(from),
                square_name(to),
                if promote { "+" } else { "" }
            ),
            Action::Drop { piece, to } => {
                format!("{}*{}", hand_token(self, piece as usize), square_name(to))
            }
        }
    }

    /// Reads an action in protocol notation and checks that it is legal here.
    pub fn parse_action(&self, text: &str, rules: &Rules) -> Result<Action, String> {
        let action = self.read_action(text)?;
        if self.winner.is_some() {
            return Err(format!("{text}: the game is over (a king was captured)"));
        }
        if self.is_legal(action, rules) {
            Ok(action)
        } else {
            Err(format!("{text} is not legal here"))
        }
    }

    /// Reads the notation only (the action need not be legal).
    fn read_action(&self, text: &str) -> Result<Action, String> {
        if let Some((token, square)) = text.split_once('*') {
            let to = parse_square(square)
                .ok_or_else(|| format!("{text}: bad drop square '{square}'"))?;
            let (mask, foreign) = qsfen::parse_hand_token(token)
                .ok_or_else(|| format!("{text}: bad hand piece '{token}'"))?;
            let origin = if foreign {
                self.side.opponent()
            } else {
                self.side
            };
            // A bare Q means the never-restricted set of that origin.
            let mask = mask.unwrap_or_else(|| self.unrestricted(origin));
            let piece = (0..PIECES)
                .find(|&i| {
                    let p = self.piece(i);
                    p.square == HAND
                        && p.owner == self.side
                        && origin_of(i) == origin
                        && p.mask == mask
                })
                .ok_or_else(|| format!("{text}: no such piece in the hand of the side to move"))?;
            return Ok(Action::Drop {
                piece: piece as u8,
                to,
            });
        }
        let bad = || format!("'{text}' is not a move (like 7g7f, 8h2b+ or P*5e)");
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
            Some(_) => return Err(format!("{text}: the piece on {} is not yours", &body[..2])),
            None => return Err(format!("{text}: no piece on {}", &body[..2])),
        }
        Ok(Action::Move { from, to, promote })
    }
}
