//! Othello midgame search and the three playing levels.
//!
//! - Level 1 (beginner): a two-ply search on a static square table, each root move's score
//!   spread by a seeded random amount of up to three discs.
//! - Level 2 (club player): iterative-deepening PVS with a transposition table on the full
//!   evaluation (mobility, corners, frontier, stable edges, parity), at most 6 plies deep,
//!   exact endgame from 12 empties.
//! - Level 3 (strongest): the same search without the depth cap, and from 20 empties an exact
//!   endgame solve (win/loss/draw first, then the exact margin) as long as the clock allows,
//!   falling back on the midgame move.
//!
//! Scores are centi-discs for the side to move (reported as `score cp`).

pub(crate) mod eval;
pub mod solve;

use crate::games::othello::board::{flips, moves, squares};
use crate::games::othello::{square_name, Board, Position};
use crate::rng::splitmix;
use crate::search::{Control, Info, Job, Outcome, Report};
use solve::{final_score, Solver};

/// The search levels' knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub level: u8,
    /// Hard cap on the nominal depth (None = as deep as the clock allows).
    pub max_depth: Option<u32>,
    /// Empties at or below which the exact solver is tried.
    pub solve_empties: u32,
    pub simple_eval: bool,
    /// Random spread of root scores, centi-discs (0 = none).
    pub noise: i32,
}

impl Level {
    pub fn new(level: u64) -> Level {
        match level {
            1 => Level {
                level: 1,
                max_depth: Some(2),
                solve_empties: 0,
                simple_eval: true,
                noise: 300,
            },
            2 => Level {
                level: 2,
                max_depth: Some(6),
                solve_empties: 12,
                simple_eval: false,
                noise: 0,
            },
            _ => Level {
                level: 3,
                max_depth: None,
                solve_empties: 20,
                simple_eval: false,
                noise: 0,
            },
        }
    }
}

const INF: i32 = 1_000_000;

#[derive(Clone, Copy, Default)]
struct Entry {
    player: u64,
    opponent: u64,
    score: i32,
    depth: u8,
    bound: u8,
    best: u8,
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const NO_MOVE: u8 = 64;

fn hash(p: u64, o: u64) -> u64 {
    crate::games::othello::board::mix(p, o)
}

/// The midgame searcher: alpha-beta with PVS, a transposition table and a polled stop.
pub struct Searcher<'a> {
    pub nodes: u64,
    control: Option<&'a Control>,
    node_limit: Option<u64>,
    stopped: bool,
    table: Vec<Entry>,
    mask: usize,
    simple: bool,
}

impl<'a> Searcher<'a> {
    pub fn new(control: Option<&'a Control>, simple: bool) -> Searcher<'a> {
        let size = 1usize << 18;
        Searcher {
            nodes: 0,
            control,
            node_limit: control.and_then(|c| c.node_limit()),
            stopped: false,
            table: vec![Entry::default(); size],
            mask: size - 1,
            simple,
        }
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }

    fn eval(&self, p: u64, o: u64) -> i32 {
        if self.simple {
            eval::evaluate_simple(p, o)
        } else {
            eval::evaluate(p, o)
        }
    }

    #[inline]
    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes & 0x3FF == 0 {
            if let Some(c) = self.control {
                if c.hard_expired() {
                    self.stopped = true;
                }
            }
            if let Some(limit) = self.node_limit {
                if self.nodes >= limit {
                    self.stopped = true;
                }
            }
        }
    }

    fn order(&self, p: u64, o: u64, m: u64, depth: u32) -> Vec<u32> {
        let e = &self.table[hash(p, o) as usize & self.mask];
        let tt_move = if e.player == p && e.opponent == o {
            e.best
        } else {
            NO_MOVE
        };
        let mut list: Vec<(i32, u32)> = squares(m)
            .map(|sq| {
                if sq as u8 == tt_move {
                    return (-INF, sq);
                }
                let f = flips(p, o, sq);
                let (np, no) = (o ^ f, p | f | 1 << sq);
                let key = if depth >= 3 {
                    self.eval(np, no)
                } else {
                    moves(np, no).count_ones() as i32
                };
                (key, sq)
            })
            .collect();
        list.sort_unstable();
        list.into_iter().map(|(_, sq)| sq).collect()
    }

