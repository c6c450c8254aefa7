//! A whole side projected with SSE2 (part of every x86_64): each scarce type takes its pieces
//! from per-type piece sets in one step instead of each piece being seated in turn.
//!
//! Seating the eleven pieces that are not P one by one (`project_seated`) waits on each seat,
//! and a piece seated after a flexible one took its type needs an augmenting path (28% of the
//! bench's feasible states). Here the pieces that may be each type are bit sets (one
//! `movemask` per type), and the scarce types G, S, N, L, B, R, K each take their one or two
//! pieces from their set in that order, preferring certain pieces, then pieces that may not be P,
//! then the rest: the three tiers are three 20-bit fields of one word, so "the lowest one or two
//! bits" is the preference. P takes the nine left. Over the bench's feasible states this gets
//! stuck in 41 of 2992 (then `project_seated` seats the side); the links between types and the
//! test for paths back of one or two links are done on all 64 type pairs at once.

// SAFETY: allowed for SSE2 intrinsics (part of every x86_64 CPU) for the tiers' projection.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::seating::{closure, project_seated};
use crate::quantum::types::{Mask, PIECES_PER_SIDE};
use std::arch::x86_64::*;

const M20: u32 = (1 << 20) - 1;

/// `SPREAD[d]`: one in byte lane `y` for each type `y` of `d` (a column of the links'
/// transpose).
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut d = 0;
    while d < 256 {
        let mut y = 0;
        while y < 8 {
            if d & (1 << y) != 0 {
                t[d] |= 1 << (8 * y);
            }
            y += 1;
        }
        d += 1;
    }
    t
};

/// The scarce types' holders (bits of the three tiers) in type order K, R, B, G, S, N, L, and
/// the pawns (bit i for piece i).
struct Seating {
    hold: [u64; 7],
    pawns: u32,
}

/// The sets of pieces 0..15 and 16..19 in two registers (the second's upper twelve bytes zero).
/// The second is loaded as four bytes, not as sixteen from byte 4: callers often have just
/// written the sets as 16 + 4 bytes, and a load across both stores stalls.
#[inline(always)]
fn load(masks: &[Mask; PIECES_PER_SIDE]) -> (__m128i, __m128i) {
    // SAFETY: SSE2 belongs to the x86_64 baseline; the first load reads bytes 0..15 of 20.
    unsafe {
        (
            _mm_loadu_si128(masks.as_ptr() as *const __m128i),
            _mm_cvtsi32_si128(i32::from_le_bytes([
                masks[16], masks[17], masks[18], masks[19],
            ])),
        )
    }
}

/// Bit 7 of each piece's byte, pieces 0..19.
#[inline(always)]
fn top_bits(lo: __m128i, hi: __m128i) -> u32 {
    // SAFETY: SSE2 belongs to the x86_64 baseline.
    unsafe { _mm_movemask_epi8(lo) as u32 | (_mm_movemask_epi8(hi) as u32 & 0xF) << 16 }
}

/// Each byte shifted left by one.
#[inline(always)]
fn shl(x: __m128i) -> __m128i {
    // SAFETY: SSE2 belongs to the x86_64 baseline.
    unsafe { _mm_add_epi8(x, x) }
}

