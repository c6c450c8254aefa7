//! The playout board: the padded layout of `go::board`, with blocks kept incrementally
//! (a circular list of stones and a representative per stone) and *pseudo-liberties* per block
//! (each empty neighbour counted once per adjacent stone). A block is in atari exactly when all
//! its pseudo-liberties are the same point, which the count, sum and sum of squares of their
//! indices tell without listing them (count · Σx² = (Σx)²). No move is ever undone: a search
//! copies the root board and plays forward.

use crate::go::board::{Color, BLACK, BORDER, EMPTY, WHITE};
use crate::go::Position;

/// The move index of a pass (point 0 is always border in the padded layout).
pub const PASS: u16 = 0;

#[derive(Clone, Debug)]
pub struct FastBoard {
    size: usize,
    stride: usize,
    cells: Vec<u8>,
    /// Next stone of the same block (circular).
    next: Vec<u16>,
    /// The representative of the stone's block.
    head: Vec<u16>,
    /// Per representative: pseudo-liberty count, sum and sum of squares, stones.
    libs: Vec<u16>,
    lsum: Vec<u32>,
    lsq: Vec<u64>,
    stones: Vec<u16>,
    /// The empty points, and the index of each in that list.
    empties: Vec<u16>,
    empty_at: Vec<u16>,
    /// The point the side to move may not take (simple ko), or 0.
    pub ko: u16,
    pub to_move: Color,
    /// The last two moves (PASS when none or a pass).
    pub last: u16,
    pub last2: u16,
    /// Passes in a row.
    pub passes: u8,
    /// Scratch marks for liberty counting (a stamp per call).
    mark: Vec<u32>,
    stamp: u32,
}

#[inline]
fn cell_of(color: Color) -> u8 {
    color.cell()
}

impl FastBoard {
    /// The playout board of `game` (its side to move and ko ban).
    pub fn from_game(game: &Position) -> FastBoard {
        let board = &game.board;
        let len = board.len();
        let mut b = FastBoard {
            size: board.size(),
            stride: board.stride(),
            cells: vec![BORDER; len],
            next: vec![0; len],
            head: vec![0; len],
            libs: vec![0; len],
            lsum: vec![0; len],
            lsq: vec![0; len],
            stones: vec![0; len],
            empties: Vec::with_capacity(len),
            empty_at: vec![0; len],
            ko: 0,
            to_move: Color::Black,
            last: PASS,
            last2: PASS,
            passes: 0,
            mark: vec![0; len],
            stamp: 0,
        };
        for p in board.points() {
            b.cells[p] = EMPTY;
            b.empty_at[p] = b.empties.len() as u16;
            b.empties.push(p as u16);
        }
        for p in board.points() {
            if let Some(c) = Color::from_cell(board.get(p)) {
                b.place(p, c);
            }
        }
        b.to_move = game.to_move;
        b.ko = game.ko.map_or(0, |k| k as u16);
        b
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Becomes a copy of `other` (same size) without allocating.
    pub fn copy_from(&mut self, other: &FastBoard) {
        self.cells.copy_from_slice(&other.cells);
        self.next.copy_from_slice(&other.next);
        self.head.copy_from_slice(&other.head);
        self.libs.copy_from_slice(&other.libs);
        self.lsum.copy_from_slice(&other.lsum);
        self.lsq.copy_from_slice(&other.lsq);
        self.stones.copy_from_slice(&other.stones);
        self.empties.clear();
        self.empties.extend_from_slice(&other.empties);
        self.empty_at.copy_from_slice(&other.empty_at);
        self.ko = other.ko;
        self.to_move = other.to_move;
        self.last = other.last;
        self.last2 = other.last2;
        self.passes = other.passes;
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.empties.len() == self.size * self.size
    }

    #[inline]
    pub fn get(&self, p: usize) -> u8 {
        self.cells[p]
    }

    pub fn empties(&self) -> &[u16] {
        &self.empties
    }

    #[inline]
    pub fn neighbors(&self, p: usize) -> [usize; 4] {
        [p + self.stride, p - 1, p - self.stride, p + 1]
    }

    #[inline]
    pub fn diagonals(&self, p: usize) -> [usize; 4] {
        let s = self.stride;
        [p + s - 1, p + s + 1, p - s - 1, p - s + 1]
    }

    #[inline]
    pub fn head(&self, p: usize) -> usize {
        self.head[p] as usize
    }

    /// Stones of the block through `p`.
    #[inline]
    pub fn block_size(&self, p: usize) -> usize {
        self.stones[self.head[p] as usize] as usize
    }

    /// Whether the block through the stone `p` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, p: usize) -> bool {
        let h = self.head[p] as usize;
        let n = self.libs[h] as u64;
        n > 0 && n * self.lsq[h] == (self.lsum[h] as u64) * (self.lsum[h] as u64)
    }

