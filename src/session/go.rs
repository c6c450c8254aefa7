//! The go adapter: protocol notation and output lines over `games::go`. See protocol/go.md.

use super::options::Options;
use super::variant::{Out, PerftJob, Variant};
use crate::games::go::analysis::{classic, extended};
use crate::games::go::notation::{format_move, format_position, parse_position, parse_vertex};
use crate::games::go::{perft, sgf, Board, Color, Game};
use crate::protocol::{Command, StartSpec};
use crate::search::go::policy;
use crate::search::{Info, Job, Limits, Outcome, Report};

pub struct GoVariant {
    game: Game,
}

impl GoVariant {
    pub fn new() -> Self {
        GoVariant {
            game: Game::empty(19).unwrap_or_else(|_| unreachable!("19 is a valid size")),
        }
    }
}

impl Default for GoVariant {
    fn default() -> Self {
        Self::new()
    }
}

/// Plays `moves` (GTP vertices or `pass`) on `game`; the first bad one is named.
fn apply_moves(game: &mut Game, moves: &[String]) -> Result<(), String> {
    for (i, text) in moves.iter().enumerate() {
        let mv = parse_vertex(text, game.board.size())
            .map_err(|e| format!("move {} '{text}': {e}", i + 1))?;
        game.play(mv)
            .map_err(|e| format!("move {} '{text}' is illegal: {e}", i + 1))?;
    }
    Ok(())
}

impl Variant for GoVariant {
    fn set_position(
        &mut self,
        start: &StartSpec,
        moves: &[String],
        _options: &Options,
    ) -> Result<(), String> {
        let mut game = match start {
            StartSpec::Startpos => Game::empty(19)?,
            StartSpec::Sfen(fields) => {
                let (board, to_move) = parse_position(fields)?;
                Game::new(board, to_move)
            }
        };
        apply_moves(&mut game, moves)?;
        self.game = game;
        Ok(())
    }

    fn display(&self) -> Vec<String> {
        let board = &self.game.board;
        let mut lines = crate::games::go::notation::diagram(board);
        let ko = match self.game.ko {
            Some(p) => format!(", ko at {}", format_move(board, Some(p))),
            None => String::new(),
        };
        lines.push(format!(
            "{} to move{ko}",
            match self.game.to_move {
                Color::Black => "black",
                Color::White => "white",
            }
        ));
        lines.push(format!(
            "sfen {}",
            format_position(board, self.game.to_move)
        ));
        lines
    }

    fn legal_moves(&self, _options: &Options) -> Vec<String> {
        self.game
            .legal_points()
            .into_iter()
            .map(|p| format_move(&self.game.board, Some(p)))
            .collect()
    }

    fn perft(&self, depth: u32, _options: &Options, _out: Out) -> Result<PerftJob, String> {
        if depth == 0 || depth > perft::MAX_DEPTH {
            return Err(format!(
                "go perft depth must be 1..{}, got {depth}",
                perft::MAX_DEPTH
            ));
        }
        let mut game = self.game.clone();
        Ok(Box::new(move |stop| {
            let divide = perft::divide_until(&mut game, depth, &stop)?;
            Some(
                divide
                    .into_iter()
                    .map(|(p, n)| (format_move(&game.board, Some(p)), n))
                    .collect(),
            )
        }))
    }

    fn search(&self, limits: &Limits, options: &Options) -> Job {
        let game = self.game.clone();
        let limits = limits.clone();
        let seed = options.seed;
        Box::new(move |control, report| {
            let (mv, examined) = policy::choose(&game, game.to_move, seed);
            let best = format_move(&game.board, mv);
            report(Report::Text(format!(
                "go policy examined {examined} points"
            )));
            // In infinite and ponder modes the answer waits for `stop` / `ponderhit`.
            while (limits.infinite || control.is_pondering()) && !control.is_stopped() {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Outcome {
                info: Info {
                    depth: 1,
                    seldepth: 1,
                    score: 0,
                    nodes: examined,
                    time_ms: control.elapsed_ms(),
                    pv: vec![best.clone()],
                    multipv: None,
                    hashfull: None,
                },
                best: Some(best),
                ponder: None,
            }
        })
    }

    fn first_player_to_move(&self) -> bool {
        self.game.to_move == Color::Black
    }

    fn bench(&mut self, _options: &Options, out: Out) -> Result<(), String> {
        // A fixed self-play game on 9x9 with the move chooser; its node count is the signature.
        let mut game = Game::empty(9)?;
        let mut nodes = 0u64;
        let mut passes = 0;
        let mut moves = 0;
        while passes < 2 && moves < 200 {
            let (mv, examined) = policy::choose(&game, game.to_move, 0);
            nodes += examined;
            passes = if mv.is_none() { passes + 1 } else { 0 };
            game.play(mv)
                .map_err(|e| format!("bench: chosen move illegal ({e})"))?;
            moves += 1;
        }
        out(&format!("go bench: self-play on 9x9, {moves} moves"));
        out(&format!("Nodes searched: {nodes}"));
        Ok(())
    }

    fn extension(&mut self, command: &Command, _options: &Options, out: Out) -> Result<(), String> {
        match command {
            Command::Benson { classic: true } => {
                for line in classic(&self.game.board).report(&self.game.board) {
                    out(&line);
                }
                Ok(())
            }
            Command::Benson { classic: false } => {
                let board: &Board = &self.game.board;
                for line in extended(board, self.game.ko).report(board) {
                    out(&line);
                }
                Ok(())
            }
            Command::LoadSgf(path) => {
                let text = sgf::read_file(path)?;
                self.game = sgf::load(&text).map_err(|e| format!("'{path}': {e}"))?;
                Ok(())
            }
            Command::LoadSgfText(text) => {
                self.game = sgf::load(text)?;
                Ok(())
            }
            Command::Undo => {
                if self.game.undo() {
                    Ok(())
                } else {
                    Err("nothing to undo".into())
                }
            }
            other => Err(format!(
                "{} is not available in go",
                super::variant::command_name(other)
            )),
        }
    }
}