/// Whole-side Hall projection (the same results as `project_seated`).
#[inline]
pub(super) fn project(masks: &mut [Mask; PIECES_PER_SIDE]) -> bool {
    let (lo, hi) = load(masks);
    // SAFETY: SSE2 belongs to the x86_64 baseline.
    let (empty, single) = unsafe {
        let zero = _mm_setzero_si128();
        let ones = _mm_set1_epi8(-1);
        let one_type = |x: __m128i| _mm_cmpeq_epi8(_mm_and_si128(x, _mm_add_epi8(x, ones)), zero);
        (
            top_bits(_mm_cmpeq_epi8(lo, zero), _mm_cmpeq_epi8(hi, zero)),
            top_bits(one_type(lo), one_type(hi)),
        )
    };
    // An empty set is the most common reason for no assignment after an action.
    if empty != 0 {
        return false;
    }
    let Some(seating) = seat(lo, hi, single) else {
        return project_cold(masks);
    };
    let Seating { hold, pawns } = seating;
    // Each piece's set at its place in every tier, so that a holder's bit indexes it (65: the
    // trailing zeros of a word are at most 64).
    let mut tiers = [0u8; 65];
    tiers[..20].copy_from_slice(masks);
    tiers[20..40].copy_from_slice(masks);
    tiers[40..60].copy_from_slice(masks);
    let one = |h: u64| tiers[h.trailing_zeros() as usize];
    let two = |h: u64| one(h) | one(h & h.wrapping_sub(1));
    let [hk, hr, hb, hg, hs, hn, hl] = hold;
    let links = u64::from_le_bytes([
        one(hk),
        one(hr),
        one(hb),
        two(hg),
        two(hs),
        two(hn),
        two(hl),
        pawn_sets(lo, hi, pawns),
    ]);
    // Lane x: the types linking to x (eight independent loads, not a transpose's chain).
    let mut back1 = 0u64;
    for (x, d) in links.to_le_bytes().into_iter().enumerate() {
        back1 |= SPREAD[d as usize] << x;
    }
    if links & !back1 & no_two_link_paths(links, back1) == 0 {
        // Every link x -> y has a path back of one or two links: nothing narrows.
        return true;
    }
    narrow(masks, links, back1, hold)
}

/// The greedy seating by tiers (see the module's comment), or None when it got stuck.
#[inline(always)]
fn seat(lo: __m128i, hi: __m128i, single: u32) -> Option<Seating> {
    // Type bits 7 (P) down to 0 (K), one shift each.
    let may_pawn = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_l = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_n = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_s = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_g = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_b = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_r = top_bits(lo, hi);
    let (lo, hi) = (shl(lo), shl(hi));
    let set_k = top_bits(lo, hi);
    // Piece i at bit i (certain), 20 + i (may not be P) or 40 + i (may be P).
    let not_pawn = !single & !may_pawn & M20;
    let flexible_pawn = !single & may_pawn;
    let layout = single as u64 | (not_pawn as u64) << 20 | (flexible_pawn as u64) << 40;
    let spread = |s: u32| (s as u64).wrapping_mul(1 | 1 << 20 | 1 << 40) & layout;
    let mut free = layout;
    // Bit 63 set when a type found too few pieces (x - 1 borrows only from x = 0).
    let mut stuck = 0u64;
    let mut take_two = |set: u32| {
        let s = spread(set);
        let cand = s & free;
        let r1 = cand & cand.wrapping_sub(1);
        let r1m = r1.wrapping_sub(1);
        stuck |= r1m & !r1;
        let rest = r1 & r1m;
        free = (free & !s) | rest;
        cand ^ rest
    };
    let hg = take_two(set_g);
    let hs = take_two(set_s);
    let hn = take_two(set_n);
    let hl = take_two(set_l);
    let mut take_one = |set: u32| {
        let s = spread(set);
        let cand = s & free;
        stuck |= cand.wrapping_sub(1) & !cand;
        let rest = cand & cand.wrapping_sub(1);
        free = (free & !s) | rest;
        cand ^ rest
    };
    let hb = take_one(set_b);
    let hr = take_one(set_r);
    let hk = take_one(set_k);
    let pawns = ((free | free >> 20 | free >> 40) as u32) & M20;
    // Eleven pieces took the eleven scarce slots; the nine left must all may be P.
    ((stuck >> 63) | (pawns & !may_pawn) as u64 == 0).then_some(Seating {
        hold: [hk, hr, hb, hg, hs, hn, hl],
        pawns,
    })
}

