//! Go for a referee: the game ends after two passes in a row and is scored by area with every
//! stone on the board counted alive (Tromp-Taylor) and `KOMI` for white.

use super::board::{Color, Illegal};
use super::notation::{diagram, format_move, format_position, parse_position, parse_vertex};
use super::notation::{PositionError, VertexError};
use super::score::{area_score, Judgement, Life};
use super::Position;
use crate::games::error_text;
use crate::games::rules::{
    BoardSizes, GameEnd, MatchOption, MatchSettings, OptionValues, Rules, Side, Verdict,
};

/// White's compensation when a refereed game is scored.
pub const KOMI: f64 = 7.5;

/// A match's `komi = 6.5` (white's compensation in the referee's score), told to GTP engines by
/// GTP's `komi` and to USI engines by the `Komi` option, written in records as SGF's `KM`.
pub const KOMI_OPTION: MatchOption = MatchOption {
    key: "komi",
    default: KOMI,
    usi_option: Some("Komi"),
    gtp_command: Some("komi"),
};

/// A game in progress and the passes just played (two in a row end it).
#[derive(Clone, Debug)]
pub struct Record {
    pub game: Position,
    passes: u32,
}

impl Record {
    pub fn new(game: Position) -> Record {
        Record { game, passes: 0 }
    }

    /// Takes back the last move (false at the start). The passes are counted again from the
    /// moves left: two passes undone by one leave the game open.
    pub fn undo(&mut self) -> bool {
        if !self.game.undo() {
            return false;
        }
        let moves = self.game.moves();
        let passes = moves
            .iter()
            .rev()
            .take_while(|(_, mv)| mv.is_none())
            .count();
        self.passes = passes.min(2) as u32;
        true
    }

    /// Black's area minus white's minus komi, no stone taken off as dead.
    pub fn area_score(&self) -> f64 {
        let board = &self.game.board;
        let all_alive = Judgement {
            life: vec![Life::None; board.len()],
        };
        area_score(board, &all_alive, KOMI)
    }
}

/// Why the rules refuse a position text or a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error(transparent)]
    Position(PositionError),
    #[error(transparent)]
    Vertex(VertexError),
    /// The move `text` is not legal here.
    #[error("'{text}' is illegal: {why}")]
    Illegal { text: String, why: Illegal },
    /// A move (already read) is not legal here.
    #[error("{0}")]
    Play(Illegal),
}

error_text!(derived: RulesError);

impl Rules for Record {
    const NAME: &'static str = "go";
    const TITLE: &'static str = "Go";
    const PLAYERS: [&'static str; 2] = ["black", "white"];
    type Move = Option<usize>;
    const MATCH: MatchSettings = MatchSettings {
        board_sizes: Some(BoardSizes {
            min: 2,
            max: 25,
            standard: 19,
        }),
        options: &[KOMI_OPTION],
        gtp: true,
    };
    /// With a half-point komi a refereed Go game has no draw, and Go servers (KGS, OGS) offer
    /// none by agreement: a game ends by score or by resignation.
    const DRAW_BY_AGREEMENT: bool = false;
    type Error = RulesError;

    fn start() -> Self {
        Record::new(Position::empty(19).unwrap_or_else(|_| unreachable!("19 is a valid size")))
    }

    fn from_text(text: &str) -> Result<Self, RulesError> {
        let fields: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        let (board, to_move) = parse_position(&fields).map_err(RulesError::Position)?;
        Ok(Record::new(Position::new(board, to_move)))
    }

    fn to_text(&self) -> String {
        format_position(&self.game.board, self.game.to_move)
    }

    fn parse_move(&self, text: &str) -> Result<Option<usize>, RulesError> {
        let mv = parse_vertex(text, self.game.board.size()).map_err(RulesError::Vertex)?;
        if let Some(p) = mv {
            let mut board = self.game.board.clone();
            board
                .play(p, self.game.to_move, self.game.ko)
                .map_err(|why| RulesError::Illegal {
                    text: text.into(),
                    why,
                })?;
        }
        Ok(mv)
    }

    fn move_text(&self, mv: Option<usize>) -> String {
        format_move(&self.game.board, mv)
    }

    /// The legal points (a pass is always legal and not listed, so random openings place stones).
    fn legal_moves(&self) -> Vec<Option<usize>> {
        self.game.legal_points().into_iter().map(Some).collect()
    }

    fn play(&mut self, mv: Option<usize>) -> Result<(), RulesError> {
        self.game.play(mv).map_err(RulesError::Play)?;
        self.passes = if mv.is_none() { self.passes + 1 } else { 0 };
        Ok(())
    }

    fn outcome(&self) -> Option<GameEnd> {
        (self.passes >= 2).then(|| {
            GameEnd::by_rule(
                Verdict::from_ordering(self.area_score().total_cmp(&0.0)),
                "area score",
            )
        })
    }

    fn side_to_move(&self) -> Side {
        match self.game.to_move {
            Color::Black => Side::First,
            Color::White => Side::Second,
        }
    }

    fn diagram(&self) -> Vec<String> {
        diagram(&self.game.board)
    }

    fn start_sized(size: usize) -> Option<Self> {
        Position::empty(size).ok().map(Record::new)
    }

    /// The area score (every stone alive) with the match's `komi` instead of [`KOMI`].
    fn final_score(&self, options: &OptionValues) -> Option<f64> {
        let komi = options.get(KOMI_OPTION.key).unwrap_or(KOMI);
        Some(self.area_score() + KOMI - komi)
    }

    fn record_format() -> Option<crate::games::record::RecordFormat<Self>> {
        Some(crate::games::record::RecordFormat::of())
    }

    fn end_agreement() -> Option<&'static dyn crate::games::end::EndAgreement> {
        Some(&super::marking::GO_MARKING)
    }

