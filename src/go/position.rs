//! A game record: the board, the side to move, the ko point and the history for `undo`.

use super::board::{Board, Color, Illegal, SizeError, EMPTY};
use crate::games::error_text;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub board: Board,
    pub to_move: Color,
    /// The point the side to move may not play at once (simple ko).
    pub ko: Option<usize>,
    history: Vec<(Board, Color, Option<usize>)>,
}

impl Position {
    pub fn new(board: Board, to_move: Color) -> Position {
        Position {
            board,
            to_move,
            ko: None,
            history: Vec::new(),
        }
    }

    pub fn empty(size: usize) -> Result<Position, SizeError> {
        Ok(Position::new(Board::new(size)?, Color::Black))
    }

    /// Plays `color` at `mv` (`None` = pass); the side to move becomes the other colour.
    pub fn play_as(&mut self, color: Color, mv: Option<usize>) -> Result<(), Illegal> {
        let saved = (self.board.clone(), self.to_move, self.ko);
        let ko = if color == self.to_move { self.ko } else { None };
        let new_ko = match mv {
            None => None,
            Some(p) => self.board.play(p, color, ko)?.ko,
        };
        self.history.push(saved);
        self.ko = new_ko;
        self.to_move = color.other();
        Ok(())
    }

    pub fn play(&mut self, mv: Option<usize>) -> Result<(), Illegal> {
        self.play_as(self.to_move, mv)
    }

    pub fn undo(&mut self) -> bool {
        match self.history.pop() {
            Some((board, to_move, ko)) => {
                self.board = board;
                self.to_move = to_move;
                self.ko = ko;
                true
            }
            None => false,
        }
    }

    /// Puts black stones on `points` of an empty board as one step (one `undo` takes them all
    /// back); white is then to move.
    pub fn place_handicap(&mut self, points: &[usize]) -> Result<(), HandicapError> {
        if !self.board.is_empty() {
            return Err(HandicapError::NotEmpty);
        }
        let mut board = self.board.clone();
        for &p in points {
            if board.get(p) != EMPTY {
                return Err(HandicapError::Repeated);
            }
            board.set(p, Color::Black.cell());
        }
        self.history.push((
            std::mem::replace(&mut self.board, board),
            self.to_move,
            self.ko,
        ));
        self.ko = None;
        self.to_move = Color::White;
        Ok(())
    }

    /// The passes played just before this position (a pass is the one move that leaves the
    /// board as it was; handicap placement changes it).
    pub fn passes(&self) -> u8 {
        let mut board = &self.board;
        let mut count = 0;
        for (before, _, _) in self.history.iter().rev() {
            if before != board || count == u8::MAX {
                break;
            }
            count += 1;
            board = before;
        }
        count
    }

    pub fn moves_played(&self) -> usize {
        self.history.len()
    }

    /// The legal points for the side to move, in scanning order (pass not included).
    pub fn legal_points(&self) -> Vec<usize> {
        self.board
            .points()
            .filter(|&p| {
                self.board.get(p) == EMPTY && self.board.is_legal(p, self.to_move, self.ko)
            })
            .collect()
    }
}

/// Why handicap stones cannot be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandicapError {
    #[error("board not empty")]
    NotEmpty,
    #[error("repeated vertex")]
    Repeated,
}

error_text!(derived: HandicapError);
