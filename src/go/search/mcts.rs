//! Monte Carlo tree search for Go: selection by the mean result mixed with all-moves-as-first
//! (MC-RAVE, Gelly and Silver 2007) over prior knowledge given as equivalent playouts (a
//! Bradley–Terry model of strong players' moves: [`children_of`]), no exploration term, as
//! Fuego and Pachi do. Threads share one tree behind a lock (tree parallelism): a playout
//! counts as a loss from the moment it starts (virtual loss), so threads spread out.
//! Two passes in a row end the game inside the tree, scored by area with every stone alive.

use super::fast::{FastBoard, PASS};
use super::features;
use super::playout::Playout;
use super::tree::{Node, PoolError, Tree};
use crate::go::board::{Color, BLACK, EMPTY, WHITE};
use crate::go::Position;
use crate::rng::{mix, SplitMix64};
use crate::search::{helpers, Control};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// A leaf is expanded at its this-many-th visit: on big boards later, so that the tree (a
/// child per empty point) does not outgrow its pool.
fn expand_at(size: usize) -> u32 {
    match size {
        0..=9 => 2,
        10..=13 => 4,
        _ => 8,
    }
}
/// RAVE's equivalence in play: at this many playouts the node's own mean and AMAF weigh the
/// same. 1500 beat 3000 by +53.6 at 2000 playouts a move on 9×9 (issue 46, stop 57).
const RAVE_EQUIV: f32 = 1500.0;
/// Prior: a pass starts as this many playouts.
const EVEN: f32 = 10.0;
/// Prior: every point starts as this many playouts, won at its Bradley–Terry rate.
const PRIOR: f32 = 30.0;

/// A worker's stack: the descent and the playouts are loops, so the std's default is ample.
const WORKER_STACK: usize = 2 << 20;

/// What one search is asked.
#[derive(Clone, Debug)]
pub struct Settings {
    pub komi: f64,
    pub threads: usize,
    pub seed: u64,
    /// Passes just played before the position (1 = the opponent passed).
    pub passes: u8,
    /// A report every this many milliseconds (to `report`), if any.
    pub report_ms: Option<u64>,
    /// AMAF updates weighted by how soon the move came (see `Worker::iterate`); off, every
    /// move counts once, as for the end-of-game judgement (player.rs).
    pub weighted_rave: bool,
    /// RAVE's equivalence ([`RAVE_EQUIV`] in play).
    pub rave_equiv: f32,
    /// Moves the search must not choose near the root (analysis' `avoid`/`allow`).
    pub bans: Vec<Ban>,
}

/// KataGo's `avoidMoves`/`allowMoves` (GTP's `avoid`/`allow`): at the first `until` plies of
/// the search (ply 0 = the root's moves), a move of `color` that is listed (`allow`: that is
/// not listed) is never chosen, so its visits go to the other moves. When every move of a node
/// is banned the ban is lifted there (a search must go on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ban {
    pub color: Color,
    pub allow: bool,
    /// Points as [`FastBoard`] numbers them, [`PASS`] for a pass.
    pub moves: Vec<u16>,
    pub until: u64,
}

impl Ban {
    fn forbids(&self, ply: usize, color: Color, mv: u16) -> bool {
        (ply as u64) < self.until && color == self.color && self.moves.contains(&mv) != self.allow
    }
}

impl Settings {
    /// The settings of play: no passes before the position, no reports, weighted AMAF.
    pub fn new(komi: f64, threads: usize, seed: u64) -> Settings {
        Settings {
            komi,
            threads,
            seed,
            passes: 0,
            report_ms: None,
            weighted_rave: true,
            rave_equiv: RAVE_EQUIV,
            bans: Vec::new(),
        }
    }
}

/// One root move as the analysis shows it (side to move's point of view).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveInfo {
    pub mv: u16,
    pub visits: u32,
    pub winrate: f64,
    pub prior: f64,
    /// Points the side to move leads by after this move (komi included).
    pub score_lead: f64,
    pub pv: Vec<u16>,
    /// The playouts through each move of `pv` (the first is `visits`).
    pub pv_visits: Vec<u32>,
}

