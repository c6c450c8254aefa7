//! The Go board: a padded one-dimensional array (one shared border column, as GNU Go lays it
//! out), blocks and liberties found by flood fill, captures, suicide and simple ko.

use crate::games::error_text;

/// Smallest and largest supported board sizes.
pub const MIN_SIZE: usize = 2;
pub const MAX_SIZE: usize = 25;

pub const EMPTY: u8 = 0;
pub const BLACK: u8 = 1;
pub const WHITE: u8 = 2;
pub const BORDER: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    pub fn cell(self) -> u8 {
        match self {
            Color::Black => BLACK,
            Color::White => WHITE,
        }
    }

    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub fn from_cell(cell: u8) -> Option<Color> {
        match cell {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

/// Why a move was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("the point is occupied")]
    Occupied,
    #[error("suicide is forbidden")]
    Suicide,
    #[error("it retakes a ko at once")]
    Ko,
}

/// The effect of a legal move.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Played {
    pub captured: usize,
    /// The point the opponent may not retake at once (simple ko).
    pub ko: Option<usize>,
}

/// The array index of (`row`, `col`) on a board of `size` (row 0 at the top).
#[inline]
pub fn point_index(size: usize, row: usize, col: usize) -> usize {
    (row + 1) * (size + 1) + col + 1
}

/// The inverse of [`point_index`].
#[inline]
pub fn index_row_col(size: usize, p: usize) -> (usize, usize) {
    let q = p - 1;
    (q / (size + 1) - 1, q % (size + 1))
}

#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Board {
    size: usize,
    stride: usize,
    cells: Vec<u8>,
}

/// A board size outside `MIN_SIZE..=MAX_SIZE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("board size {0} is out of range ({MIN_SIZE}..{MAX_SIZE})")]
pub struct SizeError(pub usize);

error_text!(derived: SizeError);

