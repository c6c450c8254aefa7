//! A Go room's end, as KGS and OGS have it: two passes in a row stop the play and open a
//! scoring phase. The server proposes the dead stones (Go's `score` judgement, computed once
//! and outside the room's lock), either player toggles a group dead or alive, and when both
//! accept the same marking the game ends with one verdict: the area score with those stones
//! taken off and the komi, the same numbers the state shows. `resume` goes back to play (two
//! more passes score again). What is agreed is stored, so no finished game is judged twice.

use super::played::Played;
use super::store::{Ending, GoEndRow};
use crate::games::marking::{DeadStones, MarkingError, Reach};
use crate::protocol::StartSpec;
use crate::registry::Game;
use std::sync::atomic::{AtomicU64, Ordering};

/// End-of-game judgements run by this server (shown by `/status`): a stored end is read
/// back, never judged again.
pub static JUDGEMENTS: AtomicU64 = AtomicU64::new(0);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Play,
    /// Two passes ended play: the players mark the dead stones.
    Scoring,
    /// Both players accepted the marking.
    Agreed,
}

/// Where a game with a marking stands: scoring once its moves since the last `resume` stop
/// play (Go: two passes in a row); agreed once both players accepted (the agreed score is
/// stored).
pub fn phase(played: &Played, end: &GoEndRow) -> Phase {
    let since = played.moves.get(end.resumed..).unwrap_or(&[]);
    let stopped = rules(played).is_some_and(|r| r.play_stopped(since));
    match (stopped, &end.score) {
        (false, _) => Phase::Play,
        (true, None) => Phase::Scoring,
        (true, Some(_)) => Phase::Agreed,
    }
}

/// The game's marking rules (`None`: a game without a scoring phase).
fn rules(played: &Played) -> Option<&'static dyn DeadStones> {
    played.variant.dead_stones()
}

/// The game's position, as its view writes it (what the marking rules read).
fn position(played: &Played) -> String {
    played.game.view(&played.options).position()
}

/// `dead` with the stones `reach` takes at `point` toggled.
pub fn toggle(
    played: &Played,
    dead: &[String],
    point: &str,
    reach: Reach,
) -> Result<Vec<String>, MarkingError> {
    let rules = rules(played).ok_or(MarkingError::NoMarking)?;
    rules.toggle(&position(played), dead, point, reach)
}

/// What a toggle of the group at `point` would change after its chain's (`dead`).
pub fn spread(played: &Played, dead: &[String], point: &str) -> Vec<String> {
    rules(played)
        .and_then(|r| r.spread(&position(played), dead, point).ok())
        .unwrap_or_default()
}

/// The `score` line of a marking, as the game's `score` writes it: `score <B+n|W+n|0> komi <k>`.
pub fn score_line(played: &Played, dead: &[String]) -> Option<String> {
    rules(played)?.score_line(&position(played), dead)
}

/// The score of a `score <B+n|W+n|0> komi <k>` line: its second word.
fn score_word(score_line: &str) -> Option<&str> {
    score_line.split_whitespace().nth(1)
}

/// The agreed score, as black's lead, once both players accepted the marking.
pub fn agreed_lead(end: &GoEndRow) -> Option<f64> {
    crate::text::parse_score(score_word(end.score.as_deref()?)?)
}

/// The verdict of an agreed `score` line: `white wins` / `draw` by `area score`.
pub fn ending(score_line: &str) -> Ending {
    let score = score_word(score_line).unwrap_or("0");
    let result = match score.as_bytes().first() {
        Some(b'B') => "black wins",
        Some(b'W') => "white wins",
        _ => "draw",
    };
    Ending {
        result: result.into(),
        reason: "area score".into(),
    }
}

/// The server's proposal: the dead stones of Go's `score` judgement for the game (it searches:
/// call it without holding a lock). None when the game does not replay or has no judgement.
pub fn judge(variant: Game, start: StartSpec, moves: Vec<String>) -> Option<Vec<String>> {
    let mut played = Played::new(variant, Some(start), moves).ok()?;
    judged_dead(&mut played)
}

/// The dead stones of Go's `score` judgement of `played` (its `dead b ...` and `dead w ...`
/// lines), counted in [`JUDGEMENTS`].
fn judged_dead(played: &mut Played) -> Option<Vec<String>> {
    JUDGEMENTS.fetch_add(1, Ordering::SeqCst);
    let lines = played.score_report()?;
    Some(
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("dead "))
            .flat_map(|l| l.split_whitespace().skip(1).map(str::to_string))
            .collect(),
    )
}

