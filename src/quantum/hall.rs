//! Exact candidate sets by Hall's condition over the 256 type subsets (the essay's `P_i(D)`).
//!
//! For one origin side with local sets `D_j`: `count(U) = #{j : D_j ⊆ U}`,
//! `cap(U) = Σ_{k∈U} c_k`. The side is infeasible iff some `count(U) > cap(U)`. Tight sets
//! (`count = cap`) are closed under union and intersection, so every type `t` has a least tight
//! set `M(t)` containing it, and piece `i` can be `t` iff `D_i ⊆ M(t)`: this is
//! `P_i = D_i − ⋃{U tight : D_i ⊄ U}` evaluated per type.
//!
//! A whole side (20 pieces for 20 slots) is projected from one complete assignment instead of
//! counting subsets (`project_seated`): the pieces are seated greedily (Kuhn's augmenting
//! paths when the greedy choice gets stuck), and the tight sets are the type sets no seated piece
//! can leave, read off an 8×8 bit matrix of links between types. That is some 2.4 times faster
//! than counting all 256 subsets, which remains for any other number of pieces and as the
//! tests' reference ([`analyze_by_subsets`]). On x86_64 the same assignment is found type by
//! type rather than piece by piece, from per-type piece sets in SSE2 registers (`tiers`, 1.4
//! times faster again); seating one by one remains for sides it cannot seat and other targets.
//!
//! The subset counts are bytes (counts never exceed the number of pieces, so a byte never
//! overflows); on x86_64 the subset-sum transform and the comparisons run on SSE2 registers,
//! sixteen subsets per instruction; elsewhere on 64-bit words, eight per instruction (a unit
//! test checks that both agree).

// SAFETY: allowed for SSE2 intrinsics (part of every x86_64 CPU) for Hall's condition.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::types::{Mask, ALL, CAPACITY, PIECES_PER_SIDE};

#[cfg(target_arch = "x86_64")]
mod tiers;
#[cfg(target_arch = "x86_64")]
pub use tiers::seats_by_tiers;

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

/// One slot per piece a side holds, the plentiful types lowest: P ×9, L ×2, N ×2, S ×2, G ×2,
/// B, R, K. A greedy seating that takes the lowest free slot leaves the scarce types to the
/// pieces that need them.
const SLOT_TYPE: [u8; PIECES_PER_SIDE] =
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 1, 0];

/// `SLOTS[d]`: the slots of the types in `d`.
const SLOTS: [u32; 256] = slot_table();

const fn slot_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut d = 0;
    while d < 256 {
        let mut s = 0;
        while s < PIECES_PER_SIDE {
            if d & (1 << SLOT_TYPE[s]) != 0 {
                t[d] |= 1 << s;
            }
            s += 1;
        }
        d += 1;
    }
    t
}

const LANES: u64 = 0x0101_0101_0101_0101;

/// `LANE[s]`: one in the byte lane of slot `s`'s type (a set times it lands in that lane);
/// 32 entries so that a slot from a u32's bits needs no bounds check.
const LANE: [u64; 32] = lane_table();

const fn lane_table() -> [u64; 32] {
    let mut t = [0u64; 32];
    let mut s = 0;
    while s < PIECES_PER_SIDE {
        t[s] = 1 << (8 * SLOT_TYPE[s]);
        s += 1;
    }
    t
}

/// The slots of type P: the nine lowest.
const PAWN_SLOTS: u32 = (1 << CAPACITY[7]) - 1;

