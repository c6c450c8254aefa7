//! The obviously correct projection: a piece may be type `t` iff, with that piece pinned to `t`,
//! the other pieces can still be matched to the remaining capacities (bipartite matching, Kuhn's
//! augmenting paths over type slots). Slow; used by tests and as the benchmark's yardstick.

use super::types::{Mask, CAPACITY};

/// Tries to seat every piece of `masks` (skipping index `skip`) into `cap` slots per type.
fn can_match(masks: &[Mask], skip: usize, cap: &[u8; 8]) -> bool {
    // seat[t] lists the pieces currently seated in type t.
    let mut seat: [Vec<usize>; 8] = Default::default();
    for i in 0..masks.len() {
        if i == skip {
            continue;
        }
        let mut visited = [false; 8];
        if !augment(i, masks, cap, &mut seat, &mut visited) {
            return false;
        }
    }
    true
}

fn augment(
    i: usize,
    masks: &[Mask],
    cap: &[u8; 8],
    seat: &mut [Vec<usize>; 8],
    visited: &mut [bool; 8],
) -> bool {
    for t in 0..8 {
        if masks[i] & (1 << t) == 0 || visited[t] {
            continue;
        }
        visited[t] = true;
        if seat[t].len() < cap[t] as usize {
            seat[t].push(i);
            return true;
        }
        for k in 0..seat[t].len() {
            let j = seat[t][k];
            if augment(j, masks, cap, seat, visited) {
                seat[t][k] = i;
                return true;
            }
        }
    }
    false
}

/// Whether a complete assignment exists.
pub fn feasible(masks: &[Mask]) -> bool {
    can_match(masks, usize::MAX, &CAPACITY)
}

/// Exact sets by pinning each candidate of each piece in turn; None when infeasible.
pub fn project(masks: &[Mask]) -> Option<Vec<Mask>> {
    if !feasible(masks) {
        return None;
    }
    let mut out = vec![0; masks.len()];
    for i in 0..masks.len() {
        // Pieces with the same local set are interchangeable: reuse an earlier answer.
        if let Some(j) = (0..i).find(|&j| masks[j] == masks[i]) {
            out[i] = out[j];
            continue;
        }
        for t in 0..8 {
            if masks[i] & (1 << t) == 0 || CAPACITY[t] == 0 {
                continue;
            }
            let mut cap = CAPACITY;
            cap[t] -= 1;
            if can_match(masks, i, &cap) {
                out[i] |= 1 << t;
            }
        }
    }
    Some(out)
}
