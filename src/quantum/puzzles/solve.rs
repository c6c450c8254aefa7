//! Judging moves against a forced king capture, with `go mate`'s df-pn: the defender's best
//! reply ([`defend`]), whether an attacker's move still forces the capture ([`verdict`]), and
//! a puzzle's solution with its unique first move ([`solve`]).
//!
//! "Forces the capture within n plies" means what `go mate` proves: after the move being judged
//! the attacker plays only checks (or the capture), and every defence is tried. The move being
//! judged itself may be quiet, so a quiet first move that sets up a forced capture counts.

use crate::quantum::search::mate::{king_capture, MateResult, MateSearch};
use crate::quantum::{Action, Position, Ruleset};
use crate::search::Control;

/// The df-pn table of one judgement, in MiB (it grows only as far as it fills).
const TABLE_MB: u64 = 16;

/// The side to move's best answer to a threat of a king capture within some plies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Defence {
    /// The side to move has no legal action, or the game is over: it has lost.
    Lost,
    /// This action escapes: it captures the attacker's king, or no forced capture follows it
    /// within the plies left.
    Escape(Action),
    /// Every action is answered by a forced capture; this one holds out longest, and the
    /// capture comes this many plies after it.
    Mated(Action, u32),
    /// The clock ran out (or the work was stopped) before an answer.
    Timeout,
}

/// The best defence of the side to move of `pos` when the opponent threatens to capture its king
/// within `plies` plies counted from here (this action included): a king capture of its own
/// first, else the first action (by name, as `moves` sorts them) after which df-pn finds no
/// capture within `plies - 1`, else the action whose capture is longest (the first of them).
///
/// `search` may be shared by many judgements of the same attacker: its table is keyed by the
/// position and the plies left, so what one judgement proved holds for the next.
pub fn defend(pos: &Position, rules: &Ruleset, plies: u32, search: &mut MateSearch) -> Defence {
    if pos.winner().is_some() {
        return Defence::Lost;
    }
    let defender = pos.side_to_move();
    if let Some(a) = king_capture(pos, defender) {
        return Defence::Escape(a);
    }
    // In the byte order of their names, as `moves` lists them: the choice among equals must not
    // depend on how the position numbers its pieces (a QSFEN read back numbers them anew).
    let mut named: Vec<(String, Action)> = pos
        .legal_actions(rules)
        .into_iter()
        .map(|a| (pos.action_name(a), a))
        .collect();
    named.sort();
    let actions: Vec<Action> = named.into_iter().map(|(_, a)| a).collect();
    let Some(&first) = actions.first() else {
        return Defence::Lost;
    };
    if plies < 2 {
        return Defence::Escape(first);
    }
    let mut longest: Option<(Action, u32)> = None;
    for a in actions {
        match search.run(&pos.after(a), plies - 1) {
            MateResult::NoMate => return Defence::Escape(a),
            MateResult::Timeout => return Defence::Timeout,
            MateResult::Mate(line) => {
                let n = line.len() as u32;
                if longest.is_none_or(|(_, m)| n > m) {
                    longest = Some((a, n));
                }
            }
        }
    }
    match longest {
        Some((a, n)) => Defence::Mated(a, n),
        None => Defence::Lost,
    }
}

/// What an attacker's action does to a threat of capture within `plies` (this action included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It captures the king, or leaves the defender without a legal action.
    Wins,
    /// The defender's best reply (the longest resistance) and the plies to the capture after it.
    Forces(Action, u32),
    /// It does not force the capture in time: the reply that refutes it.
    Refuted(Action),
    Timeout,
}

/// Judges the side to move's action `a` of `pos` against a capture within `plies` plies.
pub fn verdict(
    pos: &Position,
    rules: &Ruleset,
    a: Action,
    plies: u32,
    search: &mut MateSearch,
) -> Verdict {
    let after = pos.after(a);
    if after.winner() == Some(pos.side_to_move()) {
        return Verdict::Wins;
    }
    match defend(&after, rules, plies.saturating_sub(1), search) {
        Defence::Lost => Verdict::Wins,
        Defence::Escape(r) => Verdict::Refuted(r),
        Defence::Mated(r, n) => Verdict::Forces(r, n),
        Defence::Timeout => Verdict::Timeout,
    }
}

