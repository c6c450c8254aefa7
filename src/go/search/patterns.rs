//! The 3x3 playout patterns of MoGo (Gelly, Wang, Munos, Teytaud 2006: hane, cut and edge
//! shapes around the last move), for either colour, in all eight orientations: a table over the
//! 16-bit keys of [`super::fast::FastBoard::pattern_key`].

use std::sync::OnceLock;

/// Rows top to bottom; the centre is the candidate point. `X` and `O` are the two colours
/// (either way round), `.` empty, `?` anything, `x` not X, `o` not O, ` ` the edge.
const SOURCES: &[[&str; 3]] = &[
    ["XOX", "...", "???"], // hane: enclosing hane
    ["XO.", "...", "?.?"], // hane: non-cutting hane
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // katatsuke or diagonal attachment
    ["XO?", "O.o", "?o?"], // cut: unprotected cut
    ["XO?", "O.X", "???"], // cut: peeped cut
    ["?X?", "O.O", "ooo"], // cut: de
    ["OX?", "o.O", "???"], // cut: keima
    ["X.?", "O.?", "   "], // edge: chase
    ["OX?", "X.O", "   "], // edge: block side cut
    ["?X?", "x.O", "   "], // edge: block side connection
    ["?XO", "x.x", "   "], // edge: sagari
    ["?OX", "X.O", "   "], // edge: cut
];

/// Grid cells (row, col) in key order: N, NE, E, SE, S, SW, W, NW.
const ORDER: [(usize, usize); 8] = [
    (0, 1),
    (0, 2),
    (1, 2),
    (2, 2),
    (2, 1),
    (2, 0),
    (1, 0),
    (0, 0),
];

/// Whether the neighbourhood `key` makes its centre a good playout move (for either side).
#[inline]
pub fn matches(key: u16) -> bool {
    let table = TABLE.get_or_init(build);
    table[key as usize >> 6] >> (key & 63) & 1 != 0
}

static TABLE: OnceLock<Vec<u64>> = OnceLock::new();

fn build() -> Vec<u64> {
    let mut table = vec![0u64; 1 << 10];
    for source in SOURCES {
        let grid: Vec<Vec<u8>> = source.iter().map(|r| r.bytes().collect()).collect();
        for g in orientations(grid) {
            for swap in [false, true] {
                let cells: Vec<u8> = ORDER
                    .iter()
                    .map(|&(r, c)| {
                        let ch = g[r][c];
                        if swap {
                            swap_case(ch)
                        } else {
                            ch
                        }
                    })
                    .collect();
                expand(&cells, 0, 0, &mut table);
            }
        }
    }
    table
}

fn swap_case(ch: u8) -> u8 {
    match ch {
        b'X' => b'O',
        b'O' => b'X',
        b'x' => b'o',
        b'o' => b'x',
        c => c,
    }
}

/// The eight rotations and reflections of a 3x3 grid.
fn orientations(grid: Vec<Vec<u8>>) -> Vec<Vec<Vec<u8>>> {
    let rotate = |g: &Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        (0..3)
            .map(|r| (0..3).map(|c| g[2 - c][r]).collect())
            .collect()
    };
    let mirror = |g: &Vec<Vec<u8>>| -> Vec<Vec<u8>> {
        g.iter()
            .map(|row| row.iter().rev().copied().collect())
            .collect()
    };
    let mut out = Vec::new();
    let mut g = grid;
    for _ in 0..4 {
        out.push(mirror(&g));
        g = rotate(&g);
        out.push(g.clone());
    }
    out
}

/// Sets every concrete key (0 empty, 1 X = black, 2 O = white, 3 edge) the pattern matches.
fn expand(cells: &[u8], i: usize, key: u16, table: &mut [u64]) {
    if i == 8 {
        table[key as usize >> 6] |= 1 << (key & 63);
        return;
    }
    let values: &[u16] = match cells[i] {
        b'.' => &[0],
        b'X' => &[1],
        b'O' => &[2],
        b' ' => &[3],
        b'x' => &[0, 2, 3],
        b'o' => &[0, 1, 3],
        _ => &[0, 1, 2, 3],
    };
    for &v in values {
        expand(cells, i + 1, key | v << (2 * i), table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::notation::parse_position;
    use crate::go::search::fast::FastBoard;
    use crate::go::Position;

    fn key_at(rows: &str, row: usize, col: usize) -> bool {
        let fields: Vec<String> = ["5", rows, "b"].iter().map(|s| s.to_string()).collect();
        let (board, to_move) = parse_position(&fields).unwrap();
        let p = board.point(row, col);
        let fast = FastBoard::from_game(&Position::new(board, to_move));
        matches(fast.pattern_key(p))
    }

    #[test]
    fn hane_and_cut_match_in_every_orientation_and_empty_does_not() {
        // Enclosing hane: X O X above the centre.
        assert!(key_at("...../.XOX./...../...../.....", 2, 2));
        // The same rotated (the stones on the right) and with the colours swapped.
        assert!(key_at("...../...O./...X./...O./.....", 2, 2));
        assert!(key_at("...../.OXO./...../...../.....", 2, 2));
        // The unprotected cut: X O / O . with nothing below.
        assert!(key_at("...../.XO../.O.../...../.....", 2, 2));
        // Nothing around: no pattern.
        assert!(!key_at("...../...../...../...../.....", 2, 2));
        // The edge chase: X . / O . on the first line's neighbours.
        assert!(key_at("...../...../...../.X.../.O...", 4, 2));
    }
}
