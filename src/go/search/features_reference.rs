//! A slow, obviously correct reading of the move features ([`super::features`]) on the rules'
//! board: blocks and liberties by flood fill, the move played on a copy, the 3x3 neighbourhood
//! by rows and columns and its symmetries by turning a grid. Tested against the fast code on
//! seeded random positions.

use super::features::{
    distance_level, Features, ATARI, CAPTURE, DIST_LAST, DIST_LAST2, EXTENSION, GROUPS, LINE, NONE,
    PASS_MOVE, SELF_ATARI,
};
use crate::go::board::{Board, Color, EMPTY};

/// What the features see of a game besides its board.
pub struct Situation<'a> {
    pub board: &'a Board,
    pub to_move: Color,
    pub ko: Option<usize>,
    pub last: Option<usize>,
    pub last2: Option<usize>,
    pub after_pass: bool,
}

/// The features of the legal move `mv` (`None` = pass).
pub fn of_move(s: &Situation, mv: Option<usize>) -> Features {
    let mut levels = [NONE; GROUPS];
    let Some(p) = mv else {
        levels[PASS_MOVE] = u8::from(s.after_pass);
        return Features {
            pattern: None,
            levels,
        };
    };
    let board = s.board;
    let me = s.to_move;
    let them = me.other();
    let opponents: Vec<(Vec<usize>, Vec<usize>)> = board
        .neighbors(p)
        .into_iter()
        .filter(|&n| board.get(n) == them.cell())
        .map(|n| board.block(n))
        .collect();
    let biggest_capture = opponents
        .iter()
        .filter(|(_, libs)| libs.len() == 1)
        .map(|(stones, _)| stones.len())
        .max();
    if let Some(size) = biggest_capture {
        levels[CAPTURE] = match size {
            1 => 0,
            2 => 1,
            3..=5 => 2,
            _ => 3,
        };
    }
    let saves = board
        .neighbors(p)
        .into_iter()
        .any(|n| board.get(n) == me.cell() && board.block(n).1.len() == 1);
    let mut after = board.clone();
    let played = after.play(p, me, s.ko).expect("a legal move");
    let libs = after.block(p).1.len();
    let stones = after.block(p).0.len();
    if played.captured == 0 && libs == 1 {
        levels[SELF_ATARI] = u8::from(stones > 1);
    }
    if saves {
        levels[EXTENSION] = if played.captured > 0 {
            2
        } else if libs >= 3 {
            1
        } else if libs == 2 {
            0
        } else {
            NONE
        };
    }
    let ataris = opponents.iter().any(|(stones, libs)| {
        libs.len() == 2
            && after.get(stones[0]) == them.cell()
            && after.block(stones[0]).1.len() == 1
    });
    if ataris {
        levels[ATARI] = u8::from(s.ko.is_some());
    }
    let coulom = |q: usize| {
        let (r1, c1) = board.row_col(p);
        let (r2, c2) = board.row_col(q);
        let (dr, dc) = (r1.abs_diff(r2), c1.abs_diff(c2));
        dr + dc + dr.max(dc)
    };
    if let Some(q) = s.last {
        levels[DIST_LAST] = distance_level(coulom(q));
    }
    if let Some(q) = s.last2 {
        levels[DIST_LAST2] = distance_level(coulom(q));
    }
    let size = board.size();
    let (row, col) = board.row_col(p);
    let line = [row, col, size - 1 - row, size - 1 - col]
        .into_iter()
        .min()
        .unwrap_or(0)
        .min(4);
    let near = board.points().any(|q| {
        let (r, c) = board.row_col(q);
        let d = r.abs_diff(row) + c.abs_diff(col);
        (1..=2).contains(&d) && board.get(q) != EMPTY
    });
    levels[LINE] = (2 * line + usize::from(near)) as u8;
    Features {
        pattern: Some(pattern(board, p, me)),
        levels,
    }
}

