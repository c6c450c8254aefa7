//! Hall's condition by counting all 256 type subsets: any number of pieces, and the reference
//! the seated projection is tested against. The counts are bytes, summed over subsets on SSE2
//! registers on x86_64 (sixteen subsets per instruction) and on 64-bit words elsewhere.

// SAFETY: allowed for SSE2 intrinsics (part of every x86_64 CPU) for Hall's condition.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::{exact_all, Tight, H, LOW7};
use crate::quantum::types::{Mask, ALL, CAPACITY};

/// `cap(U)` for every subset, packed like the counts.
const CAP_WORDS: [u64; 32] = cap_words();

const fn cap_words() -> [u64; 32] {
    let mut words = [0u64; 32];
    let mut u = 0;
    while u < 256 {
        let mut cap = 0u64;
        let mut t = 0;
        while t < 8 {
            if u & (1 << t) != 0 {
                cap += CAPACITY[t] as u64;
            }
            t += 1;
        }
        words[u >> 3] |= cap << ((u & 7) * 8);
        u += 1;
    }
    words
}

/// `count(U)` for all 256 subsets, packed eight per word (byte `U & 7` of word `U >> 3`).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn subset_counts(masks: &[Mask]) -> [u64; 32] {
    let mut c = [0u64; 32];
    for &m in masks {
        c[(m >> 3) as usize] += 1u64 << ((m & 7) * 8);
    }
    // Type bits 0..2 index bytes inside a word.
    for w in c.iter_mut() {
        *w += (*w & 0x00FF_00FF_00FF_00FF) << 8;
        *w += (*w & 0x0000_FFFF_0000_FFFF) << 16;
        *w += (*w & 0x0000_0000_FFFF_FFFF) << 32;
    }
    // Type bits 3..7 index words.
    for k in 0..5 {
        let bit = 1 << k;
        for w in 0..32 {
            if w & bit != 0 {
                c[w] += c[w ^ bit];
            }
        }
    }
    c
}

/// The tight subsets as a 256-bit set, or None when some `count(U) > cap(U)`.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn tight_sets(masks: &[Mask]) -> Option<[u64; 4]> {
    tight_sets_words(masks)
}

/// [`tight_sets`] on 64-bit words, for any target.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn tight_sets_words(masks: &[Mask]) -> Option<[u64; 4]> {
    let counts = subset_counts(masks);
    let mut tight = [0u64; 4];
    let mut bad = 0u64;
    for w in 0..32 {
        // Byte = 0x80 + cap - count, never borrowing (count <= 40 < 0x80).
        let slack = (CAP_WORDS[w] | H) - counts[w];
        bad |= !slack & H;
        let x = slack ^ H; // zero bytes are the tight subsets
        let zero = !((((x & LOW7) + LOW7) | x) & H) & H;
        // Gather the eight flags (bit 7 of each byte) into one byte.
        let byte = ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        tight[w >> 3] |= byte << ((w & 7) * 8);
    }
    (bad == 0).then_some(tight)
}