/// The OR of the pawns' sets: each pawn's bit widened to its byte, the sets masked and folded.
#[inline(always)]
fn pawn_sets(lo: __m128i, hi: __m128i, pawns: u32) -> Mask {
    // SAFETY: SSE2 belongs to the x86_64 baseline.
    unsafe {
        let p = _mm_cvtsi32_si128(pawns as i32);
        let p = _mm_unpacklo_epi8(p, p);
        // Dword k: byte k of `pawns` four times.
        let p = _mm_unpacklo_epi16(p, p);
        let bits = _mm_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
        let select = |x: __m128i| _mm_cmpeq_epi8(_mm_and_si128(x, bits), bits);
        let lo_pawns = select(_mm_shuffle_epi32::<0b01_01_00_00>(p));
        let hi_pawns = select(_mm_shuffle_epi32::<0b10_10_10_10>(p));
        let v = _mm_or_si128(_mm_and_si128(lo, lo_pawns), _mm_and_si128(hi, hi_pawns));
        let v = _mm_or_si128(v, _mm_srli_si128::<8>(v));
        let v = _mm_or_si128(v, _mm_srli_si128::<4>(v));
        let v = _mm_or_si128(v, _mm_srli_si128::<2>(v));
        let v = _mm_or_si128(v, _mm_srli_si128::<1>(v));
        _mm_cvtsi128_si32(v) as Mask
    }
}

/// Bit `8x + y` set when no path y -> z -> x exists, that is when `links[y]` misses
/// `back1[x]`: the 64 pairs in four registers, byte `8x + y` pairing `back1[x]` with
/// `links[y]`.
#[inline(always)]
fn no_two_link_paths(links: u64, back1: u64) -> u64 {
    // SAFETY: SSE2 belongs to the x86_64 baseline.
    unsafe {
        let b = _mm_cvtsi64_si128(back1 as i64);
        let b = _mm_unpacklo_epi8(b, b);
        let (b03, b47) = (_mm_unpacklo_epi16(b, b), _mm_unpackhi_epi16(b, b));
        let l = _mm_cvtsi64_si128(links as i64);
        let l = _mm_unpacklo_epi64(l, l);
        let zero = _mm_setzero_si128();
        let misses =
            |a: __m128i| _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(a, l), zero)) as u32 as u64;
        misses(_mm_unpacklo_epi32(b03, b03))
            | misses(_mm_unpackhi_epi32(b03, b03)) << 16
            | misses(_mm_unpacklo_epi32(b47, b47)) << 32
            | misses(_mm_unpackhi_epi32(b47, b47)) << 48
    }
}

/// A side the tiers could not seat (1.4% of the bench's feasible states).
#[cold]
#[inline(never)]
fn project_cold(masks: &mut [Mask; PIECES_PER_SIDE]) -> bool {
    project_seated(masks)
}

/// The full closure, and the narrowing when some link has no way back.
#[cold]
#[inline(never)]
fn narrow(masks: &mut [Mask; PIECES_PER_SIDE], links: u64, back1: u64, hold: [u64; 7]) -> bool {
    // Lane a: the types from which a is reachable.
    let back = closure(back1);
    if links & !back != 0 {
        let mut ty = [7u8; PIECES_PER_SIDE];
        for (x, mut h) in hold.into_iter().enumerate() {
            while h != 0 {
                ty[h.trailing_zeros() as usize % 20] = x as u8;
                h &= h - 1;
            }
        }
        for (d, &t) in masks.iter_mut().zip(&ty) {
            *d &= (back >> (8 * t)) as Mask;
        }
    }
    true
}

/// Whether the tiers seat the side without getting stuck (for tests: both outcomes must be
/// checked against the oracle).
pub fn seats_by_tiers(masks: &[Mask; PIECES_PER_SIDE]) -> bool {
    let (lo, hi) = load(masks);
    // SAFETY: SSE2 belongs to the x86_64 baseline.
    let single = unsafe {
        let zero = _mm_setzero_si128();
        let ones = _mm_set1_epi8(-1);
        let one_type = |x: __m128i| _mm_cmpeq_epi8(_mm_and_si128(x, _mm_add_epi8(x, ones)), zero);
        top_bits(one_type(lo), one_type(hi))
    };
    masks.iter().all(|&d| d != 0) && seat(lo, hi, single).is_some()
}
