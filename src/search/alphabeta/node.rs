//! The search below the root: principal-variation alpha-beta with the table's cutoffs, reverse
//! futility, the null move, Multi-ProbCut, late-move reductions and pruning, then a capture
//! quiescence search at the horizon.

use super::ordering::{append_quiets, best_from, update_history, HISTORY_MAX};
use super::{Searcher, CLOCK_EVERY, MAX_PLY};
use crate::search::control::Control;
use crate::search::game::{ProbCut, SearchGame, WIN, WIN_BOUND};
use crate::search::tt::{from_tt, Bound};
use std::ops::ControlFlow;

/// Reverse futility acts this close to the horizon (by `SearchGame::RFP_MARGIN` a ply: the
/// opponent is not expected to recover that much).
const RFP_DEPTH: i32 = 3;
/// Late-move pruning: at these depths only the first quiet moves (in history order) are searched;
/// with hundreds of legal actions per position, the rest almost never matter.
const LMP_LIMIT: [usize; 4] = [0, 8, 17, 32];
/// Internal iterative reduction acts from this depth (for games that ask for it).
const IIR_DEPTH: i32 = 4;

/// What a node's move loop needs from the tests before it.
#[derive(Clone, Copy)]
struct Node {
    key: u64,
    depth: i32,
    /// The window as the node was entered.
    alpha: i32,
    beta: i32,
    ply: u32,
    /// The table's move (`u32::MAX`: none).
    tt_code: u32,
    /// Futility and move-count pruning may act (not at the root nor near a mate score).
    prune: bool,
    static_eval: i32,
}

/// Selection sort's step: brings the best-scored move at or after `i` to `i` and returns it.
/// Most nodes cut off after the first few moves. Stable for a staged game, so that its
/// captures come in the same order whether the quiet moves are in the list or not (a swap
/// would let them reorder equal captures).
#[inline(always)]
fn bring_best_to<M: Copy>(i: usize, moves: &mut [M], scores: &mut [i64], staged: bool) -> M {
    let j = best_from(scores, i);
    if staged {
        moves[i..=j].rotate_right(1);
        scores[i..=j].rotate_right(1);
    } else {
        moves.swap(i, j);
        scores.swap(i, j);
    }
    moves[i]
}

/// Futility and late-move pruning: a late quiet move (the `quiets`-th) at `depth` is not
/// searched when too many came before it or when the static evaluation is too far below alpha.
#[inline(always)]
fn futile<G: SearchGame>(depth: i32, quiets: usize, static_eval: i32, alpha: i32) -> bool {
    let d = depth as usize;
    (d < LMP_LIMIT.len() && quiets > LMP_LIMIT[d])
        || (d < G::FUTILITY_MARGIN.len() && static_eval + G::FUTILITY_MARGIN[d] <= alpha)
}

/// The reduction of the `index`-th move of a node of `depth` if it is late (none before the
/// fifth move nor below depth 3; at least two plies are left).
#[inline(always)]
pub(super) fn reduction(depth: i32, index: usize) -> i32 {
    if depth >= 3 && index >= 4 {
        late_move_reduction(depth, index).min(depth - 2)
    } else {
        0
    }
}

/// Plies taken off a late quiet move: growing with the log of both the depth and the move's
/// rank, as in Stockfish (at least 1 where reductions apply).
pub(super) fn late_move_reduction(depth: i32, index: usize) -> i32 {
    let r = 0.75 + (depth as f64).ln() * ((index + 1) as f64).ln() / 2.25;
    (r as i32).max(1)
}

impl<G: SearchGame> Searcher<G> {
    /// One move's search from a node of `depth` (the root's too, where beta is infinite): the
    /// first move with the full window; the others with a null window, `reduction` plies
    /// shallower first, then at full depth if they beat alpha, then with the full window if
    /// they land inside it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search_child(
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

