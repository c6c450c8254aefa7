//! Play and genmove: the controller's moves (`play`) and the engine's own (`genmove`,
//! `kgs-genmove_cleanup`), with the search, its settings and the time a move may take. The
//! analysis stream (`run.rs`) searches through the same settings, so that an analysed position
//! is searched as a played one would be.

use super::{parse_color, Failure, Gtp};
use crate::go::notation::{format_move, parse_vertex};
use crate::go::score;
use crate::go::search as go_search;
use crate::go::search::mcts::{Mcts, Settings, Snapshot};
use crate::go::search::player::{self, Choice};
use crate::go::{Color, Position};
use crate::search::{Control, Limits};
use std::time::Instant;

/// Kept back from a clock's time for the reply to reach the controller (and for its lag).
const CLOCK_OVERHEAD_MS: u64 = 100;

impl Gtp {
    /// `play <color> <vertex>`: either color, in turn or not, as GTP allows.
    pub(super) fn play(&mut self, color: &str, vertex: &str) -> Result<String, Failure> {
        let color = parse_color(color)?;
        let mv =
            parse_vertex(vertex, self.game.board.size()).map_err(|_| Failure::InvalidCoordinate)?;
        self.game
            .play_as(color, mv)
            .map_err(|_| Failure::IllegalMove)?;
        self.note_move(None);
        Ok(String::new())
    }

    /// `genmove <color>`, or `kgs-genmove_cleanup <color>` when `cleanup`.
    pub(super) fn genmove(&mut self, color: &str, cleanup: bool) -> Result<String, Failure> {
        let color = parse_color(color)?;
        self.generate(color, cleanup)
    }

    /// The search, allocated on first use (`--tree-mb`).
    pub(super) fn engine(&mut self) -> Result<&Mcts, Failure> {
        if self.engine.is_none() {
            let bytes = (self.args.tree_mb as usize).saturating_mul(1 << 20);
            let mcts = Mcts::new(bytes).map_err(|e| Failure::Memory(e.to_string()))?;
            self.engine = Some(mcts);
        }
        match &self.engine {
            Some(e) => Ok(e),
            None => unreachable!("just allocated"),
        }
    }

    /// Drops the search's tree (after `undo`, `loadsgf`, `clear_board`, `boardsize`): the next
    /// search starts afresh. A `komi` command needs none: the tree is kept under its komi only.
    pub(super) fn forget_tree(&self) {
        if let Some(engine) = &self.engine {
            engine.forget();
        }
    }

    /// The game with `color` to move (a move out of turn, as `play` allows, lifts the ko ban).
    pub(super) fn game_for(&self, color: Color) -> Position {
        let mut game = self.game.clone();
        if color != game.to_move {
            game.to_move = color;
            game.ko = None;
        }
        game
    }

    pub(super) fn settings(&self, game: &Position, report_ms: Option<u64>) -> Settings {
        let komi = self.komi + self.handicap_compensation() as f64;
        Settings {
            passes: if game.to_move == self.game.to_move {
                self.game.passes()
            } else {
                0
            },
            report_ms,
            ..Settings::new(komi, self.args.threads as usize, self.args.seed)
        }
    }

    /// The limits of a move for `color`, and the time kept back for the reply to reach the
    /// controller: the clock's (planned by the time manager as every search's are), or
    /// without one the playout limit or the default move time.
    fn limits(&self, color: Color) -> (Limits, u64) {
        let playouts = self.args.playouts;
        match self.clock.limits(
            color,
            go_search::moves_to_go(&self.game.board),
            go_search::phase_weight_of(&self.game.board),
        ) {
            Some(clock) => (
                Limits {
                    nodes: playouts,
                    ..clock
                },
                CLOCK_OVERHEAD_MS,
            ),
            None => (
                Limits {
                    movetime: playouts.is_none().then_some(self.args.movetime_ms.max(1)),
                    nodes: playouts,
                    ..Limits::default()
                },
                0,
            ),
        }
    }

    /// Searches the position for `color` under `control`; reports go to `report`.
    fn search(
        &mut self,
        color: Color,
        control: &Control,
        report_ms: Option<u64>,
        report: &mut dyn FnMut(&Snapshot),
    ) -> Result<(Position, Snapshot), Failure> {
        let game = self.game_for(color);
        let settings = self.settings(&game, report_ms);
        let snap = self.engine()?.search(&game, &settings, control, report);
        self.last = Some((game.clone(), settings.komi, snap.clone()));
        Ok((game, snap))
    }

    /// `genmove` and `kgs-genmove_cleanup`: searches within the clock's budget, plays and
    /// charges the time to `color`.
    fn generate(&mut self, color: Color, cleanup: bool) -> Result<String, Failure> {
        self.generate_reporting(color, cleanup, None, &mut |_| {})
    }

    pub(super) fn generate_reporting(
        &mut self,
        color: Color,
        cleanup: bool,
        report_ms: Option<u64>,
        report: &mut dyn FnMut(&Snapshot),
    ) -> Result<String, Failure> {
        let start = Instant::now();
        let (limits, overhead_ms) = self.limits(color);
        let control = Control::new(limits, overhead_ms);
        let capture = if cleanup {
            let ko = if color == self.game.to_move {
                self.game.ko
            } else {
                None
            };
            let mut keep_going = || !control.soft_expired();
            let j = score::judge(&self.game.board, color, ko, &mut keep_going);
            score::capture_dead(&self.game.board, ko, color, &j)
        } else {
            None
        };
        let mut winrate = None;
        let choice = match capture {
            Some(p) => Choice::Play(p),
            None => {
                let (game, snap) = self.search(color, &control, report_ms, report)?;
                // A streamed search ends with its final state, however short it was.
                if report_ms.is_some() {
                    report(&snap);
                }
                let komi = self.komi + self.handicap_compensation() as f64;
                let passes = self.settings(&game, None).passes;
                // The cleanup phase plays on to the end: no resigning.
                let may_resign = !self.args.no_resign && !cleanup;
                winrate = Some(match color {
                    Color::Black => snap.winrate,
                    Color::White => 1.0 - snap.winrate,
                });
                player::decide(&game, komi, passes, &snap, may_resign)
            }
        };
        let mv = match choice {
            Choice::Resign => {
                self.clock.charge(color, start.elapsed().as_secs_f64());
                return Ok("resign".into());
            }
            Choice::Pass => None,
            Choice::Play(p) => Some(p),
        };
        self.game
            .play_as(color, mv)
            .map_err(Failure::ChosenIllegal)?;
        self.note_move(winrate);
        self.clock.charge(color, start.elapsed().as_secs_f64());
        Ok(format_move(&self.game.board, mv))
    }
}
