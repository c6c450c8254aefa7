//! Stable discs: a lower bound on the discs that can never be turned, for the stability cut.

/// Discs of `p` that can never be turned, as far as cheaply provable: filled edges and the
/// discs anchored to corners along edges. A lower bound, used for the stability cut.
pub fn stable_edges(p: u64, o: u64) -> u64 {
    let full = p | o;
    let mut stable = 0u64;
    // Rows 1 and 8, files a and h: full lines are stable; else grow from corners.
    const EDGES: [(u32, u32); 4] = [(0, 1), (56, 1), (0, 8), (7, 8)];
    for (start, step) in EDGES {
        let line: u64 = (0..8).fold(0, |acc, i| acc | 1u64 << (start + i * step));
        if full & line == line {
            stable |= p & line;
            continue;
        }
        let mut i = 0;
        while i < 8 && p >> (start + i * step) & 1 != 0 {
            stable |= 1 << (start + i * step);
            i += 1;
        }
        let mut i = 7i32;
        while i >= 0 && p >> (start + i as u32 * step) & 1 != 0 {
            stable |= 1 << (start + i as u32 * step);
            i -= 1;
        }
    }
    stable
}

/// For a diagonal direction (rank step 1, file step `df`), the squares whose 1st, 2nd and
/// 4th neighbour that way (`up`) or the other way (`!up`) is off the board.
const fn off_board(df: i32, up: bool) -> [u64; 3] {
    let mut out = [0u64; 3];
    let sign = if up { 1 } else { -1 };
    let mut k = 0;
    while k < 3 {
        let dist = 1 << k;
        let mut sq = 0;
        while sq < 64 {
            let r = sq / 8 + sign * dist;
            let f = sq % 8 + sign * df * dist;
            if r < 0 || r >= 8 || f < 0 || f >= 8 {
                out[k as usize] |= 1u64 << sq;
            }
            sq += 1;
        }
        k += 1;
    }
    out
}

const OFF_9_UP: [u64; 3] = off_board(1, true);
const OFF_9_DOWN: [u64; 3] = off_board(1, false);
const OFF_7_UP: [u64; 3] = off_board(-1, true);
const OFF_7_DOWN: [u64; 3] = off_board(-1, false);

/// The occupied squares whose diagonal (step `s`: 9 or 7) is full: full up to the board's edge
/// one way and the other, each by doubling (1, 2, then 4 steps; a neighbour off the board
/// counts as full).
#[inline(always)]
fn full_diagonal(occupied: u64, s: u32, up: &[u64; 3], down: &[u64; 3]) -> u64 {
    let mut u = occupied & ((occupied >> s) | up[0]);
    u &= (u >> (2 * s)) | up[1];
    u &= (u >> (4 * s)) | up[2];
    let mut d = occupied & ((occupied << s) | down[0]);
    d &= (d << (2 * s)) | down[1];
    d &= (d << (4 * s)) | down[2];
    u & d
}

/// For each of the four directions (rows, files, the a1-h8 and the h1-a8 diagonals), the
/// squares whose line in that direction is full.
#[inline(always)]
pub(super) fn full_lines(occupied: u64) -> [u64; 4] {
    // A row is full when its eight bits are: fold each row onto its first bit.
    let mut t = occupied & (occupied >> 4);
    t &= t >> 2;
    t &= t >> 1;
    let rows = (t & 0x0101_0101_0101_0101).wrapping_mul(0xFF);
    let mut t = occupied & (occupied >> 32);
    t &= t >> 16;
    t &= t >> 8;
    let files = (t & 0xFF).wrapping_mul(0x0101_0101_0101_0101);
    [
        rows,
        files,
        full_diagonal(occupied, 9, &OFF_9_UP, &OFF_9_DOWN),
        full_diagonal(occupied, 7, &OFF_7_UP, &OFF_7_DOWN),
    ]
}

/// Discs of `p` that can never be turned, as far as provable cheaply: the stable edge discs,
/// then, repeatedly, inner discs whose four lines are each full or blocked on one side by a
/// stable disc of theirs (a disc can only be turned along a line with an empty square or an
/// unstable neighbour on both sides).
pub fn stable_discs(p: u64, o: u64) -> u64 {
    const INNER: u64 = 0x007E_7E7E_7E7E_7E00;
    let full = full_lines(p | o);
    let inner = p & INNER;
    let mut stable = stable_edges(p, o) | (inner & full[0] & full[1] & full[2] & full[3]);
    loop {
        let h = (stable >> 1) | (stable << 1) | full[0];
        let v = (stable >> 8) | (stable << 8) | full[1];
        let d9 = (stable >> 9) | (stable << 9) | full[2];
        let d7 = (stable >> 7) | (stable << 7) | full[3];
        let grown = stable | (inner & h & v & d9 & d7);
        if grown == stable {
            return stable;
        }
        stable = grown;
    }
}
