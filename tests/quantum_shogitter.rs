//! Replays the ten Shogitter reference games: at every ply our legal action set, every piece's
//! exact candidate set and the result must equal Shogitter's. Those games predate 確定二歩禁,
//! so they are replayed with `KakuteiNifu` off, and the drops the option removes must be
//! exactly the recorded `nifu_drops`.

mod common;

use ryoshi::quantum::types::{mask_letters, square_name, Color};
use ryoshi::quantum::{origin_of, Position, Ruleset, HAND};
use serde_json::Value;
use std::collections::BTreeSet;

fn names(pos: &Position, rules: &Ruleset) -> BTreeSet<String> {
    pos.legal_actions(rules)
        .into_iter()
        .map(|a| common::shogitter::action_name(pos, a))
        .collect()
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn side_letter(s: Color) -> &'static str {
    if s == Color::Black {
        "b"
    } else {
        "w"
    }
}

/// Every piece as (at, owner, origin, promoted, mask), sorted.
fn our_pieces(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = (0..40)
        .map(|i| {
            let p = pos.piece(i);
            let at = if p.square == HAND {
                format!("hand-{}", side_letter(p.owner))
            } else {
                square_name(p.square)
            };
            format!(
                "{at} {} {} {} {}",
                side_letter(p.owner),
                side_letter(origin_of(i)),
                p.promoted,
                mask_letters(p.mask)
            )
        })
        .collect();
    v.sort();
    v
}

fn their_pieces(ply: &Value) -> Vec<String> {
    let mut v: Vec<String> = ply["pieces"]
        .as_array()
        .expect("pieces")
        .iter()
        .map(|p| {
            format!(
                "{} {} {} {} {}",
                p["at"].as_str().unwrap_or("?"),
                p["owner"].as_str().unwrap_or("?"),
                p["origin"].as_str().unwrap_or("?"),
                p["promoted"].as_bool().unwrap_or(false),
                p["mask"].as_str().unwrap_or("?")
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn replay_shogitter_games() {
    let old = Ruleset {
        kakutei_nifu: false,
    };
    let new = Ruleset { kakutei_nifu: true };
    let games = common::shogitter::games();
    assert_eq!(games.len(), 10);
    let (mut plies, mut nifu_seen) = (0, 0);
    for game in &games {
        let seed = &game["seed"];
        let mut pos = Position::start();
        for (k, ply) in game["plies"].as_array().expect("plies").iter().enumerate() {
            if let Some(text) = ply["move"].as_str() {
                let action = pos
                    .legal_actions(&old)
                    .into_iter()
                    .find(|&a| common::shogitter::action_name(&pos, a) == text)
                    .unwrap_or_else(|| panic!("game {seed} ply {k}: {text} is not legal for us"));
                assert!(pos.apply(action));
                assert_eq!(pos.key(), pos.compute_key());
            }
            let turn = ply["turn"].as_str().unwrap_or("?");
            assert_eq!(side_letter(pos.side_to_move()), turn, "game {seed} ply {k}");
            assert_eq!(
                our_pieces(&pos),
                their_pieces(ply),
                "game {seed} ply {k}: pieces differ"
            );
            let ours = names(&pos, &old);
            let theirs = strings(&ply["legal"]);
            assert_eq!(
                ours.difference(&theirs).collect::<Vec<_>>(),
                Vec::<&String>::new(),
                "game {seed} ply {k}: we allow more"
            );
            assert_eq!(
                theirs.difference(&ours).collect::<Vec<_>>(),
                Vec::<&String>::new(),
                "game {seed} ply {k}: we allow less"
            );
            // 確定二歩禁 removes exactly the recorded drops.
            let removed: BTreeSet<String> = ours.difference(&names(&pos, &new)).cloned().collect();
            assert_eq!(removed, strings(&ply["nifu_drops"]), "game {seed} ply {k}");
            nifu_seen += removed.len();
            let winner = ply["result"]["winner"].as_str();
            assert_eq!(pos.winner().map(side_letter), winner, "game {seed} ply {k}");
            plies += 1;
        }
        let result = game["result"]["winner"].as_str();
        assert_eq!(pos.winner().map(side_letter), result, "game {seed} result");
    }
    assert_eq!(plies, 1000, "every ply of the ten games is checked");
    assert!(nifu_seen > 1000, "{nifu_seen} nifu drops");
}
