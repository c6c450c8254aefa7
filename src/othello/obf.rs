//! The OBF lines of the FFO endgame test files: `<64 squares A1..H8> <X|O>; A2:+38; C7:+36; ...`
//! (the exact final score of every listed move for the side to move).

use super::position::{parse_board, parse_square, Position, PositionError};
use crate::games::error_text;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char, digit1, one_of, space0, space1};
use nom::combinator::{map_res, opt, recognize};
use nom::multi::many0;
use nom::sequence::{delimited, pair, preceded, separated_pair, terminated};
use nom::IResult;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfEntry {
    pub position: Position,
    /// (square, exact score), as listed (best first in the FFO files).
    pub scores: Vec<(u32, i32)>,
}

impl ObfEntry {
    pub fn best_score(&self) -> Option<i32> {
        self.scores.iter().map(|&(_, s)| s).max()
    }
}

fn score(input: &str) -> IResult<&str, i32> {
    map_res(recognize(pair(opt(one_of("+-")), digit1)), |s: &str| {
        s.parse::<i32>()
    })(input)
}

fn scored_move(input: &str) -> IResult<&str, (&str, i32)> {
    delimited(
        space0,
        separated_pair(
            take_while1(|c: char| c.is_ascii_alphanumeric()),
            tag(":"),
            score,
        ),
        preceded(space0, char(';')),
    )(input)
}

/// The fields of one line: board, side, (move, score) pairs.
type Fields<'a> = (&'a str, char, Vec<(&'a str, i32)>);

fn line(input: &str) -> IResult<&str, Fields<'_>> {
    let (input, board) = take_while1(|c: char| matches!(c, 'X' | 'O' | '-'))(input)?;
    let (input, side) = preceded(space1, one_of("XO"))(input)?;
    let (input, moves) = preceded(terminated(space0, char(';')), many0(scored_move))(input)?;
    Ok((input, (board, side, moves)))
}

/// Why a line is not OBF.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObfError {
    /// Not OBF syntax: the (trimmed) line and the parser's account.
    #[error("bad obf line '{line}': {detail}")]
    Syntax { line: String, detail: String },
    #[error("trailing text in obf line: '{0}'")]
    Trailing(String),
    #[error(transparent)]
    Board(PositionError),
    #[error("bad square '{0}' in obf line")]
    BadSquare(String),
}

error_text!(derived: ObfError);

/// Parses one OBF line.
pub fn read_line(text: &str) -> Result<ObfEntry, ObfError> {
    let text = text.trim();
    let (rest, (board, side, moves)) = line(text).map_err(|e| ObfError::Syntax {
        line: text.into(),
        detail: e.to_string(),
    })?;
    if !rest.trim().is_empty() {
        return Err(ObfError::Trailing(rest.into()));
    }
    let (black, white) = parse_board(board).map_err(ObfError::Board)?;
    let position = Position::from_colours(black, white, side == 'X');
    let mut scores = Vec::new();
    for (m, s) in moves {
        let sq = parse_square(m).ok_or_else(|| ObfError::BadSquare(m.into()))?;
        scores.push((sq, s));
    }
    Ok(ObfEntry { position, scores })
}

/// Parses every non-empty line of a file's text.
pub fn parse_file(text: &str) -> Result<Vec<ObfEntry>, ObfError> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(read_line)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_ffo_line() {
        let e = read_line("O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; A2:+38; C7:+36; D8:-4;")
            .unwrap();
        assert!(e.position.black_to_move);
        assert_eq!(e.scores, vec![(8, 38), (50, 36), (59, -4)]);
        assert_eq!(e.best_score(), Some(38));
        assert!(read_line("XO X; A2:+38;").is_err());
    }
}