/// The state of a search (side to move's point of view).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Playouts of this search (not counting those kept from the previous move).
    pub playouts: u64,
    pub root_visits: u32,
    pub winrate: f64,
    pub score_lead: f64,
    /// Root moves with at least one playout, most visited first.
    pub moves: Vec<MoveInfo>,
    /// The root moves not yet played out, with their priors, the likeliest first (for
    /// `minmoves`).
    pub unvisited: Vec<(u16, f64)>,
    /// Per point in scanning order: +1 the side to move owns it, -1 the opponent.
    pub ownership: Vec<f64>,
    pub time_ms: u64,
    /// The nodes in the tree.
    pub nodes: usize,
    /// The threads searching: fewer than asked when the system refused some.
    pub threads: usize,
}

struct Shared {
    tree: Tree,
    /// Counts the prunes of the tree ([`Tree::prune`]): a playout that began before one finds
    /// its path again by its moves, as far as the pruned tree still holds it.
    generation: u64,
    /// Per padded point: playouts that ended with it black minus white.
    own: Vec<i64>,
    runs: u64,
}

/// A Go searcher; its tree is kept from one move to the next.
pub struct Mcts {
    shared: Mutex<Shared>,
}

impl Mcts {
    /// A searcher whose tree takes at most `bytes`.
    pub fn new(bytes: usize) -> Result<Mcts, PoolError> {
        Ok(Mcts {
            shared: Mutex::new(Shared {
                tree: Tree::new(bytes)?,
                generation: 0,
                own: Vec::new(),
                runs: 0,
            }),
        })
    }

    /// Drops the tree: the next search starts afresh (after `undo`, a loaded game, a new one).
    pub fn forget(&self) {
        self.shared.lock().tree.forget();
    }

    /// The tree's capacity in nodes.
    pub fn capacity(&self) -> usize {
        self.shared.lock().tree.capacity()
    }

    /// Searches `game` until `control` says stop (time, `stop`, or its node limit = playouts).
    /// The tree of the last search is kept when `game` follows from its position by the moves
    /// played since, under the same komi ([`Tree::reroot`]); the limit counts this search's
    /// playouts only, as Pachi counts them.
    pub fn search(
        &self,
        game: &Position,
        settings: &Settings,
        control: &Control,
        report: &mut dyn FnMut(&Snapshot),
    ) -> Snapshot {
        let mut root = FastBoard::from_game(game);
        root.passes = settings.passes;
        {
            let mut s = self.shared.lock();
            s.tree.reroot(game, settings.komi);
            s.own = vec![0; root.len()];
            s.runs = 0;
            if s.tree.nodes[0].children == 0 {
                let mut scratch = root.clone();
                let children = children_of(&mut scratch);
                if s.tree.has_room(children.len()) {
                    s.tree.expand(0, &children);
                }
            }
        }
        // `go infinite` runs until `stop`, whatever else it says; `go depth N` (a tree search
        // has no depth to complete) is N thousand playouts.
        let limit = if control.limits().infinite {
            None
        } else {
            control.node_limit().or(control
                .depth_limit()
                .map(|d| u64::from(d).saturating_mul(1000)))
        };
        let claimed = AtomicU64::new(0);
        let done = AtomicBool::new(false);
        let threads = settings.threads.max(1);
        let running = AtomicUsize::new(1);
        let position = game
            .board
            .cells()
            .iter()
            .fold(game.to_move.index() as u64, |h, &c| mix(h ^ c as u64));
        let worker = |id: usize, main: bool, report: &mut dyn FnMut(&Snapshot)| {
            let mut rng = SplitMix64::new(mix(settings.seed ^ position ^ mix(id as u64)));
            let mut w = Worker::new(&root);
            let mut next_report = settings.report_ms.unwrap_or(u64::MAX);
            loop {
                if done.load(Ordering::Relaxed) {
                    break;
                }
                let k = claimed.fetch_add(1, Ordering::Relaxed);
                if limit.is_some_and(|l| k >= l) {
                    done.store(true, Ordering::Relaxed);
                    break;
                }
                if main && k > 0 && stop_now(control, &self.shared, limit.is_some()) {
                    done.store(true, Ordering::Relaxed);
                    break;
                }
                w.iterate(&self.shared, &root, settings, &mut rng);
                if main && control.elapsed_ms() >= next_report {
                    let mut snap = self.snapshot(
                        game,
                        settings.komi,
                        control,
                        claimed.load(Ordering::Relaxed),
                    );
                    snap.threads = running.load(Ordering::Relaxed);
                    report(&snap);
                    next_report = control.elapsed_ms() + settings.report_ms.unwrap_or(u64::MAX);
                }
            }
        };
        std::thread::scope(|scope| {
            let worker = &worker;
            let jobs = (1..threads).map(|id| move || worker(id, false, &mut |_| {}));
            let helpers = helpers::start(scope, WORKER_STACK, jobs);
            running.store(helpers.len() + 1, Ordering::Relaxed);
            worker(0, true, report);
        });
        let playouts = claimed
            .load(Ordering::Relaxed)
            .min(limit.unwrap_or(u64::MAX));
        let mut snap = self.snapshot(game, settings.komi, control, playouts);
        snap.threads = running.into_inner();
        snap
    }

