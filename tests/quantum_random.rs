//! Seeded random games with many captures and drops. After every action: the fast legal set
//! equals the reference generator's; the fast incremental position equals the reference
//! (matching-oracle) position; the key equals a from-scratch key; a rebuild from the raw pieces
//! and a QSFEN round trip give the same state.

use ryoshi::quantum::types::{Color, PIECES_PER_SIDE};
use ryoshi::quantum::{oracle, qsfen, reference, Action, Position, Ruleset, HAND};
use ryoshi::rng::SplitMix64 as SplitMix;

/// Prefers captures, then drops, so hands fill and empty often.
fn pick(pos: &Position, actions: &[Action], rng: &mut SplitMix) -> Action {
    let captures: Vec<Action> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Move { to, .. } if pos.piece_at(*to).is_some()))
        .collect();
    let drops: Vec<Action> = actions
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Drop { .. }))
        .collect();
    if !captures.is_empty() && rng.index(2) == 0 {
        captures[rng.index(captures.len())]
    } else if !drops.is_empty() && rng.index(2) == 0 {
        drops[rng.index(drops.len())]
    } else {
        actions[rng.index(actions.len())]
    }
}

fn check_state(pos: &Position, context: &str) {
    assert_eq!(pos.key(), pos.compute_key(), "{context}: key");
    // Rebuilding from the raw pieces re-projects both sides: exact sets are a fixed point.
    let rebuilt = Position::from_pieces(*pos.pieces(), pos.side_to_move(), pos.move_number())
        .expect("consistent");
    assert_eq!(rebuilt.pieces(), pos.pieces(), "{context}: rebuild");
    assert_eq!(rebuilt.key(), pos.key(), "{context}: rebuilt key");
    for origin in Color::BOTH {
        let base = origin.index() * PIECES_PER_SIDE;
        let masks: Vec<u8> = (0..PIECES_PER_SIDE)
            .map(|k| pos.piece(base + k).mask)
            .collect();
        assert_eq!(oracle::project(&masks), Some(masks.clone()), "{context}");
    }
    if pos.winner().is_none() {
        // QSFEN round trip: same state, same key, and writing is stable.
        let text = qsfen::write(pos);
        let back = qsfen::read(&text).unwrap_or_else(|e| panic!("{context}: {text}: {e}"));
        assert_eq!(qsfen::write(&back), text, "{context}");
        assert_eq!(back.key(), pos.key(), "{context}: {text}");
    }
}

#[test]
fn random_games_fast_equals_reference() {
    let mut rng = SplitMix(0xC0FF_EE00);
    let (mut captures, mut drops, mut plies, mut wins) = (0, 0, 0, 0);
    let mut with_hands = 0;
    for game in 0..60 {
        let rules = Ruleset {
            kakutei_nifu: game % 2 == 0,
        };
        let mut pos = Position::start();
        for ply in 0..160 {
            let context = format!("game {game} ply {ply} {}", qsfen::write(&pos));
            let mut fast = pos.legal_actions(&rules);
            fast.sort();
            let slow = reference::legal_actions(&pos, &rules);
            assert_eq!(fast, slow, "{context}: legal actions");
            assert_eq!(pos.count_legal(&rules), fast.len() as u64);
            if fast.is_empty() {
                break;
            }
            let action = pick(&pos, &fast, &mut rng);
            match action {
                Action::Drop { .. } => drops += 1,
                Action::Move { to, .. } if pos.piece_at(to).is_some() => captures += 1,
                _ => {}
            }
            let expected = reference::apply(&pos, action, &rules).expect("legal");
            let name = pos.action_name(action);
            assert_eq!(
                pos.parse_action(&name, &rules),
                Ok(action),
                "{context}: {name}"
            );
            assert!(pos.apply(action));
            let context = format!("{context} after {name}");
            assert_eq!(pos.pieces(), expected.pieces(), "{context}");
            assert_eq!(pos.side_to_move(), expected.side_to_move());
            assert_eq!(pos.winner(), expected.winner(), "{context}");
            assert_eq!(pos.key(), expected.key(), "{context}");
            check_state(&pos, &context);
            let in_hand = pos.pieces().iter().filter(|p| p.square == HAND).count();
            if in_hand >= 4 {
                with_hands += 1;
            }
            // The captures-only generator is the captures of the full list, in the same order
            // (quiescence's stable sort keeps that order among equal hints).
            let mut caps = Vec::new();
            pos.generate_captures(&mut caps);
            let expected: Vec<Action> = pos
                .legal_actions(&rules)
                .into_iter()
                .filter(|a| matches!(a, Action::Move { to, .. } if pos.piece_at(*to).is_some()))
                .collect();
            assert_eq!(caps, expected, "{context}: captures");
            plies += 1;
            if pos.winner().is_some() {
                wins += 1;
                break;
            }
        }
    }
    eprintln!("{plies} plies, {captures} captures, {drops} drops, {wins} king captures");
    assert!(plies > 4000, "{plies} plies");
    assert!(captures > 1500, "{captures} captures");
    assert!(drops > 1000, "{drops} drops");
    assert!(wins > 20, "{wins} king captures");
    // The oracle comparisons above covered many positions with pieces in hand.
    assert!(
        with_hands > 2000,
        "{with_hands} positions with 4+ pieces in hand"
    );
}
