//! Forced-capture puzzles ("capture the king in N"): made from self-play positions by
//! `ryoshi puzzles` ([`generate`]), judged with `go mate`'s df-pn ([`solve`]), shipped in
//! `data/puzzles/quantum.txt` and checked line by line by [`check`].
//!
//! A puzzle is a position, its length N (1 to 7 plies, the attacker's last action capturing the
//! king), its unique first action (every other first action is refuted within N plies), the main
//! line (the defender's longest resistance) and its grade: N, and how many of the 40 pieces are
//! still uncertain (a candidate set of more than one type).
//!
//! The file holds `#` comment lines (the generating command first) and one puzzle a line:
//!
//! ```text
//! <qsfen> | <length> | <first action> | <main line, actions separated by spaces> | <uncertain>
//! ```

pub mod generate;
pub mod solve;

use crate::quantum::search::mate::{MateResult, MateSearch};
use crate::quantum::{qsfen, Action, Position, Ruleset};
use crate::search::Control;
use nom::bytes::complete::is_not;
use nom::character::complete::char;
use nom::multi::separated_list1;
use solve::{defend, verdict, Defence, Verdict};

/// The longest puzzle, in plies.
pub const MAX_LENGTH: u32 = 7;

/// The collection shipped with ryoshi (and served to the puzzle page).
pub const COLLECTION: &str = include_str!("../../../data/puzzles/quantum.txt");

/// One line of a puzzle file, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    pub qsfen: String,
    pub length: u32,
    pub first: String,
    pub line: Vec<String>,
    pub uncertain: u32,
}

/// What is wrong with a line of a puzzle file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PuzzleError {
    #[error("expected 5 fields separated by '|' (qsfen, length, first action, line, uncertain)")]
    Fields,
    #[error("the {0} is not a number")]
    Number(&'static str),
    #[error("bad position: {0}")]
    Position(String),
    #[error("the game is over in this position")]
    Over,
    #[error("length {0} is not 1 to {MAX_LENGTH}")]
    Length(u32),
    #[error("the main line has {got} actions, not the length {length}")]
    LineLength { got: usize, length: u32 },
    #[error("the main line does not start with the first action")]
    FirstOfLine,
    #[error("action {index} of the line: {action}: {why}")]
    Action {
        index: usize,
        action: String,
        why: String,
    },
    #[error("{got} pieces are uncertain, not {said}")]
    Uncertain { said: u32, got: u32 },
    #[error("df-pn finds the shortest capture in {0}")]
    Shortest(String),
    #[error("the first action {0}")]
    First(String),
    #[error("{0} forces the capture as well")]
    NotUnique(String),
    #[error("after action {index} of the line: {why}")]
    Line { index: usize, why: String },
    #[error("the line does not end with the capture")]
    NoCapture,
    #[error("df-pn ran out of time")]
    Timeout,
}

/// How many pieces may still be more than one type.
pub fn uncertain(pos: &Position) -> u32 {
    pos.pieces()
        .iter()
        .filter(|p| p.mask.count_ones() > 1)
        .count() as u32
}

/// Whether the solver plays an uncertain piece on the way (one that may still be more than one
/// type when it moves or is dropped): the puzzle turns on what quantum shogi adds. False for a
/// line that does not read.
pub fn around_uncertain(p: &Puzzle) -> bool {
    let Ok(mut pos) = qsfen::read(&p.qsfen) else {
        return false;
    };
    let rules = Ruleset::default();
    for (i, name) in p.line.iter().enumerate() {
        let Ok(a) = pos.parse_action(name, &rules) else {
            return false;
        };
        let piece = match a {
            Action::Move { from, .. } => pos.piece_at(from),
            Action::Drop { piece, .. } => Some(usize::from(piece)),
        };
        let uncertain = piece.is_some_and(|i| pos.pieces()[i].mask.count_ones() > 1);
        if i % 2 == 0 && uncertain {
            return true;
        }
        pos = pos.after(a);
    }
    false
}

