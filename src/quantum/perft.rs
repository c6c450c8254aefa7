//! Perft: distinct legal action sequences. The last ply is counted without playing it; every
//! counted leaf is still legality-checked (see `movegen`: consistency is `mask ∩ E ≠ ∅`).

use super::action::Action;
use super::position::{Position, Ruleset};
use crate::stop::Flag;

/// The deepest perft the engine accepts: far beyond what can finish, and far below what the
/// recursion's stack could hold.
pub const MAX_DEPTH: u32 = 30;

/// Leaf actions `depth` plies below `pos` (depth 0 = 1).
pub fn perft(pos: &Position, depth: u32, rules: &Ruleset) -> u64 {
    perft_until(pos, depth, rules, &Flag::new()).unwrap_or(0)
}

/// As [`perft`], giving up (`None`) soon after `stop` is raised.
pub fn perft_until(pos: &Position, depth: u32, rules: &Ruleset, stop: &Flag) -> Option<u64> {
    match depth {
        0 => Some(1),
        1 => Some(pos.count_legal(rules)),
        _ => {
            if stop.is_raised() {
                return None;
            }
            let mut buffer = Vec::with_capacity(256);
            pos.generate(rules, &mut buffer);
            let mut total = 0;
            for &a in &buffer {
                total += perft_until(&pos.after(a), depth - 1, rules, stop)?;
            }
            Some(total)
        }
    }
}

/// Per root action, the leaf count below it (depth ≥ 1).
pub fn divide(pos: &Position, depth: u32, rules: &Ruleset) -> Vec<(Action, u64)> {
    divide_until(pos, depth, rules, &Flag::new()).unwrap_or_default()
}

/// As [`divide`], giving up (`None`) soon after `stop` is raised.
pub fn divide_until(
    pos: &Position,
    depth: u32,
    rules: &Ruleset,
    stop: &Flag,
) -> Option<Vec<(Action, u64)>> {
    pos.legal_actions(rules)
        .into_iter()
        .map(|a| {
            Some((
                a,
                perft_until(&pos.after(a), depth.saturating_sub(1), rules, stop)?,
            ))
        })
        .collect()
}

/// Perft that plays every leaf and counts it only if the position after it is consistent:
/// the slow twin of the last-ply counting in [`perft`] (tests check they agree).
pub fn perft_by_apply(pos: &Position, depth: u32, rules: &Ruleset) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for a in pos.legal_actions(rules) {
        let mut next = pos.clone();
        if next.apply(a) {
            total += perft_by_apply(&next, depth - 1, rules);
        }
    }
    total
}
