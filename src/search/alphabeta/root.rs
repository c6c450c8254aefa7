//! Iterative deepening and the root's search: each iteration searches the root moves in the
//! order the last one left them, with MultiPV's extra lines searched after the best.

use super::node::late_move_reduction;
use super::{Iteration, Searcher, MAX_PLY};
use crate::search::control::Control;
use crate::search::game::{SearchGame, WIN, WIN_BOUND};
use crate::search::tt::Bound;
use crate::search::{Info, Outcome, Report};

impl<G: SearchGame> Searcher<G> {
    /// Iterative deepening on this thread.
    pub(super) fn iterate(
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
                if !self.other_lines(
                    root,
                    &mut root_moves,
                    lines,
                    depth,
                    control,
                    &mut best,
                    report,
                ) {
                    break; // the best move of this depth stands; its other lines are unfinished
                }
                if best.as_ref().is_some_and(|b| decided(b, depth)) {
                    break;
                }
            } else if let Some(b) = &best {
                report(Report::Info(self.info(root, b, control)));
                if decided(b, depth) {
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

    /// MultiPV: the k-th best move is the best of the moves after the first k - 1. Searches
    /// the `lines - 1` lines after `best` at `depth` and reports all by score, the best
    /// becoming the first of them. False when the search was stopped before they were done.
    #[allow(clippy::too_many_arguments)]
    fn other_lines(
        &mut self,
        root: &G,
        root_moves: &mut [G::Move],
        lines: usize,
        depth: u32,
        control: &Control,
        best: &mut Option<Iteration<G::Move>>,
        report: &mut dyn FnMut(Report),
    ) -> bool {
        let mut others = Vec::with_capacity(lines - 1);
        for k in 1..lines {
            match self.root_search(root, &mut root_moves[k..], depth, control, false) {
                Some(it) if !self.aborted => others.push(it),
                _ => break,
            }
        }
        if self.aborted {
            return false;
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
            *best = all.into_iter().next();
        }
        true
    }

    pub(super) fn info(&self, root: &G, it: &Iteration<G::Move>, control: &Control) -> Info {
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
    pub(super) fn root_search(
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
}

/// A forced result within the horizon of an iteration at `depth`: deeper search changes nothing.
fn decided<M>(it: &Iteration<M>, depth: u32) -> bool {
    it.score.abs() > WIN_BOUND && depth as i32 > WIN - it.score.abs()
}