/// The 3x3 grid around `p`, relative to `me` (0 empty, 1 own, 2 opponent, 3 off the board),
/// read as the least of its eight turns and reflections, each read as 8 two-bit cells going
/// clockwise from the top middle.
fn pattern(board: &Board, p: usize, me: Color) -> u16 {
    let size = board.size() as isize;
    let (row, col) = board.row_col(p);
    let mut grid = [[0u16; 3]; 3];
    for (dr, line) in grid.iter_mut().enumerate() {
        for (dc, cell) in line.iter_mut().enumerate() {
            let (r, c) = (
                row as isize + dr as isize - 1,
                col as isize + dc as isize - 1,
            );
            *cell = if r < 0 || c < 0 || r >= size || c >= size {
                3
            } else {
                match board.get(board.point(r as usize, c as usize)) {
                    EMPTY => 0,
                    x if x == me.cell() => 1,
                    _ => 2,
                }
            };
        }
    }
    let read = |g: &[[u16; 3]; 3]| {
        let ring = [
            g[0][1], g[0][2], g[1][2], g[2][2], g[2][1], g[2][0], g[1][0], g[0][0],
        ];
        ring.iter()
            .enumerate()
            .fold(0u16, |key, (i, &v)| key | v << (2 * i))
    };
    let turn = |g: &[[u16; 3]; 3]| {
        let mut t = [[0u16; 3]; 3];
        for (r, line) in t.iter_mut().enumerate() {
            for (c, cell) in line.iter_mut().enumerate() {
                *cell = g[2 - c][r];
            }
        }
        t
    };
    let mirror = |g: &[[u16; 3]; 3]| g.map(|[a, b, c]| [c, b, a]);
    let mut best = u16::MAX;
    let mut g = grid;
    for _ in 0..4 {
        best = best.min(read(&g)).min(read(&mirror(&g)));
        g = turn(&g);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::search::fast::{FastBoard, PASS};
    use crate::go::search::features;
    use crate::go::Position;
    use crate::rng::SplitMix64;

    /// Random games on 5x5 to 13x13, the features of every legal move compared after each move:
    /// crowded boards, blocks in atari, kos and edges all come up.
    #[test]
    fn the_fast_features_are_the_reference_features_on_random_positions() {
        let mut rng = SplitMix64::new(46);
        let mut compared = [0usize; GROUPS];
        for game in 0..60 {
            let size = [5, 7, 9, 13][game % 4];
            let mut pos = Position::empty(size).unwrap();
            let mut fast = FastBoard::from_game(&pos);
            let mut history: Vec<Option<usize>> = Vec::new();
            for _ in 0..3 * size * size {
                let legal = pos.legal_points();
                let s = Situation {
                    board: &pos.board,
                    to_move: pos.to_move,
                    ko: pos.ko,
                    last: history.last().copied().flatten(),
                    last2: history.iter().rev().nth(1).copied().flatten(),
                    after_pass: history.last().is_some_and(|m| m.is_none()),
                };
                let candidates = legal.iter().map(|&p| Some(p)).chain([None]);
                for mv in candidates {
                    if mv.is_some_and(|p| !fast.is_legal(p)) {
                        continue;
                    }
                    let want = of_move(&s, mv);
                    let got = features::of_move(&mut fast, mv.map_or(PASS, |p| p as u16));
                    assert_eq!(got, want, "game {game}, move {mv:?}\n{pos:?}");
                    for (g, &l) in want.levels.iter().enumerate() {
                        compared[g] += usize::from(l != NONE);
                    }
                }
                // Mostly random moves, a pass now and then; stop at two passes.
                let mv = if legal.is_empty() || rng.index(40) == 0 {
                    None
                } else {
                    Some(legal[rng.index(legal.len())])
                };
                if pos.play(mv).is_err() {
                    break;
                }
                fast.play(mv.map_or(PASS, |p| p as u16));
                history.push(mv);
                if pos.passes() >= 2 {
                    break;
                }
            }
        }
        // Every group was seen often enough to mean something.
        assert!(compared.iter().all(|&n| n > 50), "{compared:?}");
    }
}
