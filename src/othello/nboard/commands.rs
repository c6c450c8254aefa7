//! NBoard's commands, one method each: the game and settings a GUI sets, the moves it plays,
//! and the searches it asks for (started here, run by `task.rs`). The loop in `mod.rs` only
//! queues and dispatches them, so what a command answers is read here.

use super::task;
use super::{Event, Front, MAX_DEPTH, NAME};
use crate::games::record::Tags;
use crate::othello::ggf::{self, GgfError, MoveItem, Played, Record};
use crate::othello::record;
use crate::text::printable;
use std::io::Write;

impl<W: Write> Front<W> {
    pub(super) fn nboard(&mut self, rest: &str) -> Result<(), Failure> {
        match rest.parse::<u32>() {
            Ok(v) if v >= 1 => {
                self.line(&format!("set myname {NAME}"));
                Ok(())
            }
            _ => Err(Failure::Version(rest.into())),
        }
    }

    pub(super) fn set(&mut self, rest: &str) -> Result<(), Failure> {
        let (what, value) = match rest.split_once(char::is_whitespace) {
            Some((w, v)) => (w, v.trim()),
            None => (rest, ""),
        };
        match what {
            "game" => match ggf::parse(value) {
                Ok(game) => {
                    self.game = Some(game);
                    self.tags = record::read_ggf(value).map(|r| r.tags).unwrap_or_default();
                    Ok(())
                }
                Err(e) => {
                    self.game = None;
                    self.tags = Tags::default();
                    Err(Failure::Game(e))
                }
            },
            "depth" => match value.parse::<u32>() {
                Ok(d) if (1..=MAX_DEPTH).contains(&d) => {
                    self.depth.plies = d;
                    self.line(&format!("set myname {NAME}-{d}"));
                    Ok(())
                }
                _ => Err(Failure::Depth(value.into())),
            },
            // Checked, then accepted without effect: the search has no contempt (a proven draw
            // scores 0 for both sides).
            "contempt" => match value.parse::<i32>() {
                Ok(c) if c.abs() <= 6400 => Ok(()),
                _ => Err(Failure::Contempt(value.into())),
            },
            "" => Err(Failure::NoSetting),
            other => Err(Failure::Setting(other.into())),
        }
    }

    /// The game, unless the last `set game` was refused.
    fn game(&self, command: &'static str) -> Result<&Record, Failure> {
        self.game.as_ref().ok_or(Failure::NoGame(command))
    }

    pub(super) fn play(&mut self, text: &str) -> Result<(), Failure> {
        let item = ggf::parse_move_item(text).map_err(Failure::MoveText)?;
        let position = self.game("move")?.position;
        let played =
            ggf::play(&position, item.square).map_err(|e| Failure::Move(item.to_text(), e))?;
        let Some(game) = self.game.as_mut() else {
            return Err(Failure::NoGame("move"));
        };
        let black = position.black_to_move;
        match played {
            Played::Moved(next) => {
                game.moves.push((black, item));
                game.position = next;
            }
            Played::PassedThenMoved(next) => {
                let pass = MoveItem {
                    square: None,
                    eval: None,
                    time: None,
                };
                game.moves.push((black, pass));
                game.moves.push((!black, item));
                game.position = next;
            }
        }
        Ok(())
    }

    pub(super) fn ping(&mut self, rest: &str) -> Result<(), Failure> {
        let n: i64 = rest.parse().map_err(|_| Failure::Ping(rest.into()))?;
        self.line(&format!("pong {n}"));
        Ok(())
    }

    /// Refuses a search when the game is over; false when the side to move must pass.
    fn searchable(&self, command: &'static str) -> Result<bool, Failure> {
        let board = self.game(command)?.position.board;
        if board.is_game_over() {
            return Err(Failure::GameOver(command));
        }
        Ok(board.moves() != 0)
    }

    pub(super) fn go(&mut self, rest: &str) -> Result<(), Failure> {
        if !rest.is_empty() {
            return Err(Failure::GoArguments);
        }
        if !self.searchable("go")? {
            self.line("=== PA");
            return Ok(());
        }
        let game = self.game("go")?;
        let board = game.position.board;
        let movetime = game
            .remaining_ms(game.position.black_to_move)
            .map(|left| task::move_budget_ms(left, board.empties().count_ones()));
        let depth = self.depth;
        self.start(movetime, move |control, send| {
            task::go(&board, depth, control, &mut |l| send(Event::Out(l)))
        });
        Ok(())
    }

