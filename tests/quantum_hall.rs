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

/// Projects `masks` every way there is and checks they agree: the seated projection (what the
/// engine runs) against the all-subsets one it replaced and against the matching oracle, both as
/// the projected sets and as the least tight sets. Returns the projection.
fn check_all_agree(masks: &[Mask; 20], what: &str) -> Option<[Mask; 20]> {
    let mut fast = *masks;
    let fast_ok = hall::project(&mut fast);
    let mut old = *masks;
    let old_ok = hall::project_by_subsets(&mut old);
    assert_eq!((fast_ok, fast), (old_ok, old), "{what}: {masks:?}");
    assert_eq!(
        hall::analyze(masks),
        hall::analyze_by_subsets(masks),
        "{what}: {masks:?}"
    );
    let slow = oracle::project(masks);
    assert_eq!(fast_ok.then_some(fast.to_vec()), slow, "{what}: {masks:?}");
    fast_ok.then_some(fast)
}

#[test]
fn seated_projection_is_the_subset_projection_on_random_states() {
    let mut rng = SplitMix(0x5EED_0003);
    for n in 0..30_000 {
        let masks: [Mask; 20] = config(&mut rng).try_into().expect("20 pieces");
        check_all_agree(&masks, &format!("configuration {n}"));
    }
}

#[test]
fn seated_projection_is_the_subset_projection_along_narrowings() {
    // As in a game: an exact side, then one piece narrowed at a time (sometimes to nothing,
    // sometimes only losing K as a captured piece does), projected after each.
    let mut rng = SplitMix(0x5EED_0004);
    let (mut steps, mut changed, mut infeasible) = (0, 0, 0);
    for game in 0..2_000 {
        let Some(mut side) = check_all_agree(&[0xFF; 20], "start") else {
            unreachable!("the full side is feasible")
        };
        if game % 2 == 1 {
            // Start from a random exact side instead.
            let masks: [Mask; 20] = config(&mut rng).try_into().expect("20 pieces");
            match check_all_agree(&masks, "random start") {
                Some(exact) => side = exact,
                None => continue,
            }
        }
        loop {
            let k = rng.index(20);
            let mut next = side;
            next[k] &= match rng.below(4) {
                0 => !1,
                1 => 1 << rng.below(8),
                _ => rng.next() as u8 | rng.next() as u8,
            };
            steps += 1;
            match check_all_agree(&next, &format!("game {game} step {steps}")) {
                Some(exact) => {
                    changed += (exact != next) as usize;
                    side = exact;
                }
                None => {
                    infeasible += 1;
                    break;
                }
            }
            if side.iter().all(|m| m.count_ones() == 1) {
                break;
            }
        }
    }
    assert!(steps > 20_000, "{steps} steps");
    assert!(changed > 1_000, "{changed} narrowed by the projection");
    assert!(infeasible > 500, "{infeasible} infeasible");
}

#[test]
fn seated_projection_edge_cases() {
    let full = [0xFFu8; 20];
    // Every piece determined: the side is one complete assignment (any order of it).
    let mut rng = SplitMix(0x5EED_0005);
    for _ in 0..200 {
        let masks: Vec<Mask> = assignment(&mut rng).iter().map(|&t| 1 << t).collect();
        let masks: [Mask; 20] = masks.try_into().expect("20 pieces");
        assert_eq!(check_all_agree(&masks, "determined"), Some(masks));
        // One piece loosened again is pinned back by the others.
        let mut loose = masks;
        loose[rng.index(20)] = 0xFF;
        assert_eq!(check_all_agree(&loose, "one loose"), Some(masks));
    }
    let mut cases: Vec<[Mask; 20]> = vec![full];
    // An empty set; nine, ten and eight pieces that may be P; three certain golds.
    let mut empty = full;
    empty[7] = 0;
    cases.push(empty);
    for pawns in [8, 9, 10] {
        let mut m = [0x7Fu8; 20];
        m[..pawns].fill(0xFF);
        cases.push(m);
        let mut m = [0x7Fu8; 20];
        m[20 - pawns..].fill(0x80);
        cases.push(m);
    }
    let mut golds = full;
    golds[..3].fill(1 << 3);
    cases.push(golds);
    // Certain pieces placed after the flexible ones, which take their types first when
    // seated in order; and a chain of two-type sets.
    let mut late = full;
    late[15..].copy_from_slice(&[1, 2, 4, 8, 8]);
    cases.push(late);
    let mut chain = full;
    for (k, m) in chain.iter_mut().take(7).enumerate() {
        *m = 3 << k;
    }
    cases.push(chain);
    for (n, masks) in cases.iter().enumerate() {
        check_all_agree(masks, &format!("edge case {n}"));
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn seating_by_tiers_agrees_with_the_oracle_whether_or_not_it_gets_stuck() {
    // The bench's kind of states (random games, one piece freshly narrowed) and random sides.
    // On x86_64 `project` seats the scarce types from per-type piece sets and falls back to
    // seating one by one when that gets stuck: both ways, and the closure after either, are
    // compared with the subset count, the matching oracle and the one-by-one projection.
    let mut rng = SplitMix(0x5EED_0006);
    let mut states = ryoshi::quantum::bench::hall::sample_states(6_000, 0x5EED_0007);
    for _ in 0..20_000 {
        states.push(config(&mut rng).try_into().expect("20 pieces"));
    }
    let (mut seated, mut stuck, mut narrowed, mut infeasible) = (0, 0, 0, 0);
    for (n, masks) in states.iter().enumerate() {
        let exact = check_all_agree(masks, &format!("state {n}"));
        let mut one_by_one = *masks;
        let ok = hall::project_one_by_one(&mut one_by_one);
        assert_eq!(exact, ok.then_some(one_by_one), "state {n}: {masks:?}");
        match exact {
            None => infeasible += 1,
            Some(exact) => {
                if hall::seats_by_tiers(masks) {
                    seated += 1;
                    narrowed += (exact != *masks) as usize;
                } else {
                    stuck += 1;
                }
            }
        }
    }
    // 18,504, 1,486, 1,703 and 6,010 when written.
    assert!(seated > 10_000, "{seated} seated by tiers");
    assert!(stuck > 500, "{stuck} stuck");
    assert!(
        narrowed > 1_000,
        "{narrowed} narrowed after seating by tiers"
    );
    assert!(infeasible > 3_000, "{infeasible} infeasible");
}
