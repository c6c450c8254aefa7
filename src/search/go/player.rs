//! From a search to a move: when to pass, when to resign, and the end-of-game judgement drawn
//! from the search's ownership (Benson's unconditional status overrides it).

use super::fast::{FastBoard, PASS};
use super::mcts::{area, Mcts, Settings, Snapshot};
use crate::games::go::analysis::extended;
use crate::games::go::board::{Board, Color, EMPTY};
use crate::games::go::score::{empty_region, Judgement, Life};
use crate::games::go::Game;
use crate::search::{Control, Limits};

/// Resign below this win rate (side to move), once the search has this many playouts.
pub const RESIGN_WINRATE: f64 = 0.05;
pub const RESIGN_PLAYOUTS: u32 = 2000;

/// What the engine does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Play(usize),
    Pass,
    Resign,
}

/// Black's area minus white's with every stone alive (Tromp-Taylor), komi not taken off.
pub fn tromp_taylor(game: &Game) -> i32 {
    area(&FastBoard::from_game(game))
}

/// The move to play after the search `snap` of `game` (the side to move's), `passes` being the
/// passes just played. Two passes end the game with the stones as they stand, and a referee
/// (`ryoshi match`, gogui-twogtp) counts them by area all alive, so the engine passes only when
/// that count is final and wins, or when it has nothing else to do:
/// - when the count as the board stands wins, after the opponent's pass or when the game is over
///   on the board (every empty region is bordered by one colour only, or is a single point
///   between both: dame), so no stone is left to capture;
/// - when the opponent has passed and the game is over on the board, even if lost;
/// - when nothing but own eyes is left to play, or when the game is hopeless after the
///   opponent's pass.
///
/// Dead opponent stones are therefore captured before the engine passes, as GNU Go does with
/// `--capture-all-dead`; the search's ownership (which may misjudge a big group) does not decide
/// the end. It resigns (when allowed) when the search gives it less than [`RESIGN_WINRATE`].
pub fn decide(game: &Game, komi: f64, passes: u8, snap: &Snapshot, may_resign: bool) -> Choice {
    let me = game.to_move;
    let count = tromp_taylor(game) as f64 - komi;
    let wins = if me == Color::Black {
        count > 0.0
    } else {
        count < 0.0
    };
    let over = over_on_the_board(&game.board);
    // A game the opponent ended by passing, with nothing left to capture, is passed out even
    // when lost: the count stands.
    if (wins && (passes >= 1 || over)) || (passes >= 1 && over) {
        return Choice::Pass;
    }
    let Some(best) = snap.moves.iter().find(|m| m.mv != PASS) else {
        return Choice::Pass;
    };
    let hopeless = snap.root_visits >= RESIGN_PLAYOUTS
        && snap.winrate < RESIGN_WINRATE
        && best.winrate < RESIGN_WINRATE;
    if hopeless && may_resign {
        return Choice::Resign;
    }
    if hopeless && passes >= 1 {
        return Choice::Pass;
    }
    Choice::Play(best.mv as usize)
}

/// Whether every empty region is bordered by one colour only or is a single point between both.
fn over_on_the_board(board: &Board) -> bool {
    let mut seen = vec![false; board.len()];
    for p in board.points() {
        if board.get(p) != EMPTY || seen[p] {
            continue;
        }
        let (region, touches) = empty_region(board, p, &mut seen);
        if (touches[0] && touches[1] && region.len() > 1) || (!touches[0] && !touches[1]) {
            return false;
        }
    }
    true
}

/// The tree of the end-of-game judgement's search.
const JUDGE_TREE_BYTES: usize = 16 << 20;

/// The ownership of `game` (+1 = its side to move owns the point) from a short seeded search in
/// a fresh tree, so that the answer depends on the position and the komi alone: GTP's
/// `final_score` and the session's `score` agree on it. The playouts go on past passes already
/// played: they are what finds the dead stones. With no memory for a tree every stone counts as
/// alive.
pub fn fresh_ownership(game: &Game, komi: f64) -> Vec<f64> {
    let playouts = crate::games::go::score::playouts_for(game.board.size()) as u64 * 8;
    let control = Control::new(
        Limits {
            nodes: Some(playouts),
            ..Limits::default()
        },
        0,
    );
    let settings = Settings {
        komi,
        threads: 1,
        seed: 0,
        passes: 0,
        report_ms: None,
    };
    match Mcts::new(JUDGE_TREE_BYTES) {
        Ok(engine) => {
            engine
                .search(game, &settings, &control, &mut |_| {})
                .ownership
        }
        Err(_) => {
            let board = &game.board;
            let me = game.to_move.cell();
            board
                .points()
                .map(|p| match board.get(p) {
                    0 => 0.0,
                    c if c == me => 1.0,
                    _ => -1.0,
                })
                .collect()
        }
    }
}

/// The end-of-game judgement from a search's ownership (`ownership` per point in scanning
/// order, +1 = `to_move` owns it): a block is dead when its stones were mostly the opponent's
/// at the end of the playouts. Benson's unconditional status (the extended analysis) wins over
/// it; alive blocks next to a shared liberty are seki (as [`crate::games::go::score`] marks it).
pub fn judge_from_ownership(
    board: &Board,
    to_move: Color,
    ko: Option<usize>,
    ownership: &[f64],
) -> Judgement {
    let analysis = extended(board, ko);
    let mut own = vec![0.0; board.len()];
    for (p, &o) in board.points().zip(ownership) {
        own[p] = if to_move == Color::Black { o } else { -o };
    }
    crate::games::go::score::judge_blocks(board, &analysis, |cell, stones| {
        // Black's ownership summed over the block, from the block's own side.
        let sum: f64 = stones.iter().map(|&s| own[s]).sum();
        let mine = if cell == Color::Black.cell() {
            sum
        } else {
            -sum
        };
        if mine < 0.0 {
            Life::Dead
        } else {
            Life::Alive
        }
    })
}