    pub(super) fn hint(&mut self, rest: &str) -> Result<(), Failure> {
        let n = if rest.is_empty() {
            1
        } else {
            match rest.parse::<u32>() {
                Ok(n) if n >= 1 => n as usize,
                _ => return Err(Failure::Hint(rest.into())),
            }
        };
        self.searchable("hint")?;
        let (board, depth) = (self.game("hint")?.position.board, self.depth);
        self.start(None, move |control, send| {
            task::hint(&board, n, depth, control, &mut |l| send(Event::Out(l)))
        });
        Ok(())
    }

    /// `analyze`: every position of the game evaluated, from the last to the first.
    pub(super) fn analyze(&mut self, rest: &str) -> Result<(), Failure> {
        if !rest.is_empty() {
            return Err(Failure::Arguments("analyze"));
        }
        let spots = task::game_positions(self.game("analyze")?);
        let depth = self.depth;
        self.start(None, move |control, send| {
            task::analyze(&spots, depth, control, &mut |spot, score| {
                send(Event::Analysis(spot, score))
            })
        });
        Ok(())
    }

    /// `record [path]` (ryoshi's, not NBoard's): the game as GGF (protocol/nboard.md), with the
    /// evals of `analyze` on its moves. Without a path, the GGF on one line; with one, the file
    /// is written and `status record written to <path>` answers.
    pub(super) fn record(&mut self, path: &str) -> Result<(), Failure> {
        let game = self.game("record")?;
        let text = record::write_ggf(&record::from_ggf_game(game, self.tags.clone()));
        if path.is_empty() {
            self.line(&text);
            return Ok(());
        }
        crate::files::write_file(path, &format!("{text}\n"))
            .map_err(|e| Failure::Write(path.into(), e.to_string()))?;
        self.line(&format!("status record written to {}", printable(path)));
        Ok(())
    }

    /// Keeps the value `analyze` found at `spot` as the eval of the move played from there,
    /// in discs for its mover (GGF's and NBoard's `B[F5/<eval>]`), replacing the eval the move
    /// came with. The game cannot change during the analysis: commands wait for it.
    pub(super) fn keep_analysis(&mut self, spot: &task::Spot, score: i32) {
        let (Some(game), Some(i)) = (self.game.as_mut(), spot.item) else {
            return;
        };
        if let Some((_, item)) = game.moves.get_mut(i) {
            if item.square.is_some() {
                item.eval = Some(f64::from(score) / 100.0);
            }
        }
    }
}

/// Why a command is refused: its Display is the text of the `status error: ...` line. Texts
/// from the input are written printable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("unknown command '{}'", printable(.0))]
    UnknownCommand(String),
    #[error("nboard expects a protocol version of 1 or more, not '{}'", printable(.0))]
    Version(String),
    /// `set game`: the GGF text is refused.
    #[error("set game: {0}")]
    Game(GgfError),
    #[error("set depth expects 1 to {MAX_DEPTH}, not '{}'", printable(.0))]
    Depth(String),
    #[error(
        "set contempt expects centi-discs from -6400 to 6400, not '{}'",
        printable(.0)
    )]
    Contempt(String),
    #[error("set {} is not supported (game, depth, contempt)", printable(.0))]
    Setting(String),
    /// A bare `set`.
    #[error("set: which setting? (game, depth, contempt)")]
    NoSetting,
    /// `move`: the move text is refused.
    #[error("move: {0}")]
    MoveText(GgfError),
    /// `move`: the move (as GGF writes it) is refused.
    #[error("move {0}: {1}")]
    Move(String, GgfError),
    #[error("ping expects an integer, not '{}'", printable(.0))]
    Ping(String),
    /// `go` or `hint` after the end of the game.
    #[error("{0}: the game is over")]
    GameOver(&'static str),
    /// `go`, `hint` or `move` after a refused `set game`.
    #[error("{0}: no game, the last set game was refused (send a set game that is accepted)")]
    NoGame(&'static str),
    #[error("go takes no arguments")]
    GoArguments,
    /// A command that takes no arguments got some.
    #[error("{0} takes no arguments")]
    Arguments(&'static str),
    /// `record <path>`: the file cannot be written.
    #[error("record: cannot write '{}': {}", printable(.0), .1)]
    Write(String, String),
    #[error("hint expects a number of moves of 1 or more, not '{}'", printable(.0))]
    Hint(String),
}
