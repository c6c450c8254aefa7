//! A game record: the board, the side to move, the ko point and the history for `undo`.
//!
//! The history keeps each move, not each board: the point, who played it, the side to move and
//! the ko point before it, and the stones it captured (8 bytes a move and 2 a captured stone,
//! where a whole 19x19 board was some 540), so a long record costs memory in proportion to its
//! moves. `undo` puts the captured stones back.

use super::board::{Board, Color, Illegal, SizeError, EMPTY};
use crate::games::error_text;

/// A history step's point for a pass.
const PASS: u16 = u16::MAX;
/// A history step's point for handicap stones (placed all at once; `changes` lists them).
const HANDICAP: u16 = u16::MAX - 1;
/// A history step's ko point when there was none.
const NO_KO: u16 = u16::MAX;

/// One step of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    /// The point played, [`PASS`] or [`HANDICAP`].
    point: u16,
    /// Who played it.
    color: Color,
    /// The side to move and the ko point before it.
    to_move: Color,
    /// The ko point, or [`NO_KO`].
    ko: u16,
    /// How many points at the end of `changes` are this step's (captured, or placed handicap):
    /// at most a board's 625 points.
    changed: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub board: Board,
    pub to_move: Color,
    /// The point the side to move may not play at once (simple ko).
    pub ko: Option<usize>,
    history: Vec<Step>,
    /// The points each step changed besides its own, the steps' runs one after the other.
    changes: Vec<u16>,
}

impl Position {
    pub fn new(board: Board, to_move: Color) -> Position {
        Position {
            board,
            to_move,
            ko: None,
            history: Vec::new(),
            changes: Vec::new(),
        }
    }

    pub fn empty(size: usize) -> Result<Position, SizeError> {
        Ok(Position::new(Board::new(size)?, Color::Black))
    }

    /// Plays `color` at `mv` (`None` = pass); the side to move becomes the other colour.
    pub fn play_as(&mut self, color: Color, mv: Option<usize>) -> Result<(), Illegal> {
        let ko = if color == self.to_move { self.ko } else { None };
        let mark = self.changes.len();
        let new_ko = match mv {
            None => None,
            Some(p) => match self.board.play_capturing(p, color, ko, &mut self.changes) {
                Ok(played) => played.ko,
                Err(e) => {
                    self.changes.truncate(mark);
                    return Err(e);
                }
            },
        };
        self.history.push(Step {
            // Points index a board of at most 25x25, below both markers.
            point: mv.map_or(PASS, |p| p as u16),
            color,
            to_move: self.to_move,
            ko: self.ko.map_or(NO_KO, |k| k as u16),
            changed: (self.changes.len() - mark) as u16,
        });
        self.ko = new_ko;
        self.to_move = color.other();
        Ok(())
    }

    pub fn play(&mut self, mv: Option<usize>) -> Result<(), Illegal> {
        self.play_as(self.to_move, mv)
    }

    pub fn undo(&mut self) -> bool {
        let Some(step) = self.history.pop() else {
            return false;
        };
        let from = self.changes.len() - step.changed as usize;
        let restored = match step.point {
            HANDICAP => EMPTY,
            PASS => step.color.other().cell(),
            p => {
                self.board.set(p as usize, EMPTY);
                step.color.other().cell()
            }
        };
        for &q in &self.changes[from..] {
            self.board.set(q as usize, restored);
        }
        self.changes.truncate(from);
        self.to_move = step.to_move;
        self.ko = (step.ko != NO_KO).then_some(usize::from(step.ko));
        true
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
        self.board = board;
        self.changes.extend(points.iter().map(|&p| p as u16));
        self.history.push(Step {
            point: HANDICAP,
            color: Color::Black,
            to_move: self.to_move,
            ko: self.ko.map_or(NO_KO, |k| k as u16),
            changed: points.len() as u16,
        });
        self.ko = None;
        self.to_move = Color::White;
        Ok(())
    }

    /// The passes played just before this position.
    pub fn passes(&self) -> u8 {
        let passes = self
            .history
            .iter()
            .rev()
            .take_while(|s| s.point == PASS)
            .count();
        passes.min(u8::MAX as usize) as u8
    }

    pub fn moves_played(&self) -> usize {
        self.history.len()
    }

    /// The moves played, oldest first: who played and where (`None` = pass). Handicap
    /// placements are left out (they belong to the start: see [`Position::start`]).
    pub fn moves(&self) -> Vec<(Color, Option<usize>)> {
        self.history
            .iter()
            .filter(|s| s.point != HANDICAP)
            .map(|s| (s.color, (s.point != PASS).then_some(s.point as usize)))
            .collect()
    }

