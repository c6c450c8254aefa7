//! Iterative deepening principal-variation search with a transposition table, killer and history
//! move ordering and a capture quiescence search, generic over [`SearchGame`]. Iterative
//! deepening and the root are in `root`, a node's search in `node`, move ordering in
//! `ordering`, and Lazy SMP's threads in `smp`.

use super::control::Control;
use super::game::SearchGame;
use super::tt::Table;
use super::{Outcome, Report};
use std::sync::Arc;

mod node;
mod ordering;
mod root;
mod smp;

const MAX_PLY: usize = 128;
/// How often (in nodes) the clock is read.
const CLOCK_EVERY: u64 = 256;

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
}

#[cfg(test)]
mod tests {
    use super::ordering::{update_history, HISTORY_MAX};
    use super::*;
    use crate::search::game::{WIN, WIN_BOUND};
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

    /// [`Tree`] grown wide (8 to 15 moves a node), opting in to the root's reordering as
    /// quantum shogi does.
    #[derive(Clone)]
    struct Wide(Tree);

    impl SearchGame for Wide {
        type Move = u32;
        fn generate(&self, out: &mut Vec<u32>) {
            out.extend(0..8 + (mix(self.0.id) % 8) as u32);
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
        fn is_tactical(&self, _mv: u32) -> bool {
            false
        }
        fn gain(&self, _mv: u32) -> i32 {
            0
        }
        fn code(mv: u32) -> u32 {
            mv
        }
        const HISTORY_SIZE: usize = 16;
        fn history_index(mv: u32) -> usize {
            mv as usize
        }
        fn name(&self, mv: u32) -> String {
            mv.to_string()
        }
        const ROOT_REDUCTION: bool = true;
    }

    /// A game that opts in to the root's reordering: after each iteration the main thread has
    /// the best move first and the others by the nodes their search took, largest first; a
    /// helper only brings its best move to the front of the order it was given.
    #[test]
    fn root_moves_follow_the_size_of_their_last_search() {
        let root = Wide(Tree { id: 7 });
        let mut generated = Vec::new();
        root.generate(&mut generated);
        let by_code = |moves: &[u32]| {
            let mut codes = moves.to_vec();
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
        let mut main = Searcher::<Wide>::new(1);
        let mut helper = Searcher::<Wide>::new(1);
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
            let size = |m: u32| main.root_nodes[before.iter().position(|&b| b == m).unwrap()];
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