/// The same with SSE2 (part of every x86_64): sixteen subsets per instruction, and the
/// comparisons gathered with `movemask`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn tight_sets(masks: &[Mask]) -> Option<[u64; 4]> {
    // SAFETY: SSE2 belongs to the x86_64 baseline, so every x86_64 CPU has it.
    unsafe { tight_sets_sse2(masks) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn tight_sets_sse2(masks: &[Mask]) -> Option<[u64; 4]> {
    use std::arch::x86_64::*;
    #[repr(align(16))]
    struct Histogram([u8; 256]);
    let mut h = Histogram([0; 256]);
    for &m in masks {
        h.0[m as usize] += 1;
    }
    let mut v = [_mm_setzero_si128(); 16];
    for (i, x) in v.iter_mut().enumerate() {
        // SAFETY: 16 bytes at 16 * i lie inside the 256-byte, 16-aligned histogram.
        *x = unsafe { _mm_load_si128(h.0.as_ptr().add(16 * i) as *const __m128i) };
    }
    // Type bits 0..3 index bytes inside a vector.
    let m0 = _mm_set1_epi64x(0x00FF_00FF_00FF_00FF);
    let m1 = _mm_set1_epi64x(0x0000_FFFF_0000_FFFF);
    let m2 = _mm_set1_epi64x(0x0000_0000_FFFF_FFFF);
    for x in v.iter_mut() {
        *x = _mm_add_epi8(*x, _mm_slli_si128::<1>(_mm_and_si128(*x, m0)));
        *x = _mm_add_epi8(*x, _mm_slli_si128::<2>(_mm_and_si128(*x, m1)));
        *x = _mm_add_epi8(*x, _mm_slli_si128::<4>(_mm_and_si128(*x, m2)));
        *x = _mm_add_epi8(*x, _mm_slli_si128::<8>(*x));
    }
    // Type bits 4..7 index vectors.
    for k in 0..4 {
        let bit = 1 << k;
        for i in 0..16 {
            if i & bit != 0 {
                v[i] = _mm_add_epi8(v[i], v[i ^ bit]);
            }
        }
    }
    let mut tight = [0u64; 4];
    let mut bad = 0;
    for (i, x) in v.iter().enumerate() {
        let cap = _mm_set_epi64x(CAP_WORDS[2 * i + 1] as i64, CAP_WORDS[2 * i] as i64);
        bad |= _mm_movemask_epi8(_mm_cmpgt_epi8(*x, cap));
        let eq = _mm_movemask_epi8(_mm_cmpeq_epi8(*x, cap)) as u32 as u64;
        tight[i >> 2] |= eq << ((i & 3) * 16);
    }
    (bad == 0).then_some(tight)
}

/// [`analyze`](super::analyze) by counting all 256 subsets: any number of pieces, and the
/// reference the fast path is tested against.
pub fn analyze_by_subsets(masks: &[Mask]) -> Option<Tight> {
    let mut tight = tight_sets(masks)?;
    // The empty set and ALL are always tight and never narrow anything.
    tight[0] &= !1;
    tight[3] &= !(1 << 63);
    let mut least = [ALL; 8];
    // The least tight set holding t is also the smallest one (tight sets are closed under
    // intersection, so two of the same least size holding t would give a smaller one): scan
    // the tight sets by size and give each type the first that holds it.
    let mut remaining: Mask = ALL;
    for level in &BY_SIZE {
        if remaining == 0 {
            break;
        }
        for (w, &word) in level.iter().enumerate() {
            let mut bits = word & tight[w];
            while bits != 0 {
                let u = (w as u32 * 64 + bits.trailing_zeros()) as Mask;
                bits &= bits - 1;
                let mut new = u & remaining;
                remaining &= !u;
                while new != 0 {
                    let t = new.trailing_zeros() as usize;
                    new &= new - 1;
                    least[t] = u;
                }
            }
        }
    }
    Some(Tight { least })
}

/// `BY_SIZE[k]`: the 256-bit set of subsets with k + 1 types (1..=7; ALL is never needed).
const BY_SIZE: [[u64; 4]; 7] = size_table();

const fn size_table() -> [[u64; 4]; 7] {
    let mut t = [[0u64; 4]; 7];
    let mut u = 1;
    while u < 255 {
        let k = (u as u8).count_ones() as usize;
        t[k - 1][u >> 6] |= 1 << (u & 63);
        u += 1;
    }
    t
}

/// [`project`](super::project) through [`analyze_by_subsets`] (the reference for tests).
pub fn project_by_subsets(masks: &mut [Mask]) -> bool {
    match analyze_by_subsets(masks) {
        None => false,
        Some(tight) => {
            match <&mut [Mask; 20]>::try_from(&mut *masks) {
                Ok(side) => exact_all(&tight, side),
                Err(_) => {
                    for m in masks.iter_mut() {
                        *m = tight.exact(*m);
                    }
                }
            }
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tight sets and infeasibility by direct counting over all 256 subsets.
    fn tight_sets_plain(masks: &[Mask]) -> Option<[u64; 4]> {
        let mut tight = [0u64; 4];
        for u in 0..256usize {
            let count = masks.iter().filter(|&&d| d as usize & !u == 0).count();
            let cap: usize = (0..8)
                .filter(|t| u & (1 << t) != 0)
                .map(|t| CAPACITY[t] as usize)
                .sum();
            if count > cap {
                return None;
            }
            if count == cap {
                tight[u >> 6] |= 1 << (u & 63);
            }
        }
        Some(tight)
    }

    #[test]
    fn word_and_simd_tight_sets_agree_with_plain_counting() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut feasible = 0;
        for n in 0..20_000 {
            let mut masks = [0u8; 20];
            for m in masks.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Sparse and dense sets alike.
                *m = (x as u8) & (x >> 8) as u8 | (x >> 16) as u8 & (x >> 24) as u8;
                if x >> 60 == 0 {
                    *m = 1 << ((x >> 32) & 7);
                }
                // Every other configuration is dense enough to be feasible mostly.
                if n % 2 == 0 {
                    *m |= (x >> 40) as u8 | (x >> 48) as u8;
                }
            }
            let plain = tight_sets_plain(&masks);
            assert_eq!(tight_sets_words(&masks), plain, "{masks:?}");
            assert_eq!(tight_sets(&masks), plain, "{masks:?}");
            feasible += plain.is_some() as usize;
        }
        assert!((2_000..18_000).contains(&feasible), "{feasible} feasible");
    }
}
