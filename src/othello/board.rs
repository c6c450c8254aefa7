//! Bitboards: bit `i` is square `i`, with a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63
//! (the order of the protocol's 64-character board and of the FFO files).
//!
//! A [`Board`] is seen from the side to move: `player` moves next, `opponent` waits.

// SAFETY: allowed for AVX2 move generation, called only where the CPU has it.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

/// Every square but the a and h files: a shift east or west must not wrap around a row.
const NOT_EDGE_FILES: u64 = 0x7E7E_7E7E_7E7E_7E7E;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    pub player: u64,
    pub opponent: u64,
}

/// Discs of `m` flanked from `p` along one direction (shift `d`), both ways at once.
/// Kogge-Stone doubling: runs of up to six opponent discs in four steps.
#[inline(always)]
fn flanked(p: u64, m: u64, d: u32) -> u64 {
    let mut west = m & (p << d);
    west |= m & (west << d);
    let pre = m & (m << d);
    west |= pre & (west << (2 * d));
    west |= pre & (west << (2 * d));
    let mut east = m & (p >> d);
    east |= m & (east >> d);
    let pre = m & (m >> d);
    east |= pre & (east >> (2 * d));
    east |= pre & (east >> (2 * d));
    (west << d) | (east >> d)
}

/// The empty squares where `p` may play against `o`.
#[inline(always)]
pub fn moves(p: u64, o: u64) -> u64 {
    let inner = o & NOT_EDGE_FILES;
    (flanked(p, inner, 1) | flanked(p, o, 8) | flanked(p, inner, 7) | flanked(p, inner, 9))
        & !(p | o)
}

/// [`moves`] with the four directions in the four lanes of one AVX2 register.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn moves_avx2(p: u64, o: u64) -> u64 {
    use std::arch::x86_64::*;
    let inner = (o & NOT_EDGE_FILES) as i64;
    // Lanes, lowest first: shift 1 (along rows), 8 (files), 9 and 7 (diagonals).
    let shift = _mm256_set_epi64x(7, 9, 8, 1);
    let shift2 = _mm256_add_epi64(shift, shift);
    let mask = _mm256_set_epi64x(inner, inner, o as i64, inner);
    let pp = _mm256_set1_epi64x(p as i64);
    let mut west = _mm256_and_si256(mask, _mm256_sllv_epi64(pp, shift));
    west = _mm256_or_si256(west, _mm256_and_si256(mask, _mm256_sllv_epi64(west, shift)));
    let pre = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
    west = _mm256_or_si256(west, _mm256_and_si256(pre, _mm256_sllv_epi64(west, shift2)));
    west = _mm256_or_si256(west, _mm256_and_si256(pre, _mm256_sllv_epi64(west, shift2)));
    let mut east = _mm256_and_si256(mask, _mm256_srlv_epi64(pp, shift));
    east = _mm256_or_si256(east, _mm256_and_si256(mask, _mm256_srlv_epi64(east, shift)));
    let pre = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift));
    east = _mm256_or_si256(east, _mm256_and_si256(pre, _mm256_srlv_epi64(east, shift2)));
    east = _mm256_or_si256(east, _mm256_and_si256(pre, _mm256_srlv_epi64(east, shift2)));
    let m = _mm256_or_si256(
        _mm256_sllv_epi64(west, shift),
        _mm256_srlv_epi64(east, shift),
    );
    let half = _mm_or_si128(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
    let all = _mm_or_si128(half, _mm_unpackhi_epi64(half, half));
    (_mm_cvtsi128_si64(all) as u64) & !(p | o)
}

/// Whether `p` has any move against `o`: [`moves`] direction by direction, stopping at the
/// first that has one (most positions have a move along rows already).
#[inline(always)]
pub fn has_moves(p: u64, o: u64) -> bool {
    let empty = !(p | o);
    let inner = o & NOT_EDGE_FILES;
    flanked(p, inner, 1) & empty != 0
        || flanked(p, o, 8) & empty != 0
        || flanked(p, inner, 9) & empty != 0
        || flanked(p, inner, 7) & empty != 0
}

/// The rays from every square in the eight directions, without the square itself.
/// Directions 0..4 go towards higher bit indices, 4..8 towards lower ones.
static RAYS: [[u64; 8]; 64] = rays();

const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),   // east
    (1, -1),  // south-west (row up, file down)
    (1, 0),   // south (next row)
    (1, 1),   // south-east
    (0, -1),  // west
    (-1, 1),  // north-east
    (-1, 0),  // north
    (-1, -1), // north-west
];

const fn rays() -> [[u64; 8]; 64] {
    let mut table = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dr, df) = DIRECTIONS[d];
            let mut r = (sq / 8) as i32 + dr;
            let mut f = (sq % 8) as i32 + df;
            let mut ray = 0u64;
            while r >= 0 && r < 8 && f >= 0 && f < 8 {
                ray |= 1u64 << (r * 8 + f);
                r += dr;
                f += df;
            }
            table[sq][d] = ray;
            d += 1;
        }
        sq += 1;
    }
    table
}