    /// Any position: its stones, one `play` each.
    fn gtp_setup(&self) -> Option<Vec<(Side, String)>> {
        Some(setup_stones(&self.to_text()))
    }
}

/// The stones of a Go start position (`<size> <rows> <b|w>`, rows from the top) as GTP moves:
/// placing them one by one captures nothing, since no block of the whole position lacks a
/// liberty.
fn setup_stones(position: &str) -> Vec<(Side, String)> {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mut fields = position.split_whitespace();
    let size: usize = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let rows = fields.next().unwrap_or("");
    let mut stones = Vec::new();
    for (r, row) in rows.split('/').enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let side = match ch {
                'X' | 'x' => Side::First,
                'O' | 'o' => Side::Second,
                _ => continue,
            };
            if let (Some(&letter), Some(number)) = (LETTERS.get(c), size.checked_sub(r)) {
                stones.push((side, format!("{}{number}", letter as char)));
            }
        }
    }
    stones
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_stones_are_gtp_vertices() {
        let stones = setup_stones("5 X..../...../..O../...../....X w");
        assert_eq!(
            stones,
            [
                (Side::First, "A5".to_string()),
                (Side::Second, "C3".to_string()),
                (Side::First, "E1".to_string())
            ]
        );
        let nine = setup_stones(
            "9 ......../......../......../......../......../......../......../......../.......XO b",
        );
        assert_eq!(nine[0].1, "H1");
        assert_eq!(nine[1].1, "J1", "no letter I");
    }

    #[test]
    fn two_passes_end_the_game_and_area_decides() {
        // Black walls off the left three columns of 5x5 (15 points), white the right two (10).
        let mut g = Record::from_text("5 ..XO./..XO./..XO./..XO./..XO. b").unwrap();
        assert_eq!(g.area_score(), 15.0 - 10.0 - KOMI);
        let pass = g.parse_move("pass").unwrap();
        g.play(pass).unwrap();
        assert_eq!(g.outcome(), None);
        assert_eq!(g.side_to_move(), Side::Second);
        let a1 = g.parse_move("a1").unwrap();
        assert_eq!(g.move_text(a1), "A1");
        g.play(a1).unwrap();
        g.play(None).unwrap();
        assert_eq!(g.outcome(), None, "a stone between the passes");
        g.play(None).unwrap();
        let end = g.outcome().unwrap();
        assert_eq!(end.verdict, Verdict::Win(Side::Second));
        assert_eq!(end.reason.as_str(), "area score");
        assert!(g.parse_move("C1").is_err(), "occupied");
        assert!(g.parse_move("Z9").is_err());
    }
}