/// The end of a game over by passes that no one marks (an engine page's): the judgement's dead
/// stones taken as agreed, and the verdict of their score, as the page shows it. None for a
/// game without a scoring phase or not over on the board. It searches, as [`judge`] does.
pub fn settle(played: &mut Played) -> Option<(GoEndRow, Ending)> {
    rules(played)?;
    let dead = judged_dead(played)?;
    let line = score_line(played, &dead)?;
    let verdict = ending(&line);
    let end = GoEndRow {
        resumed: 0,
        dead: Some(dead),
        accepted: [true, true],
        score: Some(line),
    };
    Some((end, verdict))
}

/// The marking's `version` in the state: a number of the marking itself (the ply of the last
/// resume, the stones marked), so that it is the same after a restart and an `accept` of the
/// marking a player saw is never taken for another one. FNV-1a, cut to 53 bits so that the
/// page's JavaScript numbers hold it exactly.
pub fn version(end: &GoEndRow) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let resumed = end.resumed.to_string();
    let dead = end.dead.as_ref().map(|d| d.join(" "));
    let text = [Some(resumed.as_str()), dead.as_deref()];
    for part in text {
        // A marker apart from the text: no marking (being judged) and an empty one differ.
        let bytes = part.map_or(&[0xff][..], str::as_bytes);
        for &b in bytes.iter().chain(&[0xfe]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash & ((1 << 53) - 1)
}

/// The `scoring` field of a room's state: null in play; else the dead stones (null while the
/// proposal is judged), the acceptances, the score they give, the komi and the territory.
pub fn state(played: &Played, end: &GoEndRow) -> (serde_json::Value, Option<Vec<String>>) {
    let Some(rules) = rules(played).filter(|_| phase(played, end) != Phase::Play) else {
        return (serde_json::Value::Null, None);
    };
    let position = position(played);
    let marked = end.dead.as_ref().and_then(|dead| {
        let line = match &end.score {
            Some(line) => line.clone(),
            None => rules.score_line(&position, dead)?,
        };
        let score = score_word(&line).map(str::to_string);
        let lines = rules.score_lines(&position, line, dead)?;
        let [b, w] = rules.territory(&position, dead)?;
        Some((score, lines, serde_json::json!({ "b": b, "w": w })))
    });
    let (score, lines, territory) = match marked {
        Some((score, lines, territory)) => (score, Some(lines), territory),
        None => (None, None, serde_json::Value::Null),
    };
    let json = serde_json::json!({
        "dead": end.dead,
        "accepted": end.accepted,
        "score": score,
        "komi": rules.komi(),
        "territory": territory,
        "version": version(end),
    });
    (json, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_after_a_resume_score_again() {
        let moves = ["E5", "pass", "pass", "D4", "pass", "pass"];
        let played = |n: usize| {
            let moves = moves[..n].iter().map(|s| s.to_string()).collect();
            Played::new(Game::Go, None, moves).unwrap()
        };
        let mut end = GoEndRow::default();
        assert_eq!(phase(&played(3), &end), Phase::Scoring);
        end.resumed = 3;
        assert_eq!(phase(&played(3), &end), Phase::Play);
        assert_eq!(phase(&played(5), &end), Phase::Play);
        assert_eq!(phase(&played(6), &end), Phase::Scoring);
        end.resumed = 5;
        assert_eq!(phase(&played(6), &end), Phase::Play);
        end.resumed = 3;
        end.score = Some("score W+7.5 komi 7.5".into());
        assert_eq!(phase(&played(6), &end), Phase::Agreed);
        assert_eq!(ending("score W+7.5 komi 7.5").result, "white wins");
        assert_eq!(ending("score 0 komi 7.5").result, "draw");
        let othello = Played::new(Game::Othello, None, Vec::new()).unwrap();
        assert_eq!(phase(&othello, &GoEndRow::default()), Phase::Play);
    }

    #[test]
    fn a_markings_version_is_its_own_and_differs_from_others() {
        let with = |resumed: usize, dead: Option<&[&str]>| GoEndRow {
            resumed,
            dead: dead.map(|d| d.iter().map(|v| v.to_string()).collect()),
            ..GoEndRow::default()
        };
        let markings = [
            with(0, None),
            with(0, Some(&[])),
            with(0, Some(&["A1"])),
            with(0, Some(&["A1", "B2"])),
            with(3, Some(&["A1"])),
            with(31, None),
        ];
        let versions: Vec<u64> = markings.iter().map(version).collect();
        for (i, v) in versions.iter().enumerate() {
            assert!(*v < 1 << 53);
            assert_eq!(*v, version(&markings[i].clone()));
            let equal = markings
                .iter()
                .zip(&versions)
                .filter(|(m, w)| *w == v && **m != markings[i]);
            assert_eq!(equal.count(), 0, "{:?}", markings[i]);
        }
        // Acceptances and the score are not the marking.
        let mut accepted = with(0, Some(&["A1"]));
        accepted.accepted = [true, false];
        assert_eq!(version(&accepted), versions[2]);
    }
}
