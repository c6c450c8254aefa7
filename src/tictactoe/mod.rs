//! Tic-tac-toe: the toy game `docs/adding-a-game.md` is followed with, built only with the `toy`
//! feature (never in the shipped binary, whose `USI_Variant` list GUIs show to users). The
//! browser test plays it on the generic page. See protocol/tictactoe.md.

pub mod perft;
pub mod record;
pub mod search;
pub(crate) mod session;

use crate::games::rules::{GameEnd, Rules, Side, Verdict};

/// The squares from the top left, row by row; a move is the square's index.
pub type Square = u8;

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// A position: the nine cells (`.`, `X`, `O`) and the side to move (`x` first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [u8; 9],
    x_to_move: bool,
}

/// Why a position or a move is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TicTacToeError {
    #[error(
        "position '{0}': expected three rows of '.', 'X' or 'O' like 'X../.O./...' and 'x' or 'o'"
    )]
    Position(String),
    #[error("'{0}' is no square (a1 to c3)")]
    Square(String),
    #[error("{0} is taken")]
    Taken(String),
    #[error("the game is over")]
    Over,
}

crate::games::error_text!(derived: TicTacToeError);

/// The square's name: its column `a`-`c` and its row `1`-`3` from the bottom.
pub fn square_name(sq: Square) -> String {
    let sq = usize::from(sq);
    format!("{}{}", ["a", "b", "c"][sq % 3], 3 - sq / 3)
}

impl Board {
    fn winner(&self) -> Option<u8> {
        LINES.iter().find_map(|l| {
            let c = self.cells[l[0]];
            (c != b'.' && l.iter().all(|&i| self.cells[i] == c)).then_some(c)
        })
    }

    /// The cell of `sq`: `.`, `X` or `O`.
    pub fn cell(&self, sq: Square) -> u8 {
        self.cells[usize::from(sq)]
    }
}

impl Rules for Board {
    const NAME: &'static str = "tictactoe";
    const TITLE: &'static str = "Tic-tac-toe";
    const PLAYERS: [&'static str; 2] = ["x", "o"];
    type Move = Square;
    type Error = TicTacToeError;

    fn start() -> Self {
        Board {
            cells: [b'.'; 9],
            x_to_move: true,
        }
    }

    fn from_text(text: &str) -> Result<Self, TicTacToeError> {
        let bad = || TicTacToeError::Position(crate::text::printable(text));
        let mut words = text.split_whitespace();
        let (Some(rows), Some(side), None) = (words.next(), words.next(), words.next()) else {
            return Err(bad());
        };
        let rows: Vec<&str> = rows.split('/').collect();
        if rows.len() != 3 || rows.iter().any(|r| r.len() != 3) {
            return Err(bad());
        }
        let mut cells = [b'.'; 9];
        for (i, c) in rows.concat().bytes().enumerate() {
            if !matches!(c, b'.' | b'X' | b'O') {
                return Err(bad());
            }
            cells[i] = c;
        }
        let x_to_move = match side {
            "x" => true,
            "o" => false,
            _ => return Err(bad()),
        };
        Ok(Board { cells, x_to_move })
    }

    fn to_text(&self) -> String {
        let rows: Vec<String> = self
            .cells
            .chunks(3)
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect();
        format!(
            "{} {}",
            rows.join("/"),
            if self.x_to_move { "x" } else { "o" }
        )
    }

    fn parse_move(&self, text: &str) -> Result<Square, TicTacToeError> {
        let bad = || TicTacToeError::Square(crate::text::printable(text));
        let &[col, row] = text.as_bytes() else {
            return Err(bad());
        };
        if !(b'a'..=b'c').contains(&col) || !(b'1'..=b'3').contains(&row) {
            return Err(bad());
        }
        Ok((b'3' - row) * 3 + (col - b'a'))
    }

    fn move_text(&self, mv: Square) -> String {
        square_name(mv)
    }

    fn legal_moves(&self) -> Vec<Square> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        (0..9).filter(|&sq| self.cell(sq) == b'.').collect()
    }

    fn play(&mut self, mv: Square) -> Result<(), TicTacToeError> {
        if self.outcome().is_some() {
            return Err(TicTacToeError::Over);
        }
        let cell = self
            .cells
            .get_mut(usize::from(mv))
            .ok_or_else(|| TicTacToeError::Square(mv.to_string()))?;
        if *cell != b'.' {
            return Err(TicTacToeError::Taken(square_name(mv)));
        }
        *cell = if self.x_to_move { b'X' } else { b'O' };
        self.x_to_move = !self.x_to_move;
        Ok(())
    }

    fn outcome(&self) -> Option<GameEnd> {
        match self.winner() {
            Some(b'X') => Some(GameEnd::by_rule(
                Verdict::Win(Side::First),
                "three in a row",
            )),
            Some(_) => Some(GameEnd::by_rule(
                Verdict::Win(Side::Second),
                "three in a row",
            )),
            None if !self.cells.contains(&b'.') => {
                Some(GameEnd::by_rule(Verdict::Draw, "board full"))
            }
            None => None,
        }
    }

    fn side_to_move(&self) -> Side {
        if self.x_to_move {
            Side::First
        } else {
            Side::Second
        }
    }

    /// The column letters, then each row from the top with its number: `3 X . O`.
    fn diagram(&self) -> Vec<String> {
        let mut lines = vec!["  a b c".to_string()];
        for (i, row) in self.cells.chunks(3).enumerate() {
            let cells: Vec<String> = row.iter().map(|&c| (c as char).to_string()).collect();
            lines.push(format!("{} {}", 3 - i, cells.join(" ")));
        }
        lines
    }

    fn record_format() -> Option<crate::games::record::RecordFormat<Self>> {
        Some(crate::games::record::RecordFormat::of())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(moves: &[&str]) -> Board {
        let mut b = Board::start();
        for m in moves {
            let mv = b.parse_move(m).unwrap();
            b.play(mv).unwrap();
        }
        b
    }

    #[test]
    fn a_row_wins_and_a_full_board_draws() {
        let won = played(&["a1", "a2", "b1", "b2", "c1"]);
        assert_eq!(won.outcome().unwrap().to_string(), "first (three in a row)");
        assert!(won.legal_moves().is_empty());
        let full = played(&["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"]);
        assert_eq!(full.outcome().unwrap().to_string(), "draw (board full)");
    }

    #[test]
    fn text_and_moves_read_back_and_bad_ones_are_refused() {
        let b = played(&["b2", "a3"]);
        assert_eq!(b.to_text(), "O../.X./... x");
        assert_eq!(Board::from_text(&b.to_text()), Ok(b));
        for bad in [
            "",
            "X../.X./...",
            "X../.X./... y",
            "XX/.../... x",
            "Z../.../... x",
        ] {
            assert!(Board::from_text(bad).is_err(), "{bad}");
        }
        for bad in ["d1", "a4", "a", "a10", "é"] {
            assert!(b.parse_move(bad).is_err(), "{bad}");
        }
        let mut b = b;
        assert_eq!(b.play(4), Err(TicTacToeError::Taken("b2".into())));
        assert_eq!(b.diagram(), ["  a b c", "3 O . .", "2 . X .", "1 . . ."]);
    }
}
