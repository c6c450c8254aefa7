//! The tic-tac-toe adapter: the game kept with its moves for `record`, `go`, `go perft` and
//! `bench`. It has no commands of its own.

use super::{perft, search, square_name, Board, Square, TicTacToeError};
use crate::games::record::{GameRecord, RecordError};
use crate::games::rules::{Rules, Verdict};
use crate::search::{Job, Limits};
use crate::session::options::Options;
use crate::session::variant::{Adapter, Kept, Out, PerftJob, SessionError, Variant};
use std::borrow::Borrow;

/// The game from its start: the board alone does not know its moves, which `record` writes.
#[derive(Clone, Debug)]
pub struct Played {
    start: Board,
    moves: Vec<Square>,
    board: Board,
}

impl From<Board> for Played {
    fn from(board: Board) -> Played {
        Played {
            start: board,
            moves: Vec::new(),
            board,
        }
    }
}

impl Borrow<Board> for Played {
    fn borrow(&self) -> &Board {
        &self.board
    }
}

/// Why a `position` command or `go perft` is refused.
#[derive(Debug, thiserror::Error)]
pub enum TicTacToeSessionError {
    #[error(transparent)]
    Rules(#[from] TicTacToeError),
    /// Move `number` (from 1) of a `position` command's list.
    #[error("move {number} '{text}': {error}")]
    Listed {
        number: usize,
        text: String,
        error: TicTacToeError,
    },
    #[error("go perft depth must be 1..{max}, got {0}", max = perft::MAX_DEPTH)]
    PerftDepth(u32),
}

pub struct TicTacToeVariant {
    kept: Kept<Played>,
}

impl TicTacToeVariant {
    pub fn new() -> Self {
        TicTacToeVariant {
            kept: Kept::new(Board::start().into()),
        }
    }
}

impl Default for TicTacToeVariant {
    fn default() -> Self {
        Self::new()
    }
}

impl Adapter for TicTacToeVariant {
    type Rules = Board;
    type Record = Played;
    type Error = TicTacToeSessionError;

    fn kept(&self) -> &Kept<Played> {
        &self.kept
    }

    fn kept_mut(&mut self) -> &mut Kept<Played> {
        &mut self.kept
    }

    fn play_listed(
        record: &mut Played,
        number: usize,
        text: &str,
    ) -> Result<(), TicTacToeSessionError> {
        let listed = |error| TicTacToeSessionError::Listed {
            number,
            text: crate::text::printable(text),
            error,
        };
        let mv = record.board.parse_move(text).map_err(listed)?;
        record.board.play(mv).map_err(listed)?;
        record.moves.push(mv);
        Ok(())
    }

    /// Who is to move, or how the game ended: `x wins by three in a row`, as the rooms say it.
    fn status(&self) -> Vec<String> {
        let board = self.rules();
        vec![match board.outcome() {
            Some(end) => match end.verdict {
                Verdict::Win(side) => {
                    format!("{} wins by {}", Board::PLAYERS[side.index()], end.reason)
                }
                Verdict::Draw => format!("draw by {}", end.reason),
            },
            None => format!("{} to move", Board::PLAYERS[board.side_to_move().index()]),
        }]
    }

    fn game_record(&self, _options: &Options) -> GameRecord<Board> {
        let Kept { record, tags, .. } = &self.kept;
        let mut game = GameRecord::new(record.start);
        game.tags = tags.clone();
        game.moves = record.moves.clone();
        game
    }

    fn load_record(game: &GameRecord<Board>) -> Result<Played, RecordError> {
        Ok(Played {
            start: game.start,
            moves: game.moves.clone(),
            board: game.replay()?,
        })
    }
}

impl Variant for TicTacToeVariant {
    fn perft(&self, depth: u32, _options: &Options, _out: Out) -> Result<PerftJob, SessionError> {
        if depth == 0 || depth > perft::MAX_DEPTH {
            return Err(SessionError::game(TicTacToeSessionError::PerftDepth(depth)));
        }
        let board = self.kept.record.board;
        Ok(Box::new(move |stop| {
            board
                .legal_moves()
                .into_iter()
                .map(|mv| {
                    let mut next = board;
                    next.play(mv).ok()?;
                    Some((square_name(mv), perft::perft(&next, depth - 1, &stop)?))
                })
                .collect()
        }))
    }

    fn search(&self, _limits: &Limits, _options: &Options) -> Job {
        search::job(self.kept.record.board)
    }

    fn bench(&mut self, _options: &Options, out: Out) -> Result<(), SessionError> {
        for line in search::bench() {
            out(&line);
        }
        Ok(())
    }
}