    /// The analysis of the tree as it stands.
    pub fn snapshot(
        &self,
        game: &Position,
        komi: f64,
        control: &Control,
        playouts: u64,
    ) -> Snapshot {
        let s = self.shared.lock();
        let tree = &s.tree;
        let me = game.to_move;
        let sign = if me == Color::Black { 1.0 } else { -1.0 };
        let root = tree.nodes[0];
        let prior_total: f32 = tree
            .children(0)
            .map(|c| tree.nodes[c].pw)
            .sum::<f32>()
            .max(1e-6);
        let mut moves: Vec<MoveInfo> = tree
            .children(0)
            .filter(|&c| tree.nodes[c].n > 0)
            .map(|c| {
                let node = tree.nodes[c];
                let mut pv = vec![node.mv];
                let mut pv_visits = vec![node.n];
                let mut i = c;
                while pv.len() < 16 {
                    let Some(best) = tree.children(i).max_by_key(|&k| tree.nodes[k].n) else {
                        break;
                    };
                    if tree.nodes[best].n == 0 {
                        break;
                    }
                    pv.push(tree.nodes[best].mv);
                    pv_visits.push(tree.nodes[best].n);
                    i = best;
                }
                MoveInfo {
                    mv: node.mv,
                    visits: node.n,
                    winrate: node.winrate(),
                    prior: (node.pw / prior_total) as f64,
                    score_lead: sign * node.score as f64 / node.n as f64,
                    pv,
                    pv_visits,
                }
            })
            .collect();
        // Most visited first; ties by win rate, then by point, so the order is reproducible.
        moves.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(b.winrate.total_cmp(&a.winrate))
                .then(a.mv.cmp(&b.mv))
        });
        let mut unvisited: Vec<(u16, f64)> = tree
            .children(0)
            .filter(|&c| tree.nodes[c].n == 0)
            .map(|c| (tree.nodes[c].mv, (tree.nodes[c].pw / prior_total) as f64))
            .collect();
        unvisited.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let runs = s.runs.max(1) as f64;
        let ownership = game
            .board
            .points()
            .map(|p| s.own.get(p).map_or(0.0, |&o| sign * o as f64 / runs))
            .collect();
        let winrate = if root.n > 0 {
            1.0 - root.winrate()
        } else {
            0.5
        };
        let score_lead = if root.n > 0 {
            sign * root.score as f64 / root.n as f64
        } else {
            let _ = komi;
            0.0
        };
        Snapshot {
            playouts,
            root_visits: root.n,
            winrate,
            score_lead,
            moves,
            unvisited,
            ownership,
            time_ms: control.elapsed_ms(),
            nodes: tree.nodes.len(),
            threads: 1,
        }
    }
}

/// Whether the search must end now: the clock, or (without a playout limit, between soft
/// and hard deadline) a best move so far ahead that the rest cannot change it.
fn stop_now(control: &Control, shared: &Mutex<Shared>, has_limit: bool) -> bool {
    if control.hard_expired() {
        return true;
    }
    if has_limit || !control.soft_expired() {
        return false;
    }
    // Past the soft deadline: go on only while the two most visited moves are close.
    let s = shared.lock();
    let tree = &s.tree;
    let mut top = [0u32; 2];
    for c in tree.children(0) {
        let n = tree.nodes[c].n;
        if n > top[0] {
            top = [n, top[0]];
        } else if n > top[1] {
            top[1] = n;
        }
    }
    top[0] as f64 > 1.3 * top[1] as f64
}

