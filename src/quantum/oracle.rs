//! The obviously correct projection: a piece may be type `t` iff, with that piece pinned to `t`,
//! the other pieces can still be matched to the remaining capacities (bipartite matching, Kuhn's
//! augmenting paths over type slots). Slow; used by tests and as the benchmark's yardstick.

use super::types::{Mask, CAPACITY};

/// Tries to seat every piece of `masks` (skipping index `skip`) into `cap` slots per type;
/// on success returns the seating, as (type, pieces) lists.
fn can_match(masks: &[Mask], skip: usize, cap: &[u8; 8]) -> Option<Seats> {
    // seat[t] lists the pieces currently seated in type t (at most 9: the largest capacity).
    let mut seat = Seats::default();
    for i in 0..masks.len() {
        if i == skip {
            continue;
        }
        let mut visited = [false; 8];
        if !augment(i, masks, cap, &mut seat, &mut visited) {
            return None;
        }
    }
    Some(seat)
}

#[derive(Default)]
struct Seats {
    who: [[usize; 9]; 8],
    len: [usize; 8],
}

/// Kuhn's augmenting path from piece `i` through the types not yet visited.
fn augment(
    i: usize,
    masks: &[Mask],
    cap: &[u8; 8],
    seat: &mut Seats,
    visited: &mut [bool; 8],
) -> bool {
    for t in 0..8 {
        if masks[i] & (1 << t) == 0 || visited[t] {
            continue;
        }
        visited[t] = true;
        if seat.len[t] < cap[t] as usize {
            seat.who[t][seat.len[t]] = i;
            seat.len[t] += 1;
            return true;
        }
        for k in 0..seat.len[t] {
            let j = seat.who[t][k];
            if augment(j, masks, cap, seat, visited) {
                seat.who[t][k] = i;
                return true;
            }
        }
    }
    false
}

/// Whether a complete assignment exists.
pub fn feasible(masks: &[Mask]) -> bool {
    can_match(masks, usize::MAX, &CAPACITY).is_some()
}

/// Exact sets by pinning each candidate of each piece in turn; None when infeasible.
pub fn project(masks: &[Mask]) -> Option<Vec<Mask>> {
    // Every complete assignment found is a witness: each piece can be the type it got there.
    let mut out = vec![0; masks.len()];
    let witness = |seat: &Seats, pinned: Option<(usize, usize)>, out: &mut Vec<Mask>| {
        for t in 0..8 {
            for &j in &seat.who[t][..seat.len[t]] {
                out[j] |= 1 << t;
            }
        }
        if let Some((i, t)) = pinned {
            out[i] |= 1 << t;
        }
    };
    let first = can_match(masks, usize::MAX, &CAPACITY)?;
    witness(&first, None, &mut out);
    for i in 0..masks.len() {
        // Pieces with the same local set are interchangeable: reuse an earlier answer.
        if let Some(j) = (0..i).find(|&j| masks[j] == masks[i]) {
            out[i] = out[j];
            continue;
        }
        for t in 0..8 {
            if masks[i] & (1 << t) == 0 || out[i] & (1 << t) != 0 {
                continue;
            }
            // Pin piece i to type t: one slot of t fewer for the others.
            let mut cap = CAPACITY;
            cap[t] -= 1;
            if let Some(seat) = can_match(masks, i, &cap) {
                witness(&seat, Some((i, t)), &mut out);
            }
        }
    }
    Some(out)
}
