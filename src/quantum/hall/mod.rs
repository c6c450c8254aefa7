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
//!
//! Counting subsets is in `subsets`, seating a side one piece at a time in `seating`, and
//! seating it by tiers on x86_64 in `tiers`.

use super::types::{Mask, ALL, PIECES_PER_SIDE};

mod seating;
mod subsets;
#[cfg(target_arch = "x86_64")]
mod tiers;
use seating::{analyze_seated, project_seated};
pub use subsets::{analyze_by_subsets, project_by_subsets};
#[cfg(target_arch = "x86_64")]
pub use tiers::seats_by_tiers;

const H: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

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

/// Hall analysis of one side: None when no complete assignment exists.
#[inline]
pub fn analyze(masks: &[Mask]) -> Option<Tight> {
    match <&[Mask; PIECES_PER_SIDE]>::try_from(masks) {
        Ok(side) => analyze_seated(side),
        Err(_) => analyze_by_subsets(masks),
    }
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

/// Exact sets without changing the input (None when infeasible).
pub fn projected(masks: &[Mask]) -> Option<Vec<Mask>> {
    let mut out = masks.to_vec();
    project(&mut out).then_some(out)
}