/// A complete assignment of a whole side, or None when none exists: the slot each piece is
/// seated in, and the links (byte lane `x`: the union of the sets of the pieces seated in a
/// slot of type `x`).
///
/// Pieces are seated greedily, each in the lowest free slot of its set; a piece that finds none
/// is seated by an augmenting path (Kuhn's), and when there is no such path no complete
/// assignment exists (a piece Kuhn's algorithm cannot seat is never seated later). Seating one
/// by one gives P's slots to the first nine pieces that may be P, so those are found at once
/// and only the other eleven are seated one by one: each seat waits for the one before.
#[inline]
fn seat(masks: &[Mask; PIECES_PER_SIDE]) -> Option<([u8; PIECES_PER_SIDE], u64)> {
    let mut may_pawn = 0u32;
    for (k, x) in words(masks).into_iter().enumerate() {
        // Bit 7 of each lane gathered into one byte, lane j to bit j.
        let bits = ((x & H) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        may_pawn |= (bits as u32) << (8 * k);
    }
    let mut later = may_pawn;
    for _ in 0..CAPACITY[7] - 1 {
        later &= later.wrapping_sub(1);
    }
    if later == 0 {
        // Fewer than nine pieces may be P.
        return None;
    }
    later &= later - 1;
    let pawns = may_pawn ^ later;
    // Every pawn is given P's first slot: only the type of a slot matters to `augment`.
    let mut slot = [0u8; PIECES_PER_SIDE];
    let mut links = 0u64;
    let mut free = ((1u32 << PIECES_PER_SIDE) - 1) & !PAWN_SLOTS;
    let mut rest = ((1u32 << PIECES_PER_SIDE) - 1) & !pawns;
    let mut moved = false;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let d = masks[i];
        let open = SLOTS[d as usize] & free;
        if open == 0 {
            // Every piece before `i` and every pawn is seated.
            free = augment(masks, &mut slot, free, i, pawns | ((1 << i) - 1))?;
            moved = true;
            continue;
        }
        free ^= open & open.wrapping_neg();
        let s = open.trailing_zeros() as usize & 31;
        slot[i] = s as u8;
        links |= (d as u64).wrapping_mul(LANE[s]);
    }
    if moved {
        // The chains moved pieces between types.
        links = 0;
        for (&d, &s) in masks.iter().zip(&slot) {
            links |= (d as u64).wrapping_mul(LANE[s as usize & 31]);
        }
    } else {
        // The pawns' sets, selected lane by lane (bit j of a byte to 0xFF in lane j).
        let mut pawn_sets = 0u64;
        for (k, x) in words(masks).into_iter().enumerate() {
            let bits = ((pawns >> (8 * k)) & 0xFF) as u64;
            let picked = ((bits.wrapping_mul(LANES) & 0x8040_2010_0804_0201) + LOW7) & H;
            pawn_sets |= x & (picked >> 7).wrapping_mul(0xFF);
        }
        links |= (or_lanes(pawn_sets) as u64) << (8 * 7);
    }
    Some((slot, links))
}

/// Seats piece `i` (every slot of its set taken) by moving `seated` pieces along a shortest
/// chain of types to one with a free slot: breadth first over types, `via[z]` the piece that
/// would move into type `z` (`i` itself for its own types). Returns the free slots after, or
/// None when no chain exists.
#[cold]
fn augment(
    masks: &[Mask; PIECES_PER_SIDE],
    slot: &mut [u8; PIECES_PER_SIDE],
    free: u32,
    i: usize,
    seated: u32,
) -> Option<u32> {
    let mut via = [i; 8];
    let mut seen = masks[i];
    let mut frontier = seen;
    while frontier != 0 {
        let mut next = 0;
        let mut rest = seated;
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if frontier & (1 << SLOT_TYPE[slot[j] as usize]) == 0 {
                continue;
            }
            let mut new = masks[j] & !seen;
            seen |= new;
            next |= new;
            while new != 0 {
                let z = new.trailing_zeros() as usize;
                new &= new - 1;
                via[z] = j;
                let open = SLOTS[1 << z] & free;
                if open != 0 {
                    // Each piece on the chain takes the slot the next one leaves.
                    let mut s = open.trailing_zeros() as u8;
                    let mut z = z;
                    loop {
                        let k = via[z];
                        if k == i {
                            slot[i] = s;
                            return Some(free ^ (open & open.wrapping_neg()));
                        }
                        (slot[k], s) = (s, slot[k]);
                        z = SLOT_TYPE[s as usize] as usize;
                    }
                }
            }
        }
        frontier = next;
    }
    None
}

/// The transitive closure of the links (Warshall): lane `t` becomes everything reachable from
/// `t`.
#[inline]
fn closure(links: u64) -> u64 {
    let mut reach = links;
    for k in 0..8 {
        let holds_k = (reach >> k) & LANES;
        let row_k = (reach >> (8 * k)) & 0xFF;
        reach |= holds_k.wrapping_mul(0xFF) & row_k.wrapping_mul(LANES);
    }
    reach
}