/// One thread's buffers.
struct Worker {
    board: FastBoard,
    playout: Playout,
    path: Vec<usize>,
    seq: Vec<u16>,
    children: Vec<Node>,
    amaf: Vec<u8>,
    amaf_at: Vec<u32>,
}

impl Worker {
    fn new(root: &FastBoard) -> Worker {
        Worker {
            board: root.clone(),
            playout: Playout::default(),
            path: Vec::with_capacity(64),
            seq: Vec::with_capacity(4 * root.len()),
            children: Vec::new(),
            amaf: vec![0; root.len()],
            amaf_at: vec![0; root.len()],
        }
    }

    /// One playout: descend (under the lock), play out (without it), back up (under it).
    fn iterate(
        &mut self,
        shared: &Mutex<Shared>,
        root: &FastBoard,
        settings: &Settings,
        rng: &mut SplitMix64,
    ) {
        let komi = settings.komi;
        let (terminal, generation) = self.descend(shared, root, settings);
        let margin = if terminal {
            area(&self.board) as f64 - komi
        } else {
            self.playout.run(&mut self.board, rng, &mut self.seq);
            self.board.playout_score() as f64 - komi
        };
        self.back_up(
            shared,
            root.to_move,
            generation,
            margin,
            settings.weighted_rave,
        );
    }

    /// Walks the tree from the root to a leaf (expanding it when it is due), each node on the
    /// way taking a virtual loss. Returns whether the leaf ends the game (two passes), and the
    /// tree's generation it was reached in.
    fn descend(
        &mut self,
        shared: &Mutex<Shared>,
        root: &FastBoard,
        settings: &Settings,
    ) -> (bool, u64) {
        self.board.copy_from(root);
        self.path.clear();
        self.seq.clear();
        let mut s = shared.lock();
        let Shared {
            tree,
            generation: now,
            ..
        } = &mut *s;
        let mut i = 0;
        self.path.push(0);
        tree.nodes[0].n += 1;
        loop {
            if self.board.passes >= 2 {
                return (true, *now);
            }
            if tree.nodes[i].children == 0 {
                let at = expand_at(self.board.size());
                if tree.nodes[i].n < at {
                    break;
                }
                if !tree.has_room(self.board.empties().len() + 1) {
                    // A full tree would stop growing for the rest of the search (about
                    // 20,000 playouts fill 64 MiB on 9x9, under a second): prune it and
                    // descend again, this descent's virtual losses taken back first. (At
                    // most once: the next prune waits for a quarter of the pool to grow.)
                    for &idx in &self.path {
                        tree.nodes[idx].n -= 1;
                    }
                    if tree.prune(2 * at).is_some() {
                        *now += 1;
                        self.board.copy_from(root);
                        self.path.clear();
                        self.seq.clear();
                        self.path.push(0);
                        tree.nodes[0].n += 1;
                        i = 0;
                        continue;
                    }
                    for &idx in &self.path {
                        tree.nodes[idx].n += 1;
                    }
                    break;
                }
                self.children = children_of(&mut self.board);
                tree.expand(i, &self.children);
            }
            let ply = self.path.len() - 1;
            let c = if settings.bans.iter().any(|b| (ply as u64) < b.until) {
                let mover = if ply.is_multiple_of(2) {
                    root.to_move
                } else {
                    root.to_move.other()
                };
                let banned = |mv| settings.bans.iter().any(|b| b.forbids(ply, mover, mv));
                select(tree, i, settings.rave_equiv, Some(&banned))
            } else {
                select(tree, i, settings.rave_equiv, None)
            };
            tree.nodes[c].n += 1;
            let mv = tree.nodes[c].mv;
            self.board.play(mv);
            self.seq.push(mv);
            self.path.push(c);
            i = c;
        }
        (false, *now)
    }

