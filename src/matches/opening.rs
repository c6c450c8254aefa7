//! Openings: a start position plus the moves played from it before the engines take over.
//!
//! An openings file holds one opening per line, written as the text after `position ` in a USI
//! command (`startpos moves 7g7f 3c3d`, `sfen <position> moves ...`); a leading `position` word is
//! allowed, blank lines and lines starting with `#` are skipped. Random openings play
//! `opening_plies` uniformly random legal moves, from a seeded generator, so the same seed gives
//! the same openings whatever the concurrency.

use super::referee::{GameEnd, Referee, RefereeFactory};
use crate::registry::Game;
use crate::rng::SplitMix64;
use std::fmt;

/// Why an opening is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    #[error("`sfen` needs a position")]
    SfenWithoutPosition,
    /// The first word is neither `startpos` nor `sfen`.
    #[error("expected `startpos` or `sfen`, found `{0}`")]
    Start(String),
    #[error("empty opening")]
    Empty,
    /// The word after `startpos` is not `moves`.
    #[error("expected `moves`, found `{0}`")]
    NotMoves(String),
    /// The referee refuses the start position (its words).
    #[error("{0}")]
    Position(String),
    /// The game ended before move `number` (from 1).
    #[error("the game is over ({end}) before move {number}")]
    OverBefore { end: GameEnd, number: usize },
    /// Move `number` refused by the referee (its words).
    #[error("move {number} `{text}`: {why}")]
    Move {
        number: usize,
        text: String,
        why: String,
    },
    #[error("the game is over after the opening ({0})")]
    OverAfter(GameEnd),
    /// An error on line `number` of an openings file.
    #[error("line {number}: {error}")]
    Line {
        number: usize,
        error: Box<OpeningError>,
    },
    #[error("the openings file holds no opening")]
    NoOpening,
    /// A game record that does not read (the record module's words: what and where).
    #[error(transparent)]
    Record(#[from] crate::games::record::RecordError),
    /// Openings from records for a game without a record format (its name).
    #[error("{0} has no record format to take openings from")]
    NoRecordFormat(&'static str),
    /// No random line of `plies` plies leaves the game open.
    #[error("no random opening of {0} plies that leaves the game open")]
    NoRandom(u32),
}

crate::games::error_text!(derived: OpeningError);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// `None` = the standard start; `Some(text)` = the text after `sfen`.
    pub sfen: Option<String>,
    pub moves: Vec<String>,
}

impl Opening {
    pub fn startpos() -> Opening {
        Opening {
            sfen: None,
            moves: Vec::new(),
        }
    }

    /// Parses `startpos [moves ...]` or `sfen <fields> [moves ...]` (optionally after `position`).
    pub fn parse(line: &str) -> Result<Opening, OpeningError> {
        let mut words = line.split_whitespace().peekable();
        if words.peek() == Some(&"position") {
            words.next();
        }
        let sfen = match words.next() {
            Some("startpos") => None,
            Some("sfen") => {
                let fields: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
                if fields.is_empty() {
                    return Err(OpeningError::SfenWithoutPosition);
                }
                let moves: Vec<String> = words.map(str::to_string).collect();
                return Ok(Opening {
                    sfen: Some(fields.join(" ")),
                    moves,
                });
            }
            Some(other) => return Err(OpeningError::Start(other.into())),
            None => return Err(OpeningError::Empty),
        };
        let moves = match words.next() {
            None => Vec::new(),
            Some("moves") => words.map(str::to_string).collect(),
            Some(other) => return Err(OpeningError::NotMoves(other.into())),
        };
        Ok(Opening { sfen, moves })
    }

    /// The `position` command for this opening followed by `more` moves.
    pub fn position_command(&self, more: &[String]) -> String {
        let mut s = String::from("position ");
        s.push_str(&self.start_text());
        if !self.moves.is_empty() || !more.is_empty() {
            s.push_str(" moves");
            for m in self.moves.iter().chain(more) {
                s.push(' ');
                s.push_str(m);
            }
        }
        s
    }

    /// `startpos` or `sfen <position>`.
    pub fn start_text(&self) -> String {
        match &self.sfen {
            None => "startpos".into(),
            Some(s) => format!("sfen {s}"),
        }
    }

    /// Sets `referee` to the position after the opening; the moves come back canonical.
    pub fn replay(&self, referee: &mut dyn Referee) -> Result<Vec<String>, OpeningError> {
        referee
            .set_start(self.sfen.as_deref())
            .map_err(|e| OpeningError::Position(e.to_string()))?;
        let mut canonical = Vec::with_capacity(self.moves.len());
        for (i, mv) in self.moves.iter().enumerate() {
            if let Some(end) = referee.game_end() {
                return Err(OpeningError::OverBefore { end, number: i + 1 });
            }
            let played = referee.play(mv).map_err(|why| OpeningError::Move {
                number: i + 1,
                text: mv.clone(),
                why: why.to_string(),
            })?;
            canonical.push(played);
        }
        if let Some(end) = referee.game_end() {
            return Err(OpeningError::OverAfter(end));
        }
        Ok(canonical)
    }
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let command = self.position_command(&[]);
        f.write_str(&command["position ".len()..])
    }
}

