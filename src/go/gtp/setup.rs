//! Board setup: the size, the komi, taking back, handicap stones and the board
//! diagram. Each command that replaces the game forgets the handicap, so that komi compensation
//! follows only the stones of the game on the board.

use super::{Failure, Gtp};
use crate::go::notation::{format_vertex, parse_vertex};
use crate::go::search::policy;
use crate::go::{handicap, Color, Position};

/// Largest komi taken either way (`komi`, a loaded `KM`): a score must stay a number.
pub(super) const MAX_KOMI: f64 = 1e6;

impl Gtp {
    pub(super) fn boardsize(&mut self, size: &str) -> Result<String, Failure> {
        let digits = size.strip_prefix(['-', '+']).unwrap_or(size);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Failure::NotInteger("boardsize"));
        }
        // Any other integer (`-1`, 10^30) is one this engine cannot play on, as GNU Go says.
        let size: usize = size.parse().map_err(|_| Failure::UnacceptableSize)?;
        let game = Position::empty(size).map_err(|_| Failure::UnacceptableSize)?;
        self.new_game(game);
        Ok(String::new())
    }

    pub(super) fn clear_board(&mut self) -> Result<String, Failure> {
        let game = Position::empty(self.game.board.size())?;
        self.new_game(game);
        Ok(String::new())
    }

    /// Another game from `game` (`boardsize`, `clear_board`, `loadsgf`): no handicap, win
    /// rates or tree of the last one, and each side's clock full again under the same time
    /// settings (GNU Go's `init_timers`), for a controller that plays game after game.
    pub(super) fn new_game(&mut self, game: Position) {
        self.game = game;
        self.handicap = None;
        self.winrates.clear();
        self.forget_tree();
        self.clock = self.clock.restarted();
    }

    pub(super) fn komi(&mut self, komi: &str) -> Result<String, Failure> {
        let k: f64 = komi.parse().map_err(|_| Failure::KomiNotFloat)?;
        if k.is_nan() || k.abs() > MAX_KOMI {
            return Err(Failure::KomiNotFloat);
        }
        self.komi = k;
        Ok(String::new())
    }

    /// Takes back the last move; handicap stones are not moves (GTP, GNU Go): they stay.
    pub(super) fn undo(&mut self) -> Result<String, Failure> {
        let at_handicap = matches!(self.handicap, Some((at, _)) if at == self.game.moves_played());
        if !at_handicap && self.game.undo() {
            self.forget_tree();
            Ok(String::new())
        } else {
            Err(Failure::CannotUndo)
        }
    }

    pub(super) fn fixed_handicap(&mut self, count: &str) -> Result<String, Failure> {
        let n = self.handicap_count(count)?;
        let points = handicap::fixed_points(&self.game.board, n).ok_or(Failure::InvalidStones)?;
        self.put_handicap(&points)
    }

    pub(super) fn place_free_handicap(&mut self, count: &str) -> Result<String, Failure> {
        let n = self.handicap_count(count)?;
        let points = self.free_handicap(n);
        if points.is_empty() {
            return Err(Failure::InvalidStones);
        }
        self.put_handicap(&points)
    }

    /// `set_free_handicap <vertex>...`
    pub(super) fn set_free_handicap(&mut self, args: &[&str]) -> Result<String, Failure> {
        let size = self.game.board.size();
        if args.len() < 2 || args.len() >= size * size {
            return Err(Failure::BadVertexList);
        }
        let mut points = Vec::with_capacity(args.len());
        for a in args {
            match parse_vertex(a, size) {
                Ok(Some(p)) if !points.contains(&p) => points.push(p),
                _ => return Err(Failure::BadVertexList),
            }
        }
        if !self.game_is_new() {
            return Err(Failure::BoardNotEmpty);
        }
        self.put_handicap(&points).map(|_| String::new())
    }

    /// Parses a handicap count for `fixed_handicap` / `place_free_handicap` on an empty board.
    fn handicap_count(&self, arg: &str) -> Result<usize, Failure> {
        let n: usize = arg.parse().map_err(|_| Failure::NotInteger("handicap"))?;
        if !self.game_is_new() {
            return Err(Failure::BoardNotEmpty);
        }
        let size = self.game.board.size();
        if n < 2 || n >= size * size {
            return Err(Failure::InvalidStones);
        }
        Ok(n)
    }

    /// Whether handicap stones may go down: an empty board before any move (a pass too), so
    /// that they are the game's start, as a record writes them.
    fn game_is_new(&self) -> bool {
        self.game.board.is_empty() && self.game.moves_played() == 0
    }

    /// Places handicap stones and replies with their vertices.
    fn put_handicap(&mut self, points: &[usize]) -> Result<String, Failure> {
        self.game.place_handicap(points)?;
        self.handicap = Some((self.game.moves_played(), points.len()));
        let board = &self.game.board;
        Ok(points
            .iter()
            .map(|&p| format_vertex(board, p))
            .collect::<Vec<_>>()
            .join(" "))
    }

    /// The engine's choice of `n` free handicap stones: the fixed placement as far as it goes,
    /// then the move chooser's black moves; fewer when it finds nothing more worth placing.
    fn free_handicap(&self, n: usize) -> Vec<usize> {
        let fixed = n.min(handicap::max_fixed(self.game.board.size()));
        let mut points = handicap::fixed_points(&self.game.board, fixed).unwrap_or_default();
        let mut game = self.game.clone();
        for &p in &points {
            game.board.set(p, Color::Black.cell());
        }
        while points.len() < n {
            let (Some(p), _) = policy::choose(&game, Color::Black, points.len() as u64) else {
                break;
            };
            if game.play_as(Color::Black, Some(p)).is_err() {
                break;
            }
            points.push(p);
        }
        points.sort_unstable();
        points
    }

    pub(super) fn showboard(&self) -> String {
        let mut out = vec![String::new()];
        out.extend(crate::go::notation::diagram(&self.game.board));
        out.push(format!(
            "{} to move, komi {}",
            match self.game.to_move {
                Color::Black => "black",
                Color::White => "white",
            },
            self.komi
        ));
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::super::Args;
    use super::*;

    #[test]
    fn a_new_game_starts_with_full_clocks_under_the_same_settings() {
        let mut gtp = Gtp::with_args(Args::default());
        gtp.handle("time_settings 60 10 5").unwrap();
        let fresh = gtp.clock.clone();
        for command in ["clear_board", "boardsize 13"] {
            gtp.clock.charge(Color::Black, 50.0);
            gtp.clock.charge(Color::White, 70.0);
            assert_ne!(gtp.clock, fresh);
            let (_, reply) = gtp.handle(command).unwrap();
            assert!(reply.ok, "{command}");
            assert_eq!(gtp.clock, fresh, "{command}");
        }
        // A refused command starts no new game.
        gtp.clock.charge(Color::Black, 50.0);
        gtp.handle("boardsize 1").unwrap();
        assert_ne!(gtp.clock, fresh);
    }
}
