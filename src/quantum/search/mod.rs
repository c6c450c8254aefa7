//! Quantum shogi players: the real search (alpha-beta over [`QGame`] with [`eval`]), and the two
//! baselines Shogitter offers, `possibilityist` (depth-2 minimax on legal action counts) and
//! `random` (a seeded uniform choice).

pub mod eval;
pub mod job;
pub(crate) mod mate;
mod qgame;

pub use qgame::QGame;

use crate::quantum::types::Color;
use crate::quantum::{Action, Position, Ruleset};
use crate::rng::splitmix;
use crate::search::{Control, Info, Outcome, Report, Searcher};

/// `random`: a uniformly random legal action; the generator is seeded from `seed` and the
/// position, so the same position and seed always give the same choice.
pub fn random_action(pos: &Position, rules: &Ruleset, seed: u64) -> Option<Action> {
    let moves = pos.legal_actions(rules);
    if moves.is_empty() {
        return None;
    }
    let mut state = seed ^ pos.key();
    Some(moves[(splitmix(&mut state) % moves.len() as u64) as usize])
}

/// `possibilityist`: depth-2 minimax; a leaf is worth (its own legal actions) minus (the
/// opponent's), from the mover's side. Capturing the king wins; allowing it loses. Ties go to
/// the first action in generation order. Returns the action and its value.
pub fn possibilityist(pos: &Position, rules: &Ruleset) -> Option<(Action, i64)> {
    let me = pos.side_to_move();
    let moves = pos.legal_actions(rules);
    let mut best: Option<(Action, i64)> = None;
    let mut replies = Vec::with_capacity(512);
    for &a in &moves {
        let child = pos.after(a);
        if child.winner() == Some(me) {
            return Some((a, i64::MAX));
        }
        replies.clear();
        child.generate(rules, &mut replies);
        let mut worst = i64::MAX; // no reply: the opponent has lost
        for &b in &replies {
            let grand = child.after(b);
            let value = if grand.winner().is_some() {
                i64::MIN
            } else {
                grand.count_legal(rules) as i64 - count_for(&grand, me.opponent(), rules) as i64
            };
            worst = worst.min(value);
            if best.is_some_and(|(_, v)| worst <= v) {
                break; // cannot beat the best so far
            }
        }
        if best.is_none_or(|(_, v)| worst > v) {
            best = Some((a, worst));
        }
    }
    best
}

fn count_for(pos: &Position, side: Color, rules: &Ruleset) -> u64 {
    let mut turned = pos.clone();
    if turned.side_to_move() != side {
        turned.pass();
    }
    turned.count_legal(rules)
}

/// The `bench` positions: seeded random walks from the start, 12 to 68 plies long (fixed
/// forever: the node count of `bench` is the search's signature). The start position itself is
/// left out: at a depth where pruning acts its tree alone would cost ten times the rest.
pub fn bench_positions(rules: &Ruleset) -> Vec<Position> {
    let mut positions = Vec::new();
    let mut state = 0x000B_E4C4_u64;
    for walk in 0..8 {
        let mut pos = Position::start();
        for _ in 0..(12 + walk * 8) {
            let moves = pos.legal_actions(rules);
            if moves.is_empty() || pos.winner().is_some() {
                break;
            }
            let a = moves[(splitmix(&mut state) % moves.len() as u64) as usize];
            let next = pos.after(a);
            if next.winner().is_some() {
                break;
            }
            pos = next;
        }
        positions.push(pos);
    }
    positions
}

/// Depth of every `bench` search: null-move pruning acts from depth 3 below the root and
/// late-move reductions at depth 3 and more, so both shape the signature from 4; at 4 the history
/// table never reorders a move the signature sees, at 5 it does.
pub const BENCH_DEPTH: u32 = 5;

/// The final report of a baseline player, in the same shape as the search's.
fn baseline_outcome(
    pos: &Position,
    action: Option<Action>,
    score: i32,
    control: &Control,
) -> Outcome {
    let best = action.map(|a| pos.action_name(a));
    let info = Info {
        depth: 1,
        seldepth: 1,
        score,
        nodes: 1,
        time_ms: control.elapsed_ms(),
        pv: best.iter().cloned().collect(),
        multipv: None,
        hashfull: None,
    };
    Outcome {
        info,
        best,
        ponder: None,
    }
}

/// The player behind `go`, chosen by the `Strategy` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    Search,
    Possibilityist,
    Random { seed: u64 },
}