    /// Backs up a playout that ended `margin` points ahead for black (`first` moved first from
    /// the root), its path found again if the tree was pruned since `generation`.
    fn back_up(
        &mut self,
        shared: &Mutex<Shared>,
        first: Color,
        generation: u64,
        margin: f64,
        weighted_rave: bool,
    ) {
        let black: f32 = if margin > 0.0 {
            1.0
        } else if margin < 0.0 {
            0.0
        } else {
            0.5
        };
        let mut s = shared.lock();
        let Shared {
            tree,
            generation: now,
            own,
            runs,
        } = &mut *s;
        if *now != generation {
            // A prune moved every node (its virtual losses with them): follow this playout's
            // tree moves again from the root, as far as the pruned tree still holds them.
            let len = self.path.len();
            self.path.truncate(1);
            let mut i = 0;
            for &mv in &self.seq[..len - 1] {
                match tree.children(i).find(|&c| tree.nodes[c].mv == mv) {
                    Some(c) => {
                        self.path.push(c);
                        i = c;
                    }
                    None => break,
                }
            }
        }
        for (d, &idx) in self.path.iter().enumerate() {
            let mover = if d == 0 {
                first.other()
            } else {
                colour_of(first, d - 1)
            };
            let node = &mut tree.nodes[idx];
            node.w += result_for(black, mover);
            node.score += margin as f32;
        }
        self.back_up_amaf(tree, first, black, weighted_rave);
        for p in self.board.points() {
            own[p] += match self.board.owner(p) {
                BLACK => 1,
                WHITE => -1,
                _ => 0,
            };
        }
        *runs += 1;
    }

    /// The AMAF (RAVE) results of the path's siblings: walking back, `amaf[p]` is the colour
    /// that played p first from move j on, and `amaf_at[p]` that move's index. A move counts
    /// less the later it came (Fuego's weighted RAVE updates: 2 right after the node, falling
    /// to 0 at the playout's end). A point filled late in a playout is mostly taken by whoever
    /// already owns its area: it tells who won there, not whether playing it first was good.
    fn back_up_amaf(&mut self, tree: &mut Tree, first: Color, black: f32, weighted_rave: bool) {
        let end = self.seq.len() as f32;
        for j in (0..self.seq.len()).rev() {
            let mv = self.seq[j] as usize;
            if mv != PASS as usize {
                self.amaf[mv] = colour_of(first, j).cell();
                self.amaf_at[mv] = j as u32;
            }
            if j < self.path.len() {
                let c = colour_of(first, j);
                let r = result_for(black, c);
                let span = end - j as f32;
                for k in tree.children(self.path[j]) {
                    let node = &mut tree.nodes[k];
                    if node.mv != PASS && self.amaf[node.mv as usize] == c.cell() {
                        let at = self.amaf_at[node.mv as usize] as f32 - j as f32;
                        let weight = if weighted_rave {
                            2.0 - 2.0 * at / span
                        } else {
                            1.0
                        };
                        node.rn += weight;
                        node.rw += weight * r;
                    }
                }
            }
        }
        for &mv in &self.seq {
            self.amaf[mv as usize] = 0;
        }
    }
}

/// The colour of the move `seq[j]` of a playout from a root where `first` is to move.
#[inline]
fn colour_of(first: Color, j: usize) -> Color {
    if j.is_multiple_of(2) {
        first
    } else {
        first.other()
    }
}

/// A playout's result for `c`, given black's (1 a win, 0 a loss, 0.5 a tie).
#[inline]
fn result_for(black: f32, c: Color) -> f32 {
    if c == Color::Black {
        black
    } else {
        1.0 - black
    }
}

/// The child of `i` with the best mix of mean result (priors included) and AMAF, among those
/// not `banned` (among all when every one is).
fn select(tree: &Tree, i: usize, rave_equiv: f32, banned: Option<&dyn Fn(u16) -> bool>) -> usize {
    let mut best = usize::MAX;
    let mut best_value = f32::NEG_INFINITY;
    let banned = banned.filter(|b| tree.children(i).any(|c| !b(tree.nodes[c].mv)));
    for c in tree.children(i) {
        let node = &tree.nodes[c];
        if banned.is_some_and(|b| b(node.mv)) {
            continue;
        }
        // The prior's playouts count as the node's own (Pachi merges them into the node's
        // statistics before the mix, Fuego initialises its counts with them): an unvisited
        // move's first AMAF results then weigh against its prior, not replace it.
        let n = node.n as f32 + node.pn;
        let q = (node.w + node.pw) / n;
        let value = if node.rn > 0.0 {
            let beta = node.rn / (node.rn + n + node.rn * n / rave_equiv);
            (1.0 - beta) * q + beta * (node.rw / node.rn)
        } else {
            q
        };
        if value > best_value {
            best_value = value;
            best = c;
        }
    }
    best
}

