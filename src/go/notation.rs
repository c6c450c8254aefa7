//! Text forms: GTP vertices (`D4`, letters skip `I`, row 1 at the bottom) and the position
//! notation `<size> <rows> <b|w>` (rows top to bottom, `X` black, `O` white, `.` empty).

use super::board::{point_index, Board, Color, SizeError, BLACK, EMPTY, WHITE};
use crate::games::error_text;

/// A text that is not a vertex (nor `pass`) on a board of `size`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a vertex on a {size}x{size} board")]
pub struct VertexError {
    pub text: String,
    pub size: usize,
}

error_text!(derived: VertexError);

/// Why fields are not a Go position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Not three fields: how many there were.
    #[error("a go position is '<size> <rows> <b|w>', got {0} field(s)")]
    Fields(usize),
    #[error("board size '{0}' is not a number")]
    Size(String),
    #[error(transparent)]
    Board(SizeError),
    #[error("expected {size} rows separated by '/', got {rows}")]
    Rows { size: usize, rows: usize },
    #[error("row {row} has {points} points, expected {size}")]
    RowLength {
        row: usize,
        points: usize,
        size: usize,
    },
    #[error("row {row} has '{character}' (use X, O or .)")]
    Point { row: usize, character: char },
    #[error("side to move '{0}' is not b or w")]
    Side(String),
    /// A block without liberties, named by one of its stones.
    #[error("the block at {0} has no liberties")]
    NoLiberties(String),
}

error_text!(derived: PositionError);

impl From<SizeError> for PositionError {
    fn from(e: SizeError) -> Self {
        PositionError::Board(e)
    }
}

/// Column letters of GTP: A..Z without I (25 letters, enough for 25x25).
pub const LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// A vertex: `None` is `pass`.
pub fn parse_vertex(text: &str, size: usize) -> Result<Option<usize>, VertexError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("pass") {
        return Ok(None);
    }
    let bad = || VertexError {
        text: t.into(),
        size,
    };
    let mut chars = t.chars();
    let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
    let col = LETTERS
        .iter()
        .position(|&l| l as char == letter)
        .ok_or_else(bad)?;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let number: usize = digits.parse().map_err(|_| bad())?;
    if col >= size || number == 0 || number > size || digits.starts_with('0') {
        return Err(bad());
    }
    Ok(Some(point_index(size, size - number, col)))
}

pub fn format_vertex(board: &Board, p: usize) -> String {
    let (row, col) = board.row_col(p);
    format!("{}{}", LETTERS[col] as char, board.size() - row)
}

pub fn format_move(board: &Board, mv: Option<usize>) -> String {
    match mv {
        None => "pass".to_string(),
        Some(p) => format_vertex(board, p),
    }
}

/// Parses `<size> <rows> <b|w>` given as separate fields.
pub fn parse_position(fields: &[String]) -> Result<(Board, Color), PositionError> {
    if fields.len() != 3 {
        return Err(PositionError::Fields(fields.len()));
    }
    let size: usize = fields[0]
        .parse()
        .map_err(|_| PositionError::Size(fields[0].clone()))?;
    let mut board = Board::new(size)?;
    let rows: Vec<&str> = fields[1].split('/').collect();
    if rows.len() != size {
        return Err(PositionError::Rows {
            size,
            rows: rows.len(),
        });
    }
    for (r, row) in rows.iter().enumerate() {
        if row.chars().count() != size {
            return Err(PositionError::RowLength {
                row: r + 1,
                points: row.chars().count(),
                size,
            });
        }
        for (c, ch) in row.chars().enumerate() {
            let cell = match ch {
                'X' | 'x' => BLACK,
                'O' | 'o' => WHITE,
                '.' => EMPTY,
                other => {
                    return Err(PositionError::Point {
                        row: r + 1,
                        character: other,
                    })
                }
            };
            board.set(board.point(r, c), cell);
        }
    }
    let to_move = match fields[2].as_str() {
        "b" | "B" => Color::Black,
        "w" | "W" => Color::White,
        other => return Err(PositionError::Side(other.into())),
    };
    // A block without liberties cannot stand on a board reached by legal play.
    for (_, stones, libs) in board.blocks() {
        if libs.is_empty() {
            return Err(PositionError::NoLiberties(format_vertex(&board, stones[0])));
        }
    }
    Ok((board, to_move))
}

/// The rows field: top row first, `/` between rows.
pub fn format_rows(board: &Board) -> String {
    let size = board.size();
    let mut out = String::with_capacity(size * (size + 1));
    for row in 0..size {
        if row > 0 {
            out.push('/');
        }
        for col in 0..size {
            out.push(match board.get(board.point(row, col)) {
                BLACK => 'X',
                WHITE => 'O',
                _ => '.',
            });
        }
    }
    out
}

/// The board as text lines: the column letters, one line per row from the top (`19  . X O ... 19`)
/// and the letters again. `d` and GTP `showboard` both draw with it.
pub fn diagram(board: &Board) -> Vec<String> {
    let size = board.size();
    let letters: String = LETTERS[..size]
        .iter()
        .map(|&l| format!(" {}", l as char))
        .collect();
    let mut lines = vec![format!("   {letters}")];
    for (row, text) in format_rows(board).split('/').enumerate() {
        let number = size - row;
        let cells: String = text.chars().map(|c| format!(" {c}")).collect();
        lines.push(format!("{number:>2} {cells} {number}"));
    }
    lines.push(format!("   {letters}"));
    lines
}

pub fn format_position(board: &Board, to_move: Color) -> String {
    format!(
        "{} {} {}",
        board.size(),
        format_rows(board),
        match to_move {
            Color::Black => 'b',
            Color::White => 'w',
        }
    )
}