/// The links and the paths of two links: lane `t` gains what its types link to. The eight
/// terms are independent, unlike Warshall's steps.
#[inline]
fn square(links: u64) -> u64 {
    let mut out = links;
    for k in 0..8 {
        let holds_k = (links >> k) & LANES;
        let row_k = (links >> (8 * k)) & 0xFF;
        out |= holds_k.wrapping_mul(0xFF) & row_k.wrapping_mul(LANES);
    }
    out
}

/// The OR of the eight byte lanes.
#[inline]
fn or_lanes(mut x: u64) -> Mask {
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    x as Mask
}

/// Some piece's set is empty (bit 7 of a byte lane set for each empty set).
#[inline]
fn any_empty(masks: &[Mask; PIECES_PER_SIDE]) -> bool {
    let [a, b, c] = words(masks);
    // The last word's four missing lanes count as full sets.
    let c = c | 0xFFFF_FFFF << 32;
    let zero = |x: u64| !((((x & LOW7) + LOW7) | x) & H) & H;
    (zero(a) | zero(b) | zero(c)) != 0
}

/// A side's sets as byte lanes of three words (the last four lanes zero).
#[inline]
fn words(masks: &[Mask; PIECES_PER_SIDE]) -> [u64; 3] {
    let [a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7, c0, c1, c2, c3] = *masks;
    [
        u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
        u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
        u32::from_le_bytes([c0, c1, c2, c3]) as u64,
    ]
}

/// Whole-side Hall analysis from one complete assignment, without counting subsets.
///
/// With 20 pieces in 20 slots every slot is filled, so a type set is tight exactly when no
/// piece seated in it may be a type outside it: the tight sets are the sets closed under the
/// links ("a piece seated in `x` may be `y`"), and the least tight set holding `t` is everything
/// reachable from `t`. A piece seated in `a` may be `t` iff `a` is reachable from `t` (then its
/// whole set is: `a`'s links include it), so no set narrows when every link runs back.
#[inline]
fn project_seated(masks: &mut [Mask; PIECES_PER_SIDE]) -> bool {
    // An empty set is the most common reason for no assignment after an action: say so at once.
    if any_empty(masks) {
        return false;
    }
    let Some((slot, links)) = seat(masks) else {
        return false;
    };
    // Most often every link is answered by a path back of one or two links: then nothing
    // narrows, and the full closure is not needed.
    let two = square(links);
    if links & !transpose(two) == 0 {
        return true;
    }
    // Lane a: the types t from which a is reachable.
    let back = transpose(closure(two));
    if links & !back != 0 {
        for (d, &s) in masks.iter_mut().zip(&slot) {
            *d &= (back >> (8 * SLOT_TYPE[s as usize])) as Mask;
        }
    }
    true
}

/// [`analyze`] of a whole side (see [`project_seated`]).
fn analyze_seated(masks: &[Mask; PIECES_PER_SIDE]) -> Option<Tight> {
    let (_, links) = seat(masks)?;
    let reach = closure(links);
    let mut least = [0; 8];
    for (t, l) in least.iter_mut().enumerate() {
        *l = (reach >> (8 * t)) as Mask;
    }
    Some(Tight { least })
}

/// The transpose of an 8×8 bit matrix held as eight byte rows (bit c of byte r ↔ bit r of
/// byte c).
#[inline]
fn transpose(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Hall analysis of one side: None when no complete assignment exists.
#[inline]
pub fn analyze(masks: &[Mask]) -> Option<Tight> {
    match <&[Mask; PIECES_PER_SIDE]>::try_from(masks) {
        Ok(side) => analyze_seated(side),
        Err(_) => analyze_by_subsets(masks),
    }
}

/// [`analyze`] by counting all 256 subsets: any number of pieces, and the reference the fast
/// path is tested against.
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
    match <&mut [Mask; PIECES_PER_SIDE]>::try_from(&mut *masks) {
        #[cfg(target_arch = "x86_64")]
        Ok(side) => tiers::project(side),
        #[cfg(not(target_arch = "x86_64"))]
        Ok(side) => project_seated(side),
        Err(_) => project_by_subsets(masks),
    }
}

/// [`project`] by seating the pieces one by one (what other targets run, and what x86_64 runs
/// when the seating by tiers gets stuck), for tests.
pub fn project_one_by_one(masks: &mut [Mask; PIECES_PER_SIDE]) -> bool {
    project_seated(masks)
}

/// [`project`] through [`analyze_by_subsets`] (the reference for tests).
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