    pub(super) fn poll(&mut self, control: &Control) -> bool {
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

    pub(super) fn is_repetition(&self, key: u64) -> bool {
        // The current key is not yet on the stack; positions repeat only with the same side to
        // move, two plies apart at the least.
        self.keys.iter().rev().skip(1).step_by(2).any(|&k| k == key)
    }

    pub(super) fn alphabeta(
        &mut self,
        pos: &G,
        mut depth: i32,
        alpha: i32,
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
        let tt_code = match self.probe(key, depth, alpha, beta, ply) {
            ControlFlow::Break(score) => return score,
            ControlFlow::Continue(code) => code,
        };
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
        if try_null && static_eval >= beta {
            if let Some(score) = self.null_move(pos, key, depth, beta, static_eval, ply, control) {
                return score;
            }
        }
        let node = Node {
            key,
            depth,
            alpha,
            beta,
            ply,
            tt_code,
            prune,
            static_eval,
        };
        self.search_moves(pos, node, control)
    }

    /// The table's entry for `key`: its move's code (`u32::MAX` for none) to try first, or
    /// the score when its bound already decides a null-window node.
    #[inline(always)]
    fn probe(
        &self,
        key: u64,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: u32,
    ) -> ControlFlow<i32, u32> {
        let Some(e) = self.tt.probe(key) else {
            return ControlFlow::Continue(u32::MAX);
        };
        if e.depth as i32 >= depth && beta - alpha == 1 {
            let s = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if cut {
                return ControlFlow::Break(s);
            }
        }
        ControlFlow::Continue(e.code)
    }

    /// Null move: if passing still fails high, a real move will too (zugzwang is rare here).
    /// `Some` with the node's score when it does (0 when the search was stopped).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn null_move(
        &mut self,
        pos: &G,
        key: u64,
        depth: i32,
        beta: i32,
        static_eval: i32,
        ply: u32,
        control: &Control,
    ) -> Option<i32> {
        let mut passed = pos.clone();
        if !passed.play_null() {
            return None;
        }
        self.keys.push(key);
        // Deeper and further above beta, a larger reduction (as Stockfish's).
        let r = 2 + depth / 4 + ((static_eval - beta) / G::NULL_MARGIN).min(2);
        let score = -self.alphabeta(&passed, depth - 1 - r, -beta, -beta + 1, ply + 1, control);
        self.keys.pop();
        if self.aborted {
            return Some(0);
        }
        (score >= beta && score < WIN_BOUND).then_some(score)
    }

