//! The search tree: a pool of nodes allocated once, fallibly, to a size the caller bounds (the
//! `USI_Hash` megabytes for Go, see protocol/go.md). The children of a node lie next to each
//! other. Re-rooting for the next move copies the kept subtree into a second pool of the same
//! size (so each pool is half the budget) and swaps the two; so does pruning a full tree.

use super::fast::PASS;
use crate::go::Position;

#[derive(Clone, Copy, Debug, Default)]
pub struct Node {
    /// The move into this node (a point, or PASS).
    pub mv: u16,
    pub children: u16,
    /// Index of the first child; 0 while the node is not expanded (the root is never a child).
    pub first: u32,
    /// Playouts through this node, counted when they start (the virtual loss).
    pub n: u32,
    /// Wins of the player who made `mv`, counted when the playouts end.
    pub w: f32,
    /// All-moves-as-first statistics of `mv` for that player.
    pub rn: f32,
    pub rw: f32,
    /// Prior knowledge as equivalent playouts and wins.
    pub pn: f32,
    pub pw: f32,
    /// The sum of black's final margins (points, komi taken off) of the playouts.
    pub score: f32,
}

impl Node {
    pub fn new(mv: u16, pn: f32, pw: f32) -> Node {
        Node {
            mv,
            pn,
            pw,
            ..Node::default()
        }
    }

    /// The mean result for the player who made `mv`, without priors (0.5 before any playout).
    pub fn winrate(&self) -> f64 {
        if self.n == 0 {
            0.5
        } else {
            (self.w / self.n as f32) as f64
        }
    }
}

/// Bytes per node: what the size option is divided by.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// A tree too large for the machine: the pool could not be allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a Go search tree of {nodes} nodes")]
pub struct PoolError {
    pub nodes: usize,
}

pub struct Tree {
    pub nodes: Vec<Node>,
    spare: Vec<Node>,
    capacity: usize,
    /// The position the root stands for.
    pub root_game: Option<Position>,
    /// The komi it was searched under.
    komi: f64,
    /// The nodes left by the last [`Tree::prune`] (0: none since the tree was last reset or
    /// re-rooted).
    pruned_to: usize,
}