/// How many plies a puzzle search looks ahead in `pos`, from the checks its side to move has:
/// df-pn's work grows with them about as their cube at 7 plies, and a position with a large
/// hand can have hundreds (minutes of proving that nothing is forced). The cut keeps the
/// generator fast and, unlike a clock, the same on every machine.
pub fn reach(pos: &Position, rules: &Ruleset) -> u32 {
    let attacker = pos.side_to_move();
    let checks = pos
        .legal_actions(rules)
        .into_iter()
        .filter(|&a| king_capture(&pos.after(a), attacker).is_some())
        .count();
    match checks {
        0..=CHECKS_FOR_7 => 7,
        _ if checks <= CHECKS_FOR_5 => 5,
        _ => 3,
    }
}

/// The most checks a position may have for a 7-ply search, and for a 5-ply one.
pub const CHECKS_FOR_7: usize = 6;
pub const CHECKS_FOR_5: usize = 16;

/// A position whose side to move captures the king by force in `line.len()` plies, with one
/// first action only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The main line: the attacker's unique first action, then the defender's longest
    /// resistance and the attacker's shortest capture (df-pn's), ending with the capture.
    pub line: Vec<Action>,
}

/// Why a position is no puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// No forced capture by checks within the plies asked.
    NoCapture,
    /// Another first action forces the capture within the length too.
    NotUnique(Action),
    /// The clock ran out.
    Timeout,
    /// df-pn's line and the judgement of its first move disagree (never expected).
    Inconsistent,
}

/// The puzzle in `pos`: the shortest forced capture within `max_plies` and its main line, when
/// exactly one first action forces a capture within that length.
pub fn solve(
    pos: &Position,
    rules: &Ruleset,
    max_plies: u32,
    control: &Control,
) -> Result<Solution, Rejected> {
    let mut search = MateSearch::new(*rules, control, TABLE_MB);
    let max_plies = max_plies.min(reach(pos, rules));
    let line = match search.run(pos, max_plies) {
        MateResult::Mate(line) => line,
        MateResult::NoMate => return Err(Rejected::NoCapture),
        MateResult::Timeout => return Err(Rejected::Timeout),
    };
    let length = line.len() as u32;
    let first = line[0];
    // The cheap refusal first: another action that captures at once or forces as well.
    for a in pos.legal_actions(rules) {
        if a == first {
            continue;
        }
        match verdict(pos, rules, a, length, &mut search) {
            Verdict::Refuted(_) => {}
            Verdict::Timeout => return Err(Rejected::Timeout),
            Verdict::Wins | Verdict::Forces(..) => return Err(Rejected::NotUnique(a)),
        }
    }
    let line = main_line(pos, rules, first, length, &mut search)?;
    Ok(Solution { line })
}

/// The main line from the attacker's `first` action: the defender's [`defend`] replies and the
/// attacker's df-pn continuations, `length` plies in all.
pub fn main_line(
    pos: &Position,
    rules: &Ruleset,
    first: Action,
    length: u32,
    search: &mut MateSearch,
) -> Result<Vec<Action>, Rejected> {
    let mut line = vec![first];
    let mut at = pos.after(first);
    let mut left = length - 1;
    loop {
        if at.winner().is_some() {
            break;
        }
        let reply = match defend(&at, rules, left, search) {
            Defence::Lost => break,
            Defence::Mated(r, n) if n + 1 == left => r,
            Defence::Timeout => return Err(Rejected::Timeout),
            Defence::Mated(..) | Defence::Escape(_) => return Err(Rejected::Inconsistent),
        };
        line.push(reply);
        at = at.after(reply);
        left -= 1;
        let next = match search.run(&at, left) {
            MateResult::Mate(rest) if rest.len() as u32 == left => rest[0],
            MateResult::Timeout => return Err(Rejected::Timeout),
            _ => return Err(Rejected::Inconsistent),
        };
        line.push(next);
        at = at.after(next);
        left -= 1;
    }
    if line.len() as u32 == length {
        Ok(line)
    } else {
        Err(Rejected::Inconsistent)
    }
}