    /// The liberty of a block in atari.
    #[inline]
    pub fn atari_liberty(&self, p: usize) -> usize {
        let h = self.head[p] as usize;
        (self.lsum[h] / self.libs[h] as u32) as usize
    }

    #[inline]
    fn add_lib(&mut self, h: usize, p: usize) {
        self.libs[h] += 1;
        self.lsum[h] += p as u32;
        self.lsq[h] += (p * p) as u64;
    }

    #[inline]
    fn remove_lib(&mut self, h: usize, p: usize) {
        self.libs[h] -= 1;
        self.lsum[h] -= p as u32;
        self.lsq[h] -= (p * p) as u64;
    }

    fn take_empty(&mut self, p: usize) {
        let i = self.empty_at[p] as usize;
        let last = self.empties.len() - 1;
        self.empties.swap(i, last);
        let moved = self.empties[i] as usize;
        self.empty_at[moved] = i as u16;
        self.empties.pop();
    }

    fn give_empty(&mut self, p: usize) {
        self.empty_at[p] = self.empties.len() as u16;
        self.empties.push(p as u16);
    }

    /// Puts a stone without captures or ko (setting up, and the first half of a move).
    fn place(&mut self, p: usize, color: Color) {
        self.cells[p] = cell_of(color);
        self.take_empty(p);
        self.head[p] = p as u16;
        self.next[p] = p as u16;
        self.stones[p] = 1;
        self.libs[p] = 0;
        self.lsum[p] = 0;
        self.lsq[p] = 0;
        for n in self.neighbors(p) {
            match self.cells[n] {
                EMPTY => self.add_lib(p, n),
                BLACK | WHITE => {
                    let h = self.head[n] as usize;
                    self.remove_lib(h, p);
                }
                _ => {}
            }
        }
        for n in self.neighbors(p) {
            if self.cells[n] == cell_of(color) && self.head[n] != self.head[p] {
                self.merge(self.head[p] as usize, self.head[n] as usize);
            }
        }
    }

    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.stones[a] >= self.stones[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.stones[big] += self.stones[small];
        self.libs[big] += self.libs[small];
        self.lsum[big] += self.lsum[small];
        self.lsq[big] += self.lsq[small];
    }

    /// Takes the block through `p` off the board; returns its size.
    fn remove_block(&mut self, p: usize) -> usize {
        let first = self.head[p] as usize;
        let count = self.stones[first] as usize;
        let mut s = first;
        loop {
            self.cells[s] = EMPTY;
            self.give_empty(s);
            s = self.next[s] as usize;
            if s == first {
                break;
            }
        }
        loop {
            for n in self.neighbors(s) {
                if matches!(self.cells[n], BLACK | WHITE) {
                    let h = self.head[n] as usize;
                    self.add_lib(h, s);
                }
            }
            s = self.next[s] as usize;
            if s == first {
                break;
            }
        }
        count
    }

    /// Whether the side to move may play at `p` (simple ko, no suicide).
    pub fn is_legal(&self, p: usize) -> bool {
        if self.cells[p] != EMPTY || p as u16 == self.ko {
            return false;
        }
        let me = cell_of(self.to_move);
        // A liberty, an own block with another liberty, or an opponent block to capture.
        self.neighbors(p).iter().any(|&n| match self.cells[n] {
            EMPTY => true,
            BORDER => false,
            c => (c == me) != self.in_atari(n),
        })
    }

    /// Plays a legal move (or PASS) for the side to move; returns the stones captured.
    pub fn play(&mut self, mv: u16) -> usize {
        let color = self.to_move;
        self.last2 = self.last;
        self.last = mv;
        self.to_move = color.other();
        if mv == PASS {
            self.ko = 0;
            self.passes += 1;
            return 0;
        }
        self.passes = 0;
        let p = mv as usize;
        let them = cell_of(color.other());
        self.place(p, color);
        let mut captured = 0;
        let mut last_captured = 0;
        for n in self.neighbors(p) {
            if self.cells[n] == them && self.libs[self.head[n] as usize] == 0 {
                captured += self.remove_block(n);
                last_captured = n;
            }
        }
        self.ko = 0;
        if captured == 1 && self.stones[self.head[p] as usize] == 1 && self.in_atari(p) {
            self.ko = last_captured as u16;
        }
        captured
    }