    /// The moves of a node, searched best first, with futility and move-count pruning of late
    /// quiet moves; the result is stored in the table.
    #[inline(always)]
    fn search_moves(&mut self, pos: &G, node: Node, control: &Control) -> i32 {
        let Node {
            key,
            depth,
            mut alpha,
            beta,
            ply,
            tt_code,
            prune,
            static_eval,
        } = node;
        let (mut moves, staged, mut quiets_pending) = self.node_moves(pos, tt_code, ply);
        if moves.is_empty() {
            self.buffers[ply as usize] = moves;
            return pos.terminal_score(ply); // by default, no legal action loses
        }
        let mut scores = std::mem::take(&mut self.score_buffers[ply as usize]);
        scores.clear();
        self.append_scores(pos, &moves, &mut scores, tt_code, ply);
        // Quiet moves that attack the opponent's king are kept from futility and move-count
        // pruning, the fastest way to a forced capture. Not a ply from the horizon: the reply
        // there is quiescence, which stands pat, so the attack could prove nothing.
        let checks = prune && depth >= 2 && pos.may_give_check();
        let mut best = -WIN - 1;
        let mut best_code = u32::MAX;
        let mut quiets = 0usize;
        self.keys.push(key);
        for i in 0.. {
            if i == moves.len() {
                if !quiets_pending {
                    break;
                }
                quiets_pending = false;
                append_quiets(pos, &mut moves);
                self.append_scores(pos, &moves, &mut scores, tt_code, ply);
                if i == moves.len() {
                    break;
                }
            }
            let mv = bring_best_to(i, &mut moves, &mut scores, staged);
            let quiet = !pos.is_tactical(mv);
            let mut pruned = false;
            if prune && i > 0 && quiet && best > -WIN_BOUND {
                // Moves come sorted: from here on every move is quiet and ordered later.
                quiets += 1;
                pruned = futile::<G>(depth, quiets, static_eval, alpha);
            }
            if pruned && !checks {
                break;
            }
            if pruned && !pos.may_check(mv) {
                continue;
            }
            let mut child = pos.clone();
            child.play(mv);
            if pruned && !child.in_check() {
                continue;
            }
            // Late quiet moves (not the killers) are searched a ply shallower first.
            let late = self.pruning && quiet && scores[i] < (1 << 39) - 1;
            let reduction = if late { reduction(depth, i) } else { 0 };
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
                    self.set_pv(ply, mv);
                    if alpha >= beta {
                        if quiet {
                            self.reward_quiet_cutoff(pos, &moves[..=i], depth, ply);
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
        self.store(&node, best, best_code);
        best
    }

    /// Stores a node's result in the table, bounded as the window it was entered with says.
    #[inline(always)]
    fn store(&self, node: &Node, best: i32, best_code: u32) {
        let bound = if best >= node.beta {
            Bound::Lower
        } else if best > node.alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(node.key, best_code, best, node.depth, bound, node.ply);
    }

    /// A node's moves in the ply's buffer: staged where the game can, the captures first, the
    /// quiet moves only once none of them has cut off. Not when the table's move is quiet: it
    /// goes first, so the whole list is needed. A staged game picks its moves stably (see
    /// [`bring_best_to`]) on either path. Without captures the whole list is the quiet moves:
    /// generated at once. Returns the moves, whether the game stages, and whether the quiet
    /// moves are still to come.
    #[inline(always)]
    fn node_moves(&mut self, pos: &G, tt_code: u32, ply: u32) -> (Vec<G::Move>, bool, bool) {
        let mut moves = std::mem::take(&mut self.buffers[ply as usize]);
        moves.clear();
        let staged = pos.generate_tactical(&mut moves);
        let quiets_pending = staged
            && !moves.is_empty()
            && (tt_code == u32::MAX || moves.iter().any(|&m| G::code(m) == tt_code));
        if !quiets_pending {
            moves.clear();
            pos.generate(&mut moves);
        }
        (moves, staged, quiets_pending)
    }

    /// The order scores of `moves` after the first `scores.len()`, appended.
    #[inline(always)]
    fn append_scores(
        &self,
        pos: &G,
        moves: &[G::Move],
        scores: &mut Vec<i64>,
        tt_code: u32,
        ply: u32,
    ) {
        let start = scores.len();
        scores.extend(
            moves[start..]
                .iter()
                .map(|&m| self.order_score(pos, m, tt_code, ply)),
        );
    }

    /// The line at `ply`: `mv`, then the line its child found.
    #[inline(always)]
    fn set_pv(&mut self, ply: u32, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply as usize + 1);
        let line = &mut head[ply as usize];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    /// A quiet move (the last of `tried`) cut off: it becomes a killer and gains history.
    /// Every quiet move before it was searched, or pruned as futile: they failed where it cut
    /// off, and lose history.
    #[inline(always)]
    fn reward_quiet_cutoff(&mut self, pos: &G, tried: &[G::Move], depth: i32, ply: u32) {
        let Some((&mv, before)) = tried.split_last() else {
            return;
        };
        let code = G::code(mv);
        let k = &mut self.killers[ply as usize];
        if k[0] != code {
            k[1] = k[0];
            k[0] = code;
        }
        let bonus = (depth * depth).min(HISTORY_MAX / 8);
        update_history(&mut self.history[G::history_index(mv)], bonus);
        for &other in before.iter().filter(|&&m| !pos.is_tactical(m)) {
            update_history(&mut self.history[G::history_index(other)], -bonus);
        }
    }

    /// Multi-ProbCut at a null-window node: a shallow null-window search around the bound the
    /// regression maps beta (alpha) to; `Some` when it proves the deep score is beyond it.
    pub(super) fn probcut_cut(
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

    pub(super) fn quiesce(
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
