//! A room's end agreement, for a game that provides one (`games::end`): once the game's moves
//! since the last `resume` stop play, the room is in the agreement phase. The server proposes
//! (the game's judgement, computed once and outside the room's lock), either player changes
//! the proposal, and when both accept the same one the game ends with one verdict, the game's.
//! `resume` goes back to play. What is agreed is stored, so no finished game is judged twice.
//! The proposal and the verdict are the game's texts: the server keeps them, never reads them.

use super::played::Played;
use super::store::Ending;
use crate::games::end::EndAgreement;
use crate::protocol::StartSpec;
use crate::registry::Game;
use std::sync::atomic::{AtomicU64, Ordering};

/// Judgements run by this server for each game of [`Game::ALL`] (shown by `/status`): a
/// stored end is read back, never judged again.
static JUDGEMENTS: [AtomicU64; Game::ALL.len()] = [const { AtomicU64::new(0) }; Game::ALL.len()];

/// The `/status` counters of judgements, `<game>_judgements`, for each game with an agreement.
pub fn judgements() -> Vec<(String, u64)> {
    Game::ALL
        .iter()
        .zip(&JUDGEMENTS)
        .filter(|(game, _)| game.end_agreement().is_some())
        .map(|(game, n)| {
            (
                format!("{}_judgements", game.as_str()),
                n.load(Ordering::SeqCst),
            )
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Play,
    /// Play stopped: the players agree on the proposal.
    Agreeing,
    /// Both players accepted the proposal.
    Agreed,
}

/// Where a room's agreement stands, as stored (a row of `game_ends`, the JSON of this).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Agreement {
    /// The ply of the last `resume` (0: none): the moves from there decide whether play stopped.
    #[serde(default)]
    pub resumed: usize,
    /// The proposal, in the game's text; None while the server's is judged.
    #[serde(default)]
    pub proposal: Option<String>,
    #[serde(default)]
    pub accepted: [bool; 2],
    /// The verdict, in the game's text, once both players accepted.
    #[serde(default)]
    pub verdict: Option<String>,
}

impl Agreement {
    /// Nothing proposed or accepted, play last resumed at `resumed`.
    pub fn fresh(resumed: usize) -> Agreement {
        Agreement {
            resumed,
            ..Agreement::default()
        }
    }

    /// The text the store keeps.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// An agreement from its stored text; None when it does not read (then it is judged again).
    pub fn read(text: &str) -> Option<Agreement> {
        serde_json::from_str(text).ok()
    }
}

/// The game's agreement (`None`: a game that ends by its rules alone).
fn hook(played: &Played) -> Option<&'static dyn EndAgreement> {
    played.variant.end_agreement()
}

/// The game's position, as its view writes it (what the agreement's rules read).
pub fn position(played: &Played) -> String {
    played.game.view(&played.options).position()
}

/// Where a game with an agreement stands: agreeing once its moves since the last `resume`
/// stop play; agreed once both players accepted (the verdict is stored).
pub fn phase(played: &Played, end: &Agreement) -> Phase {
    let since = played.moves.get(end.resumed..).unwrap_or(&[]);
    let stopped = hook(played).is_some_and(|h| h.play_stopped(since));
    match (stopped, &end.verdict) {
        (false, _) => Phase::Play,
        (true, None) => Phase::Agreeing,
        (true, Some(_)) => Phase::Agreed,
    }
}

/// The verdict of `proposal`, once both players accepted it.
pub fn verdict(played: &Played, proposal: &str) -> Option<String> {
    hook(played)?.verdict(&position(played), proposal)
}

/// The result and reason an agreed verdict ends `variant`'s game with.
pub fn ending(variant: Game, verdict: &str) -> Ending {
    let (result, reason) = variant
        .end_agreement()
        .map(|h| h.ending(verdict))
        .unwrap_or_else(|| ("draw".into(), "agreement".into()));
    Ending { result, reason }
}

/// The first player's lead an agreed end gives, for the game's record.
pub fn agreed_lead(variant: Game, end: &Agreement) -> Option<f64> {
    variant.end_agreement()?.lead(end.verdict.as_deref()?)
}

/// The server's proposal: the game's judgement of the game (it may search: call it without
/// holding a lock). None when the game does not replay or has no judgement.
pub fn judge(variant: Game, start: StartSpec, moves: Vec<String>) -> Option<String> {
    let mut played = Played::new(variant, Some(start), moves).ok()?;
    judged(&mut played)
}

/// The proposal of the game's judgement of `played`, counted in [`JUDGEMENTS`].
fn judged(played: &mut Played) -> Option<String> {
    let hook = hook(played)?;
    if let Some(n) = Game::ALL.iter().position(|g| *g == played.variant) {
        JUDGEMENTS[n].fetch_add(1, Ordering::SeqCst);
    }
    let lines = played.judgement(hook.judge_command())?;
    Some(hook.proposal(&lines))
}