    /// An empty point all of whose neighbours are `color` (or the edge) and whose diagonals
    /// hold at most one opponent stone (none on the edge): filling it would throw away an eye.
    pub fn is_eye(&self, p: usize, color: Color) -> bool {
        let me = cell_of(color);
        if self
            .neighbors(p)
            .iter()
            .any(|&n| self.cells[n] != me && self.cells[n] != BORDER)
        {
            return false;
        }
        let them = cell_of(color.other());
        let mut edge = 0;
        let mut enemy = 0;
        for d in self.diagonals(p) {
            match self.cells[d] {
                BORDER => edge = 1,
                c if c == them => enemy += 1,
                _ => {}
            }
        }
        enemy + edge < 2
    }

    /// The liberties (up to `enough`) the block of a `color` stone at `p` would have, and its
    /// stones; a capture counts as two liberties.
    pub fn after_move(&mut self, p: usize, color: Color, enough: usize) -> (usize, usize) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        self.mark[p] = stamp;
        let me = cell_of(color);
        let them = cell_of(color.other());
        let mut libs = 0;
        let mut stones = 1;
        for n in self.neighbors(p) {
            let c = self.cells[n];
            if c == EMPTY && self.mark[n] != stamp {
                self.mark[n] = stamp;
                libs += 1;
            } else if c == them && self.in_atari(n) {
                libs += 2;
            }
        }
        for n in self.neighbors(p) {
            if self.cells[n] != me || self.mark[self.head[n] as usize] == stamp {
                continue;
            }
            let h = self.head[n] as usize;
            // The head is a stone, never a liberty: it can carry the block's mark.
            self.mark[h] = stamp;
            stones += self.stones[h] as usize;
            if libs >= enough {
                continue;
            }
            let mut s = h;
            loop {
                for q in self.neighbors(s) {
                    if self.cells[q] == EMPTY && self.mark[q] != stamp {
                        self.mark[q] = stamp;
                        libs += 1;
                    }
                }
                s = self.next[s] as usize;
                if s == h || libs >= enough {
                    break;
                }
            }
        }
        (libs, stones)
    }

    /// The real liberties of the block through `p`, up to `enough`.
    pub fn liberties(&mut self, p: usize, enough: usize) -> usize {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let h = self.head[p] as usize;
        let mut libs = 0;
        let mut s = h;
        loop {
            for q in self.neighbors(s) {
                if self.cells[q] == EMPTY && self.mark[q] != stamp {
                    self.mark[q] = stamp;
                    libs += 1;
                }
            }
            s = self.next[s] as usize;
            if s == h || libs >= enough {
                return libs;
            }
        }
    }

    /// The two liberties of the block through the stone `p` when it has exactly two.
    pub fn two_liberties(&mut self, p: usize) -> Option<[usize; 2]> {
        let h = self.head[p] as usize;
        // An empty point touches at most four of the block's stones: more than eight
        // pseudo-liberties are three liberties or more, without a walk.
        if self.libs[h] > 8 || self.in_atari(p) {
            return None;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut found = [0usize; 2];
        let mut count = 0;
        let mut s = h;
        loop {
            for q in self.neighbors(s) {
                if self.cells[q] == EMPTY && self.mark[q] != stamp {
                    self.mark[q] = stamp;
                    if count == 2 {
                        return None;
                    }
                    found[count] = q;
                    count += 1;
                }
            }
            s = self.next[s] as usize;
            if s == h {
                return (count == 2).then_some(found);
            }
        }
    }

    /// The stones of the block through `p`.
    pub fn block_stones(&self, p: usize) -> impl Iterator<Item = usize> + '_ {
        let h = self.head[p] as usize;
        let mut s = h;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let out = s;
            s = self.next[s] as usize;
            done = s == h;
            Some(out)
        })
    }

    /// The owner of `p` for area scoring at the end of a playout: its stone's colour, or the
    /// colour of all its neighbours when it is empty.
    #[inline]
    pub fn owner(&self, p: usize) -> u8 {
        let c = self.cells[p];
        if c != EMPTY {
            return c;
        }
        let mut seen = 0u8;
        for n in self.neighbors(p) {
            seen |= match self.cells[n] {
                BLACK => 1,
                WHITE => 2,
                _ => 0,
            };
        }
        match seen {
            1 => BLACK,
            2 => WHITE,
            _ => EMPTY,
        }
    }

    /// Black's points minus white's (stones and single-colour-bordered empty points): the
    /// area count at the end of a playout, when every empty point is an eye or dame.
    pub fn playout_score(&self) -> i32 {
        let mut s = 0;
        for row in 0..self.size {
            let base = (row + 1) * self.stride + 1;
            for p in base..base + self.size {
                s += match self.owner(p) {
                    BLACK => 1,
                    WHITE => -1,
                    _ => 0,
                };
            }
        }
        s
    }

    /// All points, top row first.
    pub fn points(&self) -> impl Iterator<Item = usize> + '_ {
        let (size, stride) = (self.size, self.stride);
        (0..size).flat_map(move |row| (0..size).map(move |col| (row + 1) * stride + col + 1))
    }

    /// The 3x3 neighbourhood of `p` as 8 two-bit cells (N, NE, E, SE, S, SW, W, NW; 0 empty,
    /// 1 black, 2 white, 3 edge), the key of the pattern table.
    #[inline]
    pub fn pattern_key(&self, p: usize) -> u16 {
        let s = self.stride;
        let around = [
            p - s,
            p - s + 1,
            p + 1,
            p + s + 1,
            p + s,
            p + s - 1,
            p - 1,
            p - s - 1,
        ];
        let mut key = 0u16;
        for (i, q) in around.into_iter().enumerate() {
            key |= (self.cells[q] as u16) << (2 * i);
        }
        key
    }

    #[cfg(test)]
    fn check(&mut self) {
        use crate::go::Board;
        let mut board = Board::new(self.size).unwrap();
        for p in self.points().collect::<Vec<_>>() {
            board.set(p, self.cells[p]);
        }
        for p in self.points().collect::<Vec<_>>() {
            if self.cells[p] == EMPTY {
                continue;
            }
            let (stones, libs) = board.block(p);
            assert_eq!(self.block_size(p), stones.len());
            assert_eq!(self.in_atari(p), libs.len() == 1, "atari at {p}");
            assert_eq!(self.liberties(p, 1000), libs.len());
            if libs.len() == 1 {
                assert_eq!(self.atari_liberty(p), libs[0]);
            }
            let mut want = libs.clone();
            want.sort_unstable();
            let two = self.two_liberties(p).map(|mut t| {
                t.sort_unstable();
                t.to_vec()
            });
            assert_eq!(
                two,
                (want.len() == 2).then_some(want),
                "two liberties at {p}"
            );
        }
        let mut e: Vec<u16> = self.empties.clone();
        e.sort_unstable();
        let want: Vec<u16> = self
            .points()
            .filter(|&p| self.cells[p] == EMPTY)
            .map(|p| p as u16)
            .collect();
        assert_eq!(e, want);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Random games on the playout board and on the rules' board agree move by move: the same
    /// legal moves, captures, ko bans, blocks and liberties.
    #[test]
    fn agrees_with_the_rules_board() {
        let mut rng = SplitMix64::new(7);
        for size in [2usize, 3, 5, 7, 9, 13, 19] {
            let games = if size >= 13 { 2 } else { 6 };
            for _ in 0..games {
                let mut game = Position::empty(size).unwrap();
                let mut fast = FastBoard::from_game(&game);
                for _ in 0..size * size * 3 {
                    let legal = game.legal_points();
                    for p in game.board.points() {
                        assert_eq!(fast.is_legal(p), legal.contains(&p), "legal {p}");
                    }
                    let mv = if legal.is_empty() || rng.below(20) == 0 {
                        None
                    } else {
                        Some(legal[rng.index(legal.len())])
                    };
                    game.play(mv).unwrap();
                    fast.play(mv.map_or(PASS, |p| p as u16));
                    assert_eq!(fast.ko as usize, game.ko.unwrap_or(0));
                    assert_eq!(fast.to_move, game.to_move);
                    for p in game.board.points() {
                        assert_eq!(fast.get(p), game.board.get(p));
                    }
                    fast.check();
                }
            }
        }
    }
}
