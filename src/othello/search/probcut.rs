//! Multi-ProbCut (Buro, 1997) for the midgame search: at a null-window node of depth `d`, a
//! search of depth `shallow(d)` predicts the deep score as `a·shallow + b` with residual
//! deviation `sigma`; when the prediction is beyond beta (below alpha) by `T` deviations, the
//! node is cut without the deep search. The regressions below were fitted by
//! `ryoshi tune othello probcut` (src/othello/tune.rs) on positions of the self-play data, with
//! exact fixed-depth scores of the pattern evaluation (no pruning) at every depth.

use crate::search::game::ProbCut;

/// Cut at this many deviations (Edax's selectivity levels run from 1.1 to 3.3).
pub const T: f32 = 1.5;

/// Below this depth no ProbCut (the shallow search would be a static evaluation).
pub const MIN_DEPTH: i32 = 3;

/// The shallow depth for a deep one, of the same parity (Othello's scores swing by the side to
/// move at the horizon), as in Edax: 2·⌊d/4⌋ + (d mod 2).
pub fn shallow(depth: i32) -> i32 {
    (2 * (depth / 4) + (depth & 1)).max(1)
}

/// (a, b, sigma) by deep depth from `MIN_DEPTH`, in centi-discs; deeper depths use the last row
/// (whose depth gap, 6, is theirs up to depth 13). Printed by
///
/// ```text
/// ryoshi tune othello probcut r1-1.txt --positions 300 --max-depth 10 --min-empties 20 --seed 1
/// ```
///
/// on round 1's positions (`r1-1.txt`, docs/testing-changes.md), searched with the weights of
/// 5795068 (the first fit): 300 positions of at least 20 empties.
pub const TABLE: &[(f32, f32, f32)] = &[
    (0.952, -10.5, 392.7), // depth 3 from 1
    (0.967, -30.1, 365.5), // depth 4 from 2
    (1.001, 18.9, 286.5),  // depth 5 from 3
    (0.975, -38.5, 442.6), // depth 6 from 2
    (1.022, 2.5, 373.7),   // depth 7 from 3
    (1.004, -2.0, 349.6),  // depth 8 from 4
    (1.032, -12.6, 314.4), // depth 9 from 5
    (1.037, 13.7, 407.1),  // depth 10 from 4
];

/// The ProbCut of a null-window node `depth` plies above the horizon.
pub fn at(depth: i32) -> Option<ProbCut> {
    if depth < MIN_DEPTH || TABLE.is_empty() {
        return None;
    }
    let i = ((depth - MIN_DEPTH) as usize).min(TABLE.len() - 1);
    let (a, b, sigma) = TABLE[i];
    Some(ProbCut {
        shallow: shallow(depth),
        a,
        b,
        sigma,
        t: T,
    })
}