/// The root or leaf's moves with their priors: every legal point that is not an own eye, and
/// a pass. Each point starts as [`PRIOR`] playouts won at the rate a Bradley–Terry model of
/// strong players' moves gives it against an average move of the position: γ / (γ + γ̄), with
/// γ its strength under the learned gammas ([`features`]) and γ̄ the mean over the points.
pub fn children_of(board: &mut FastBoard) -> Vec<Node> {
    let color = board.to_move;
    let mut out = Vec::with_capacity(board.empties().len() + 1);
    let mut points: Vec<u16> = board.empties().to_vec();
    // The empty list's order depends on the history: sort, so the tree does not.
    points.sort_unstable();
    let mut total = 0.0f32;
    for p in points {
        if !board.is_legal(p as usize) || board.is_eye(p as usize, color) {
            continue;
        }
        let gamma = features::gamma_of_move(board, p);
        total += gamma;
        // The gamma waits in `pw` until the mean is known.
        out.push(Node::new(p, PRIOR, gamma));
    }
    if !out.is_empty() {
        let mean = total / out.len() as f32;
        for node in &mut out {
            node.pw = PRIOR * node.pw / (node.pw + mean);
        }
    }
    // Passing is seldom right before the end: it starts as a likely loss.
    out.push(Node::new(
        PASS,
        EVEN,
        if out.is_empty() { EVEN } else { 0.5 },
    ));
    out
}

