//! `ryoshi bench go-playouts [SECONDS] [THREADS]`: playouts per second from the empty 9×9 and
//! 19×19 boards (the playout alone, then whole search iterations on one thread and on
//! THREADS), and the search signature: the tree's node count after a fixed seeded search.

use super::fast::FastBoard;
use super::mcts::{Mcts, Settings};
use super::playout::Playout;
use crate::go::Position;
use crate::rng::SplitMix64;
use crate::search::{Control, Limits};
use std::time::Instant;

/// The signature search: 9×9, empty board, seed 1, this many playouts, one thread.
pub const SIGNATURE_PLAYOUTS: u64 = 4000;

/// Bytes of tree for the benchmark searches.
const TREE_BYTES: usize = 64 << 20;

/// Plain playouts from the empty board of `size` for about `seconds`: playouts per second.
pub fn playouts_per_second(size: usize, seconds: f64) -> f64 {
    let Ok(game) = Position::empty(size) else {
        return 0.0;
    };
    let root = FastBoard::from_game(&game);
    let mut board = root.clone();
    let mut playout = Playout::default();
    let mut rng = SplitMix64::new(1);
    let mut moves = Vec::new();
    let start = Instant::now();
    let mut count = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..64 {
            board.copy_from(&root);
            moves.clear();
            playout.run(&mut board, &mut rng, &mut moves);
            count += 1;
        }
    }
    count as f64 / start.elapsed().as_secs_f64()
}

/// A timed search of the empty board of `size` on `threads`: playouts per second.
pub fn search_per_second(size: usize, seconds: f64, threads: usize) -> Option<f64> {
    let game = Position::empty(size).ok()?;
    let mcts = Mcts::new(TREE_BYTES).ok()?;
    let control = Control::new(
        Limits {
            movetime: Some((seconds * 1000.0) as u64),
            ..Limits::default()
        },
        0,
    );
    let settings = Settings::new(7.0, threads, 1);
    let snap = mcts.search(&game, &settings, &control, &mut |_| {});
    Some(snap.playouts as f64 * 1000.0 / snap.time_ms.max(1) as f64)
}

/// The signature: tree nodes after [`SIGNATURE_PLAYOUTS`] on the empty 9×9 board, seed 1,
/// and the move chosen.
pub fn signature() -> Option<(usize, String)> {
    let game = Position::empty(9).ok()?;
    let mcts = Mcts::new(TREE_BYTES).ok()?;
    let control = Control::new(
        Limits {
            nodes: Some(SIGNATURE_PLAYOUTS),
            ..Limits::default()
        },
        0,
    );
    let settings = Settings::new(7.0, 1, 1);
    let snap = mcts.search(&game, &settings, &control, &mut |_| {});
    let best = snap.moves.first().map_or(0, |m| m.mv as usize);
    let text = crate::go::notation::format_move(&game.board, (best != 0).then_some(best));
    Some((snap.nodes, text))
}

/// Runs the benchmark, printing its lines to `out`.
pub fn run(seconds: f64, threads: usize, out: &mut dyn FnMut(&str)) {
    for size in [9usize, 19] {
        let plain = playouts_per_second(size, seconds);
        out(&format!(
            "go playouts {size}x{size}: {plain:.0} playouts/s (playout only, 1 thread)"
        ));
        let one = search_per_second(size, seconds, 1).unwrap_or(0.0);
        out(&format!(
            "go search {size}x{size}: {one:.0} playouts/s (1 thread)"
        ));
        if threads > 1 {
            let many = search_per_second(size, seconds, threads).unwrap_or(0.0);
            out(&format!(
                "go search {size}x{size}: {many:.0} playouts/s ({threads} threads, {:.2}x one)",
                many / one.max(1.0)
            ));
        }
    }
    if let Some((nodes, best)) = signature() {
        out(&format!(
            "go search signature: 9x9, seed 1, {SIGNATURE_PLAYOUTS} playouts: best {best}"
        ));
        out(&format!("Nodes searched: {nodes}"));
    }
}
