//! Exact candidate sets by Hall's condition over the 256 type subsets (the essay's `P_i(D)`).
//!
//! For one origin side with local sets `D_j`: `count(U) = #{j : D_j ⊆ U}` (a subset-sum over the
//! mask histogram), `cap(U) = Σ_{k∈U} c_k`. The side is infeasible iff some `count(U) > cap(U)`.
//! Tight sets (`count = cap`) are closed under union and intersection, so every type `t` has a
//! least tight set `M(t)` containing it, and piece `i` can be `t` iff `D_i ⊆ M(t)`: this is
//! `P_i = D_i − ⋃{U tight : D_i ⊄ U}` evaluated per type, in one pass.
//!
//! All 256 counts live in 32 words of 8 bytes (counts never exceed the number of pieces, so a
//! byte never overflows) and the transform and comparisons run eight subsets per instruction.

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

/// Hall analysis of one side: None when no complete assignment exists.
#[inline]
pub fn analyze(masks: &[Mask]) -> Option<Tight> {
    let counts = subset_counts(masks);
    let mut least = [ALL; 8];
    let mut bad = 0u64;
    for w in 0..32 {
        // Byte = 0x80 + cap - count, never borrowing (count <= 40 < 0x80).
        let slack = (CAP_WORDS[w] | H) - counts[w];
        bad |= !slack & H;
        let x = slack ^ H; // zero bytes are the tight subsets
        let nonzero = (((x & LOW7) + LOW7) | x) & H;
        let mut tight = !nonzero & H;
        while tight != 0 {
            let byte = tight.trailing_zeros() / 8;
            tight &= tight - 1;
            let u = (w as u32 * 8 + byte) as Mask;
            if u == 0 || u == ALL {
                continue;
            }
            let mut rest = u;
            while rest != 0 {
                let t = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                least[t] &= u;
            }
        }
    }
    if bad != 0 {
        None
    } else {
        Some(Tight { least })
    }
}

/// Replaces every local set by its exact set. Returns false (masks untouched) when infeasible.
#[inline]
pub fn project(masks: &mut [Mask]) -> bool {
    match analyze(masks) {
        None => false,
        Some(tight) => {
            for m in masks.iter_mut() {
                *m = tight.exact(*m);
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