/// Area score by Tromp-Taylor (every stone alive): black's stones and empty regions reaching
/// only black, minus white's.
pub fn area(board: &FastBoard) -> i32 {
    let mut seen = vec![false; board.len()];
    let mut score = 0;
    let mut region = Vec::new();
    for p in board.points() {
        match board.get(p) {
            BLACK => score += 1,
            WHITE => score -= 1,
            _ if seen[p] => {}
            _ => {
                region.clear();
                region.push(p);
                seen[p] = true;
                let mut touches = 0u8;
                let mut i = 0;
                while i < region.len() {
                    let q = region[i];
                    i += 1;
                    for n in board.neighbors(q) {
                        match board.get(n) {
                            EMPTY if !seen[n] => {
                                seen[n] = true;
                                region.push(n);
                            }
                            BLACK => touches |= 1,
                            WHITE => touches |= 2,
                            _ => {}
                        }
                    }
                }
                score += match touches {
                    1 => region.len() as i32,
                    2 => -(region.len() as i32),
                    _ => 0,
                };
            }
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Limits;

    fn search(game: &Position, playouts: u64, seed: u64) -> Snapshot {
        let mcts = Mcts::new(8 << 20).unwrap();
        let control = Control::new(
            Limits {
                nodes: Some(playouts),
                ..Limits::default()
            },
            0,
        );
        let settings = Settings::new(7.5, 1, seed);
        mcts.search(game, &settings, &control, &mut |_| {})
    }

    fn position(size: &str, rows: &str, to_move: &str) -> Position {
        let fields: Vec<String> = [size, rows, to_move]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (board, to_move) = crate::go::notation::parse_position(&fields).unwrap();
        Position::new(board, to_move)
    }

    #[test]
    fn one_thread_a_seed_and_a_playout_limit_give_the_same_search() {
        let game = Position::empty(9).unwrap();
        let a = search(&game, 1500, 3);
        let b = search(&game, 1500, 3);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.nodes, b.nodes);
        let c = search(&game, 1500, 4);
        assert_ne!(a.moves, c.moves, "another seed, other playouts");
    }

    /// `playouts` playouts of `game` by `mcts` under `komi`.
    fn search_with(mcts: &Mcts, game: &Position, komi: f64, playouts: u64) -> Snapshot {
        let limits = Limits {
            nodes: Some(playouts),
            ..Limits::default()
        };
        let settings = Settings::new(komi, 1, 0);
        mcts.search(game, &settings, &Control::new(limits, 0), &mut |_| {})
    }

    #[test]
    fn the_tree_is_kept_for_the_next_move() {
        let mut game = Position::empty(9).unwrap();
        let mcts = Mcts::new(8 << 20).unwrap();
        let first = search_with(&mcts, &game, 7.5, 3000);
        let pv = &first.moves[0].pv;
        assert!(pv.len() >= 2, "{pv:?}");
        // The grandchild the game reaches, as the first search left it.
        let child = first.moves[0].visits;
        game.play(Some(pv[0] as usize)).unwrap();
        game.play(Some(pv[1] as usize)).unwrap();
        // One new playout: the root carries the grandchild's visits, and its children theirs.
        let second = search_with(&mcts, &game, 7.5, 1);
        assert_eq!(second.playouts, 1);
        assert!(
            second.root_visits > 1 && second.root_visits <= child,
            "kept {} of {child}",
            second.root_visits
        );
        let kept: u32 = second.moves.iter().map(|m| m.visits).sum();
        assert!(kept + 1 >= second.root_visits && kept > 1, "{kept}");
        // The limit counts new playouts only.
        let third = search_with(&mcts, &game, 7.5, 3000);
        assert_eq!(third.playouts, 3000);
        assert_eq!(third.root_visits, second.root_visits + 3000);
    }

    #[test]
    fn the_tree_is_dropped_for_another_komi_game_or_history() {
        let mut game = Position::empty(9).unwrap();
        let mcts = Mcts::new(8 << 20).unwrap();
        let first = search_with(&mcts, &game, 7.5, 2000);
        assert_eq!(first.root_visits, 2000);
        // The same position again: the whole tree, unless the komi changed.
        assert_eq!(search_with(&mcts, &game, 7.5, 1).root_visits, 2001);
        assert_eq!(search_with(&mcts, &game, 6.5, 1).root_visits, 1);
        let again = search_with(&mcts, &game, 6.5, 2000);
        assert_eq!(again.root_visits, 2001);
        // Told to forget (undo, a loaded game): afresh.
        mcts.forget();
        assert_eq!(search_with(&mcts, &game, 6.5, 1).root_visits, 1);
        search_with(&mcts, &game, 6.5, 2000);
        // The same board reached by another history (a board set up, not played to) is
        // another game; so is the position before the root's.
        let mv = again.moves[0].mv as usize;
        let mut played = game.clone();
        played.play(Some(mv)).unwrap();
        let set_up = Position::new(played.board.clone(), played.to_move);
        assert_eq!(search_with(&mcts, &set_up, 6.5, 1).root_visits, 1);
        search_with(&mcts, &played, 6.5, 2000);
        assert_eq!(search_with(&mcts, &game, 6.5, 1).root_visits, 1);
        // Three moves on, through the tree: kept.
        search_with(&mcts, &game, 6.5, 4000);
        let pv = search_with(&mcts, &game, 6.5, 1).moves[0].pv.clone();
        assert!(pv.len() >= 3, "{pv:?}");
        for &m in &pv[..3] {
            game.play(Some(m as usize)).unwrap();
        }
        assert!(search_with(&mcts, &game, 6.5, 1).root_visits > 1);
    }

    #[test]
    fn it_captures_a_big_block_in_atari() {
        // White's six stones have one liberty left, at D6.
        let game = position(
            "7",
            "......./..X.X../.XOOOX./.XOOOX./..XXX../......./.......",
            "b",
        );
        let snap = search(&game, 2000, 0);
        assert_eq!(
            snap.moves[0].mv as usize,
            game.board.point(1, 3),
            "{:?}",
            snap.moves[0]
        );
        assert!(snap.winrate > 0.9, "{}", snap.winrate);
    }

    /// Every node but the root is the child of exactly one node, inside the pool.
    fn assert_well_formed(tree: &Tree) {
        let mut parents = vec![0u32; tree.nodes.len()];
        for i in 0..tree.nodes.len() {
            let children = tree.children(i);
            assert!(children.end <= tree.nodes.len(), "node {i}: {children:?}");
            for c in children {
                parents[c] += 1;
            }
        }
        assert_eq!(parents[0], 0);
        assert!(parents[1..].iter().all(|&p| p == 1));
    }

    #[test]
    fn a_prune_keeps_every_statistic_and_drops_only_the_subtrees_of_rare_nodes() {
        let game = Position::empty(9).unwrap();
        let mcts = Mcts::new(32 << 20).unwrap();
        search_with(&mcts, &game, 7.0, 6000);
        let mut s = mcts.shared.lock();
        assert_eq!(s.generation, 0, "the pool filled during the search");
        let before = s.tree.nodes.clone();
        let min_n = s.tree.prune(4).expect("a quarter of the pool has grown");
        let after = &s.tree.nodes;
        assert!(after.len() <= s.tree.capacity() / 2);
        assert!(
            after.len() < before.len(),
            "{} of {}",
            after.len(),
            before.len()
        );
        // The two trees walked together, child by child.
        let mut stack = vec![(0usize, 0usize)];
        let mut walked = 0;
        let mut dropped = 0;
        while let Some((old, new)) = stack.pop() {
            walked += 1;
            let (a, b) = (before[old], after[new]);
            let stats = |n: Node| (n.mv, n.n, n.w, n.rn, n.rw, n.pn, n.pw, n.score);
            assert_eq!(stats(a), stats(b));
            if old > 0 && a.n < min_n {
                assert_eq!(b.children, 0);
                dropped += (a.children > 0) as usize;
                continue;
            }
            assert_eq!(a.children, b.children);
            for k in 0..a.children as usize {
                stack.push((a.first as usize + k, b.first as usize + k));
            }
        }
        assert_eq!(walked, after.len(), "every node is reached from the root");
        assert!(dropped > 0);
        assert_well_formed(&s.tree);
    }

    #[test]
    fn a_full_tree_is_pruned_and_goes_on_growing() {
        // A 2 MiB tree (about 29,000 nodes a pool) fills within a few hundred playouts of 9x9.
        let game = Position::empty(9).unwrap();
        let mcts = Mcts::new(2 << 20).unwrap();
        let snap = search_with(&mcts, &game, 7.0, 20_000);
        let s = mcts.shared.lock();
        assert!(s.generation >= 3, "{} prunes", s.generation);
        assert_well_formed(&s.tree);
        // (Each prune after the first waits for a quarter of the pool to grow again.) A
        // descent cut short by a prune takes its virtual losses back and starts again: with
        // one thread the root counts every playout exactly.
        assert_eq!(snap.root_visits, 20_000);
        assert_every_playout_backed_up(&s.tree);
        assert!(snap.nodes <= s.tree.capacity());
    }

    /// Every playout backed up into the root and the root's child it went through: each gives
    /// the two movers results that add up to 1 (the root is expanded before any playout).
    fn assert_every_playout_backed_up(tree: &Tree) {
        let root = tree.nodes[0];
        let children = tree.children(0);
        let n: u32 = children.clone().map(|c| tree.nodes[c].n).sum();
        let w: f32 = children.map(|c| tree.nodes[c].w).sum();
        assert_eq!(n, root.n);
        assert_eq!(w + root.w, root.n as f32);
    }

    #[test]
    fn a_full_tree_shared_by_two_threads_is_pruned_under_their_playouts() {
        // The other thread's playout in flight at a prune finds its path again by its moves.
        let game = Position::empty(9).unwrap();
        let mcts = Mcts::new(2 << 20).unwrap();
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let settings = Settings::new(7.0, 2, 0);
        let snap = mcts.search(&game, &settings, &Control::new(limits, 0), &mut |_| {});
        assert_eq!(snap.threads, 2);
        let s = mcts.shared.lock();
        assert!(s.generation >= 3, "{} prunes", s.generation);
        assert_well_formed(&s.tree);
        assert_eq!(snap.root_visits, 20_000);
        assert_every_playout_backed_up(&s.tree);
    }

    #[test]
    fn a_pool_that_holds_little_more_than_the_root_does_not_prune_at_every_expansion() {
        // 512 nodes a pool (the least), 362 of them the root's children on 19x19.
        let game = Position::empty(19).unwrap();
        let mcts = Mcts::new(1).unwrap();
        let snap = search_with(&mcts, &game, 7.0, 3000);
        let s = mcts.shared.lock();
        assert!(s.generation <= 1, "{} prunes", s.generation);
        assert_eq!(s.tree.nodes[0].n, 3000);
        assert!(!snap.moves.is_empty());
        assert_well_formed(&s.tree);
    }

    #[test]
    fn the_first_playouts_go_to_board_points_not_pass() {
        for size in [5, 9, 19] {
            let game = Position::empty(size).unwrap();
            for playouts in [1, 2, 10] {
                let snap = search(&game, playouts, 0);
                assert!(
                    snap.moves.iter().all(|m| m.mv != PASS),
                    "{size}: {:?}",
                    snap.moves
                );
            }
        }
    }
}