/// Plays one `go`: `keys` are the game's earlier positions (oldest first) for repetition.
pub fn think(
    player: Player,
    game: &QGame,
    keys: &[u64],
    searcher: &mut Searcher<QGame>,
    control: &Control,
    report: &mut dyn FnMut(Report),
) -> Outcome {
    match player {
        Player::Search => {
            let depth = control.depth_limit().unwrap_or(u32::MAX);
            searcher.run(game, keys, control, depth, report)
        }
        Player::Possibilityist => {
            let found = possibilityist(&game.pos, &game.rules);
            let score = found.map_or(-30_000, |(_, v)| v.clamp(-29_000, 29_000) as i32);
            baseline_outcome(&game.pos, found.map(|(a, _)| a), score, control)
        }
        Player::Random { seed } => {
            let a = random_action(&game.pos, &game.rules, seed);
            baseline_outcome(&game.pos, a, 0, control)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantum::qsfen;
    use crate::rng::SplitMix64;
    use crate::search::game::WIN_BOUND;
    use crate::search::Limits;
    use crate::search::SearchGame;

    fn search(qsfen_text: &str, depth: u32) -> Outcome {
        let pos = qsfen::read(qsfen_text).unwrap();
        let mut searcher = Searcher::<QGame>::new(1);
        let control = Control::new(
            Limits {
                depth: Some(depth),
                ..Default::default()
            },
            0,
        );
        searcher.run(
            &QGame::new(pos, Ruleset::default()),
            &[],
            &control,
            depth,
            &mut |_| {},
        )
    }

    /// Quiescence stops `QUIESCE_DEPTH` plies below the horizon, and captures do take it there.
    #[test]
    fn quiescence_goes_its_depth_and_no_deeper() {
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(55);
        let mut pos = Position::start();
        let mut deepest = 0;
        for ply in 0..80 {
            let moves = pos.legal_actions(&rules);
            if moves.is_empty() || pos.winner().is_some() {
                break;
            }
            if ply >= 10 && ply % 5 == 0 {
                let outcome = search(&qsfen::write(&pos), 2);
                assert!(
                    outcome.info.seldepth <= 2 + QGame::QUIESCE_DEPTH,
                    "{outcome:?}"
                );
                deepest = deepest.max(outcome.info.seldepth);
            }
            assert!(pos.apply(moves[rng.index(moves.len())]));
        }
        assert_eq!(deepest, 2 + QGame::QUIESCE_DEPTH);
    }

    /// The search's staged path takes the captures from `generate_tactical` and the rest from
    /// `generate`: the former must be exactly the tactical moves of the latter, in its order,
    /// whether or not the reach was already computed, and after a null move too.
    #[test]
    fn tactical_moves_are_the_captures_of_the_full_list_in_order() {
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(60);
        let mut found = 0;
        for _ in 0..40 {
            let mut pos = Position::start();
            for ply in 0..120 {
                let moves = pos.legal_actions(&rules);
                if moves.is_empty() || pos.winner().is_some() {
                    break;
                }
                for (pass, evaluated) in [(false, false), (false, true), (true, false)] {
                    let mut game = QGame::new(pos.clone(), rules);
                    if pass {
                        game.play_null();
                    }
                    if evaluated {
                        game.evaluate();
                    }
                    let mut all = Vec::new();
                    game.generate(&mut all);
                    all.retain(|&m| game.is_tactical(m));
                    let mut tactical = Vec::new();
                    assert!(game.generate_tactical(&mut tactical));
                    assert_eq!(tactical, all, "ply {ply}, pass {pass}");
                    found += tactical.len();
                }
                assert!(pos.apply(moves[rng.index(moves.len())]));
            }
        }
        assert!(found > 5000, "{found}");
    }

    /// Sente's rook stands next to gote's certain king.
    const KING_EN_PRISE: &str = "4k4/4R4/9/9/9/9/9/9/4K4 b 18Q19q 1";

    #[test]
    fn every_player_captures_a_king_en_prise() {
        let outcome = search(KING_EN_PRISE, 3);
        assert_eq!(outcome.best.as_deref(), Some("5b5a"));
        assert!(outcome.info.score > WIN_BOUND, "{:?}", outcome.info);
        let pos = qsfen::read(KING_EN_PRISE).unwrap();
        let (a, _) = possibilityist(&pos, &Ruleset::default()).unwrap();
        assert_eq!(pos.action_name(a), "5b5a");
    }

    #[test]
    fn the_search_and_possibilityist_save_their_own_king() {
        // Gote's rook attacks sente's certain king; sente to move.
        let text = "4k4/9/9/9/9/9/9/4r4/4K4 b 19Q18q 1";
        let pos = qsfen::read(text).unwrap();
        let rules = Ruleset::default();
        let safe = |name: &str| {
            let a = pos.parse_action(name, &rules).unwrap();
            let next = pos.after(a);
            next.legal_actions(&rules)
                .iter()
                .all(|&b| next.after(b).winner().is_none())
        };
        let outcome = search(text, 3);
        assert!(safe(outcome.best.as_deref().unwrap()), "{:?}", outcome);
        let (a, _) = possibilityist(&pos, &rules).unwrap();
        assert!(safe(&pos.action_name(a)));
    }

    #[test]
    fn random_is_seeded_and_legal() {
        let rules = Ruleset::default();
        let pos = Position::start();
        let picks: Vec<Action> = (0..64)
            .filter_map(|seed| random_action(&pos, &rules, seed))
            .collect();
        assert_eq!(picks.len(), 64);
        assert!(picks.iter().all(|&a| pos.is_legal(a, &rules)));
        assert_eq!(
            random_action(&pos, &rules, 7),
            random_action(&pos, &rules, 7)
        );
        let distinct: std::collections::BTreeSet<_> = picks.iter().collect();
        assert!(
            distinct.len() > 32,
            "64 seeds gave only {} actions",
            distinct.len()
        );
    }

    #[test]
    fn codes_and_history_indices_are_distinct_and_in_range() {
        let rules = Ruleset::default();
        let pos = qsfen::read("4k4/9/9/9/9/9/4P4/9/4K4 b P17Q19q 1").unwrap();
        let moves = pos.legal_actions(&rules);
        let codes: std::collections::BTreeSet<u32> =
            moves.iter().map(|&m| QGame::code(m)).collect();
        assert_eq!(codes.len(), moves.len());
        assert!(moves
            .iter()
            .all(|&m| QGame::history_index(m) < QGame::HISTORY_SIZE));
    }

    /// Seeded random games: wherever the side not to move could capture the king at once, the
    /// side to move is `in_check` (so the search never cuts such a node on its evaluation), and
    /// `may_check` lets through every quiet move that attacks the opponent's king (where it was
    /// not attacked before). A quiet move can leave a king capture behind without
    /// `may_give_check` only by narrowing a captured piece of the opponent's origin until its
    /// king is certain: rare, and counted.
    #[test]
    fn in_check_covers_every_king_capture_threat_on_random_games() {
        let rules = Ruleset::default();
        let mut rng = SplitMix64::new(20);
        let (mut positions, mut threats, mut checks) = (0usize, 0usize, 0usize);
        let (mut unflagged_quiets, mut missed, mut attacks) = (0usize, 0usize, 0usize);
        let mut moves = Vec::new();
        for _ in 0..30 {
            let mut pos = Position::start();
            for _ in 0..320 {
                moves.clear();
                pos.generate(&rules, &mut moves);
                if pos.winner().is_some() || moves.is_empty() {
                    break;
                }
                let game = QGame::new(pos.clone(), rules);
                let us = pos.side_to_move();
                positions += 1;
                checks += game.in_check() as usize;
                if mate::king_capture(&pos, us.opponent()).is_some() {
                    threats += 1;
                    assert!(game.in_check(), "{}", qsfen::write(&pos));
                }
                let quiets = moves.iter().filter(|&&mv| !game.is_tactical(mv));
                if !game.may_give_check() {
                    for &mv in quiets {
                        unflagged_quiets += 1;
                        missed += mate::king_capture(&pos.after(mv), us).is_some() as usize;
                    }
                } else if mate::king_capture(&pos, us).is_none() {
                    // The cheap test lets every quiet move through that attacks the king.
                    for &mv in quiets {
                        let mut child = game.clone();
                        child.play(mv);
                        if child.in_check() {
                            attacks += 1;
                            assert!(game.may_check(mv), "{} {mv:?}", qsfen::write(&pos));
                        }
                    }
                }
                assert!(pos.apply(moves[rng.index(moves.len())]));
            }
        }
        eprintln!(
            "{positions} positions: {threats} threats, {checks} in check, {attacks} quiet attacks; \
             {missed} of {unflagged_quiets} quiet moves threaten without may_give_check"
        );
        assert!(threats >= 200, "too few threats to test: {threats}");
        assert!(attacks >= 200, "too few quiet attacks to test: {attacks}");
        assert!(
            missed * 100 <= unflagged_quiets,
            "{missed} of {unflagged_quiets}"
        );
    }
}
