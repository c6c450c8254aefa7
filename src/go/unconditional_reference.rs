//! The extended analysis, straightforward version (board copies and flood fills per trial
//! move): the reference [`super::unconditional`] is tested against. Same procedure, same results;
//! see that module and protocol/go.md for what it computes.

use super::board::{Board, Color, BORDER, EMPTY};
// The geometry is shared; the analysis itself stays independent of the fast one.
use super::unconditional::{deltas, step};

/// A board with trial moves that can be taken back, ko as GNU Go's `trymove` sees it.
struct Scratch {
    board: Board,
    ko: Option<usize>,
    undo: Vec<(Board, Option<usize>)>,
}

impl Scratch {
    fn try_move(&mut self, p: usize, color: Color, ignore_ko: bool) -> bool {
        if self.board.get(p) != EMPTY {
            return false;
        }
        let saved = (self.board.clone(), self.ko);
        let ko = if ignore_ko { None } else { self.ko };
        match self.board.play(p, color, ko) {
            Ok(played) => {
                self.undo.push(saved);
                self.ko = played.ko;
                true
            }
            Err(_) => false,
        }
    }

    fn pop(&mut self) {
        if let Some((board, ko)) = self.undo.pop() {
            self.board = board;
            self.ko = ko;
        }
    }

    fn pop_to(&mut self, depth: usize) {
        while self.undo.len() > depth {
            self.pop();
        }
    }

    fn libs(&self, p: usize) -> Vec<usize> {
        self.board.block(p).1
    }

    fn stones(&self, p: usize) -> Vec<usize> {
        self.board.block(p).0
    }

    /// The block's first point in scanning order stands for it (GNU Go's origin).
    fn is_origin(&self, p: usize) -> bool {
        self.stones(p)[0] == p
    }

    fn same_block(&self, a: usize, b: usize) -> bool {
        self.board.get(a) == self.board.get(b) && self.stones(a).contains(&b)
    }

    /// Liberties a stone of `color` at `p` would have, captures ignored, counted up to 4.
    fn approx_libs(&self, p: usize, color: Color) -> usize {
        let mut libs: Vec<usize> = Vec::new();
        for n in self.board.neighbors(p) {
            let c = self.board.get(n);
            if c == EMPTY {
                if !libs.contains(&n) {
                    libs.push(n);
                }
            } else if c == color.cell() {
                for l in self.libs(n) {
                    if l != p && !libs.contains(&l) {
                        libs.push(l);
                    }
                }
            }
        }
        libs.len().min(4)
    }
}

