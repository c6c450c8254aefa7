//! The searches NBoard asks for, run on a worker thread: `go` (one move, through the
//! Othello search of `othello::search`) and `hint` (every move scored, best first). Both stop
//! when the control is stopped (`ping` or `quit`), and then report nothing more.

use crate::othello::board::{flips, squares};
use crate::othello::ggf::Record;
use crate::othello::search::reason::reason;
use crate::othello::search::solve::{final_score, Solver};
use crate::othello::search::{think, Level, Ranker};
use crate::othello::{square_name, Board, Position};
use crate::search::{Control, Report};

/// Exact solves start at twice the depth in empties, and never above this (the solver's
/// practical reach without a clock).
pub const MAX_EXACT_EMPTIES: u32 = 20;

/// How deep `go` and `hint` look, from `set depth N`, and the exact solver's threads
/// (`ryoshi nboard --threads N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depth {
    pub plies: u32,
    pub threads: usize,
}

impl Depth {
    /// `plies` deep, one thread.
    pub fn new(plies: u32) -> Depth {
        Depth { plies, threads: 1 }
    }

    /// Empties at or below which the result is an exact solve.
    pub fn exact_empties(self) -> u32 {
        (2 * self.plies).min(MAX_EXACT_EMPTIES)
    }

    /// The strongest Othello level (full evaluation, no random spread), capped at N plies.
    pub fn level(self) -> Level {
        Level {
            max_depth: Some(self.plies),
            threads: self.threads,
            solve_empties: self.exact_empties(),
            noise: 0,
            ..Level::new(3)
        }
    }
}

fn seconds(control: &Control) -> f64 {
    control.elapsed_ms() as f64 / 1000.0
}

fn discs(centi: i32) -> String {
    format!("{:.2}", centi as f64 / 100.0)
}

/// GGF move text: `F5`, `PA`.
pub fn ggf_move(name: &str) -> String {
    if name == "pass" {
        "PA".into()
    } else {
        name.to_ascii_uppercase()
    }
}

/// `go`: `nodestats` after each iteration, then `=== <move>/<eval>/<seconds>`.
pub fn go(board: &Board, depth: Depth, control: &Control, out: &mut dyn FnMut(String)) {
    let mut last_nodes = None;
    let outcome = think(board, depth.level(), 0, control, &mut |report| {
        if let Report::Info(info) = report {
            if control.is_stopped() {
                return;
            }
            last_nodes = Some(info.nodes);
            out(format!(
                "nodestats {} {:.2}",
                info.nodes,
                info.time_ms as f64 / 1000.0
            ));
        }
    });
    if control.is_stopped() {
        return;
    }
    if last_nodes != Some(outcome.info.nodes) {
        out(format!(
            "nodestats {} {:.2}",
            outcome.info.nodes,
            seconds(control)
        ));
    }
    if let Some(best) = outcome.best {
        out(format!(
            "=== {}/{}/{:.2}",
            ggf_move(&best),
            discs(outcome.info.score),
            seconds(control)
        ));
    }
}

/// The time `go` may take with `left_ms` on its clock and `empties` squares to fill: an even
/// share of the clock over the side's remaining moves and a reserve of three, less 100 ms for
/// the pipe and NBoard, and at least 10 ms. The exact solve at the end of a game is the
/// costliest search, so the share is kept flat rather than front-loaded.
pub fn move_budget_ms(left_ms: u64, empties: u32) -> u64 {
    let moves_left = u64::from(empties.div_ceil(2)) + 3;
    (left_ms.saturating_sub(100) / moves_left).max(10)
}

/// One position of a game, as `analyze` scores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spot {
    /// Moves made before it (passes count, a pass the record left out included), as NBoard's
    /// `analysis` lines number positions.
    pub made: usize,
    pub position: Position,
    /// The index in the record's move list of the move played from here (None at the end of
    /// the list and before a pass the record left out).
    pub item: Option<usize>,
}

/// Every position of `game`, from its start to its last move.
pub fn game_positions(game: &Record) -> Vec<Spot> {
    let mut position = game.start;
    let mut list = Vec::new();
    for (i, (_, item)) in game.moves.iter().enumerate() {
        let next = match item.square {
            None => position.pass(),
            Some(sq) => match position.play(sq) {
                Some(next) => next,
                // A pass the record left out (the game was replayed, so this is legal).
                None => {
                    list.push(Spot {
                        made: list.len(),
                        position,
                        item: None,
                    });
                    position = position.pass();
                    match position.play(sq) {
                        Some(next) => next,
                        None => break,
                    }
                }
            },
        };
        list.push(Spot {
            made: list.len(),
            position,
            item: Some(i),
        });
        position = next;
    }
    list.push(Spot {
        made: list.len(),
        position,
        item: None,
    });
    list
}

/// The value of `board` for its side to move, in centi-discs: the final margin when the game
/// is over, minus the opponent's value when the side must pass, else `go`'s search.
fn value(board: &Board, depth: Depth, control: &Control) -> i32 {
    if board.is_game_over() {
        return final_score(board.player, board.opponent) * 100;
    }
    if board.moves() == 0 {
        return -value(&board.pass(), depth, control);
    }
    think(board, depth.level(), 0, control, &mut |_| {})
        .info
        .score
}

