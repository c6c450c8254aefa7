//! Perft from the start, fast and reference implementations.

use ryoshi::games::quantum::{perft, reference, Position, Rules};

#[test]
fn perft_start_depth_1_and_2() {
    let pos = Position::start();
    let rules = Rules::default();
    assert_eq!(perft::perft(&pos, 1, &rules), 177);
    assert_eq!(perft::perft(&pos, 2, &rules), 30_992);
}

#[test]
fn perft_start_depth_3_fast() {
    let pos = Position::start();
    assert_eq!(perft::perft(&pos, 3, &Rules::default()), 5_376_638);
}

#[test]
fn perft_start_reference_depth_1_and_2() {
    let pos = Position::start();
    let rules = Rules::default();
    assert_eq!(reference::perft(&pos, 1, &rules), 177);
    assert_eq!(reference::perft(&pos, 2, &rules), 30_992);
}

/// Depth 3 by the slow reference (per-type generation, matching-oracle projections, its own
/// apply): an implementation independent of movegen, hall and Position::apply.
#[test]
fn perft_start_reference_depth_3() {
    let pos = Position::start();
    assert_eq!(reference::perft(&pos, 3, &Rules::default()), 5_376_638);
}
