//! The fast Hall projection against the matching oracle on seeded random configurations.

use ryoshi::quantum::types::{Mask, CAPACITY};
use ryoshi::quantum::{hall, oracle};
use ryoshi::rng::SplitMix64 as SplitMix;

/// The 20 true types of a side, shuffled.
fn assignment(rng: &mut SplitMix) -> Vec<usize> {
    let mut types: Vec<usize> = (0..8)
        .flat_map(|t| std::iter::repeat_n(t, CAPACITY[t] as usize))
        .collect();
    for i in (1..types.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        types.swap(i, j);
    }
    types
}

/// A random side: feasible (masks contain a hidden true assignment) or arbitrary, with extra
/// candidates at a random density so that tight sets of every size occur.
fn config(rng: &mut SplitMix) -> Vec<Mask> {
    let density = rng.below(9);
    let truth = assignment(rng);
    let planted = rng.below(2) == 0;
    truth
        .iter()
        .map(|&t| {
            let mut m: Mask = if planted { 1 << t } else { 0 };
            for k in 0..8 {
                if rng.below(8) < density {
                    m |= 1 << k;
                }
            }
            if !planted && m == 0 && rng.below(4) != 0 {
                m = 1 << rng.below(8);
            }
            m
        })
        .collect()
}

#[test]
fn fast_projection_matches_the_oracle_on_100k_configurations() {
    let mut rng = SplitMix(0x5EED_0001);
    let (mut feasible, mut infeasible, mut narrowed) = (0, 0, 0);
    for n in 0..100_000 {
        let masks = config(&mut rng);
        let fast = hall::projected(&masks);
        let slow = oracle::project(&masks);
        // The per-piece form agrees with the whole-side form.
        if let Some(tight) = hall::analyze(&masks) {
            let each: Vec<u8> = masks.iter().map(|&d| tight.exact(d)).collect();
            assert_eq!(Some(each), fast, "configuration {n}");
        }
        assert_eq!(fast, slow, "configuration {n}: {masks:?}");
        match slow {
            Some(exact) => {
                feasible += 1;
                if exact != masks {
                    narrowed += 1;
                }
            }
            None => infeasible += 1,
        }
    }
    // Both kinds occur often, and projection often removes something.
    assert!(feasible > 30_000, "feasible {feasible}");
    assert!(infeasible > 20_000, "infeasible {infeasible}");
    assert!(narrowed > 10_000, "narrowed {narrowed}");
}

#[test]
fn unrestricted_set_is_what_a_fresh_piece_would_get() {
    let mut rng = SplitMix(0x5EED_0002);
    let mut checked = 0;
    for _ in 0..20_000 {
        let mut masks = config(&mut rng);
        // One piece is never restricted; the rest is the configuration.
        masks[0] = 0xFF;
        let Some(tight) = hall::analyze(&masks) else {
            continue;
        };
        let exact = oracle::project(&masks).expect("feasible");
        assert_eq!(tight.unrestricted(), exact[0], "{masks:?}");
        checked += 1;
    }
    assert!(checked > 5_000);
}

#[test]
fn certain_pieces_use_up_capacity() {
    // Two certain golds: no other piece can be a gold; one certain king likewise.
    let mut masks = vec![0xFFu8; 20];
    masks[0] = 1 << 3;
    masks[1] = 1 << 3;
    masks[2] = 1 << 0;
    let exact = hall::projected(&masks).expect("feasible");
    assert_eq!(exact[5], !(1 << 3) & !1);
    // A third certain gold is infeasible.
    masks[3] = 1 << 3;
    assert_eq!(hall::projected(&masks), None);
    assert!(!oracle::feasible(&masks));
}