/// The discs of `o` that `p` turns by playing on `sq` (empty if the move is illegal there).
/// Along each ray the first square that is not an opponent disc must be a player disc.
#[inline(always)]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let rays = &RAYS[sq as usize];
    let mut turned = 0;
    let mut d = 0;
    while d < 4 {
        // Towards higher indices: the lowest bit of the ray that is not an opponent disc.
        let ray = rays[d];
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        let hit = ((first & p) != 0) as u64;
        turned |= ray & first.wrapping_sub(1) & hit.wrapping_neg();
        d += 1;
    }
    while d < 8 {
        // Towards lower indices: the highest such bit. With no stop square at all, bit 0 stands
        // in; it is then either off the ray or an opponent disc, so `hit` stays 0.
        let ray = rays[d];
        let stop = ray & !o;
        let first = 0x8000_0000_0000_0000u64 >> (stop | 1).leading_zeros();
        let hit = ((first & p & ray) != 0) as u64;
        turned |= ray & !(first.wrapping_shl(1).wrapping_sub(1)) & hit.wrapping_neg();
        d += 1;
    }
    turned
}

impl Board {
    /// The start position, black to move: d5 and e4 black, d4 and e5 white.
    pub const START: Board = Board {
        player: (1 << 35) | (1 << 28),
        opponent: (1 << 27) | (1 << 36),
    };

    #[inline(always)]
    pub fn moves(&self) -> u64 {
        moves(self.player, self.opponent)
    }

    #[inline(always)]
    pub fn empties(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// The board after the player puts a disc on `sq`, turning `turned`; the opponent is to move.
    #[inline(always)]
    pub fn play_with(&self, sq: u32, turned: u64) -> Board {
        Board {
            player: self.opponent ^ turned,
            opponent: self.player | turned | (1u64 << sq),
        }
    }

    /// Plays `sq`, which must be legal. Returns None when it is not.
    pub fn play(&self, sq: u32) -> Option<Board> {
        if sq >= 64 || self.moves() & (1u64 << sq) == 0 {
            return None;
        }
        Some(self.play_with(sq, flips(self.player, self.opponent, sq)))
    }

    #[inline(always)]
    pub fn pass(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// Neither side can move.
    pub fn is_game_over(&self) -> bool {
        self.moves() == 0 && moves(self.opponent, self.player) == 0
    }
}

/// Squares next to `bits` in the eight directions.
#[inline(always)]
pub fn neighbours(bits: u64) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let e = (bits << 1) & NOT_A;
    let w = (bits >> 1) & NOT_H;
    let row = bits | e | w;
    e | w | (row << 8) | (row >> 8)
}

/// A table hash of a position: every bit of both boards reaches every bit of the result
/// (a plain product only carries low bits upwards, so its low bits would ignore rows 7 and 8).
#[inline(always)]
pub fn mix(p: u64, o: u64) -> u64 {
    let mut z = p.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Squares of a bitboard, lowest first.
pub fn squares(mut bits: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let sq = bits.trailing_zeros();
            bits &= bits - 1;
            Some(sq)
        }
    })
}

/// `a1`..`h8`.
pub fn square_name(sq: u32) -> String {
    let file = (b'a' + (sq % 8) as u8) as char;
    let rank = (b'1' + (sq / 8) as u8) as char;
    format!("{file}{rank}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_has_four_moves() {
        let m = Board::START.moves();
        let names: Vec<String> = squares(m).map(square_name).collect();
        assert_eq!(names, ["d3", "c4", "f5", "e6"]);
    }

    #[test]
    fn flips_of_opening_move() {
        // f5 (sq 37) turns e5 (36).
        let b = Board::START;
        assert_eq!(flips(b.player, b.opponent, 37), 1 << 36);
        assert_eq!(flips(b.player, b.opponent, 0), 0);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_moves_agree() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        let mut b = Board::START;
        let mut x = 99u64;
        for _ in 0..20000 {
            // SAFETY: checked above.
            let v = unsafe { moves_avx2(b.player, b.opponent) };
            assert_eq!(v, b.moves());
            assert_eq!(has_moves(b.player, b.opponent), v != 0);
            assert_eq!(has_moves(b.opponent, b.player), b.pass().moves() != 0);
            let m = b.moves();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if m == 0 {
                b = if b.pass().moves() == 0 {
                    Board::START
                } else {
                    b.pass()
                };
                continue;
            }
            let list: Vec<u32> = squares(m).collect();
            b = b.play(list[(x % list.len() as u64) as usize]).unwrap();
        }
    }

    #[test]
    fn rays_do_not_wrap() {
        for (sq, rays) in RAYS.iter().enumerate() {
            for (d, &ray) in rays.iter().enumerate() {
                for t in squares(ray) {
                    let (r0, f0) = (sq as i32 / 8, sq as i32 % 8);
                    let (r1, f1) = (t as i32 / 8, t as i32 % 8);
                    let (dr, df) = DIRECTIONS[d];
                    let k = if dr != 0 {
                        (r1 - r0) / dr
                    } else {
                        (f1 - f0) / df
                    };
                    assert!(k > 0);
                    assert_eq!((r0 + k * dr, f0 + k * df), (r1, f1));
                }
                // Directions 0..4 only go up in index, 4..8 only down.
                let below = (1u64 << sq) - 1;
                if d < 4 {
                    assert_eq!(ray & below, 0);
                } else {
                    assert_eq!(ray & !below, 0);
                }
            }
        }
    }
}
