//! Per-point results of the safety analyses, in the vocabulary of GNU Go's
//! `unconditional_status`, and the six-line `benson` report.

use super::benson::Benson;
use super::board::{Board, Color, EMPTY};
use super::notation::format_vertex;
use super::unconditional::unconditional_life;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Undecided,
    /// A stone that can never be captured.
    Alive,
    /// A stone that is unconditionally dead.
    Dead,
    /// An empty point that is the given colour's unconditional territory.
    Territory(Color),
}

impl Status {
    /// GTP's word for it.
    pub fn gtp_name(self) -> &'static str {
        match self {
            Status::Undecided => "undecided",
            Status::Alive => "alive",
            Status::Dead => "dead",
            Status::Territory(Color::Black) => "black_territory",
            Status::Territory(Color::White) => "white_territory",
        }
    }
}

/// Status of every point of a board (indexed by point; off-board entries are `Undecided`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub status: Vec<Status>,
}

impl Analysis {
    /// From the points proven safe for each colour: own stones alive, opponent stones dead,
    /// empty points territory.
    pub fn from_safe(board: &Board, safe_black: &[bool], safe_white: &[bool]) -> Analysis {
        let mut status = vec![Status::Undecided; board.len()];
        for p in board.points() {
            for (color, safe) in [(Color::Black, safe_black), (Color::White, safe_white)] {
                if !safe[p] {
                    continue;
                }
                let c = board.get(p);
                status[p] = if c == EMPTY {
                    Status::Territory(color)
                } else if c == color.cell() {
                    Status::Alive
                } else {
                    Status::Dead
                };
            }
        }
        Analysis { status }
    }

    /// The colour a point is safe for, if any (an alive stone's own colour, a dead stone's
    /// opponent, the owner of territory).
    pub fn owner(&self, board: &Board, p: usize) -> Option<Color> {
        match self.status[p] {
            Status::Undecided => None,
            Status::Territory(c) => Some(c),
            Status::Alive => Color::from_cell(board.get(p)),
            Status::Dead => Color::from_cell(board.get(p)).map(Color::other),
        }
    }

    /// `alive b`, `alive w`, `dead b`, `dead w`, `territory b`, `territory w`, each followed by
    /// its vertices sorted by column, then by row number.
    pub fn report(&self, board: &Board) -> Vec<String> {
        let mut lines = Vec::with_capacity(6);
        let mut points: Vec<usize> = board.points().collect();
        points.sort_by_key(|&p| {
            let (row, col) = board.row_col(p);
            (col, board.size() - row)
        });
        let kinds: [(&str, &dyn Fn(usize) -> bool); 6] = [
            ("alive b", &|p| {
                self.status[p] == Status::Alive && board.get(p) == Color::Black.cell()
            }),
            ("alive w", &|p| {
                self.status[p] == Status::Alive && board.get(p) == Color::White.cell()
            }),
            ("dead b", &|p| {
                self.status[p] == Status::Dead && board.get(p) == Color::Black.cell()
            }),
            ("dead w", &|p| {
                self.status[p] == Status::Dead && board.get(p) == Color::White.cell()
            }),
            ("territory b", &|p| {
                self.status[p] == Status::Territory(Color::Black)
            }),
            ("territory w", &|p| {
                self.status[p] == Status::Territory(Color::White)
            }),
        ];
        for (label, wanted) in kinds {
            let mut line = label.to_string();
            for &p in &points {
                if wanted(p) {
                    line.push(' ');
                    line.push_str(&format_vertex(board, p));
                }
            }
            lines.push(line);
        }
        lines
    }
}

/// `benson classic`: Benson's algorithm for both colours (see [`super::benson`]).
pub fn classic(board: &Board) -> Analysis {
    let mut benson = Benson::new();
    let (mut b, mut w) = (Vec::new(), Vec::new());
    benson.both(board, &mut b, &mut w);
    Analysis::from_safe(board, &b, &w)
}

/// `benson` / GTP `unconditional_status`: the extended analysis (see [`super::unconditional`]).
/// `ko` is the point the side to move may not retake, if any.
pub fn extended(board: &Board, ko: Option<usize>) -> Analysis {
    let mut status = vec![Status::Undecided; board.len()];
    if board.is_empty() {
        return Analysis { status };
    }
    for color in [Color::White, Color::Black] {
        let marks = unconditional_life(board, ko, color);
        for p in board.points() {
            if marks[p] == 0 {
                continue;
            }
            let c = board.get(p);
            status[p] = if c == color.cell() {
                Status::Alive
            } else if c == EMPTY {
                Status::Territory(color)
            } else {
                Status::Dead
            };
        }
    }
    Analysis { status }
}