/// Per point: 1 where `color` has stones proven alive, 2 where the point is its unconditional
/// territory (empty points and dead opponent stones), 0 otherwise. Points refer to `board`.
pub fn unconditional_life(board: &Board, ko: Option<usize>, color: Color) -> Vec<u8> {
    let me = color.cell();
    let other = color.other();
    let them = other.cell();
    let d = deltas(board.stride());
    let mut result = vec![0u8; board.len()];
    let mut s = Scratch {
        board: board.clone(),
        ko,
        undo: Vec::new(),
    };

    // Two-stone blocks with no other own stone in their eight-neighbourhood, away from the edge.
    let mut seki_pair = vec![false; board.len()];
    for p in board.points() {
        if board.get(p) != me || !s.is_origin(p) {
            continue;
        }
        let stones = s.stones(p);
        if stones.len() != 2 {
            continue;
        }
        let isolated = stones.iter().all(|&q| {
            d.iter().all(|&dd| {
                let n = step(q, dd);
                let c = board.get(n);
                c != BORDER && (c != me || stones.contains(&n))
            })
        });
        if isolated {
            seki_pair[stones[0]] = true;
            seki_pair[stones[1]] = true;
        }
    }

    // 1. Capture what can be captured.
    let mut any_left = false;
    let mut captured_one = true;
    while captured_one {
        captured_one = false;
        any_left = false;
        for p in board.points() {
            if s.board.get(p) != me || !s.is_origin(p) || seki_pair[p] {
                continue;
            }
            any_left = true;
            let depth = s.undo.len();
            for l in s.libs(p) {
                s.try_move(l, other, false);
            }
            if s.board.get(p) == EMPTY {
                captured_one = true;
            } else {
                let libs = s.libs(p);
                if libs.len() == 1 {
                    // The last liberty may be a ko capture, which GNU Go allows here.
                    s.try_move(libs[0], other, true);
                    captured_one = true;
                } else {
                    s.pop_to(depth);
                }
            }
        }
    }
    if !any_left {
        return result;
    }

    // 2. Fill the liberties of the survivors, then extend O's blocks in atari.
    for p in board.points() {
        if s.board.get(p) != me || seki_pair[p] || !s.is_origin(p) {
            continue;
        }
        for l in s.libs(p) {
            s.try_move(l, other, false);
        }
    }
    let mut extended = true;
    while extended {
        extended = false;
        for p in board.points() {
            if s.board.get(p) != them {
                continue;
            }
            let libs = s.libs(p);
            if libs.len() == 1 && s.try_move(libs[0], other, false) {
                extended = true;
            }
        }
    }

    // 3. The seki guard.
    for p in board.points() {
        if !seki_pair[p] || s.board.get(p) == EMPTY || !s.is_origin(p) {
            continue;
        }
        for r in 0..4 {
            let up = d[r];
            let mut right = d[(r + 1) % 4];
            if s.board.get(step(p, up)) != me
                || s.board.get(step(p, 2 * up)) != EMPTY
                || s.board.get(step(p, -up)) != EMPTY
            {
                continue;
            }
            for k in 0..2 {
                if k == 1 {
                    right = -right;
                }
                if s.board.get(step(p, right)) != EMPTY || s.board.get(step(p, up - right)) != EMPTY
                {
                    continue;
                }
                let depth = s.undo.len();
                let a = step(p, -right);
                let b = step(p, up + right);
                if s.board.get(a) == EMPTY {
                    s.try_move(a, other, false);
                }
                if s.board.get(b) == EMPTY {
                    s.try_move(b, other, false);
                }
                let joined = s.board.get(a) == them && s.board.get(b) == them && s.same_block(a, b);
                s.pop_to(depth);
                if joined {
                    s.try_move(step(p, -up), color, false);
                    break;
                }
            }
            if s.stones(p).len() > 2 {
                break;
            }
        }
    }

    // 4. Take the set-aside pairs' liberties, then settle O blocks with two adjacent liberties.
    for p in board.points() {
        if !seki_pair[p] || s.board.get(p) == EMPTY {
            continue;
        }
        for l in s.libs(p) {
            s.try_move(l, other, false);
        }
    }
    let stride = board.stride();
    for p in board.points() {
        if s.board.get(p) != them {
            continue;
        }
        let libs = s.libs(p);
        if libs.len() != 2 {
            continue;
        }
        let (a, b) = (libs[0], libs[1]);
        let adjacent = b - a == 1 || b - a == stride;
        if !adjacent {
            continue;
        }
        let a_open = s.approx_libs(a, color);
        let b_open = s.approx_libs(b, color);
        let a_libs = s.approx_libs(a, other);
        let b_libs = s.approx_libs(b, other);
        if a_open > b_open || (a_open == b_open && a_libs >= b_libs) {
            s.try_move(a, other, false);
        } else {
            s.try_move(b, other, false);
        }
    }

    // 5. Read off the result.
    for p in board.points() {
        let c = s.board.get(p);
        if c == me && !seki_pair[p] {
            result[p] = 1;
            // A block holding a set-aside pair (extended by the seki guard) keeps the pair's
            // stone as GNU Go's origin, so its liberties are not counted.
            if s.is_origin(p) && !s.stones(p).iter().any(|&q| seki_pair[q]) {
                for l in s.libs(p) {
                    result[l] = 2;
                }
            }
        } else if c == them {
            let libs = s.libs(p);
            if libs.len() == 1 {
                result[p] = 2;
                result[libs[0]] = 2;
            }
        }
    }
    result
}