    /// Negamax score of (p to move) searched `depth` plies; a pass does not use depth.
    pub fn alphabeta(
        &mut self,
        p: u64,
        o: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        self.tick();
        if self.stopped {
            return 0;
        }
        let m = moves(p, o);
        if m == 0 {
            if passed {
                return final_score(p, o) * 100;
            }
            return -self.alphabeta(o, p, depth, -beta, -alpha, true);
        }
        if depth == 0 {
            return self.eval(p, o);
        }
        let slot = hash(p, o) as usize & self.mask;
        let mut alpha = alpha;
        let mut beta = beta;
        {
            let e = self.table[slot];
            if e.player == p && e.opponent == o && e.depth as u32 >= depth {
                match e.bound {
                    EXACT => return e.score,
                    LOWER if e.score >= beta => return e.score,
                    UPPER if e.score <= alpha => return e.score,
                    LOWER => alpha = alpha.max(e.score),
                    _ => beta = beta.min(e.score),
                }
            }
        }
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        for (i, sq) in self.order(p, o, m, depth).into_iter().enumerate() {
            let f = flips(p, o, sq);
            let (np, no) = (o ^ f, p | f | 1 << sq);
            let mut score;
            if i == 0 {
                score = -self.alphabeta(np, no, depth - 1, -beta, -alpha, false);
            } else {
                score = -self.alphabeta(np, no, depth - 1, -alpha - 1, -alpha, false);
                if score > alpha && score < beta {
                    score = -self.alphabeta(np, no, depth - 1, -beta, -score, false);
                }
            }
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = sq as u8;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best <= alpha0 {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.table[slot] = Entry {
            player: p,
            opponent: o,
            score: best,
            depth: depth.min(255) as u8,
            bound,
            best: best_move,
        };
        best
    }

    /// The principal variation stored in the table, from `board`.
    pub fn pv(&self, board: &Board, first: u32, max: usize) -> Vec<String> {
        let mut line = vec![square_name(first)];
        let Some(mut b) = board.play(first) else {
            return line;
        };
        while line.len() < max {
            if b.moves() == 0 {
                if b.pass().moves() == 0 {
                    break;
                }
                b = b.pass();
                line.push("pass".into());
                continue;
            }
            let e = &self.table[hash(b.player, b.opponent) as usize & self.mask];
            if e.player != b.player || e.opponent != b.opponent || e.best == NO_MOVE {
                break;
            }
            let sq = e.best as u32;
            match b.play(sq) {
                Some(next) => {
                    line.push(square_name(sq));
                    b = next;
                }
                None => break,
            }
        }
        line
    }

    /// Scores of every root move at `depth` (each with a full window), best first.
    pub fn rank(&mut self, board: &Board, depth: u32) -> Vec<(u32, i32)> {
        let (p, o) = (board.player, board.opponent);
        let mut list: Vec<(u32, i32)> = squares(board.moves())
            .map(|sq| {
                let f = flips(p, o, sq);
                let s = -self.alphabeta(o ^ f, p | f | 1 << sq, depth.max(1) - 1, -INF, INF, false);
                (sq, s)
            })
            .collect();
        list.sort_by_key(|&(sq, s)| (-s, sq));
        list
    }
}

/// The `go` job for a position (already past any forced pass). The limits reach it through the
/// `Control` the session builds.
pub fn job(position: Position, level: u64, seed: u64) -> Job {
    let level = Level::new(level);
    Box::new(move |control: &Control, report: &mut dyn FnMut(Report)| {
        think(&position.board, level, seed, control, report)
    })
}

/// Plays one move at `level` within the control's limits.
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
    let empties = board.empties().count_ones();
    let max_depth = match (level.max_depth, control.depth_limit()) {
        (Some(a), Some(b)) => a.min(b.max(1)),
        (Some(a), None) => a,
        (None, Some(b)) => b.max(1),
        (None, None) => 60,
    };
    let mut searcher = Searcher::new(Some(control), level.simple_eval);
    let mut best: Option<(u32, i32, u32, Vec<String>)> = None;

    if level.noise > 0 {
        // Beginner: every root move scored at the capped depth, then spread at random.
        let mut rng = seed ^ board.player.rotate_left(7) ^ board.opponent.wrapping_mul(3);
        let ranked = searcher.rank(board, max_depth);
        let mut pick = (ranked[0].0, i32::MIN);
        for &(sq, s) in &ranked {
            let spread = (splitmix(&mut rng) % (2 * level.noise as u64 + 1)) as i32 - level.noise;
            if s + spread > pick.1 {
                pick = (sq, s + spread);
            }
        }
        let score = ranked
            .iter()
            .find(|&&(sq, _)| sq == pick.0)
            .map_or(0, |&(_, s)| s);
        best = Some((pick.0, score, max_depth, vec![square_name(pick.0)]));
    } else {
        let exact_possible = empties <= level.solve_empties;
        // Before an exact solve, a short midgame search gives the fallback move.
        let mid_cap = if exact_possible {
            max_depth.min(6)
        } else {
            max_depth
        };
        for depth in 1..=mid_cap {
            let (p, o) = (board.player, board.opponent);
            let score = searcher.alphabeta(p, o, depth, -INF, INF, false);
            if searcher.stopped() {
                break;
            }
            let e = searcher.table[hash(p, o) as usize & searcher.mask];
            let sq = if e.player == p && e.opponent == o && e.best != NO_MOVE {
                e.best as u32
            } else {
                m.trailing_zeros()
            };
            let pv = searcher.pv(board, sq, depth as usize + 1);
            report(Report::Info(info(
                depth,
                score,
                searcher.nodes,
                control,
                &pv,
            )));
            best = Some((sq, score, depth, pv));
            if depth >= empties || control.soft_expired() {
                break;
            }
        }
        if exact_possible && !control.soft_expired() {
            let start_nodes = searcher.nodes;
            let limit = control.node_limit();
            let abort =
                |n: u64| control.hard_expired() || limit.is_some_and(|l| start_nodes + n >= l);
            let mut solver = Solver::new(20).with_abort(&abort);
            // Win/loss/draw first (a null window at 0 is cheap), then the exact margin.
            let wld = solver.solve_window(board, -1, 1);
            if !solver.aborted() {
                if let Some(sq) = wld.best {
                    let pv = vec![square_name(sq)];
                    best = Some((sq, wld.score.signum() * 100, empties, pv));
                }
                let exact = solver.solve(board);
                if !solver.aborted() {
                    if let Some(sq) = exact.best {
                        let pv = vec![square_name(sq)];
                        let score = exact.score * 100;
                        report(Report::Text(format!(
                            "exact {} score {:+}",
                            square_name(sq),
                            exact.score
                        )));
                        best = Some((sq, score, empties, pv));
                    }
                }
            }
            searcher.nodes += solver.nodes;
        }
    }
    let (sq, score, depth, pv) = best.unwrap_or_else(|| {
        let sq = m.trailing_zeros();
        (sq, 0, 0, vec![square_name(sq)])
    });
    Outcome {
        info: info(depth, score, searcher.nodes, control, &pv),
        best: Some(square_name(sq)),
        ponder: None,
    }
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
