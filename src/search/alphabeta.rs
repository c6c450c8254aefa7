//! Iterative deepening principal-variation search with a transposition table, killer and history
//! move ordering and a capture quiescence search, generic over [`SearchGame`].

use super::control::Control;
use super::game::{ProbCut, SearchGame, WIN, WIN_BOUND};
use super::tt::{from_tt, Bound, Table};
use super::{Info, Outcome, Report};
use std::sync::Arc;

mod smp;

const MAX_PLY: usize = 128;
/// How often (in nodes) the clock is read.
const CLOCK_EVERY: u64 = 256;
/// Reverse futility acts this close to the horizon (by `SearchGame::RFP_MARGIN` a ply: the
/// opponent is not expected to recover that much).
const RFP_DEPTH: i32 = 3;
/// Late-move pruning: at these depths only the first quiet moves (in history order) are searched;
/// with hundreds of legal actions per position, the rest almost never matter.
const LMP_LIMIT: [usize; 4] = [0, 8, 17, 32];
/// Internal iterative reduction acts from this depth (for games that ask for it).
const IIR_DEPTH: i32 = 4;
/// History scores stay within ±this: each update moves a score toward the bound by the share of
/// the distance left (Stockfish's gravity), so what a game's early moves taught fades.
const HISTORY_MAX: i32 = 1 << 14;

