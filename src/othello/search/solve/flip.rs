//! The discs a move turns, with the eight directions in two AVX2 registers: the four rays
//! towards higher squares in one, the four towards lower squares in the other. Towards higher
//! squares the first square that is not an opponent disc is the ray's lowest such bit
//! (`x & -x`); towards lower squares it is the highest, found by smearing the stop squares
//! down the ray (three shifts by the direction's step) instead of counting leading zeros,
//! which AVX2 lacks for 64-bit lanes (the compiler's version of the plain loop emulates it
//! byte by byte).

// SAFETY: allowed for AVX2 flips, called only where the CPU has it.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// A square's rays: towards higher squares (steps 1, 8, 9, 7) and towards lower squares
/// (the same steps), without the square itself.
#[repr(C, align(32))]
struct Rays {
    up: [u64; 4],
    down: [u64; 4],
}

/// The steps of the four lanes, as (rank, file) per step.
const STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

static RAYS: [Rays; 64] = {
    let mut table = [const {
        Rays {
            up: [0; 4],
            down: [0; 4],
        }
    }; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut lane = 0;
        while lane < 4 {
            let (dr, df) = STEPS[lane];
            let mut sign = 1;
            while sign >= -1 {
                let (mut r, mut f) = ((sq / 8) as i32 + sign * dr, (sq % 8) as i32 + sign * df);
                let mut ray = 0u64;
                while r >= 0 && r < 8 && f >= 0 && f < 8 {
                    ray |= 1u64 << (r * 8 + f);
                    r += sign * dr;
                    f += sign * df;
                }
                if sign == 1 {
                    table[sq].up[lane] = ray;
                } else {
                    table[sq].down[lane] = ray;
                }
                sign -= 2;
            }
            lane += 1;
        }
        sq += 1;
    }
    table
};

/// [`crate::othello::board::flips`] in AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub unsafe fn flips_avx2(p: u64, o: u64, sq: u32) -> u64 {
    let rays = &RAYS[sq as usize & 63];
    let up = _mm256_load_si256(rays.up.as_ptr() as *const __m256i);
    let down = _mm256_load_si256(rays.down.as_ptr() as *const __m256i);
    let pp = _mm256_set1_epi64x(p as i64);
    let oo = _mm256_set1_epi64x(o as i64);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);

    // Towards higher squares: the lowest stop square; turned are the ray's squares below it,
    // when it holds a disc of ours.
    let stop = _mm256_andnot_si256(oo, up);
    let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
    let outflank = _mm256_and_si256(first, pp);
    let none = _mm256_cmpeq_epi64(outflank, zero);
    let turned_up =
        _mm256_andnot_si256(none, _mm256_and_si256(up, _mm256_sub_epi64(outflank, one)));

    // Towards lower squares: smear the stop squares down the ray; the ray's squares above the
    // smear are the opponent's run, and the smear's top square is the first stop.
    let step = _mm256_set_epi64x(7, 9, 8, 1);
    let stop = _mm256_andnot_si256(oo, down);
    let mut smear = _mm256_or_si256(stop, _mm256_srlv_epi64(stop, step));
    smear = _mm256_or_si256(
        smear,
        _mm256_srlv_epi64(smear, _mm256_add_epi64(step, step)),
    );
    smear = _mm256_or_si256(
        smear,
        _mm256_srlv_epi64(smear, _mm256_slli_epi64::<2>(step)),
    );
    smear = _mm256_and_si256(smear, down);
    let first = _mm256_andnot_si256(_mm256_srlv_epi64(smear, step), smear);
    let none = _mm256_cmpeq_epi64(_mm256_and_si256(first, pp), zero);
    let turned_down = _mm256_andnot_si256(none, _mm256_andnot_si256(smear, down));

    let t = _mm256_or_si256(turned_up, turned_down);
    let half = _mm_or_si128(_mm256_castsi256_si128(t), _mm256_extracti128_si256::<1>(t));
    let all = _mm_or_si128(half, _mm_unpackhi_epi64(half, half));
    _mm_cvtsi128_si64(all) as u64
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::othello::board::flips;

    #[test]
    fn agrees_with_the_plain_flips() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        let mut rng = crate::rng::SplitMix64::new(99);
        let mut rand = || rng.next();
        for i in 0..200_000 {
            let (a, b) = (rand(), rand());
            // Dense and sparse boards; p and o disjoint, the square empty.
            let occupied = if i % 3 == 0 { a | b } else { a };
            let p = occupied & b;
            let o = occupied & !b;
            let sq = (rand() % 64) as u32;
            let (p, o) = (p & !(1 << sq), o & !(1 << sq));
            // SAFETY: AVX2 was detected above.
            let got = unsafe { flips_avx2(p, o, sq) };
            assert_eq!(got, flips(p, o, sq), "p {p:#x} o {o:#x} sq {sq}");
        }
    }
}