/// The end of a game whose play stopped that no one agrees on (an engine page's): the
/// judgement taken as agreed, and its verdict, as the page shows it. None for a game without
/// an agreement or not over on the board. It searches, as [`judge`] does.
pub fn settle(played: &mut Played) -> Option<(Agreement, Ending)> {
    let proposal = judged(played)?;
    let verdict = verdict(played, &proposal)?;
    let ending = ending(played.variant, &verdict);
    let end = Agreement {
        resumed: 0,
        proposal: Some(proposal),
        accepted: [true, true],
        verdict: Some(verdict),
    };
    Some((end, ending))
}

/// The proposal's `version` in the state: a number of the proposal itself (the ply of the
/// last resume, the proposal's text), so that it is the same after a restart and an `accept`
/// of the proposal a player saw is never taken for another one. FNV-1a, cut to 53 bits so that
/// the page's JavaScript numbers hold it exactly.
pub fn version(end: &Agreement) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let resumed = end.resumed.to_string();
    let text = [Some(resumed.as_str()), end.proposal.as_deref()];
    for part in text {
        // A marker apart from the text: no proposal (being judged) and an empty one differ.
        let bytes = part.map_or(&[0xff][..], str::as_bytes);
        for &b in bytes.iter().chain(&[0xfe]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash & ((1 << 53) - 1)
}

/// The agreement's field of a room's state: null in play; else the game's fields of the
/// proposal (null while it is judged) and its verdict, the acceptances and the version; and
/// the state's `score`, the game's judgement lines of the proposal.
pub fn state(played: &Played, end: &Agreement) -> (serde_json::Value, Option<Vec<String>>) {
    let Some(hook) = hook(played).filter(|_| phase(played, end) != Phase::Play) else {
        return (serde_json::Value::Null, None);
    };
    let shown = hook.shown(
        &position(played),
        end.proposal.as_deref(),
        end.verdict.as_deref(),
    );
    let mut fields = shown.fields;
    fields.insert("accepted".into(), serde_json::json!(end.accepted));
    fields.insert("version".into(), serde_json::json!(version(end)));
    (serde_json::Value::Object(fields), shown.lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_that_stops_after_a_resume_is_agreed_on_again() {
        let moves = ["E5", "pass", "pass", "D4", "pass", "pass"];
        let played = |n: usize| {
            let moves = moves[..n].iter().map(|s| s.to_string()).collect();
            Played::new(Game::Go, None, moves).unwrap()
        };
        let mut end = Agreement::default();
        assert_eq!(phase(&played(3), &end), Phase::Agreeing);
        end.resumed = 3;
        assert_eq!(phase(&played(3), &end), Phase::Play);
        assert_eq!(phase(&played(5), &end), Phase::Play);
        assert_eq!(phase(&played(6), &end), Phase::Agreeing);
        end.resumed = 5;
        assert_eq!(phase(&played(6), &end), Phase::Play);
        end.resumed = 3;
        end.verdict = Some("score W+7.5 komi 7.5".into());
        assert_eq!(phase(&played(6), &end), Phase::Agreed);
        assert_eq!(
            ending(Game::Go, "score W+7.5 komi 7.5").result,
            "white wins"
        );
        assert_eq!(ending(Game::Go, "score 0 komi 7.5").result, "draw");
        let othello = Played::new(Game::Othello, None, Vec::new()).unwrap();
        assert_eq!(phase(&othello, &Agreement::default()), Phase::Play);
    }

    #[test]
    fn an_agreement_reads_back_from_its_text() {
        let end = Agreement {
            resumed: 7,
            proposal: Some("A1 B2".into()),
            accepted: [true, false],
            verdict: None,
        };
        assert_eq!(Agreement::read(&end.text()), Some(end));
        assert_eq!(Agreement::read("{}"), Some(Agreement::default()));
        assert_eq!(Agreement::read("not json"), None);
        assert_eq!(Agreement::read(r#"{"resumed": -1}"#), None);
    }

    #[test]
    fn a_proposals_version_is_its_own_and_differs_from_others() {
        let with = |resumed: usize, proposal: Option<&str>| Agreement {
            resumed,
            proposal: proposal.map(str::to_string),
            ..Agreement::default()
        };
        let proposals = [
            with(0, None),
            with(0, Some("")),
            with(0, Some("A1")),
            with(0, Some("A1 B2")),
            with(3, Some("A1")),
            with(31, None),
        ];
        let versions: Vec<u64> = proposals.iter().map(version).collect();
        for (i, v) in versions.iter().enumerate() {
            assert!(*v < 1 << 53);
            assert_eq!(*v, version(&proposals[i].clone()));
            let equal = proposals
                .iter()
                .zip(&versions)
                .filter(|(m, w)| *w == v && **m != proposals[i]);
            assert_eq!(equal.count(), 0, "{:?}", proposals[i]);
        }
        // Acceptances and the verdict are not the proposal.
        let mut accepted = with(0, Some("A1"));
        accepted.accepted = [true, false];
        assert_eq!(version(&accepted), versions[2]);
    }
}
