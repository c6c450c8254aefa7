//! The small trait a game offers the generic search. Implemented per game (no `dyn` in the search).

/// Scores are in the game's own unit (centipawns, say) from the side to move's view.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses in a known number of plies.
pub const WIN_BOUND: i32 = WIN - 1_000;

pub trait SearchGame: Clone + Send + 'static {
    type Move: Copy + Eq + Send + 'static;

    /// The legal moves of the side to move, appended to `out` (which arrives empty).
    fn generate(&self, out: &mut Vec<Self::Move>);

    /// Plays a move produced by `generate` on this position.
    fn play(&mut self, mv: Self::Move);

    /// Passes the move to the opponent (for null-move pruning); false if the game has no such
    /// notion, and then the position must be left unchanged.
    fn play_null(&mut self) -> bool {
        false
    }

    /// A hash of everything that decides the future of the game (Zobrist, fixed constants).
    fn key(&self) -> u64;

    /// When the game is over with the side to move having lost (its king was captured), true.
    /// A side with no legal move is scored by `terminal_score` (by default, it loses); the search
    /// finds that from `generate` itself.
    fn lost(&self) -> bool;

    /// The score of a position where the side to move has no legal move (from its point of view,
    /// `ply` plies from the root): by default a loss, sooner being worse.
    fn terminal_score(&self, ply: u32) -> i32 {
        -WIN + ply as i32
    }

    /// Static evaluation from the side to move's point of view.
    fn evaluate(&self) -> i32;

    /// Whether the opponent might win at once were the side to move to pass (its king may be
    /// captured next). Such a node is not cut on its static evaluation. By default never.
    fn in_check(&self) -> bool {
        false
    }

    /// Whether some quiet move of the side to move could leave the opponent [`in_check`]. When
    /// false, quiet moves cut by futility or move-count pruning are not looked at one by one.
    /// By default never.
    ///
    /// [`in_check`]: SearchGame::in_check
    fn may_give_check(&self) -> bool {
        false
    }

    /// A cheap test, asked only where [`may_give_check`] holds: false when the quiet move `mv`
    /// certainly leaves the opponent out of [`in_check`]. (Those it lets through are played and
    /// asked `in_check`.)
    ///
    /// [`in_check`]: SearchGame::in_check
    /// [`may_give_check`]: SearchGame::may_give_check
    fn may_check(&self, _mv: Self::Move) -> bool {
        true
    }

    /// Multi-ProbCut (Buro): for a null-window node `depth` plies from the horizon, a shallower
    /// depth whose score predicts the deep one, and how well. None (the default): no ProbCut.
    /// Used only when the searcher's `set_probcut` is on.
    fn probcut(&self, _depth: i32) -> Option<ProbCut> {
        None
    }

    /// A move ordering score: higher first (captures of valuable pieces, say).
    fn order_hint(&self, mv: Self::Move) -> i32;

    /// Moves searched in quiescence (captures).
    fn is_tactical(&self, mv: Self::Move) -> bool;

    /// Appends the tactical moves alone, in the order `generate` gives them, and says true, where
    /// the game has a cheaper way to them than `generate`: a node that cuts off on one of them
    /// then never generates (or orders) its quiet moves. False (the default): the searcher
    /// generates every move at once.
    fn generate_tactical(&self, _out: &mut Vec<Self::Move>) -> bool {
        false
    }

    /// Appends the moves worth searching in quiescence (by default: the tactical ones).
    fn quiescence_moves(&self, out: &mut Vec<Self::Move>) {
        self.generate(out);
        out.retain(|&m| self.is_tactical(m));
    }

    /// What a tactical move wins at most, in evaluation units (for delta pruning).
    fn gain(&self, mv: Self::Move) -> i32;

    /// A compact code of the move for the transposition table and history tables.
    fn code(mv: Self::Move) -> u32;

    /// Whether a node with no move from the transposition table is searched a ply shallower
    /// (internal iterative reduction), under the searcher's pruning switch.
    const INTERNAL_REDUCTION: bool = false;

    /// Whether the main thread orders the root moves after the best by the nodes their last
    /// search took, and searches late quiet ones a ply or more shallower first (as below the
    /// root), under the searcher's pruning switch.
    const ROOT_REDUCTION: bool = false;

    /// Reverse futility: a non-PV node at most `RFP_DEPTH` plies from the horizon whose static
    /// evaluation beats beta by this much per ply is cut without a search. In the game's units,
    /// so each game sets it to its evaluation's scale.
    const RFP_MARGIN: i32 = 200;

    /// Futility, by depth: a quiet move this close to the horizon that cannot lift the static
    /// evaluation to alpha even with the margin is not searched.
    const FUTILITY_MARGIN: [i32; 3] = [0, 250, 500];

    /// Null move: one more ply of reduction per this much of static evaluation above beta (two
    /// at most).
    const NULL_MARGIN: i32 = 200;

    /// Delta pruning: a capture that cannot lift the score to alpha even with this margin is
    /// not searched in quiescence.
    const DELTA_MARGIN: i32 = 150;

    /// Quiescence goes at most this many plies below the horizon.
    const QUIESCE_DEPTH: u32 = 3;

    /// How much the history table counts against `order_hint` when ordering quiet moves.
    const HISTORY_WEIGHT: i64 = 1024;

    /// Size of the history table index space (`history_index(mv) < HISTORY_SIZE`).
    const HISTORY_SIZE: usize;
    fn history_index(mv: Self::Move) -> usize;

    /// The move in protocol notation.
    fn name(&self, mv: Self::Move) -> String;
}

/// A fitted regression of a deep search's score on a shallow one's, `deep ≈ a·shallow + b` with
/// residual deviation `sigma` (the game's units): a node whose shallow search proves the deep
/// score beyond beta (or below alpha) by `t` deviations is cut without the deep search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbCut {
    pub shallow: i32,
    pub a: f32,
    pub b: f32,
    pub sigma: f32,
    pub t: f32,
}