/// The puzzles' order, easiest first, as `ryoshi puzzles` writes them and the page lists them:
/// those with an uncertain piece, then those whose every piece is certain (plain shogi, a
/// section of their own); in each, the shorter first, then those the solver plays an uncertain
/// piece in ([`around_uncertain`]), then the fewer uncertain pieces. Stable for equal grades.
pub fn order(puzzles: &mut [Puzzle]) {
    puzzles.sort_by_cached_key(|p| {
        (
            p.uncertain == 0,
            p.length,
            !around_uncertain(p),
            p.uncertain,
        )
    });
}

/// The comment line that opens the section of puzzles whose every piece is certain.
pub const CERTAIN_SECTION: &str =
    "# Every piece certain (plain shogi, no uncertain piece): a section of their own.";

/// A puzzle file's lines after its header: the puzzles in their [`order`], the certain-only
/// ones after [`CERTAIN_SECTION`].
pub fn body(puzzles: &[Puzzle]) -> String {
    let mut text = String::new();
    let mut section = false;
    for p in puzzles {
        if p.uncertain == 0 && !section {
            text.push_str(CERTAIN_SECTION);
            text.push('\n');
            section = true;
        }
        text.push_str(&format_line(p));
        text.push('\n');
    }
    text
}

/// One line of a puzzle file: `None` for a comment or a blank line.
pub fn parse_line(text: &str) -> Result<Option<Puzzle>, PuzzleError> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let fields: nom::IResult<&str, Vec<&str>> = separated_list1(char('|'), is_not("|"))(text);
    let fields: Vec<&str> = match fields {
        Ok(("", fields)) if fields.len() == 5 => fields.iter().map(|f| f.trim()).collect(),
        _ => return Err(PuzzleError::Fields),
    };
    let number = |text: &str, what| text.parse::<u32>().map_err(|_| PuzzleError::Number(what));
    Ok(Some(Puzzle {
        qsfen: fields[0].to_string(),
        length: number(fields[1], "length")?,
        first: fields[2].to_string(),
        line: fields[3].split_whitespace().map(str::to_string).collect(),
        uncertain: number(fields[4], "count of uncertain pieces")?,
    }))
}

/// The line [`parse_line`] reads back.
pub fn format_line(p: &Puzzle) -> String {
    format!(
        "{} | {} | {} | {} | {}",
        p.qsfen,
        p.length,
        p.first,
        p.line.join(" "),
        p.uncertain
    )
}

/// The puzzles of a file's text, each with its line number (from 1).
pub fn parse_file(text: &str) -> Vec<(usize, Result<Puzzle, PuzzleError>)> {
    text.lines()
        .enumerate()
        .filter_map(|(n, l)| parse_line(l).transpose().map(|p| (n + 1, p)))
        .collect()
}

/// Checks a puzzle against df-pn: the position and the line read and are legal, df-pn's shortest
/// capture has the puzzle's length, the first action forces it, no other first action does, the
/// defender's replies in the line hold out longest and the line ends with the capture.
pub fn check(p: &Puzzle, rules: &Ruleset, control: &Control) -> Result<(), PuzzleError> {
    let pos = qsfen::read(&p.qsfen).map_err(|e| PuzzleError::Position(e.to_string()))?;
    if pos.winner().is_some() {
        return Err(PuzzleError::Over);
    }
    if !(1..=MAX_LENGTH).contains(&p.length) {
        return Err(PuzzleError::Length(p.length));
    }
    if p.line.len() != p.length as usize {
        return Err(PuzzleError::LineLength {
            got: p.line.len(),
            length: p.length,
        });
    }
    if p.line[0] != p.first {
        return Err(PuzzleError::FirstOfLine);
    }
    let got = uncertain(&pos);
    if got != p.uncertain {
        return Err(PuzzleError::Uncertain {
            said: p.uncertain,
            got,
        });
    }
    let line = read_line(&pos, &p.line, rules)?;
    let mut search = MateSearch::new(*rules, control, 16);
    match search.run(&pos, p.length) {
        MateResult::Mate(l) if l.len() as u32 == p.length => {}
        MateResult::Mate(l) => return Err(PuzzleError::Shortest(format!("{} plies", l.len()))),
        MateResult::NoMate => return Err(PuzzleError::Shortest("none".into())),
        MateResult::Timeout => return Err(PuzzleError::Timeout),
    }
    let first = line[0];
    match verdict(&pos, rules, first, p.length, &mut search) {
        Verdict::Wins if p.length == 1 => {}
        Verdict::Forces(_, n) if n + 2 == p.length => {}
        Verdict::Timeout => return Err(PuzzleError::Timeout),
        other => return Err(PuzzleError::First(describe(&pos, first, &other))),
    }
    // The line before the other first actions: a wrong line fails at less cost.
    check_line(&pos, &line, rules, &mut search)?;
    for a in pos.legal_actions(rules) {
        if a == first {
            continue;
        }
        match verdict(&pos, rules, a, p.length, &mut search) {
            Verdict::Refuted(_) => {}
            Verdict::Timeout => return Err(PuzzleError::Timeout),
            _ => return Err(PuzzleError::NotUnique(pos.action_name(a))),
        }
    }
    Ok(())
}