impl Board {
    /// An empty board; sizes outside 2..=25 are refused.
    pub fn new(size: usize) -> Result<Board, SizeError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(SizeError(size));
        }
        let stride = size + 1;
        // One spare border cell at each end so diagonal steps never leave the array.
        let mut cells = vec![BORDER; (size + 2) * stride + 2];
        for row in 0..size {
            for col in 0..size {
                cells[point_index(size, row, col)] = EMPTY;
            }
        }
        Ok(Board {
            size,
            stride,
            cells,
        })
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Length of the padded array (every point index is below it).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.iter().all(|&c| c != BLACK && c != WHITE)
    }

    /// The point at `row` (0 = top) and `col` (0 = left).
    pub fn point(&self, row: usize, col: usize) -> usize {
        point_index(self.size, row, col)
    }

    pub fn row_col(&self, p: usize) -> (usize, usize) {
        index_row_col(self.size, p)
    }

    /// All points, top row first, left to right (GNU Go's scanning order).
    pub fn points(&self) -> impl Iterator<Item = usize> + '_ {
        let size = self.size;
        (0..size).flat_map(move |row| (0..size).map(move |col| point_index(size, row, col)))
    }

    #[inline]
    pub fn get(&self, p: usize) -> u8 {
        self.cells[p]
    }

    #[inline]
    pub fn set(&mut self, p: usize, cell: u8) {
        self.cells[p] = cell;
    }

    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// Neighbours in GNU Go's order: south, west, north, east.
    #[inline]
    pub fn neighbors(&self, p: usize) -> [usize; 4] {
        [p + self.stride, p - 1, p - self.stride, p + 1]
    }

    /// The block through `p` and its liberties, both sorted.
    pub fn block(&self, p: usize) -> (Vec<usize>, Vec<usize>) {
        let color = self.cells[p];
        let mut seen = vec![false; self.cells.len()];
        let mut stones = vec![p];
        let mut libs = Vec::new();
        seen[p] = true;
        let mut i = 0;
        while i < stones.len() {
            let q = stones[i];
            i += 1;
            for n in self.neighbors(q) {
                if seen[n] {
                    continue;
                }
                let c = self.cells[n];
                if c == color {
                    seen[n] = true;
                    stones.push(n);
                } else if c == EMPTY {
                    seen[n] = true;
                    libs.push(n);
                }
            }
        }
        stones.sort_unstable();
        libs.sort_unstable();
        (stones, libs)
    }

    /// Whether the block through `p` has a liberty (stops early).
    fn has_liberty(&self, p: usize, seen: &mut Vec<usize>) -> bool {
        let color = self.cells[p];
        seen.clear();
        seen.push(p);
        let mut i = 0;
        while i < seen.len() {
            let q = seen[i];
            i += 1;
            for n in self.neighbors(q) {
                let c = self.cells[n];
                if c == EMPTY {
                    return true;
                }
                if c == color && !seen.contains(&n) {
                    seen.push(n);
                }
            }
        }
        false
    }

    /// Plays `color` at `p` under simple ko (`ko` is the point the last move forbids, if any):
    /// occupied points, suicide and the immediate ko retake are refused and leave the board as it was.
    pub fn play(&mut self, p: usize, color: Color, ko: Option<usize>) -> Result<Played, Illegal> {
        self.play_noting(p, color, ko, None)
    }

    /// [`Board::play`], pushing the points of the captured stones onto `captured` (a game's
    /// history keeps them to take the move back).
    pub fn play_capturing(
        &mut self,
        p: usize,
        color: Color,
        ko: Option<usize>,
        captured: &mut Vec<u16>,
    ) -> Result<Played, Illegal> {
        self.play_noting(p, color, ko, Some(captured))
    }

    fn play_noting(
        &mut self,
        p: usize,
        color: Color,
        ko: Option<usize>,
        mut noted: Option<&mut Vec<u16>>,
    ) -> Result<Played, Illegal> {
        if self.cells[p] != EMPTY {
            return Err(Illegal::Occupied);
        }
        let me = color.cell();
        let them = color.other().cell();
        // The ko point is surrounded by the capturer; only the side that was captured may not
        // play there (GNU Go's test, which also lets the capturer fill the ko).
        if ko == Some(p) && self.neighbors(p).iter().any(|&n| self.cells[n] == them) {
            return Err(Illegal::Ko);
        }
        self.cells[p] = me;
        let mut captured = 0;
        let mut last_captured = 0;
        let mut seen = Vec::new();
        for n in self.neighbors(p) {
            if self.cells[n] == them && !self.has_liberty(n, &mut seen) {
                let (stones, _) = self.block(n);
                captured += stones.len();
                last_captured = n;
                for s in stones {
                    self.cells[s] = EMPTY;
                    if let Some(noted) = noted.as_deref_mut() {
                        // Points index a board of at most 25x25: (25 + 2) * 26 + 2 < 2^16.
                        noted.push(s as u16);
                    }
                }
            }
        }
        if captured == 0 && !self.has_liberty(p, &mut seen) {
            self.cells[p] = EMPTY;
            return Err(Illegal::Suicide);
        }
        let mut new_ko = None;
        if captured == 1 {
            let (stones, libs) = self.block(p);
            if stones.len() == 1 && libs.len() == 1 {
                new_ko = Some(last_captured);
            }
        }
        Ok(Played {
            captured,
            ko: new_ko,
        })
    }

    /// Whether `color` may play at `p` (see [`Board::play`]).
    pub fn is_legal(&self, p: usize, color: Color, ko: Option<usize>) -> bool {
        if self.cells[p] != EMPTY {
            return false;
        }
        let me = color.cell();
        let them = color.other().cell();
        let ns = self.neighbors(p);
        if ko == Some(p) && ns.iter().any(|&n| self.cells[n] == them) {
            return false;
        }
        let mut seen = Vec::new();
        // Legal when the new stone has a liberty, joins a block with another liberty, or takes
        // the last liberty of an opponent block.
        ns.iter().any(|&n| {
            let c = self.cells[n];
            c == EMPTY
                || (c == me && self.has_liberty_besides(n, p, &mut seen))
                || (c == them && !self.has_liberty_besides(n, p, &mut seen))
        })
    }

    /// Whether the block through `q` has a liberty other than `p` (stops early).
    fn has_liberty_besides(&self, q: usize, p: usize, seen: &mut Vec<usize>) -> bool {
        let color = self.cells[q];
        seen.clear();
        seen.push(q);
        let mut i = 0;
        while i < seen.len() {
            let s = seen[i];
            i += 1;
            for n in self.neighbors(s) {
                let c = self.cells[n];
                if c == EMPTY && n != p {
                    return true;
                }
                if c == color && !seen.contains(&n) {
                    seen.push(n);
                }
            }
        }
        false
    }

    /// Blocks as (stones, liberties) lists, in scanning order of their first stone.
    pub fn blocks(&self) -> Vec<(u8, Vec<usize>, Vec<usize>)> {
        let mut done = vec![false; self.cells.len()];
        let mut out = Vec::new();
        for p in self.points() {
            let c = self.cells[p];
            if (c == BLACK || c == WHITE) && !done[p] {
                let (stones, libs) = self.block(p);
                for &s in &stones {
                    done[s] = true;
                }
                out.push((c, stones, libs));
            }
        }
        out
    }
}