/// Adds `bonus` (negative: a malus) to a history score, with gravity.
fn update_history(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

/// The index of the highest score at or after `start` (the first of equal ones).
#[inline]
fn best_from(scores: &[i64], start: usize) -> usize {
    let mut best = start;
    for j in start + 1..scores.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    best
}

/// Appends the quiet moves of `pos` in the order `generate` gives them (its tactical moves are
/// already in the list).
fn append_quiets<G: SearchGame>(pos: &G, moves: &mut Vec<G::Move>) {
    let start = moves.len();
    pos.generate(moves);
    let mut index = 0;
    moves.retain(|&m| {
        index += 1;
        index <= start || !pos.is_tactical(m)
    });
}

/// Plies taken off a late quiet move: growing with the log of both the depth and the move's
/// rank, as in Stockfish (at least 1 where reductions apply).
fn late_move_reduction(depth: i32, index: usize) -> i32 {
    let r = 0.75 + (depth as f64).ln() * ((index + 1) as f64).ln() / 2.25;
    (r as i32).max(1)
}

pub struct Searcher<G: SearchGame> {
    /// Shared by the threads of a Lazy SMP search.
    tt: Arc<Table>,
    history: Vec<i32>,
    killers: Vec<[u32; 2]>,
    /// Keys of the game so far and of the current search path, for repetition.
    keys: Vec<u64>,
    pv: Vec<Vec<G::Move>>,
    /// Per ply, reused so that no node allocates: the moves, their order scores, and in
    /// quiescence the captures with their hints.
    buffers: Vec<Vec<G::Move>>,
    score_buffers: Vec<Vec<i64>>,
    capture_buffers: Vec<Vec<(i32, G::Move)>>,
    nodes: u64,
    seldepth: u32,
    node_limit: u64,
    aborted: bool,
    hash_mb: u64,
    /// Null-move pruning and late-move reductions (off: the result is exact minimax).
    pruning: bool,
    /// Multi-ProbCut where the game offers it ([`SearchGame::probcut`]; off: exact minimax).
    probcut: bool,
    /// Inside a ProbCut's shallow search (no ProbCut nests in another).
    in_probcut: bool,
    /// Root lines searched and reported (`MultiPV`); 1 reports without a `multipv` field.
    multipv: usize,
    /// Lazy SMP (`Threads`): the helper searchers, each run on a thread of its own by `run`.
    helpers: Vec<Searcher<G>>,
    /// 0 for the main searcher; a helper's number (from 1) seeds its root order (`order_root`).
    helper_id: usize,
    /// What the threads of the running search share (none with one thread).
    smp: Option<Arc<smp::Shared>>,
    /// Per root move, the nodes its search took in the running iteration.
    root_nodes: Vec<u64>,
}

/// What one completed iteration found.
#[derive(Clone, Debug)]
pub struct Iteration<M> {
    pub depth: u32,
    pub score: i32,
    pub pv: Vec<M>,
}

impl<G: SearchGame> Searcher<G> {
    pub fn new(hash_mb: u64) -> Self {
        Self::with_table(Table::new(hash_mb), hash_mb)
    }

    /// A searcher over a table already allocated (of `hash_mb` MiB, as `USI_Hash` asked).
    pub fn with_table(tt: Table, hash_mb: u64) -> Self {
        Searcher {
            tt: Arc::new(tt),
            history: vec![0; G::HISTORY_SIZE],
            killers: vec![[u32::MAX; 2]; MAX_PLY + 1],
            keys: Vec::new(),
            pv: vec![Vec::new(); MAX_PLY + 1],
            buffers: vec![Vec::new(); MAX_PLY + G::QUIESCE_DEPTH as usize + 2],
            score_buffers: vec![Vec::new(); MAX_PLY + 1],
            capture_buffers: vec![Vec::new(); G::QUIESCE_DEPTH as usize + 1],
            nodes: 0,
            seldepth: 0,
            node_limit: u64::MAX,
            aborted: false,
            hash_mb,
            pruning: true,
            probcut: false,
            in_probcut: false,
            multipv: 1,
            helpers: Vec::new(),
            helper_id: 0,
            smp: None,
            root_nodes: Vec::new(),
        }
    }

    /// Searches and reports the `n` best root moves (at least 1).
    pub fn set_multipv(&mut self, n: usize) {
        self.multipv = n.max(1);
    }

    /// Turns the unsound speed-ups (null move, reductions) on or off.
    pub fn set_pruning(&mut self, on: bool) {
        self.pruning = on;
    }

    /// Turns Multi-ProbCut on or off (for games that offer it).
    pub fn set_probcut(&mut self, on: bool) {
        self.probcut = on;
    }

    /// The hash size this searcher was made for (`USI_Hash`).
    pub fn hash_mb(&self) -> u64 {
        self.hash_mb
    }

    /// Forgets everything learnt (a new game, or a reproducible run).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.iter_mut().for_each(|h| *h = 0);
        for helper in &mut self.helpers {
            helper.history.iter_mut().for_each(|h| *h = 0);
        }
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches `root` (reached through positions whose keys are `game_keys`, oldest first) until
    /// the control says stop, reporting each finished iteration. With helpers (`set_threads`)
    /// they search the same root on threads of their own meanwhile.
    pub fn run(
        &mut self,
        root: &G,
        game_keys: &[u64],
        control: &Control,
        max_depth: u32,
        report: &mut dyn FnMut(Report),
    ) -> Outcome {
        self.tt.new_search();
        if self.helpers.is_empty() {
            self.iterate(root, game_keys, control, max_depth, report)
        } else {
            let (main, helpers) = self.search_threads(root, game_keys, control, max_depth, report);
            self.best_thread(main, helpers, control)
        }
    }

    /// Iterative deepening on this thread.
    fn iterate(
        &mut self,
        root: &G,
        game_keys: &[u64],
        control: &Control,
        max_depth: u32,
        report: &mut dyn FnMut(Report),
    ) -> Outcome {
        self.killers.iter_mut().for_each(|k| *k = [u32::MAX; 2]);
        self.keys.clear();
        self.keys.extend_from_slice(game_keys);
        self.nodes = 0;
        self.seldepth = 0;
        self.node_limit = control.node_limit().unwrap_or(u64::MAX);
        self.aborted = false;

        let mut root_moves = Vec::new();
        root.generate(&mut root_moves);
        self.order_root(&mut root_moves);
        if root_moves.is_empty() || root.lost() {
            let info = Info {
                score: -WIN,
                time_ms: control.elapsed_ms(),
                ..Default::default()
            };
            return Outcome {
                info,
                best: None,
                ponder: None,
            };
        }
        let mut best: Option<Iteration<G::Move>> = None;
        let max_depth = max_depth.min(MAX_PLY as u32 - 1).max(1);
        for depth in 1..=max_depth {
            let found = self.root_search(root, &mut root_moves, depth, control, true);
            let complete = !self.aborted;
            if let Some(it) = found {
                // A partial iteration counts only when it changed its mind with a full result.
                if complete || best.as_ref().is_none_or(|b| it.pv.first() != b.pv.first()) {
                    best = Some(it);
                }
            }
            if !complete {
                break;
            }
            let lines = self.multipv.min(root_moves.len());
            if lines > 1 {
                // The k-th best move is the best of the moves after the first k - 1.
                let mut others = Vec::with_capacity(lines - 1);
                for k in 1..lines {
                    match self.root_search(root, &mut root_moves[k..], depth, control, false) {
                        Some(it) if !self.aborted => others.push(it),
                        _ => break,
                    }
                }
                if self.aborted {
                    break; // the best move of this depth stands; its other lines are unfinished
                }
                if let Some(b) = best.take() {
                    // As Stockfish: the lines by score, the first being the best move.
                    let mut all = vec![b];
                    all.extend(others);
                    all.sort_by_key(|it| std::cmp::Reverse(it.score));
                    for (k, it) in all.iter().enumerate() {
                        root_moves[k] = it.pv[0];
                        let mut info = self.info(root, it, control);
                        info.multipv = Some(k as u32 + 1);
                        report(Report::Info(info));
                    }
                    best = all.into_iter().next();
                }
                if best.as_ref().is_some_and(|b| {
                    b.score.abs() > WIN_BOUND && depth as i32 > WIN - b.score.abs()
                }) {
                    break;
                }
            } else if let Some(b) = &best {
                report(Report::Info(self.info(root, b, control)));
                if b.score.abs() > WIN_BOUND && depth as i32 > WIN - b.score.abs() {
                    break; // a forced result within the horizon: deeper search changes nothing
                }
            }
            if root_moves.len() == 1
                && control.limits().movetime.is_none()
                && !control.limits().infinite
                && control.depth_limit().is_none()
                && control.node_limit().is_none()
            {
                break; // the only move: do not spend the clock on it
            }
            if control.soft_expired() {
                break;
            }
        }
        let best = best.unwrap_or_else(|| Iteration {
            depth: 0,
            score: 0,
            pv: vec![root_moves[0]],
        });
        let mut info = self.info(root, &best, control);
        if self.multipv > 1 && root_moves.len() > 1 {
            info.multipv = Some(1);
        }
        let names: Vec<String> = info.pv.clone();
        Outcome {
            info,
            best: names.first().cloned(),
            ponder: names.get(1).cloned(),
        }
    }

    fn info(&self, root: &G, it: &Iteration<G::Move>, control: &Control) -> Info {
        let mut pos = root.clone();
        let mut pv = Vec::with_capacity(it.pv.len());
        for &mv in &it.pv {
            pv.push(pos.name(mv));
            pos.play(mv);
        }
        Info {
            depth: it.depth,
            seldepth: self.seldepth.max(it.depth),
            score: it.score,
            nodes: self.total_nodes(),
            time_ms: control.elapsed_ms(),
            pv,
            multipv: None,
            hashfull: Some(self.tt.hashfull()),
        }
    }

    /// One iteration at the root. Keeps `moves` ordered best first for the next iteration.
    fn root_search(
        &mut self,
        root: &G,
        moves: &mut [G::Move],
        depth: u32,
        control: &Control,
        store: bool,
    ) -> Option<Iteration<G::Move>> {
        let (mut alpha, beta) = (-WIN - 1, WIN + 1);
        let mut best: Option<(usize, i32)> = None;
        // Every thread reduces; the main thread also reorders, while helpers keep the order
        // `order_root` gave them (a helper that searched the full root fell behind the main
        // thread's iterations, and its entries came too late to help).
        let late = G::ROOT_REDUCTION && self.pruning;
        let reorder = late && self.helper_id == 0;
        self.root_nodes.clear();
        self.keys.push(root.key());
        let depth = depth as i32;
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = root.clone();
            child.play(mv);
            let before = self.nodes;
            let reduction = if late && depth >= 3 && i >= 4 && !root.is_tactical(mv) {
                late_move_reduction(depth, i).min(depth - 2)
            } else {
                0
            };
            let score =
                self.search_child(&child, i == 0, depth, reduction, alpha, beta, 1, control);
            self.root_nodes.push(self.nodes - before);
            if self.aborted {
                break;
            }
            if score > alpha {
                alpha = score;
                best = Some((i, score));
                let mut line = vec![mv];
                line.extend_from_slice(&self.pv[1]);
                self.pv[0] = line;
            }
        }
        self.keys.pop();
        let (index, score) = best?;
        if reorder && !self.aborted {
            // As the old Stockfish: the best move first, then the others by the size of their
            // last search (a move that took long to refute came close), so that the moves
            // reduced next iteration are those refuted fastest. Stable: ties keep their order.
            let mut order: Vec<(u64, G::Move)> = self
                .root_nodes
                .iter()
                .copied()
                .zip(moves.iter().copied())
                .collect();
            let first = order.remove(index);
            order.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
            moves[0] = first.1;
            for (slot, (_, mv)) in moves[1..].iter_mut().zip(order) {
                *slot = mv;
            }
        } else {
            moves[..=index].rotate_right(1);
        }
        if store && !self.aborted {
            self.tt
                .store(root.key(), G::code(moves[0]), score, depth, Bound::Exact, 0);
        }
        Some(Iteration {
            depth: depth as u32,
            score,
            pv: self.pv[0].clone(),
        })
    }

    /// One move's search from a node of `depth` (the root's too, where beta is infinite): the
    /// first move with the full window; the others with a null window, `reduction` plies
    /// shallower first, then at full depth if they beat alpha, then with the full window if
    /// they land inside it.
    #[allow(clippy::too_many_arguments)]
    fn search_child(
        &mut self,
        child: &G,
        first: bool,
        depth: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
        ply: u32,
        control: &Control,
    ) -> i32 {
        if first {
            return -self.alphabeta(child, depth - 1, -beta, -alpha, ply, control);
        }
        let mut s = -self.alphabeta(
            child,
            depth - 1 - reduction,
            -alpha - 1,
            -alpha,
            ply,
            control,
        );
        if reduction > 0 && s > alpha && !self.aborted {
            s = -self.alphabeta(child, depth - 1, -alpha - 1, -alpha, ply, control);
        }
        if s > alpha && s < beta && !self.aborted {
            s = -self.alphabeta(child, depth - 1, -beta, -alpha, ply, control);
        }
        s
    }

    fn poll(&mut self, control: &Control) -> bool {
        self.nodes += 1;
        // The stop flag is one relaxed load: read it at every node; the clock less often.
        if self.nodes >= self.node_limit
            || control.is_stopped()
            || (self.nodes.is_multiple_of(CLOCK_EVERY)
                && (control.hard_expired() || self.smp_stops()))
        {
            self.aborted = true;
        }
        self.aborted
    }

    fn is_repetition(&self, key: u64) -> bool {
        // The current key is not yet on the stack; positions repeat only with the same side to
        // move, two plies apart at the least.
        self.keys.iter().rev().skip(1).step_by(2).any(|&k| k == key)
    }

    fn alphabeta(
        &mut self,
        pos: &G,
        mut depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: u32,
        control: &Control,
    ) -> i32 {
        self.pv[ply as usize].clear();
        if self.poll(control) {
            return 0;
        }
        if pos.lost() {
            return -WIN + ply as i32;
        }
        let key = pos.key();
        if self.is_repetition(key) {
            return 0;
        }
        if depth <= 0 || ply as usize >= MAX_PLY {
            return self.quiesce(pos, alpha, beta, ply, 0, control);
        }
        self.seldepth = self.seldepth.max(ply);
        let mut tt_code = u32::MAX;
        if let Some(e) = self.tt.probe(key) {
            tt_code = e.code;
            if e.depth as i32 >= depth && beta - alpha == 1 {
                let s = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        // Internal iterative reduction: a node the table knows nothing of (no move to try
        // first) is searched a ply shallower; the next iteration, with its move stored, goes
        // the full depth.
        if G::INTERNAL_REDUCTION
            && self.pruning
            && ply > 0
            && depth >= IIR_DEPTH
            && tt_code == u32::MAX
        {
            depth -= 1;
        }
        let pv_node = beta - alpha > 1;
        if self.probcut && !self.in_probcut && !pv_node && ply > 0 {
            if let Some(pc) = pos.probcut(depth) {
                if let Some(score) = self.probcut_cut(pos, &pc, alpha, beta, ply, control) {
                    return score;
                }
            }
        }
        let prune = self.pruning && ply > 0 && alpha.abs() < WIN_BOUND;
        // Where the side to move may lose its king next, the static evaluation says nothing:
        // reverse futility and the null move, which answer from it without a move searched,
        // would hide the capture until a deeper iteration.
        let in_check = self.pruning && ply > 0 && pos.in_check();
        let try_null = self.pruning && !pv_node && depth >= 3 && ply > 0 && !in_check;
        // Evaluated once: reverse futility, the null-move test and futility all read it.
        let static_eval = if prune || try_null { pos.evaluate() } else { 0 };
        if prune
            && !in_check
            && !pv_node
            && depth <= RFP_DEPTH
            && static_eval - G::RFP_MARGIN * depth >= beta
        {
            return static_eval;
        }
        // Null move: if passing still fails high, a real move will too (zugzwang is rare here).
        if try_null && static_eval >= beta {
            let mut passed = pos.clone();
            if passed.play_null() {
                self.keys.push(key);
                // Deeper and further above beta, a larger reduction (as Stockfish's).
                let r = 2 + depth / 4 + ((static_eval - beta) / G::NULL_MARGIN).min(2);
                let score =
                    -self.alphabeta(&passed, depth - 1 - r, -beta, -beta + 1, ply + 1, control);
                self.keys.pop();
                if self.aborted {
                    return 0;
                }
                if score >= beta && score < WIN_BOUND {
                    return score;
                }
            }
        }
        let mut moves = std::mem::take(&mut self.buffers[ply as usize]);
        moves.clear();
        // Staged where the game can: the captures first, the quiet moves only once none of
        // them has cut off. Not when the table's move is quiet: it goes first, so the whole
        // list is needed. A staged game picks its moves stably (see below) on either path.
        // Without captures the whole list is the quiet moves: generated at once, as before.
        let staged = pos.generate_tactical(&mut moves);
        let mut quiets_pending = staged
            && !moves.is_empty()
            && (tt_code == u32::MAX || moves.iter().any(|&m| G::code(m) == tt_code));
        if !quiets_pending {
            moves.clear();
            pos.generate(&mut moves);
        }
        if moves.is_empty() {
            self.buffers[ply as usize] = moves;
            return pos.terminal_score(ply); // by default, no legal action loses
        }
        let mut scores = std::mem::take(&mut self.score_buffers[ply as usize]);
        scores.clear();
        scores.extend(
            moves
                .iter()
                .map(|&m| self.order_score(pos, m, tt_code, ply)),
        );
        // Quiet moves that attack the opponent's king are kept from futility and move-count
        // pruning, the fastest way to a forced capture. Not a ply from the horizon: the reply
        // there is quiescence, which stands pat, so the attack could prove nothing.
        let checks = prune && depth >= 2 && pos.may_give_check();
        let original_alpha = alpha;
        let mut best = -WIN - 1;
        let mut best_code = u32::MAX;
        let mut quiets = 0usize;
        self.keys.push(key);
        let mut next = 0;
        loop {
            let i = next;
            next += 1;
            if i == moves.len() {
                if !quiets_pending {
                    break;
                }
                quiets_pending = false;
                let start = moves.len();
                append_quiets(pos, &mut moves);
                scores.extend(
                    moves[start..]
                        .iter()
                        .map(|&m| self.order_score(pos, m, tt_code, ply)),
                );
                if i == moves.len() {
                    break;
                }
            }
            // Selection sort: most nodes cut off after the first few moves. Stable for a
            // staged game, so that its captures come in the same order whether the quiet
            // moves are in the list or not (a swap would let them reorder equal captures).
            let j = best_from(&scores, i);
            if staged {
                moves[i..=j].rotate_right(1);
                scores[i..=j].rotate_right(1);
            } else {
                moves.swap(i, j);
                scores.swap(i, j);
            }
            let mv = moves[i];
            let quiet = !pos.is_tactical(mv);
            let mut pruned = false;
            if prune && i > 0 && quiet && best > -WIN_BOUND {
                // Moves come sorted: from here on every move is quiet and ordered later.
                quiets += 1;
                let d = depth as usize;
                pruned = (d < LMP_LIMIT.len() && quiets > LMP_LIMIT[d])
                    || (d < G::FUTILITY_MARGIN.len()
                        && static_eval + G::FUTILITY_MARGIN[d] <= alpha);
                if pruned && !checks {
                    break;
                }
            }
            if pruned && !pos.may_check(mv) {
                continue;
            }
            let mut child = pos.clone();
            child.play(mv);
            if pruned && !child.in_check() {
                continue;
            }
            // Late quiet moves are searched a ply shallower first.
            let reduction =
                if self.pruning && depth >= 3 && i >= 4 && quiet && scores[i] < (1 << 39) - 1 {
                    late_move_reduction(depth, i).min(depth - 2)
                } else {
                    0
                };
            let score = self.search_child(
                &child,
                i == 0,
                depth,
                reduction,
                alpha,
                beta,
                ply + 1,
                control,
            );
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_code = G::code(mv);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply as usize + 1);
                    let line = &mut head[ply as usize];
                    line.clear();
                    line.push(mv);
                    line.extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        if !pos.is_tactical(mv) {
                            let k = &mut self.killers[ply as usize];
                            if k[0] != best_code {
                                k[1] = k[0];
                                k[0] = best_code;
                            }
                            let bonus = (depth * depth).min(HISTORY_MAX / 8);
                            update_history(&mut self.history[G::history_index(mv)], bonus);
                            // Every quiet move before this one was searched, or pruned as
                            // futile: they failed where this one cut off.
                            for &other in moves[..i].iter().filter(|&&m| !pos.is_tactical(m)) {
                                update_history(&mut self.history[G::history_index(other)], -bonus);
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.keys.pop();
        self.buffers[ply as usize] = moves;
        self.score_buffers[ply as usize] = scores;
        if self.aborted {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, best_code, best, depth, bound, ply);
        best
    }

    /// Multi-ProbCut at a null-window node: a shallow null-window search around the bound the
    /// regression maps beta (alpha) to; `Some` when it proves the deep score is beyond it.
    fn probcut_cut(
        &mut self,
        pos: &G,
        pc: &ProbCut,
        alpha: i32,
        beta: i32,
        ply: u32,
        control: &Control,
    ) -> Option<i32> {
        if beta.abs() >= WIN_BOUND / 2 || pc.a <= 0.0 {
            return None;
        }
        let margin = pc.t * pc.sigma;
        let high = ((beta as f32 + margin - pc.b) / pc.a).round() as i32;
        let low = ((alpha as f32 - margin - pc.b) / pc.a).round() as i32;
        // The static evaluation says which side is worth a search (Edax does the same).
        let eval = pos.evaluate();
        self.in_probcut = true;
        let mut found = None;
        if eval >= high && high < WIN_BOUND / 2 {
            let s = self.alphabeta(pos, pc.shallow, high - 1, high, ply, control);
            if !self.aborted && s >= high {
                found = Some(beta);
            }
        } else if eval <= low && low > -WIN_BOUND / 2 {
            let s = self.alphabeta(pos, pc.shallow, low, low + 1, ply, control);
            if !self.aborted && s <= low {
                found = Some(alpha);
            }
        }
        self.in_probcut = false;
        if self.aborted {
            return Some(0);
        }
        found
    }

    // Called for every generated move, most of which are never searched: inlined into the
    // ordering loop, the game's hint and tests fuse with it.
    #[inline(always)]
    fn order_score(&self, pos: &G, mv: G::Move, tt_code: u32, ply: u32) -> i64 {
        let code = G::code(mv);
        if code == tt_code {
            return i64::MAX;
        }
        if pos.is_tactical(mv) {
            return (1 << 40) + pos.order_hint(mv) as i64;
        }
        let k = self.killers[ply as usize];
        if code == k[0] {
            return 1 << 39;
        }
        if code == k[1] {
            return (1 << 39) - 1;
        }
        self.history[G::history_index(mv)] as i64 * G::HISTORY_WEIGHT + pos.order_hint(mv) as i64
    }

    fn quiesce(
        &mut self,
        pos: &G,
        mut alpha: i32,
        beta: i32,
        ply: u32,
        qply: u32,
        control: &Control,
    ) -> i32 {
        if qply > 0 && self.poll(control) {
            return 0;
        }
        if pos.lost() {
            return -WIN + ply as i32;
        }
        self.seldepth = self.seldepth.max(ply);
        let stand = pos.evaluate();
        if stand >= beta || qply >= G::QUIESCE_DEPTH || ply as usize >= MAX_PLY {
            return stand;
        }
        alpha = alpha.max(stand);
        let slot = (MAX_PLY + 1 + qply as usize).min(self.buffers.len() - 1);
        let mut moves = std::mem::take(&mut self.buffers[slot]);
        moves.clear();
        // At the horizon a side without moves is not scored as lost: the static evaluation stands.
        pos.quiescence_moves(&mut moves);
        let mut captures = std::mem::take(&mut self.capture_buffers[qply as usize]);
        captures.clear();
        captures.extend(
            moves
                .iter()
                .filter(|&&m| stand + pos.gain(m) + G::DELTA_MARGIN > alpha)
                .map(|&m| (pos.order_hint(m), m)),
        );
        // Stable: captures of equal hint keep the generator's order.
        captures.sort_by_key(|&(hint, _)| std::cmp::Reverse(hint));
        let mut best = stand;
        for &(_, mv) in captures.iter() {
            let mut child = pos.clone();
            child.play(mv);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, qply + 1, control);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.buffers[slot] = moves;
        self.capture_buffers[qply as usize] = captures;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Info, Limits};

    /// A random game tree (no transpositions): node ids hash to their children and evaluations.
    #[derive(Clone)]
    pub(super) struct Tree {
        pub(super) id: u64,
    }

    pub(super) use crate::rng::mix;

    impl SearchGame for Tree {
        type Move = u32;
        fn generate(&self, out: &mut Vec<u32>) {
            let n = mix(self.id) % 6; // 0 children: the side to move has lost
            out.extend(0..n as u32);
        }
        fn play(&mut self, mv: u32) {
            self.id = mix(self.id ^ (mv as u64 + 1).wrapping_mul(0x1234_5678_9ABC_DEF1));
        }
        fn key(&self) -> u64 {
            self.id
        }
        fn lost(&self) -> bool {
            false
        }
        fn evaluate(&self) -> i32 {
            (mix(self.id ^ 0xABCD) % 401) as i32 - 200
        }
        fn order_hint(&self, mv: u32) -> i32 {
            mv as i32
        }
        fn is_tactical(&self, _mv: u32) -> bool {
            false
        }
        fn gain(&self, _mv: u32) -> i32 {
            0
        }
        fn code(mv: u32) -> u32 {
            mv
        }
        const HISTORY_SIZE: usize = 8;
        fn history_index(mv: u32) -> usize {
            mv as usize
        }
        fn name(&self, mv: u32) -> String {
            mv.to_string()
        }
    }

    fn negamax(pos: &Tree, depth: u32, ply: i32) -> i32 {
        if depth == 0 {
            return pos.evaluate();
        }
        let mut moves = Vec::new();
        pos.generate(&mut moves);
        if moves.is_empty() {
            return -WIN + ply;
        }
        moves
            .iter()
            .map(|&m| {
                let mut c = pos.clone();
                c.play(m);
                -negamax(&c, depth - 1, ply + 1)
            })
            .max()
            .unwrap_or(-WIN)
    }

    #[test]
    fn history_scores_stay_within_their_bound_and_follow_the_last_evidence() {
        let mut state = 20261202u64;
        let mut h = 0;
        for _ in 0..100_000 {
            let r = crate::rng::splitmix(&mut state);
            let bonus = (r % (HISTORY_MAX as u64 / 8 + 1)) as i32;
            let before = h;
            let signed = if r >> 63 == 1 { -bonus } else { bonus };
            update_history(&mut h, signed);
            assert!(h.abs() <= HISTORY_MAX, "{before} + {signed} gave {h}");
            // A bonus never lowers a score and a malus never raises it.
            assert!(if signed >= 0 {
                h >= before
            } else {
                h <= before
            });
        }
        // Saturated by bonuses, a score still falls with each malus (it does not stick at a cap).
        let mut h = 0;
        for _ in 0..10_000 {
            update_history(&mut h, 64);
        }
        let top = h;
        update_history(&mut h, -64);
        assert!(h < top, "{top} then {h}");
    }

    /// Searches random trees (wrapped as the game `wrap` makes of them) with pruning off at depths
    /// 1 to 5: the score is plain negamax's, and so is the value of the move chosen.
    fn assert_agrees_with_negamax<G: SearchGame<Move = u32>>(wrap: fn(Tree) -> G) {
        let mut searcher = Searcher::<G>::new(1);
        searcher.set_pruning(false);
        for seed in 0..300u64 {
            let tree = Tree { id: mix(seed) };
            let mut moves = Vec::new();
            tree.generate(&mut moves);
            if moves.is_empty() {
                continue;
            }
            let root = wrap(tree.clone());
            for depth in 1..=5u32 {
                searcher.clear();
                let control = Control::new(
                    Limits {
                        depth: Some(depth),
                        ..Default::default()
                    },
                    0,
                );
                let outcome = searcher.run(&root, &[], &control, depth, &mut |_| {});
                let expected = negamax(&tree, depth, 0);
                let score = outcome.info.score;
                // Forced results found early stop the deepening with the same value.
                assert_eq!(score, expected, "seed {seed} depth {depth}");
                let best: u32 = outcome
                    .best
                    .as_deref()
                    .and_then(|b| b.parse().ok())
                    .expect("a move");
                let mut child = tree.clone();
                child.play(best);
                if expected.abs() < WIN_BOUND {
                    assert_eq!(
                        -negamax(&child, depth - 1, 1),
                        expected,
                        "seed {seed} depth {depth}: best move"
                    );
                }
            }
        }
    }

    #[test]
    fn agrees_with_plain_negamax_on_random_trees() {
        assert_agrees_with_negamax(|tree| tree);
    }

    /// [`Tree`] whose odd moves are captures that it generates alone on request: the staged path
    /// (captures first, the quiet moves only when none cuts off).
    #[derive(Clone)]
    struct Staged(Tree);

    impl SearchGame for Staged {
        type Move = u32;
        fn generate(&self, out: &mut Vec<u32>) {
            self.0.generate(out);
        }
        fn generate_tactical(&self, out: &mut Vec<u32>) -> bool {
            let mut all = Vec::new();
            self.0.generate(&mut all);
            out.extend(all.into_iter().filter(|&m| self.is_tactical(m)));
            true
        }
        fn play(&mut self, mv: u32) {
            self.0.play(mv);
        }
        fn key(&self) -> u64 {
            self.0.key()
        }
        fn lost(&self) -> bool {
            false
        }
        fn evaluate(&self) -> i32 {
            self.0.evaluate()
        }
        fn order_hint(&self, mv: u32) -> i32 {
            mv as i32
        }
        fn is_tactical(&self, mv: u32) -> bool {
            mv % 2 == 1
        }
        // Captures only for the ordering: quiescence stands pat, as negamax does at depth 0.
        fn quiescence_moves(&self, _out: &mut Vec<u32>) {}
        fn gain(&self, _mv: u32) -> i32 {
            0
        }
        fn code(mv: u32) -> u32 {
            mv
        }
        const HISTORY_SIZE: usize = 8;
        fn history_index(mv: u32) -> usize {
            mv as usize
        }
        fn name(&self, mv: u32) -> String {
            mv.to_string()
        }
    }

    /// Staged, every quiet move is still searched where no capture cuts off (and a node whose
    /// moves are all quiet, or that has none, is scored as before): the exact minimax value.
    #[test]
    fn staged_moves_agree_with_plain_negamax_on_random_trees() {
        assert_agrees_with_negamax(Staged);
    }

    #[test]
    fn multipv_lines_are_the_best_root_moves_in_order() {
        let mut searcher = Searcher::<Tree>::new(1);
        searcher.set_pruning(false);
        searcher.set_multipv(3);
        let mut checked = 0;
        for seed in 0..2000u64 {
            let root = Tree { id: mix(seed) };
            let mut moves = Vec::new();
            root.generate(&mut moves);
            if moves.len() < 4 {
                continue;
            }
            let depth = 3;
            let mut values: Vec<i32> = moves
                .iter()
                .map(|&m| {
                    let mut c = root.clone();
                    c.play(m);
                    -negamax(&c, depth - 1, 1)
                })
                .collect();
            if values.iter().any(|v| v.abs() > WIN_BOUND) {
                continue; // forced results end the deepening early
            }
            values.sort_by_key(|&v| std::cmp::Reverse(v));
            searcher.clear();
            let control = Control::new(
                Limits {
                    depth: Some(depth),
                    ..Default::default()
                },
                0,
            );
            let mut infos = Vec::new();
            let outcome = searcher.run(&root, &[], &control, depth, &mut |r| {
                if let Report::Info(i) = r {
                    infos.push(i);
                }
            });
            let last: Vec<&Info> = infos.iter().filter(|i| i.depth == depth).collect();
            assert_eq!(last.len(), 3, "seed {seed}");
            for (k, info) in last.iter().enumerate() {
                assert_eq!(info.multipv, Some(k as u32 + 1));
                assert_eq!(info.score, values[k], "seed {seed} line {}", k + 1);
            }
            let firsts: std::collections::BTreeSet<_> = last.iter().map(|i| &i.pv[0]).collect();
            assert_eq!(
                firsts.len(),
                3,
                "seed {seed}: the lines start with distinct moves"
            );
            assert_eq!(outcome.best.as_ref(), Some(&last[0].pv[0]));
            assert_eq!(outcome.info.multipv, Some(1));
            checked += 1;
        }
        assert!(checked > 20, "{checked}");
    }

    /// Take 1 to 3 stones; who cannot move loses. The first player wins iff n % 4 != 0.
    #[derive(Clone)]
    pub(super) struct Nim(pub(super) u32);

    impl SearchGame for Nim {
        type Move = u32;
        fn generate(&self, out: &mut Vec<u32>) {
            out.extend((1..=3).filter(|&t| t <= self.0));
        }
        fn play(&mut self, mv: u32) {
            self.0 -= mv;
        }
        fn key(&self) -> u64 {
            mix(self.0 as u64)
        }
        fn lost(&self) -> bool {
            false
        }
        fn evaluate(&self) -> i32 {
            0
        }
        fn order_hint(&self, _mv: u32) -> i32 {
            0
        }
        fn is_tactical(&self, _mv: u32) -> bool {
            false
        }
        fn gain(&self, _mv: u32) -> i32 {
            0
        }
        fn code(mv: u32) -> u32 {
            mv
        }
        const HISTORY_SIZE: usize = 4;
        fn history_index(mv: u32) -> usize {
            mv as usize
        }
        fn name(&self, mv: u32) -> String {
            mv.to_string()
        }
    }

    #[test]
    fn finds_forced_wins_and_the_winning_move() {
        let mut searcher = Searcher::<Nim>::new(1);
        for n in 1..40u32 {
            searcher.clear();
            let control = Control::new(
                Limits {
                    depth: Some(60),
                    ..Default::default()
                },
                0,
            );
            let outcome = searcher.run(&Nim(n), &[], &control, 60, &mut |_| {});
            if n % 4 == 0 {
                assert!(outcome.info.score < -WIN_BOUND, "n {n}: {:?}", outcome.info);
            } else {
                assert!(outcome.info.score > WIN_BOUND, "n {n}: {:?}", outcome.info);
                assert_eq!(outcome.best, Some((n % 4).to_string()), "n {n}");
            }
        }
    }

    #[test]
    fn node_limit_is_exact_and_reproducible() {
        let root = Tree { id: 7 };
        let mut counts = Vec::new();
        for _ in 0..2 {
            let mut searcher = Searcher::<Tree>::new(1);
            let control = Control::new(
                Limits {
                    nodes: Some(5000),
                    ..Default::default()
                },
                0,
            );
            let outcome = searcher.run(&root, &[], &control, 64, &mut |_| {});
            counts.push((searcher.nodes(), outcome.best));
        }
        assert_eq!(counts[0], counts[1]);
        assert!(counts[0].0 <= 5000);
    }

    /// Quantum shogi opts in to the root's reordering: after each iteration the main thread has
    /// the best move first and the others by the nodes their search took, largest first; a
    /// helper only brings its best move to the front of the order it was given.
    #[test]
    fn root_moves_follow_the_size_of_their_last_search() {
        use crate::quantum::search::QGame;
        use crate::quantum::{Action, Position, Ruleset};
        let root = QGame::new(Position::start(), Ruleset::default());
        let mut generated = Vec::new();
        root.generate(&mut generated);
        let by_code = |moves: &[Action]| {
            let mut codes: Vec<u32> = moves.iter().map(|&m| QGame::code(m)).collect();
            codes.sort_unstable();
            codes
        };
        let control = Control::new(
            Limits {
                depth: Some(4),
                ..Default::default()
            },
            0,
        );
        let mut main = Searcher::<QGame>::new(1);
        let mut helper = Searcher::<QGame>::new(1);
        helper.helper_id = 1;
        let (mut ours, mut theirs) = (generated.clone(), generated.clone());
        let mut reordered = false;
        for depth in 1..=4 {
            let before = ours.clone();
            let it = main
                .root_search(&root, &mut ours, depth, &control, true)
                .expect("a move");
            assert_eq!(ours[0], it.pv[0], "depth {depth}: the best move first");
            assert_eq!(by_code(&ours), by_code(&generated), "depth {depth}");
            let size = |m: Action| main.root_nodes[before.iter().position(|&b| b == m).unwrap()];
            assert!(
                ours[1..].windows(2).all(|w| size(w[0]) >= size(w[1])),
                "depth {depth}: the others by size"
            );
            reordered |= ours[1..] != before[1..];

            let before = theirs.clone();
            let it = helper
                .root_search(&root, &mut theirs, depth, &control, true)
                .expect("a move");
            let at = before.iter().position(|&m| m == it.pv[0]).unwrap();
            let mut rotated = before.clone();
            rotated[..=at].rotate_right(1);
            assert_eq!(theirs, rotated, "depth {depth}: the helper's order stays");
        }
        assert!(
            reordered,
            "the sizes differ somewhere, and the order follows them"
        );
    }
}
