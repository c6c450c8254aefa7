//! Exact candidate sets by Hall's condition over the 256 type subsets (the essay's `P_i(D)`).
//!
//! For one origin side with local sets `D_j`: `count(U) = #{j : D_j ⊆ U}` (a subset-sum over the
//! mask histogram), `cap(U) = Σ_{k∈U} c_k`. The side is infeasible iff some `count(U) > cap(U)`.
//! Tight sets (`count = cap`) are closed under union and intersection, so every type `t` has a
//! least tight set `M(t)` containing it, and piece `i` can be `t` iff `D_i ⊆ M(t)`: this is
//! `P_i = D_i − ⋃{U tight : D_i ⊄ U}` evaluated per type, in one pass.
//!
//! All 256 counts are bytes (counts never exceed the number of pieces, so a byte never
//! overflows); on x86_64 the subset-sum transform and the comparisons run on SSE2 registers,
//! sixteen subsets per instruction; elsewhere on 64-bit words, eight per instruction (a unit
//! test checks that both agree).

use super::types::{Mask, ALL, CAPACITY};

const H: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

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

/// The tight-set structure of one side: for each type its least tight set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tight {
    /// `least[t]` = the intersection of all tight sets that contain type `t` (ALL if only ALL).
    pub least: [Mask; 8],
}

impl Tight {
    /// The exact set of a piece whose local set is `d`: the types `t ∈ d` with `d ⊆ M(t)`.
    #[inline]
    pub fn exact(&self, d: Mask) -> Mask {
        let mut out = 0;
        let mut rest = d;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if d & !self.least[t] == 0 {
                out |= 1 << t;
            }
        }
        out
    }

    /// The exact set a never-restricted piece of this side would have (all types minus those the
    /// side has used up): the types whose least tight set is ALL.
    pub fn unrestricted(&self) -> Mask {
        let mut out = 0;
        for t in 0..8 {
            if self.least[t] == ALL {
                out |= 1 << t;
            }
        }
        out
    }
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

/// Hall analysis of one side: None when no complete assignment exists.
#[inline]
pub fn analyze(masks: &[Mask]) -> Option<Tight> {
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

/// Exact sets of many pieces at once (same as [`Tight::exact`] on each; vectorises).
#[inline]
pub fn exact_all(tight: &Tight, masks: &mut [Mask; 20]) {
    let mut keep = [0u8; 20];
    for t in 0..8 {
        let m = tight.least[t];
        for (k, &d) in keep.iter_mut().zip(masks.iter()) {
            *k |= (((d & !m) == 0) as u8) << t;
        }
    }
    for (d, k) in masks.iter_mut().zip(keep) {
        *d &= k;
    }
}

/// Replaces every local set by its exact set. Returns false (masks untouched) when infeasible.
#[inline]
pub fn project(masks: &mut [Mask]) -> bool {
    match analyze(masks) {
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

/// Exact sets without changing the input (None when infeasible).
pub fn projected(masks: &[Mask]) -> Option<Vec<Mask>> {
    let mut out = masks.to_vec();
    project(&mut out).then_some(out)
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
