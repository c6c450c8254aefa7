//! The "your king is in check" warning of the browser pages (`d`'s line `king attacked:`, the
//! rooms' `warnings`): the squares where the opponent, were it to move, could capture the
//! side to move's king. Checked against the slow reference move generator and referee over
//! seeded random games, and in set-up positions through the real binary.

mod common;

use common::transcript;
use ryoshi::quantum::{reference, Action, Position, Ruleset};
use ryoshi::rng::SplitMix64 as SplitMix;

/// The oracle: the opponent's reference-legal captures (with the move handed over) that the
/// reference referee scores as a king capture.
fn oracle(pos: &Position, rules: &Ruleset) -> Vec<u8> {
    if pos.winner().is_some() {
        return Vec::new();
    }
    let mut them = pos.clone();
    them.pass();
    let winner = Some(them.side_to_move());
    let mut out: Vec<u8> = reference::legal_actions(&them, rules)
        .into_iter()
        .filter_map(|a| match a {
            Action::Move { to, .. } if pos.piece_at(to).is_some() => {
                let after = reference::apply(&them, a, rules).expect("legal");
                (after.winner() == winner).then_some(to)
            }
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn agrees_with_the_reference_generator_over_random_games() {
    let rules = Ruleset::default();
    let mut rng = SplitMix::new(2026);
    let (mut checked, mut warned) = (0, 0);
    for _ in 0..40 {
        let mut pos = Position::start();
        for _ in 0..120 {
            let fast = pos.king_capture_threats();
            assert_eq!(
                fast,
                oracle(&pos, &rules),
                "{}",
                ryoshi::quantum::qsfen::write(&pos)
            );
            checked += 1;
            warned += usize::from(!fast.is_empty());
            let actions = pos.legal_actions(&rules);
            if actions.is_empty() || pos.winner().is_some() {
                break;
            }
            pos = pos.after(actions[rng.index(actions.len())]);
        }
    }
    // The random games reach positions with and without a warning.
    assert!(warned > 0 && warned < checked, "{warned} of {checked}");
    println!("{warned} warnings in {checked} positions");
}

fn warning(position: &str) -> Option<String> {
    let out = transcript(format!("position sfen {position}\nd\nquit\n").as_bytes());
    assert!(!out.contains("info string error"), "{out}");
    out.lines()
        .find_map(|l| l.strip_prefix("king attacked: "))
        .map(str::to_string)
}

#[test]
fn d_names_the_squares_where_the_king_can_be_taken() {
    // A certain king next to the opponent's rook.
    assert_eq!(
        warning("4k4/9/9/9/9/9/9/4r4/4K4 b 19Q18q 1").as_deref(),
        Some("5i")
    );
    // The rook on 1h does not reach it.
    assert_eq!(warning("4k4/9/9/9/9/9/9/8r/4K4 b 19Q18q 1"), None);
    // Two pieces, one of them the king: taking 5i would only take K away from it.
    assert_eq!(warning("4k4/9/9/9/9/9/9/4r4/3QQ4 b 18Q18q 1"), None);
    // Nothing at the start, although the front pieces may be kings and gote's may be rooks.
    let out = transcript(b"position startpos\nd\nquit\n");
    assert!(!out.contains("king attacked"), "{out}");
}
