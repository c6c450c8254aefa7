//! Othello midgame search and the three playing levels. The midgame runs on the generic
//! iterative-deepening searcher (`search::alphabeta`, as quantum shogi) over [`game::OGame`]:
//! Othello supplies the evaluation ([`eval`]), the move ordering and the pass; the exact endgame
//! ([`solve`]) runs around that search.
//!
//! - Level 1 (beginner): a two-ply search on a static square table, each root move's score
//!   spread by a seeded random amount of up to three discs.
//! - Level 2 (club player): iterative-deepening PVS with a transposition table and Multi-ProbCut
//!   ([`probcut`]) on the learned pattern evaluation ([`pattern`]), at most 6 plies deep, exact
//!   endgame from 12 empties.
//! - Level 3 (strongest): the same search without the depth cap, and from 20 empties an exact
//!   endgame solve (win/loss/draw first, then the exact margin) as long as the clock allows,
//!   falling back on the midgame move.
//!
//! Scores are centi-discs for the side to move (reported as `score cp`).

pub mod bench;
pub(crate) mod eval;
pub mod game;
pub mod pattern;
pub mod probcut;
pub mod reason;
pub mod solve;
pub mod swing;

use crate::othello::position::parse_square;
use crate::othello::{square_name, Board, Position};
use crate::rng::splitmix;
use crate::search::{Control, Info, Job, Limits, Outcome, Report, Searcher};
pub use game::Eval;
use game::OGame;
use solve::Solver;

/// The search levels' knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub level: u8,
    /// Hard cap on the nominal depth (None = as deep as the clock allows).
    pub max_depth: Option<u32>,
    /// Empties at or below which the exact solver is tried.
    pub solve_empties: u32,
    pub eval: Eval,
    /// Random spread of root scores, centi-discs (0 = none).
    pub noise: i32,
    /// Threads of the exact solve (`Threads`).
    pub threads: usize,
}

impl Level {
    pub fn new(level: u64) -> Level {
        match level {
            1 => Level {
                level: 1,
                max_depth: Some(2),
                solve_empties: 0,
                eval: Eval::Simple,
                noise: 300,
                threads: 1,
            },
            2 => Level {
                level: 2,
                max_depth: Some(6),
                solve_empties: 12,
                eval: Eval::Pattern,
                noise: 0,
                threads: 1,
            },
            _ => Level {
                level: 3,
                max_depth: None,
                solve_empties: 20,
                eval: Eval::Pattern,
                noise: 0,
                threads: 1,
            },
        }
    }

    /// Level 3 stopped at `depth` with no exact solve: the fixed-depth searches that measure and
    /// tune the evaluation (`bench othello-swing`, `tune othello`), whose scores must be the
    /// evaluation's.
    pub fn fixed_depth(depth: u32) -> Level {
        Level {
            max_depth: Some(depth),
            solve_empties: 0,
            ..Level::new(3)
        }
    }
}

/// Every root move scored (for `hint`, here and in NBoard): a MultiPV search of the generic
/// searcher over [`OGame`] with as many lines as there are moves.
pub struct Ranker<'a> {
    pub nodes: u64,
    control: Option<&'a Control>,
    stopped: bool,
    eval: Eval,
    inner: Searcher<OGame>,
    /// The principal variations of the last ranking, by first move.
    lines: Vec<(u32, Vec<String>)>,
}

