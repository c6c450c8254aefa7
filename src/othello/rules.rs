//! Othello for a referee: a side with no move passes automatically; when neither can move the
//! game is over and the disc count decides.

use super::{square_name, squares, Position};
use crate::games::error_text;
use crate::games::rules::{GameEnd, MatchSettings, OptionValues, Rules, Side, Verdict};

/// Why a move text is refused. The token is the caller's, as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("bad move '{}' (a1..h8 or pass)", crate::text::printable(.0))]
    NotASquare(String),
    #[error("illegal move {0}: the game is over")]
    GameOver(String),
    /// Not legal for `side`; `legal` lists the legal squares.
    #[error("illegal move {token} for {side} (legal: {legal})")]
    Illegal {
        token: String,
        side: &'static str,
        legal: String,
    },
    /// `pass` while `side` has a move (passes are automatic).
    #[error("pass is illegal: {side} has a move")]
    Pass { side: &'static str },
    /// A square the rules refuse in this position.
    #[error("{} is not a legal move here", square_name(*.0))]
    NotLegalHere(u32),
}

error_text!(derived: MoveError);

/// Why the rules refuse a position text or a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error(transparent)]
    Position(super::position::PositionError),
    #[error(transparent)]
    Move(#[from] MoveError),
}

error_text!(derived: RulesError);

/// Reads a placement in protocol notation: `a1`..`h8`, in either case (Edax, NBoard and GGF
/// write `F5`); ryoshi itself writes lowercase (protocol/othello.md).
pub fn parse_placement(token: &str) -> Option<u32> {
    super::position::parse_square(token).filter(|_| token.len() == 2)
}

/// Reads a placement ([`parse_placement`]) and plays it. The engine (`othello::session`), the
/// referee and the pages all read moves with this, so they agree.
pub fn play_text(pos: &Position, token: &str) -> Result<(u32, Position), MoveError> {
    let sq = parse_placement(token).ok_or_else(|| MoveError::NotASquare(token.into()))?;
    let next = pos.play(sq).ok_or_else(|| {
        if pos.board.is_game_over() {
            MoveError::GameOver(token.into())
        } else {
            let legal: Vec<String> = squares(pos.board.moves()).map(square_name).collect();
            MoveError::Illegal {
                token: token.into(),
                side: side_name(pos),
                legal: legal.join(" "),
            }
        }
    })?;
    Ok((sq, next))
}

fn side_name(pos: &Position) -> &'static str {
    if pos.black_to_move {
        "black"
    } else {
        "white"
    }
}

/// Makes the automatic pass, so the side to move always has a move until the game ends.
fn settle(position: Position) -> Position {
    position.forced_pass().unwrap_or(position)
}

/// The verdict of a finished game: more discs wins.
pub fn disc_verdict(position: &Position) -> Verdict {
    Verdict::from_ordering(
        position
            .black()
            .count_ones()
            .cmp(&position.white().count_ones()),
    )
}

impl Rules for Position {
    const NAME: &'static str = "othello";
    const TITLE: &'static str = "Othello";
    const PLAYERS: [&'static str; 2] = ["black", "white"];
    /// GTP carries Othello (GRhino, Edax), from the standard start only.
    const MATCH: MatchSettings = MatchSettings {
        gtp: true,
        ..MatchSettings::NONE
    };
    type Move = u32;
    type Error = RulesError;

    fn start() -> Self {
        settle(Position::START)
    }

    fn from_text(text: &str) -> Result<Self, RulesError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let position = Position::from_fields(&fields).map_err(RulesError::Position)?;
        Ok(settle(position))
    }

    fn to_text(&self) -> String {
        Position::to_text(self)
    }

    fn parse_move(&self, text: &str) -> Result<u32, RulesError> {
        if text.eq_ignore_ascii_case("pass") {
            // Passes are automatic: by the time an engine is asked, it has a move.
            let side = side_name(self);
            return Err(MoveError::Pass { side }.into());
        }
        Ok(play_text(self, text)?.0)
    }

    fn move_text(&self, mv: u32) -> String {
        square_name(mv)
    }

    fn legal_moves(&self) -> Vec<u32> {
        squares(self.board.moves()).collect()
    }

    fn play(&mut self, mv: u32) -> Result<(), RulesError> {
        let next = Position::play(self, mv).ok_or(MoveError::NotLegalHere(mv))?;
        *self = settle(next);
        Ok(())
    }

    fn outcome(&self) -> Option<GameEnd> {
        self.board
            .is_game_over()
            .then(|| GameEnd::by_rule(disc_verdict(self), "disc count"))
    }

    fn side_to_move(&self) -> Side {
        if self.black_to_move {
            Side::First
        } else {
            Side::Second
        }
    }

    fn diagram(&self) -> Vec<String> {
        let text = self.board_text();
        let mut lines = vec!["  a b c d e f g h".to_string()];
        for (row, chunk) in text.as_bytes().chunks(8).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|&c| (c as char).to_string()).collect();
            lines.push(format!("{} {}", row + 1, cells.join(" ")));
        }
        lines
    }

    fn record_format() -> Option<crate::games::record::RecordFormat<Self>> {
        Some(crate::games::record::RecordFormat::of())
    }

    /// Black's discs minus white's, the empty squares counted for the winner (the World Othello
    /// Federation's rule, as Edax, GGS and GRhino's `final_score` count); Othello has no komi.
    fn final_score(&self, _options: &OptionValues) -> Option<f64> {
        let text = self.to_text();
        let board = text.split_whitespace().next().unwrap_or("");
        let count = |c: char| board.chars().filter(|&x| x == c).count() as f64;
        let (diff, empty) = (count('X') - count('O'), count('-'));
        Some(match diff.total_cmp(&0.0) {
            std::cmp::Ordering::Greater => diff + empty,
            std::cmp::Ordering::Less => diff - empty,
            std::cmp::Ordering::Equal => 0.0,
        })
    }
}

#[cfg(test)]
mod tests {
    // The game view's undo and refusals, on Othello's rules.
    use super::Position;
    use crate::games::rules::Side;
    use crate::games::view::{GameView, MoveError, Played};

    #[test]
    fn undo_returns_to_each_earlier_position_and_stops_at_the_start() {
        let mut view = Played::<Position>::new();
        let start = view.position();
        let first = view.legal_moves()[0].clone();
        assert_eq!(view.play(&first.to_uppercase()).unwrap(), first);
        let after_one = view.position();
        let second = view.legal_moves()[0].clone();
        view.play(&second).unwrap();
        assert_ne!(view.position(), after_one);
        assert!(view.undo());
        assert_eq!(view.position(), after_one);
        assert!(view.undo());
        assert_eq!(view.position(), start);
        assert!(!view.undo(), "nothing before the start");
        assert_eq!(view.side_to_move(), Side::First);
    }

    #[test]
    fn a_refused_move_leaves_the_view_at_its_position() {
        let mut view = Played::<Position>::new();
        let start = view.position();
        assert!(matches!(view.play("a1"), Err(MoveError::Rules(_))));
        assert!(view.play("nonsense").is_err());
        assert_eq!(view.position(), start);
        assert!(!view.undo());
    }
}