/// `analyze`: the value of every position of the game, from the last to the first (the
/// endgame first, where exact solves are quick and most telling), as `go` would score it.
/// `found` gets each spot with its value in centi-discs for the side to move there; the
/// caller sends it as [`analysis_line`].
pub fn analyze(spots: &[Spot], depth: Depth, control: &Control, found: &mut dyn FnMut(Spot, i32)) {
    for spot in spots.iter().rev() {
        let score = value(&spot.position.board, depth, control);
        if control.is_stopped() {
            return;
        }
        found(*spot, score);
    }
}

/// `analysis <moves made> <eval>`, the eval in discs from black's point of view, as NBoard
/// plots it (its own engines send black's view, and its graph draws the games' move evals
/// that way too), though `go` and `hint` are for the side to move.
pub fn analysis_line(spot: &Spot, score: i32) -> String {
    let black = if spot.position.black_to_move {
        score
    } else {
        -score
    };
    format!("analysis {} {}", spot.made, discs(black))
}

/// One scored move of a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub square: u32,
    /// Centi-discs for the side to move.
    pub score: i32,
    /// Plies searched, or `100%` for an exact solve (NBoard's notation).
    pub depth: String,
    /// The moves from this one on, in GGF notation without separators (`F5D6C3`).
    pub pv: String,
    pub why: String,
}

/// Scores every legal move of `board` (which has one), best first: exact solves at or below
/// [`Depth::exact_empties`], otherwise iterative deepening to the depth. `rows` receives each
/// completed iteration; the result is the node count.
pub fn analyse(
    board: &Board,
    depth: Depth,
    control: &Control,
    rows: &mut dyn FnMut(&[Row], u64),
) -> u64 {
    let empties = board.empties().count_ones();
    if empties <= depth.exact_empties() {
        let abort = |_: u64| control.is_stopped();
        let mut solver = Solver::new(20)
            .with_abort(&abort)
            .with_threads(depth.threads);
        let mut list = Vec::new();
        for sq in squares(board.moves()) {
            let after = board.play_with(sq, flips(board.player, board.opponent, sq));
            let score = -solver.score(&after);
            if solver.aborted() {
                return solver.nodes;
            }
            list.push(Row {
                square: sq,
                score: score * 100,
                depth: "100%".into(),
                pv: ggf_move(&square_name(sq)),
                why: reason(board, sq, Some(score)),
            });
        }
        list.sort_by_key(|r| (-r.score, r.square));
        rows(&list, solver.nodes.max(1));
        return solver.nodes.max(1);
    }
    let mut ranker = Ranker::new(Some(control), crate::othello::search::Eval::Pattern);
    for d in 1..=depth.plies.min(empties) {
        let ranked = ranker.rank(board, d);
        if ranker.stopped() || control.is_stopped() {
            break;
        }
        let list: Vec<Row> = ranked
            .into_iter()
            .map(|(sq, score)| Row {
                square: sq,
                score,
                depth: d.to_string(),
                pv: ranker
                    .pv(board, sq, d as usize)
                    .iter()
                    .map(|m| ggf_move(m))
                    .collect(),
                why: reason(board, sq, None),
            })
            .collect();
        rows(&list, ranker.nodes);
    }
    ranker.nodes
}

/// `hint N`: after each completed iteration, `search <pv> <eval> 0 <depth> <reason>` for the
/// best N moves and a `nodestats` line. A side that must pass gets one `search PA` line whose
/// evaluation is the opponent's best, negated.
pub fn hint(board: &Board, n: usize, depth: Depth, control: &Control, out: &mut dyn FnMut(String)) {
    let must_pass = board.moves() == 0;
    let target = if must_pass { board.pass() } else { *board };
    analyse(&target, depth, control, &mut |rows, nodes| {
        if control.is_stopped() {
            return;
        }
        if must_pass {
            if let Some(best) = rows.first() {
                out(format!(
                    "search PA {} 0 {} the side to move must pass",
                    discs(-best.score),
                    best.depth
                ));
            }
        } else {
            for r in rows.iter().take(n) {
                out(format!(
                    "search {} {} 0 {} {}",
                    r.pv,
                    discs(r.score),
                    r.depth,
                    r.why
                ));
            }
        }
        out(format!("nodestats {nodes} {:.2}", seconds(control)));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::Position;
    use crate::search::Limits;

    fn control() -> Control {
        Control::new(
            Limits {
                depth: Some(60),
                ..Default::default()
            },
            0,
        )
    }

    #[test]
    fn exact_depth_follows_the_depth() {
        assert_eq!(Depth::new(1).exact_empties(), 2);
        assert_eq!(Depth::new(8).exact_empties(), 16);
        assert_eq!(Depth::new(30).exact_empties(), MAX_EXACT_EMPTIES);
        assert_eq!(Depth::new(5).level().max_depth, Some(5));
        assert_eq!(Depth::new(5).level().noise, 0);
    }

    #[test]
    fn a_stopped_control_reports_nothing() {
        let c = control();
        c.stop();
        let mut lines = Vec::new();
        go(&Position::START.board, Depth::new(6), &c, &mut |l| {
            lines.push(l)
        });
        hint(&Position::START.board, 4, Depth::new(6), &c, &mut |l| {
            lines.push(l)
        });
        assert!(lines.is_empty(), "{lines:?}");
    }

    #[test]
    fn hint_rows_cover_every_move_best_first() {
        let c = control();
        let mut last = Vec::new();
        analyse(&Position::START.board, Depth::new(3), &c, &mut |rows, _| {
            last = rows.to_vec()
        });
        assert_eq!(last.len(), 4);
        assert!(last.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(last.iter().all(|r| r.depth == "3" && r.pv.len() >= 2));
    }
}