/// What a verdict says about the first action, for an error.
fn describe(pos: &Position, a: Action, v: &Verdict) -> String {
    let after = pos.after(a);
    match v {
        Verdict::Wins => "captures at once".into(),
        Verdict::Forces(r, n) => format!(
            "forces the capture {n} plies after the reply {}",
            after.action_name(*r)
        ),
        Verdict::Refuted(r) => format!("is refuted by {}", after.action_name(*r)),
        Verdict::Timeout => "ran out of time".into(),
    }
}

/// The line's actions, each legal where it is played.
fn read_line(
    pos: &Position,
    names: &[String],
    rules: &Ruleset,
) -> Result<Vec<Action>, PuzzleError> {
    let mut at = pos.clone();
    let mut actions = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        if at.winner().is_some() {
            return Err(PuzzleError::Line {
                index,
                why: "the game is over before the line ends".into(),
            });
        }
        let a = at
            .parse_action(name, rules)
            .map_err(|e| PuzzleError::Action {
                index: index + 1,
                action: name.clone(),
                why: e.to_string(),
            })?;
        at = at.after(a);
        actions.push(a);
    }
    Ok(actions)
}

/// The main line after its first action: each defender reply holds out longest (df-pn captures
/// no sooner after it than after the best defence), each later attacker action still forces the
/// capture in the plies left, and the last one captures the king.
fn check_line(
    pos: &Position,
    line: &[Action],
    rules: &Ruleset,
    search: &mut MateSearch,
) -> Result<(), PuzzleError> {
    let attacker = pos.side_to_move();
    let length = line.len() as u32;
    let mut at = pos.after(line[0]);
    for (i, &a) in line.iter().enumerate().skip(1) {
        let left = length - i as u32;
        let index = i + 1;
        let fail = |why: String| PuzzleError::Line { index, why };
        if i % 2 == 1 {
            match defend(&at, rules, left, search) {
                Defence::Mated(_, n) if n + 1 == left => {}
                Defence::Timeout => return Err(PuzzleError::Timeout),
                other => return Err(fail(format!("the defence is {other:?}"))),
            }
            match search.run(&at.after(a), left - 1) {
                MateResult::Mate(l) if l.len() as u32 + 1 == left => {}
                MateResult::Timeout => return Err(PuzzleError::Timeout),
                _ => return Err(fail("the reply does not hold out longest".into())),
            }
        } else {
            match verdict(&at, rules, a, left, search) {
                Verdict::Wins if left == 1 => {}
                Verdict::Forces(_, n) if n + 2 == left => {}
                Verdict::Timeout => return Err(PuzzleError::Timeout),
                other => return Err(fail(describe(&at, a, &other))),
            }
        }
        at = at.after(a);
    }
    let lost = at.winner().is_none() && at.legal_actions(rules).is_empty();
    if at.winner() == Some(attacker) || lost {
        Ok(())
    } else {
        Err(PuzzleError::NoCapture)
    }
}