impl<'a> Ranker<'a> {
    /// Polls `control` for stop and the clock (no control: only the depth bounds a ranking).
    pub fn new(control: Option<&'a Control>, eval: Eval) -> Ranker<'a> {
        let mut inner = Searcher::new(TABLE_MB);
        inner.set_pruning(false);
        Ranker {
            nodes: 0,
            control,
            stopped: false,
            eval,
            inner,
            lines: Vec::new(),
        }
    }

    /// The last ranking was cut short (stop, clock or node limit): its result is unfinished.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Scores of every root move of `board` (which has one) at `depth`, best first (ties by
    /// square). The table is kept between calls, so ranking at growing depths is cheap.
    pub fn rank(&mut self, board: &Board, depth: u32) -> Vec<(u32, i32)> {
        let m = board.moves();
        let n = m.count_ones() as usize;
        let root = OGame {
            player: board.player,
            opponent: board.opponent,
            eval: self.eval,
        };
        let own;
        let control = match self.control {
            Some(c) => c,
            None => {
                own = Control::new(
                    Limits {
                        depth: Some(depth),
                        ..Default::default()
                    },
                    0,
                );
                &own
            }
        };
        let depth = depth.max(1);
        self.inner.set_multipv(n);
        let mut last: Vec<Info> = Vec::new();
        self.inner.run(&root, &[], control, depth, &mut |r| {
            if let Report::Info(info) = r {
                if last.first().is_some_and(|l| l.depth != info.depth) {
                    last.clear();
                }
                last.push(info);
            }
        });
        self.nodes += self.inner.nodes();
        let complete: Vec<(u32, i32, Vec<String>)> = last
            .into_iter()
            .filter(|l| l.depth == depth)
            .filter_map(|l| {
                let sq = parse_square(l.pv.first()?).filter(|&sq| m >> sq & 1 == 1)?;
                Some((sq, l.score, l.pv))
            })
            .collect();
        self.stopped = complete.len() != n || control.is_stopped();
        let mut list: Vec<(u32, i32)> = complete.iter().map(|&(sq, s, _)| (sq, s)).collect();
        list.sort_by_key(|&(sq, s)| (-s, sq));
        self.lines = complete.into_iter().map(|(sq, _, pv)| (sq, pv)).collect();
        list
    }

    /// The principal variation of the last ranking that starts with `first`, at most `max`
    /// moves long.
    pub fn pv(&self, _board: &Board, first: u32, max: usize) -> Vec<String> {
        let mut line = self
            .lines
            .iter()
            .find(|(sq, _)| *sq == first)
            .map_or_else(|| vec![square_name(first)], |(_, pv)| pv.clone());
        line.truncate(max.max(1));
        line
    }
}

/// The `go` job for a position (already past any forced pass), its exact solves on `threads`
/// threads. The limits reach it through the `Control` the session builds.
pub fn job(position: Position, level: u64, seed: u64, threads: usize) -> Job {
    let level = Level {
        threads,
        ..Level::new(level)
    };
    Box::new(move |control: &Control, report: &mut dyn FnMut(Report)| {
        think(&position.board, level, seed, control, report)
    })
}

/// The midgame table's size (2^18 entries, as the Othello search always had).
const TABLE_MB: u64 = 6;

/// Plays one move at `level` within the control's limits: the generic iterative-deepening
/// searcher over [`OGame`] for the midgame, then (from `solve_empties` empties) the exact solver.
pub fn think(
    board: &Board,
    level: Level,
    seed: u64,
    control: &Control,
    report: &mut dyn FnMut(Report),
) -> Outcome {
    let m = board.moves();
    if m == 0 {
        return Outcome {
            info: Info::default(),
            best: None,
            ponder: None,
        };
    }
    let max_depth = match (level.max_depth, control.depth_limit()) {
        (Some(a), Some(b)) => a.min(b.max(1)),
        (Some(a), None) => a,
        (None, Some(b)) => b.max(1),
        (None, None) => 60,
    };
    let (best, nodes) = if level.noise > 0 {
        beginner(board, level, seed, control, max_depth)
    } else {
        searched(board, level, control, max_depth, report)
    };
    let best = best.unwrap_or_else(|| Choice::alone(m.trailing_zeros(), 0, 0));
    Outcome {
        info: info(best.depth, best.score, nodes, control, &best.pv),
        best: Some(square_name(best.square)),
        ponder: None,
    }
}

/// The move [`think`] plays, with what its `info` line says.
struct Choice {
    square: u32,
    score: i32,
    depth: u32,
    pv: Vec<String>,
}

impl Choice {
    /// A move whose line is the move alone.
    fn alone(square: u32, score: i32, depth: u32) -> Choice {
        Choice {
            square,
            score,
            depth,
            pv: vec![square_name(square)],
        }
    }
}

/// Beginner: every root move scored at `depth`, then spread at random. The choice, if the
/// ranking gave one, and the nodes searched.
fn beginner(
    board: &Board,
    level: Level,
    seed: u64,
    control: &Control,
    depth: u32,
) -> (Option<Choice>, u64) {
    let mut ranker = Ranker::new(Some(control), level.eval);
    let ranked = ranker.rank(board, depth);
    let mut rng = seed ^ board.player.rotate_left(7) ^ board.opponent.wrapping_mul(3);
    let mut pick: Option<(u32, i32, i32)> = None;
    for &(sq, s) in &ranked {
        let spread = (splitmix(&mut rng) % (2 * level.noise as u64 + 1)) as i32 - level.noise;
        if pick.is_none_or(|p| s + spread > p.2) {
            pick = Some((sq, s, s + spread));
        }
    }
    let choice = pick.map(|(sq, score, _)| Choice::alone(sq, score, depth));
    (choice, ranker.nodes)
}

/// The midgame search to `max_depth`, and from `solve_empties` empties the exact solve after
/// it. The choice, if either gave one, and the nodes searched.
fn searched(
    board: &Board,
    level: Level,
    control: &Control,
    max_depth: u32,
    report: &mut dyn FnMut(Report),
) -> (Option<Choice>, u64) {
    let m = board.moves();
    let empties = board.empties().count_ones();
    let exact_possible = empties <= level.solve_empties;
    // Before an exact solve, a short midgame search gives the fallback move.
    let mid_cap = if exact_possible {
        max_depth.min(6)
    } else {
        max_depth
    };
    let mut searcher = Searcher::<OGame>::new(TABLE_MB);
    // Null move is off by itself (no `play_null`); reductions are off too. The selective
    // part is Multi-ProbCut ([`probcut`]), fitted to the pattern evaluation.
    searcher.set_pruning(false);
    searcher.set_probcut(true);
    let root = OGame {
        player: board.player,
        opponent: board.opponent,
        eval: level.eval,
    };
    let square = |name: &str| parse_square(name).filter(|&sq| m >> sq & 1 == 1);
    let outcome = searcher.run(&root, &[], control, mid_cap.min(empties.max(1)), report);
    let best = outcome.best.as_deref().and_then(square).map(|sq| Choice {
        square: sq,
        score: outcome.info.score,
        depth: outcome.info.depth,
        pv: outcome.info.pv,
    });
    if exact_possible && !control.soft_expired() {
        let midgame = searcher.nodes();
        let (best, solved) = exact(board, level, control, midgame, best, report);
        (best, midgame + solved)
    } else {
        (best, searcher.nodes())
    }
}

/// The exact solve of `board` after the midgame's choice `best`: win/loss/draw first (a null
/// window at 0 is cheap), then the exact margin, each replacing the choice once it finishes
/// within the control's hard limit and its node limit (of which the midgame spent `midgame`).
/// The choice and the solver's nodes.
fn exact(
    board: &Board,
    level: Level,
    control: &Control,
    midgame: u64,
    mut best: Option<Choice>,
    report: &mut dyn FnMut(Report),
) -> (Option<Choice>, u64) {
    let limit = control.node_limit();
    let abort = |n: u64| control.hard_expired() || limit.is_some_and(|l| midgame + n >= l);
    let mut solver = Solver::new(20)
        .with_abort(&abort)
        .with_threads(level.threads);
    let wld = solver.solve_window(board, -1, 1);
    if solver.aborted() {
        return (best, solver.nodes);
    }
    if let Some(sq) = wld.best {
        // The result is proven, its margin not yet: until the exact solve gives it, the
        // midgame estimate, brought to the proven side of zero (a won position is at least +1,
        // not the +1 a placeholder would say of every win). Its depth stays the midgame's: the
        // margin is not solved.
        let (estimate, depth) = best.as_ref().map_or((0, 0), |b| (b.score, b.depth));
        let score = match wld.score.signum() {
            1 => estimate.max(100),
            -1 => estimate.min(-100),
            _ => 0,
        };
        best = Some(Choice::alone(sq, score, depth));
    }
    let margin = solver.solve(board);
    if !solver.aborted() {
        if let Some(sq) = margin.best {
            report(Report::Text(format!(
                "exact {} score {:+}",
                square_name(sq),
                margin.score
            )));
            let empties = board.empties().count_ones();
            best = Some(Choice::alone(sq, margin.score * 100, empties));
        }
    }
    (best, solver.nodes)
}

fn info(depth: u32, score: i32, nodes: u64, control: &Control, pv: &[String]) -> Info {
    Info {
        depth,
        seldepth: depth,
        score,
        nodes,
        time_ms: control.elapsed_ms(),
        pv: pv.to_vec(),
        multipv: None,
        hashfull: None,
    }
}
