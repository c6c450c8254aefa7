//! Tic-tac-toe's search: a whole-tree negamax (the game has fewer than 600,000 lines), `go`'s
//! job and the deterministic bench.

use super::{square_name, Board, Square};
use crate::games::rules::{Rules, Verdict};
use crate::search::{Info, Job, Outcome};

/// The value of `board` for the side to move (1 won, 0 drawn, -1 lost) and the nodes visited.
fn negamax(board: &Board, nodes: &mut u64) -> i32 {
    *nodes += 1;
    if let Some(end) = board.outcome() {
        return match end.verdict {
            Verdict::Draw => 0,
            // The side that just moved made the line.
            Verdict::Win(_) => -1,
        };
    }
    let mut best = -2;
    for mv in board.legal_moves() {
        let mut next = *board;
        if next.play(mv).is_ok() {
            best = best.max(-negamax(&next, nodes));
        }
    }
    best
}

/// The first best move of `board` in square order, its value and the nodes visited; `None`
/// when the game is over.
pub fn best_move(board: &Board) -> (Option<Square>, i32, u64) {
    let mut nodes = 0;
    let mut best = (None, -2);
    for mv in board.legal_moves() {
        let mut next = *board;
        if next.play(mv).is_ok() {
            let value = -negamax(&next, &mut nodes);
            if value > best.1 {
                best = (Some(mv), value);
            }
        }
    }
    (best.0, best.1.max(-1), nodes)
}

/// `go`: the whole tree, whatever the limits (it takes a few milliseconds).
pub fn job(board: Board) -> Job {
    Box::new(move |control, _report| {
        let (mv, value, nodes) = best_move(&board);
        let best = mv.map(square_name);
        Outcome {
            info: Info {
                depth: 9,
                seldepth: 9,
                score: value * 100,
                nodes,
                time_ms: control.elapsed_ms(),
                pv: best.iter().cloned().collect(),
                multipv: None,
                hashfull: None,
            },
            best,
            ponder: None,
        }
    })
}

/// `bench`: the whole tree from the empty board; the last line is `Nodes searched: <n>`.
pub fn bench() -> Vec<String> {
    let (mv, value, nodes) = best_move(&Board::start());
    vec![
        format!(
            "tictactoe: best {} value {value}",
            mv.map_or("none".into(), square_name)
        ),
        format!("Nodes searched: {nodes}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_board_is_a_draw_and_a_win_in_one_is_taken() {
        assert_eq!(best_move(&Board::start()).1, 0);
        let board = Board::from_text("XX./OO./... x").unwrap();
        assert_eq!(best_move(&board).0.map(square_name).as_deref(), Some("c3"));
        assert_eq!(best_move(&board).1, 1);
    }
}