    /// The moves that lead from `earlier` to this position, oldest first (who played and where,
    /// `None` = pass), when this position is exactly `earlier` followed by moves: played forward
    /// from `earlier`, they give this board, history, side to move and ko ban. `None` otherwise,
    /// or when handicap stones were placed in between. (The side to move and the ko ban are
    /// checked after the moves, not only before: a caller may set them apart from the history,
    /// as GTP's move out of turn does, and a search tree kept for the history's side would then
    /// be searched for the other.)
    pub fn moves_since(&self, earlier: &Position) -> Option<Vec<(Color, Option<usize>)>> {
        let (before, steps) = self.history.split_at_checked(earlier.history.len())?;
        // Another board (size) or history: no moves lead from it (and its board cannot take them).
        if self.board.size() != earlier.board.size() || before != earlier.history {
            return None;
        }
        if steps.iter().any(|s| s.point == HANDICAP) {
            return None;
        }
        let moves: Vec<(Color, Option<usize>)> = steps
            .iter()
            .map(|s| (s.color, (s.point != PASS).then_some(s.point as usize)))
            .collect();
        let mut forward = earlier.clone();
        for &(color, mv) in &moves {
            forward.play_as(color, mv).ok()?;
        }
        (forward == *self).then_some(moves)
    }

    /// The position before the first move (after any handicap placed first), with no history.
    pub fn start(&self) -> Position {
        let mut start = self.clone();
        let keep = usize::from(self.history.first().is_some_and(|s| s.point == HANDICAP));
        while start.history.len() > keep {
            start.undo();
        }
        Position::new(start.board, start.to_move)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::notation::{format_position, parse_vertex};

    fn play(game: &mut Position, moves: &str) {
        for m in moves.split_whitespace() {
            let mv = parse_vertex(m, game.board.size()).unwrap();
            game.play(mv).unwrap();
        }
    }

    #[test]
    fn moves_since_reads_the_moves_after_an_earlier_position() {
        let mut game = Position::empty(5).unwrap();
        play(&mut game, "C3 B2");
        let earlier = game.clone();
        play(&mut game, "D4 pass");
        let b2 = game.board.point(3, 1);
        let d4 = parse_vertex("D4", 5).unwrap();
        assert_eq!(
            game.moves_since(&earlier),
            Some(vec![(Color::Black, d4), (Color::White, None)])
        );
        assert_eq!(game.moves_since(&game), Some(Vec::new()));
        // Not the other way, nor from a position the game never went through.
        assert_eq!(earlier.moves_since(&game), None);
        let mut other = Position::empty(5).unwrap();
        play(&mut other, "C3 D2");
        assert_eq!(game.moves_since(&other), None);
        // The same board by another history is another game.
        let same_board = Position::new(earlier.board.clone(), earlier.to_move);
        assert_eq!(game.moves_since(&same_board), None);
        assert_eq!(game.board.get(b2), Color::White.cell());
        // A side to move or ko ban set apart from the history (GTP's move out of turn) is
        // another position than the moves lead to.
        let mut out_of_turn = game.clone();
        out_of_turn.to_move = out_of_turn.to_move.other();
        assert_eq!(out_of_turn.moves_since(&earlier), None);
        assert_eq!(out_of_turn.moves_since(&out_of_turn), Some(Vec::new()));
        // A longer game on another board is no continuation (and is not replayed on this one).
        let mut bigger = Position::empty(9).unwrap();
        play(&mut bigger, "J9 H9 G9 F9");
        assert_eq!(bigger.moves_since(&earlier), None);
        // Handicap stones in between break the chain.
        let empty = Position::empty(5).unwrap();
        let mut handicap = empty.clone();
        handicap.place_handicap(&[b2]).unwrap();
        assert_eq!(handicap.moves_since(&empty), None);
    }

    #[test]
    fn a_step_is_eight_bytes() {
        // A record's history is as long as its moves: reading one stays within 16x the file
        // (issue 70, tests/record_memory.rs).
        assert_eq!(std::mem::size_of::<Step>(), 8);
    }

    #[test]
    fn undo_puts_captured_stones_and_handicap_back() {
        let mut game = Position::empty(5).unwrap();
        game.place_handicap(&[game.board.point(1, 1)]).unwrap();
        let mut texts = vec![format_position(&game.board, game.to_move)];
        // Black's B5 captures white's A5, then both pass.
        for m in ["A5", "A4", "C4", "B5", "pass", "pass"] {
            play(&mut game, m);
            texts.push(format_position(&game.board, game.to_move));
        }
        assert_eq!(game.passes(), 2);
        assert_eq!(game.moves().len(), 6);
        assert_eq!(
            game.board.get(game.board.point(0, 0)),
            EMPTY,
            "A5 was captured"
        );
        assert_eq!(
            format_position(&game.start().board, game.start().to_move),
            texts[0]
        );
        for want in texts.iter().rev() {
            assert_eq!(&format_position(&game.board, game.to_move), want);
            game.undo();
        }
        assert!(game.board.is_empty(), "the handicap is taken back last");
        assert!(!game.undo());
    }
}
