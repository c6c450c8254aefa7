//! From a search to a move: when to pass, when to resign, and the end-of-game judgement drawn
//! from the search's ownership (Benson's unconditional status overrides it).

use super::fast::{FastBoard, PASS};
use super::mcts::{area, Mcts, Settings, Snapshot};
use crate::go::analysis::{extended, Status};
use crate::go::board::{Board, Color, EMPTY};
use crate::go::eye::is_own_eye;
use crate::go::score::{empty_region, Judgement, Life};
use crate::go::Position;
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
pub fn tromp_taylor(game: &Position) -> i32 {
    area(&FastBoard::from_game(game))
}

/// The move to play after the search `snap` of `game` (the side to move's), `passes` being the
/// passes just played. Two passes end the game with the stones as they stand, and a referee
/// (`ryoshi match`, gogui-twogtp) counts them by area all alive, so the engine passes only when
/// that count is final and wins, or when it has nothing else to do:
/// - when the count as the board stands wins, after the opponent's pass or when the game is over
///   on the board (every empty region is bordered by one colour only, or is a single point
///   between both: dame), so no stone is left to capture;
/// - when the opponent has passed and the game is over on the board, even if lost, unless a
///   block is in atari or the search takes an opponent block for dead (both can be captured);
/// - when nothing but own eyes is left to play, or when the game is hopeless after the
///   opponent's pass.
///
/// Dead opponent stones are therefore captured before the engine passes, as GNU Go does with
/// `--capture-all-dead`; the search's ownership (which may misjudge a big group) never makes it
/// pass, it only keeps a lost count from being passed out. It resigns (when allowed) when the
/// search gives it less than [`RESIGN_WINRATE`].
pub fn decide(game: &Position, komi: f64, passes: u8, snap: &Snapshot, may_resign: bool) -> Choice {
    let me = game.to_move;
    let count = tromp_taylor(game) as f64 - komi;
    let wins = if me == Color::Black {
        count > 0.0
    } else {
        count < 0.0
    };
    let over = over_on_the_board(&game.board);
    if wins && (passes >= 1 || over) {
        return Choice::Pass;
    }
    // A game the opponent ended by passing, with nothing left to capture, is passed out even
    // when lost: the count stands. A block in atari can still be captured, though its last
    // liberty be a single point between both colours, which `over` takes for dame: 7 of the
    // 10 games lost by the count in 200 against GNU Go were passed out so, a dead block left in
    // atari that GNU Go counted for ryoshi.
    // Nor is it passed out while the search takes an opponent block for dead: the block may
    // have two liberties, each such a single point (19x19 game 15 against GNU Go: W+14 by the
    // count, B+2 by GNU Go's own, a dead white group left in black's area).
    // Tested only after a pass, so that other moves walk no blocks here.
    if passes >= 1 && over && no_block_in_atari(&game.board) && !dead_blocks_left(game, snap) {
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

/// Whether no block is in atari.
fn no_block_in_atari(board: &Board) -> bool {
    board.blocks().iter().all(|(_, _, libs)| libs.len() >= 2)
}

/// Whether the search takes an opponent block for dead: its points are the side to move's in
/// most playouts (by [`SURE`], as the judgement reads a block).
fn dead_blocks_left(game: &Position, snap: &Snapshot) -> bool {
    let own = black_view(game, &snap.ownership);
    let them = game.to_move.other().cell();
    let blocks = game.board.blocks();
    blocks
        .iter()
        .any(|(cell, stones, _)| *cell == them && block_mean(*cell, stones, &own) <= -SURE)
}

/// The tree of the end-of-game judgement's search.
const JUDGE_TREE_BYTES: usize = 16 << 20;

/// The ownership of `game` (+1 = its side to move owns the point) from a short seeded search in
/// a fresh tree, so that the answer depends on the position and the komi alone: GTP's
/// `final_score` and the session's `score` agree on it. The playouts go on past passes already
/// played: they are what finds the dead stones. With no memory for a tree every stone counts as
/// alive.
pub fn fresh_ownership(game: &Position, komi: f64) -> Vec<f64> {
    match fresh_search(game, komi) {
        Some(snap) => snap.ownership,
        None => {
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

/// RAVE's equivalence of the judgement's searches: AMAF weighs less than in play.
const JUDGE_RAVE_EQUIV: f32 = 3000.0;

/// The search behind [`fresh_ownership`]; `None` without memory for its tree.
fn fresh_search(game: &Position, komi: f64) -> Option<Snapshot> {
    let playouts = crate::go::score::playouts_for(game.board.size()) as u64 * 8;
    let control = Control::new(
        Limits {
            nodes: Some(playouts),
            ..Limits::default()
        },
        0,
    );
    let settings = Settings {
        // The judgement was checked against GNU Go's on 54 games with every AMAF move
        // counted once and RAVE's equivalence at 3000; weighted updates, or play's 1500,
        // misjudge one of them (game-19's right-side group: B+24 with 13 white stones dead
        // at 1500, GNU Go B+2 with one).
        weighted_rave: false,
        rave_equiv: JUDGE_RAVE_EQUIV,
        ..Settings::new(komi, 1, 0)
    };
    let engine = Mcts::new(JUDGE_TREE_BYTES).ok()?;
    Some(engine.search(game, &settings, &control, &mut |_| {}))
}

/// How sure the ownership must be of a block (its stones' mean, -1..1, from the block's side)
/// for the judgement to take its verdict without playing on: owned in 80% of the playouts.
const SURE: f64 = 0.6;

/// The end-of-game judgement of `game` (GTP's `final_score` and `final_status_list`, the
/// session's `score`), from `ownership`, a search's ownership of this position (+1 = the side to
/// move owns the point): Benson's unconditional status first, then each block by its ownership
/// ([`judge_from_ownership`]).
///
/// Blocks whose ownership is unsure (a capturing race, or a group whose life the random
/// playouts leave to chance, as when they fill a second eye that the eye heuristic takes for a
/// false one) are judged by playing on, as GNU Go's aftermath does: the search's best move for
/// each side in turn (a fresh seeded search a ply), until two passes, every such block is sure,
/// or [`play_on_plies`] plies (twice the board's size within a budget, a few on 9×9); a block it made sure is dead when its points then belong
/// to the opponent (one still unsure keeps the first ownership's verdict; a seki is not played
/// on). The
/// play-on never fills an own eye nor puts a block of two or more stones in atari, and is
/// deterministic, like the rest.
pub fn judge_game(game: &Position, komi: f64, ownership: &[f64]) -> Judgement {
    let board = &game.board;
    let analysis = extended(board, game.ko);
    let first = black_view(game, ownership);
    let mut own = first.clone();
    // A seki (alive blocks at a shared liberty) is unsure by nature: it is not played on.
    let first_verdict = judge_from_ownership(board, game.to_move, game.ko, ownership);
    let unsure: Vec<Vec<usize>> = board
        .blocks()
        .into_iter()
        .filter(|(_, stones, _)| {
            analysis.status[stones[0]] != Status::Alive
                && analysis.status[stones[0]] != Status::Dead
                && first_verdict.life[stones[0]] != Life::Seki
        })
        .filter(|(cell, stones, _)| block_mean(*cell, stones, &first).abs() < SURE)
        .map(|(_, stones, _)| stones)
        .collect();
    let mut in_unsure = vec![false; board.len()];
    for stones in &unsure {
        for &s in stones {
            in_unsure[s] = true;
        }
    }
    if !unsure.is_empty() {
        let mut g = game.clone();
        let mut passes = 0;
        let limit = play_on_plies(board);
        for ply in 0..=limit {
            let Some(snap) = fresh_search(&g, komi) else {
                break;
            };
            if ply > 0 {
                own = black_view(&g, &snap.ownership);
                let settled = unsure.iter().all(|stones| {
                    let cell = board.get(stones[0]);
                    block_mean(cell, stones, &own).abs() >= SURE
                });
                if settled || ply == limit {
                    break;
                }
            }
            // The most visited move that fills no own eye and is no self-atari of a block of
            // two or more stones (either would break a seki the playouts respect), else a pass.
            let mv = snap
                .moves
                .iter()
                .map(|m| (m.mv != PASS).then_some(m.mv as usize))
                .find(|&mv| {
                    mv.is_none_or(|p| !is_own_eye(&g.board, p, g.to_move) && !self_atari(&g, p))
                })
                .flatten();
            if g.play(mv).is_err() {
                break;
            }
            passes = if mv.is_none() { passes + 1 } else { 0 };
            if passes == 2 {
                break;
            }
        }
    }
    crate::go::score::judge_blocks(board, &analysis, |cell, stones| {
        // The play-on decides only the unsure blocks it made sure; a seki stays unsure.
        let settled = block_mean(cell, stones, &own);
        let mean = if in_unsure[stones[0]] && settled.abs() >= SURE {
            settled
        } else {
            block_mean(cell, stones, &first)
        };
        if mean < 0.0 {
            Life::Dead
        } else {
            Life::Alive
        }
    })
}

/// What the play-on may spend, in playouts times board points (a playout's cost grows with its
/// board): 19 searches of a 9×9 game's play-on, about a second of searches on any larger
/// board (9×9 and smaller boards play on less: [`SMALL_BOARD_PLIES`]). Without it a resigned 19×19 game's
/// judgement played on 38 plies (10–20 s) and a 25×25 one 50.
const PLAY_ON_BUDGET: usize = 19 * 2048 * 81;

/// The plies the play-on may play: twice the board's size (a long capturing race), within
/// [`PLAY_ON_BUDGET`] (one search a ply, and one after the last).
pub fn play_on_plies(board: &Board) -> usize {
    let search = crate::go::score::playouts_for(board.size()) * 8 * board.size() * board.size();
    let searches = (PLAY_ON_BUDGET / search.max(1)).max(2);
    let plies = (2 * board.size()).min(searches - 1);
    if board.size() <= 9 {
        plies.min(SMALL_BOARD_PLIES)
    } else {
        plies
    }
}

/// The play-on's plies on boards up to 9×9, where a judgement is waited for at the end of a
/// room's game: 4 plies (5 searches) cost 0.47 s of CPU on an open 9×9 position where 18 cost
/// 1.44 s. The 54 GNU Go games of tests/go_score_gnugo.rs are judged alike with 2 plies or
/// more (game-27's capturing race needs 2), so 4 keeps a margin.
const SMALL_BOARD_PLIES: usize = 4;

/// Whether the side to move's stone at `p` would leave its block of two or more stones with
/// one liberty without capturing (or is illegal).
fn self_atari(game: &Position, p: usize) -> bool {
    let mut after = game.board.clone();
    match after.play(p, game.to_move, game.ko) {
        Err(_) => true,
        Ok(played) => {
            let (stones, libs) = after.block(p);
            played.captured == 0 && stones.len() >= 2 && libs.len() <= 1
        }
    }
}

/// `ownership` (side to move's view, one value per point in scanning order) as black's view,
/// indexed by point.
fn black_view(game: &Position, ownership: &[f64]) -> Vec<f64> {
    let mut own = vec![0.0; game.board.len()];
    let sign = if game.to_move == Color::Black {
        1.0
    } else {
        -1.0
    };
    for (p, &o) in game.board.points().zip(ownership) {
        own[p] = sign * o;
    }
    own
}

/// The mean ownership of a block's points from the block's own side (`cell` its colour).
fn block_mean(cell: u8, stones: &[usize], black_own: &[f64]) -> f64 {
    let sum: f64 = stones.iter().map(|&s| black_own[s]).sum();
    let mean = sum / stones.len().max(1) as f64;
    if cell == Color::Black.cell() {
        mean
    } else {
        -mean
    }
}

/// The end-of-game judgement from a search's ownership (`ownership` per point in scanning
/// order, +1 = `to_move` owns it): a block is dead when its stones were mostly the opponent's
/// at the end of the playouts. Benson's unconditional status (the extended analysis) wins over
/// it; alive blocks next to a shared liberty are seki (as [`crate::go::score`] marks it).
pub fn judge_from_ownership(
    board: &Board,
    to_move: Color,
    ko: Option<usize>,
    ownership: &[f64],
) -> Judgement {
    let analysis = extended(board, ko);
    let game = Position::new(board.clone(), to_move);
    let own = black_view(&game, ownership);
    crate::go::score::judge_blocks(board, &analysis, |cell, stones| {
        if block_mean(cell, stones, &own) < 0.0 {
            Life::Dead
        } else {
            Life::Alive
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::search::mcts::MoveInfo;

    fn board(rows: &str) -> Board {
        let size = rows.split('/').count().to_string();
        let fields: Vec<String> = [size.as_str(), rows, "b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        crate::go::notation::parse_position(&fields).unwrap().0
    }

    #[test]
    fn a_lost_count_is_not_passed_out_while_a_block_is_in_atari() {
        // Every region is one colour's (B5 black's, E5 white's) or a single point between both
        // (C4), as at the end of a game; each block has two liberties.
        let two = board("X.XO./XX.OO/XXXOO/XXXOO/XXXOO");
        assert!(over_on_the_board(&two) && no_block_in_atari(&two));
        // Without E5 the white block's last liberty is C4: black captures it there.
        let one = board("X.XOO/XX.OO/XXXOO/XXXOO/XXXOO");
        assert!(over_on_the_board(&one) && !no_block_in_atari(&one));
        // Black leads the area by 4, lost with komi 7; after white's pass black captures at C4
        // (the search's best move here) instead of passing the game out.
        let mut game = Position::new(one, Color::White);
        game.play(None).unwrap();
        let c4 = crate::go::notation::parse_vertex("C4", 5).unwrap().unwrap();
        let snap = Snapshot {
            playouts: 1,
            root_visits: 1,
            winrate: 0.9,
            score_lead: 0.0,
            moves: vec![MoveInfo {
                mv: c4 as u16,
                visits: 1,
                winrate: 0.9,
                prior: 0.0,
                score_lead: 0.0,
                ..MoveInfo::default()
            }],
            ownership: Vec::new(),
            time_ms: 0,
            nodes: 1,
            threads: 1,
            ..Snapshot::default()
        };
        assert_eq!(tromp_taylor(&game), 4);
        assert_eq!(decide(&game, 7.0, 1, &snap, true), Choice::Play(c4));
    }

    #[test]
    fn a_lost_count_is_not_passed_out_while_the_search_sees_a_dead_block() {
        // The same count, lost by black, but the white block has two liberties (C4, E5).
        let mut game = Position::new(board("X.XO./XX.OO/XXXOO/XXXOO/XXXOO"), Color::White);
        game.play(None).unwrap();
        assert_eq!(tromp_taylor(&game), 4);
        let c4 = crate::go::notation::parse_vertex("C4", 5).unwrap().unwrap();
        let snap = |ownership: f64| Snapshot {
            playouts: 1,
            root_visits: 1,
            winrate: 0.5,
            score_lead: 0.0,
            moves: vec![MoveInfo {
                mv: c4 as u16,
                visits: 1,
                winrate: 0.5,
                prior: 0.0,
                score_lead: 0.0,
                ..MoveInfo::default()
            }],
            // Black to move: +1 where black owns the point.
            ownership: vec![ownership; 25],
            time_ms: 0,
            nodes: 1,
            threads: 1,
            ..Snapshot::default()
        };
        // The playouts end with black owning every point: the white block is dead, capture it.
        assert_eq!(decide(&game, 7.0, 1, &snap(1.0), true), Choice::Play(c4));
        // They leave the white block alive (or say nothing): the count stands, pass.
        assert_eq!(decide(&game, 7.0, 1, &snap(-1.0), true), Choice::Pass);
        assert_eq!(decide(&game, 7.0, 1, &snap(0.0), true), Choice::Pass);
    }

    #[test]
    fn the_play_on_fits_its_budget_on_every_board() {
        let plies = |size| play_on_plies(&Board::new(size).unwrap());
        // 9×9 and smaller boards play on a few plies: enough for the capturing races of the
        // recorded games, and quick at a room's end.
        assert_eq!(plies(9), SMALL_BOARD_PLIES);
        assert_eq!(plies(5), SMALL_BOARD_PLIES);
        // Larger boards play on less: each search costs more.
        assert_eq!((plies(13), plies(19), plies(25)), (13, 10, 5));
        for size in 2..=25 {
            let search = crate::go::score::playouts_for(size) * 8 * size * size;
            assert!((plies(size) + 1) * search <= PLAY_ON_BUDGET || plies(size) == 1);
        }
    }
}