impl Tree {
    /// A tree of at most `bytes` (both pools together; at least a few hundred nodes).
    pub fn new(bytes: usize) -> Result<Tree, PoolError> {
        let capacity = (bytes / 2 / NODE_BYTES).max(512);
        let mut nodes = Vec::new();
        let mut spare = Vec::new();
        nodes
            .try_reserve_exact(capacity)
            .and_then(|_| spare.try_reserve_exact(capacity))
            .map_err(|_| PoolError { nodes: capacity })?;
        let mut tree = Tree {
            nodes,
            spare,
            capacity,
            root_game: None,
            komi: 0.0,
            pruned_to: 0,
        };
        tree.nodes.push(Node::new(PASS, 0.0, 0.0));
        Ok(tree)
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Room for `k` more nodes?
    pub fn has_room(&self, k: usize) -> bool {
        self.nodes.len() + k <= self.capacity
    }

    /// Forgets everything: a fresh root for `game` under `komi`.
    pub fn reset(&mut self, game: &Position, komi: f64) {
        self.nodes.clear();
        self.nodes.push(Node::new(PASS, 0.0, 0.0));
        self.root_game = Some(game.clone());
        self.komi = komi;
        self.pruned_to = 0;
    }

    /// The children of node `i`.
    pub fn children(&self, i: usize) -> std::ops::Range<usize> {
        let n = self.nodes[i];
        n.first as usize..n.first as usize + n.children as usize
    }

    /// Appends the children of leaf `i` (the pool has room: see [`Tree::has_room`]).
    pub fn expand(&mut self, i: usize, children: &[Node]) {
        let first = self.nodes.len();
        self.nodes.extend_from_slice(children);
        self.nodes[i].first = first as u32;
        self.nodes[i].children = children.len() as u16;
    }

    /// Forgets the root's position: the next [`Tree::reroot`] starts afresh, whatever it is
    /// asked (after `undo`, a loaded game, a cleared board).
    pub fn forget(&mut self) {
        self.root_game = None;
    }

    /// Makes the root stand for `game` under `komi`: keeps the subtree reached from the old
    /// root by the moves played since (the engine's move and the opponent's answer, or any
    /// moves a controller sent), as Pachi, Fuego and Leela Zero do; otherwise (another komi,
    /// another game, a move the tree never expanded) starts afresh. Returns the playouts kept.
    pub fn reroot(&mut self, game: &Position, komi: f64) -> u32 {
        let kept_for = |old: &Position| {
            // The komi changes every result: a tree searched under another is not reused.
            if self.komi.to_bits() != komi.to_bits() {
                return None;
            }
            game.moves_since(old)
        };
        let Some((old, moves)) = self
            .root_game
            .as_ref()
            .and_then(|old| kept_for(old).map(|moves| (old.to_move, moves)))
        else {
            self.reset(game, komi);
            return 0;
        };
        let mut keep = 0;
        let mut colour = old;
        for (by, mv) in moves {
            let mv = mv.map_or(PASS, |p| p as u16);
            // A move out of turn (GTP's `play` allows one) is no edge of the tree.
            let child = self.children(keep).find(|&c| self.nodes[c].mv == mv);
            match child {
                Some(c) if by == colour => keep = c,
                _ => {
                    self.reset(game, komi);
                    return 0;
                }
            }
            colour = colour.other();
        }
        if keep == 0 {
            self.root_game = Some(game.clone());
            return self.nodes[0].n;
        }
        if !self.copy_subtree(keep, 0) {
            self.reset(game, komi);
            return 0;
        }
        self.pruned_to = 0;
        self.nodes[0].mv = PASS;
        self.root_game = Some(game.clone());
        self.nodes[0].n
    }

    /// Makes room in a full tree, as Fuego does (`SgUctSearch`'s pruning of a full tree): the
    /// subtrees under nodes of fewer than `min_n` playouts go (the nodes keep their statistics
    /// and are expanded again when visited), `min_n` doubling until at most half the pool is
    /// left. The root's children always stay. None, and nothing done, when a prune would
    /// not pay: too little has grown since the last one (the tree cannot shrink below the
    /// root's children, so a pool that holds little more would prune at every expansion), or
    /// the spare pool cannot be had. Every node index changes. Returns the `min_n` it used.
    pub fn prune(&mut self, mut min_n: u32) -> Option<u32> {
        if self.nodes.len() < self.pruned_to + self.capacity / 4 {
            return None;
        }
        loop {
            if !self.copy_subtree(0, min_n) {
                return None;
            }
            if self.nodes.len() <= self.capacity / 2 || min_n > self.nodes[0].n {
                break;
            }
            min_n = min_n.saturating_mul(2);
        }
        self.pruned_to = self.nodes.len();
        Some(min_n)
    }

    /// Copies the subtree under `keep` into the spare pool, breadth first (each node's
    /// children together), and makes the copy the tree, `keep` its root. Below the root, a
    /// node of fewer than `min_n` playouts is copied without its children. False, and nothing
    /// changed, when the spare pool cannot be had.
    fn copy_subtree(&mut self, keep: usize, min_n: u32) -> bool {
        if self.spare.capacity() < self.capacity
            && self
                .spare
                .try_reserve_exact(self.capacity - self.spare.len())
                .is_err()
        {
            return false;
        }
        self.spare.clear();
        self.spare.push(self.nodes[keep]);
        // The copies still name their children in the old pool until their turn comes; the
        // copy never outgrows the pool it came from, so no push reallocates.
        let mut head = 0;
        while head < self.spare.len() {
            let node = self.spare[head];
            if node.children > 0 {
                if head > 0 && node.n < min_n {
                    self.spare[head].first = 0;
                    self.spare[head].children = 0;
                } else {
                    let old = node.first as usize..node.first as usize + node.children as usize;
                    self.spare[head].first = self.spare.len() as u32;
                    self.spare.extend_from_slice(&self.nodes[old]);
                }
            }
            head += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
        self.spare.clear();
        true
    }
}