/// Reads an openings file; every opening is replayed through the referee and comes back with
/// canonical moves. Errors name the line.
pub fn read_file(text: &str, factory: &RefereeFactory) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let on_line = |error| OpeningError::Line {
            number: i + 1,
            error: Box::new(error),
        };
        let mut opening = Opening::parse(line).map_err(on_line)?;
        let mut referee = factory();
        opening.moves = opening.replay(referee.as_mut()).map_err(on_line)?;
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err(OpeningError::NoOpening);
    }
    Ok(openings)
}

/// Reads a file of game records, one record or transcript a line (blank lines and lines starting
/// with `#` skipped); each opening is a record's start and its first `cut` plies (all of them
/// when `None`), replayed through the referee. Errors name the line.
pub fn read_records(
    text: &str,
    game: Game,
    cut: Option<usize>,
    factory: &RefereeFactory,
) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let opening =
            from_record(line, game, cut, factory).map_err(|error| OpeningError::Line {
                number: i + 1,
                error: Box::new(error),
            })?;
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err(OpeningError::NoOpening);
    }
    Ok(openings)
}

/// The opening one game record holds: its start (`startpos` when it is the match's start) and
/// its first `cut` plies, replayed through the referee.
pub fn from_record(
    text: &str,
    game: Game,
    cut: Option<usize>,
    factory: &RefereeFactory,
) -> Result<Opening, OpeningError> {
    let mut opening = super::record::opening(game, text, cut)?;
    let mut referee = factory();
    referee
        .set_start(None)
        .map_err(|e| OpeningError::Position(e.to_string()))?;
    if opening.sfen.as_deref() == Some(referee.position().as_str()) {
        opening.sfen = None;
    }
    opening.moves = opening.replay(referee.as_mut())?;
    Ok(opening)
}

/// The length of random opening number `index` in `min..=max` (only `seed` and `index` decide it;
/// `min == max` gives `min` without drawing, so fixed-length openings are unchanged).
pub fn random_length(min: u32, max: u32, seed: u64, index: usize) -> u32 {
    if max <= min {
        return min;
    }
    let mut rng = SplitMix64::new(!seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    min + rng.index((max - min + 1) as usize) as u32
}

/// Random opening number `index` (0-based) of `plies` random legal moves from the standard start.
/// Only `seed` and `index` decide it. Lines that end the game are drawn again.
pub fn random_opening(
    factory: &RefereeFactory,
    plies: u32,
    seed: u64,
    index: usize,
) -> Result<Opening, OpeningError> {
    let mut rng = SplitMix64::new(seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
    let mut referee = factory();
    'attempt: for _ in 0..1000 {
        referee
            .set_start(None)
            .map_err(|e| OpeningError::Position(e.to_string()))?;
        let mut moves = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            if referee.game_end().is_some() {
                continue 'attempt;
            }
            let legal = referee.legal_moves();
            if legal.is_empty() {
                continue 'attempt;
            }
            let pick = &legal[rng.index(legal.len())];
            let played = referee.play(pick).map_err(|why| OpeningError::Move {
                number: moves.len() + 1,
                text: pick.clone(),
                why: why.to_string(),
            })?;
            moves.push(played);
        }
        if referee.game_end().is_some() {
            continue;
        }
        return Ok(Opening { sfen: None, moves });
    }
    Err(OpeningError::NoRandom(plies))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_opening_lines() {
        let o = Opening::parse("startpos moves 7g7f 3c3d").unwrap();
        assert_eq!(o.sfen, None);
        assert_eq!(o.moves, ["7g7f", "3c3d"]);
        assert_eq!(o.to_string(), "startpos moves 7g7f 3c3d");
        let o = Opening::parse("position sfen 8/8 b 1 moves a1").unwrap();
        assert_eq!(o.sfen.as_deref(), Some("8/8 b 1"));
        assert_eq!(
            o.position_command(&["b2".into()]),
            "position sfen 8/8 b 1 moves a1 b2"
        );
        assert_eq!(Opening::parse("startpos").unwrap(), Opening::startpos());
        assert_eq!(
            Opening::startpos().position_command(&[]),
            "position startpos"
        );
        assert!(Opening::parse("startpos 7g7f").is_err());
        assert!(Opening::parse("sfen moves").is_err());
        assert!(Opening::parse("fen x").is_err());
    }
}
