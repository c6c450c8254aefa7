//! A board plus the colour to move, and its text form: 64 characters from a1 to h8 row by row
//! (`X` black, `O` white, `-` empty), then `b` or `w`.

use super::board::Board;
use crate::games::error_text;
use nom::branch::alt;
use nom::character::complete::{char, one_of};
use nom::combinator::{all_consuming, map, value};
use nom::multi::count;
use nom::IResult;

/// Why a text is not an Othello position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Not two fields: how many there were.
    #[error("an othello position is two fields, <64 squares> <b|w>; got {0}")]
    Fields(usize),
    /// Not 64 characters: how many there were.
    #[error("an othello board has 64 squares (X, O or -), got {0} characters")]
    Length(usize),
    #[error(
        "bad square character '{}' at {} (use X, O or -)",
        .character.escape_default(),
        super::board::square_name(*.square)
    )]
    BadSquare { character: char, square: u32 },
    #[error("the side to move is b or w, not '{}'", .0.escape_default())]
    BadSide(String),
    #[error("the centre squares d4 d5 e4 e5 are never empty in othello")]
    EmptyCentre,
}

error_text!(derived: PositionError);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// From the point of view of the side to move.
    pub board: Board,
    pub black_to_move: bool,
}

/// The four centre squares, occupied from the start and never emptied.
pub const CENTRE: u64 = (1 << 27) | (1 << 28) | (1 << 35) | (1 << 36);

impl Position {
    pub const START: Position = Position {
        board: Board::START,
        black_to_move: true,
    };

    pub fn black(&self) -> u64 {
        if self.black_to_move {
            self.board.player
        } else {
            self.board.opponent
        }
    }

    pub fn white(&self) -> u64 {
        if self.black_to_move {
            self.board.opponent
        } else {
            self.board.player
        }
    }

    pub fn from_colours(black: u64, white: u64, black_to_move: bool) -> Position {
        let board = if black_to_move {
            Board {
                player: black,
                opponent: white,
            }
        } else {
            Board {
                player: white,
                opponent: black,
            }
        };
        Position {
            board,
            black_to_move,
        }
    }

    /// Plays a legal square; None when it is not legal.
    pub fn play(&self, sq: u32) -> Option<Position> {
        self.board.play(sq).map(|board| Position {
            board,
            black_to_move: !self.black_to_move,
        })
    }

    pub fn pass(&self) -> Position {
        Position {
            board: self.board.pass(),
            black_to_move: !self.black_to_move,
        }
    }

    /// If the side to move is stuck but the opponent is not, the position after the forced pass.
    pub fn forced_pass(&self) -> Option<Position> {
        if self.board.moves() == 0 && self.board.pass().moves() != 0 {
            Some(self.pass())
        } else {
            None
        }
    }

    /// The 64 board characters.
    pub fn board_text(&self) -> String {
        let (b, w) = (self.black(), self.white());
        (0..64)
            .map(|sq| {
                let bit = 1u64 << sq;
                if b & bit != 0 {
                    'X'
                } else if w & bit != 0 {
                    'O'
                } else {
                    '-'
                }
            })
            .collect()
    }

    /// `<64 chars> <b|w>`.
    pub fn to_text(&self) -> String {
        format!(
            "{} {}",
            self.board_text(),
            if self.black_to_move { 'b' } else { 'w' }
        )
    }

    /// Parses the two fields of `sfen <board> <side>`. The centre squares must be occupied.
    pub fn from_fields(fields: &[&str]) -> Result<Position, PositionError> {
        let [board, side] = fields else {
            return Err(PositionError::Fields(fields.len()));
        };
        let (black, white) = parse_board(board)?;
        let black_to_move = parse_side(side)?;
        if (black | white) & CENTRE != CENTRE {
            return Err(PositionError::EmptyCentre);
        }
        Ok(Position::from_colours(black, white, black_to_move))
    }
}

#[derive(Clone, Copy)]
enum Cell {
    Black,
    White,
    Empty,
}

fn cell(input: &str) -> IResult<&str, Cell> {
    alt((
        value(Cell::Black, char('X')),
        value(Cell::White, char('O')),
        value(Cell::Empty, char('-')),
    ))(input)
}

/// The 64 squares: (black, white).
pub fn parse_board(text: &str) -> Result<(u64, u64), PositionError> {
    let n = text.chars().count();
    if n != 64 {
        return Err(PositionError::Length(n));
    }
    let parsed: IResult<&str, Vec<Cell>> = all_consuming(count(cell, 64))(text);
    let cells = match parsed {
        Ok((_, cells)) => cells,
        Err(_) => {
            let (i, c) = text
                .chars()
                .enumerate()
                .find(|(_, c)| !matches!(c, 'X' | 'O' | '-'))
                .unwrap_or((0, '?'));
            return Err(PositionError::BadSquare {
                character: c,
                square: i as u32,
            });
        }
    };
    let (mut black, mut white) = (0u64, 0u64);
    for (sq, c) in cells.iter().enumerate() {
        match c {
            Cell::Black => black |= 1 << sq,
            Cell::White => white |= 1 << sq,
            Cell::Empty => {}
        }
    }
    Ok((black, white))
}

/// `b` or `w`.
pub fn parse_side(text: &str) -> Result<bool, PositionError> {
    let parsed: IResult<&str, bool> = all_consuming(map(one_of("bw"), |c| c == 'b'))(text);
    parsed
        .map(|(_, b)| b)
        .map_err(|_| PositionError::BadSide(text.into()))
}

/// `a1`..`h8` (lowercase; uppercase accepted too, as the FFO files write it).
pub fn parse_square(text: &str) -> Option<u32> {
    let parsed: IResult<&str, (char, char)> = all_consuming(nom::sequence::pair(
        one_of("abcdefghABCDEFGH"),
        one_of("12345678"),
    ))(text);
    parsed.ok().map(|(_, (f, r))| {
        let file = (f.to_ascii_lowercase() as u8 - b'a') as u32;
        let rank = (r as u8 - b'1') as u32;
        rank * 8 + file
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_text_round_trip() {
        let text = Position::START.to_text();
        assert_eq!(
            text,
            "---------------------------OX------XO--------------------------- b"
        );
        let fields: Vec<&str> = text.split(' ').collect();
        assert_eq!(Position::from_fields(&fields).unwrap(), Position::START);
    }

    #[test]
    fn bad_fields() {
        let good = Position::START.board_text();
        assert!(Position::from_fields(&[&good[1..], "b"]).is_err());
        assert!(Position::from_fields(&[&good, "x"]).is_err());
        assert!(Position::from_fields(&[&good]).is_err());
        let bad = good.replacen('-', "Z", 1);
        assert!(Position::from_fields(&[&bad, "b"]).is_err());
        let empty = "-".repeat(64);
        assert!(Position::from_fields(&[&empty, "b"]).is_err());
    }

    #[test]
    fn squares_parse() {
        assert_eq!(parse_square("a1"), Some(0));
        assert_eq!(parse_square("h8"), Some(63));
        assert_eq!(parse_square("F5"), Some(37));
        assert_eq!(parse_square("i1"), None);
        assert_eq!(parse_square("a9"), None);
        assert_eq!(parse_square("a10"), None);
    }
}
