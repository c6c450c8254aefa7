//! The number of discs turned by a move on the last empty square, without building the flip
//! mask. With one empty square left every other square holds a disc, so along each of its four
//! lines the mover's discs alone decide the count: the line's bits index a table.

/// `COUNT[i][line]`: discs turned along an 8-square line by a move at position `i`, when
/// `line` holds the mover's discs (bit `i` ignored) and every other position an opponent disc.
/// A run of opponent discs that reaches the end of the line turns nothing, which also makes
/// the squares a short diagonal lacks (read as 0) harmless.
static COUNT: [[u8; 256]; 8] = {
    let mut table = [[0u8; 256]; 8];
    let mut i = 0;
    while i < 8 {
        let mut line = 0;
        while line < 256 {
            let mut total = 0;
            // Towards higher positions.
            let mut j = i + 1;
            while j < 8 && line >> j & 1 == 0 {
                j += 1;
            }
            if j < 8 {
                total += j - i - 1;
            }
            // Towards lower positions.
            let mut j = i as i32 - 1;
            while j >= 0 && line >> j & 1 == 0 {
                j -= 1;
            }
            if j >= 0 {
                total += (i as i32 - j - 1) as usize;
            }
            table[i][line] = total as u8;
            line += 1;
        }
        i += 1;
    }
    table
};

/// The two diagonals through each square: a1-h8 direction, then h1-a8 direction.
static DIAGONALS: [[u64; 2]; 64] = {
    let mut table = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, f) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut t = 0;
        while t < 64 {
            let (y, x) = ((t / 8), (t % 8));
            if y - x == r - f {
                table[sq][0] |= 1u64 << t;
            }
            if y + x == r + f {
                table[sq][1] |= 1u64 << t;
            }
            t += 1;
        }
        sq += 1;
    }
    table
};

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Discs turned when `p` plays on `sq`, the only empty square: 0 when the move is illegal.
#[inline(always)]
pub fn count_last_flips(p: u64, sq: u32) -> i32 {
    let (r, f) = ((sq / 8) as usize, (sq % 8) as usize);
    let row = (p >> (8 * r)) as u8 as usize;
    // The file gathered into one byte, bit k = rank k (the products never overlap).
    let file = (((p >> f) & FILE_A).wrapping_mul(0x0002_0408_1020_4081) >> 49) as u8 as usize;
    // A diagonal has one square per file: folded onto the top byte, bit k = file k.
    let [d1, d2] = DIAGONALS[sq as usize];
    let diag = ((p & d1).wrapping_mul(FILE_A) >> 56) as usize;
    let anti = ((p & d2).wrapping_mul(FILE_A) >> 56) as usize;
    (COUNT[f][row] + COUNT[r][file] + COUNT[f][diag] + COUNT[f][anti]) as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::board::flips;

    #[test]
    fn counts_the_flips_of_the_last_square() {
        let mut rng = crate::rng::SplitMix64::new(99);
        for _ in 0..200_000 {
            let state = rng.next();
            let sq = (state >> 58) as u32;
            let p = state & !(1u64 << sq);
            let o = !p & !(1u64 << sq);
            assert_eq!(count_last_flips(p, sq), flips(p, o, sq).count_ones() as i32);
            assert_eq!(count_last_flips(o, sq), flips(o, p, sq).count_ones() as i32);
        }
    }
}
