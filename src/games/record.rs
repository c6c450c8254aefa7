//! Game records: a game from its start with its whole history, in its field's own format (SGF,
//! GGF, a kifu, ...). Each game's record module, in its folder, implements [`Recordable`] for
//! its rules type; the session, GTP, NBoard and the match runner all read and write through it.
//!
//! Readers are bounded: at most [`MAX_RECORD_BYTES`] of text, at most [`MAX_NESTING`] open
//! variations (counted, never recursed), and memory in proportion to the moves of the main line.

use super::rules::{GameEnd, OptionValues, Rules};

/// Longest record text read (a file of `loadrecord`; `loadrecordtext` is bounded by the
/// protocol's line, 4 MiB). A game of 1000 moves with comments is under 100 KiB.
pub const MAX_RECORD_BYTES: usize = 16 << 20;

/// Deepest nesting of SGF variations accepted (a depth counter, not recursion).
pub const MAX_NESTING: usize = 1000;

/// What a record says besides the moves, in the format's words.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tags {
    /// The date as written (`DT`, `Date`).
    pub date: Option<String>,
    /// The first and the second player's names (SGF's `PB`/`PW`, ...).
    pub players: [Option<String>; 2],
    /// The result as the format writes it (`B+2.5`, `1-0`, `32-32`).
    pub result: Option<String>,
    /// Why the game ended, when the format says it apart from the result (the kifu's `Reason`).
    pub reason: Option<String>,
    /// The format's other properties that are kept, name and value (`KM`, `RU`, `HA`, `TI`).
    pub extra: Vec<(String, String)>,
}

impl Tags {
    /// The value of the extra property `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.extra
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets the extra property `name` (replacing it when present).
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.extra.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value,
            None => self.extra.push((name.to_string(), value)),
        }
    }
}

/// A tag's value (or a move's note) as a record is read into memory: each control character (a
/// line break, a tab) becomes a space. `record` writes the tags back into the protocol's output,
/// where a line break of a player's name would start a line of its own (`readyok`, say).
pub fn tag_text(raw: &str) -> String {
    raw.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A game from its start: the start position, the moves in order, and the tags. `notes[i]`, when
/// present and not empty, is what the format writes beside move `i` (`/eval/time`).
#[derive(Clone, Debug)]
pub struct GameRecord<R: Rules> {
    pub tags: Tags,
    pub start: R,
    pub moves: Vec<R::Move>,
    pub notes: Vec<String>,
}

impl<R: Rules> GameRecord<R> {
    /// A game with no moves yet from `start`.
    pub fn new(start: R) -> Self {
        GameRecord {
            tags: Tags::default(),
            start,
            moves: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The note of move `i` (0-based), empty when none.
    pub fn note(&self, i: usize) -> &str {
        self.notes.get(i).map_or("", String::as_str)
    }

    /// The position after every move, replayed under the rules; the error names the ply.
    pub fn replay(&self) -> Result<R, RecordError> {
        let mut game = self.start.clone();
        for (i, &mv) in self.moves.iter().enumerate() {
            let text = game.move_text(mv);
            game.play(mv).map_err(|e| RecordError::Move {
                ply: i + 1,
                text,
                why: e.to_string(),
            })?;
        }
        Ok(game)
    }
}

/// A game's record format, implemented by its rules type.
pub trait Recordable: Rules {
    /// The format's name in messages (`SGF`, `GGF`, `kifu`).
    const FORMAT: &'static str;

    /// The record text of `record`; [`Recordable::read_record`] reads it back to the same start,
    /// moves and tags.
    fn write_record(record: &GameRecord<Self>) -> String;

    /// Reads a record: its start, its main line's moves (each checked legal) and its tags. Of
    /// a collection (several games one after another), the first game.
    fn read_record(text: &str) -> Result<GameRecord<Self>, RecordError> {
        Self::read_game(text, 1)
    }

    /// Reads game `n` (from 1) of a collection, as [`Recordable::read_record`] reads one: the
    /// games before it are skipped by their syntax, without being built, and the whole text is
    /// checked to its end (so that [`RecordError::NoGame`] can say how many it holds).
    fn read_game(text: &str, n: usize) -> Result<GameRecord<Self>, RecordError>;

    /// What a collection writes after each game's text, beyond the line break that ends it
    /// (the kifu's blank line).
    const BETWEEN_GAMES: &'static str = "";

    /// The result tag of a game that ended so, with the referee's `score` (the first player's
    /// lead) when the rules scored it. By default the score line (`1-0`, `0-1`, `1/2-1/2`).
    fn result_tag(end: GameEnd, score: Option<f64>) -> String {
        let _ = score;
        end.verdict.score().into()
    }

    /// What a match's values of the game's own options (and the rules it plays by) add to the
    /// tags; nothing by default.
    fn match_tags(tags: &mut Tags, options: &OptionValues) {
        let _ = (tags, options);
    }

    /// The tags that say a game's time control (SGF's `TM`/`OT`, the kifu's `TimeControl`);
    /// nothing by default, for a format that has no words for it.
    fn time_tags(tags: &mut Tags, terms: &TimeTerms) {
        let _ = (tags, terms);
    }
}

/// A game's time control as records state it: main time, then a Fischer increment or
/// byoyomi periods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeTerms {
    pub main_ms: u64,
    pub inc_ms: u64,
    /// One byoyomi period (0: none).
    pub period_ms: u64,
    pub periods: u32,
}

impl TimeTerms {
    pub fn byoyomi(&self) -> bool {
        self.period_ms > 0
    }
}

/// Milliseconds as seconds, with no more decimals than needed (`600`, `0.5`).
pub fn seconds(ms: u64) -> String {
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The rooms' and the kifu's form: `600+10` (main and increment, seconds), `600b30` or
/// `600b30x5` (main, byoyomi period, periods).
impl std::fmt::Display for TimeTerms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let main = seconds(self.main_ms);
        if !self.byoyomi() {
            return write!(f, "{main}+{}", seconds(self.inc_ms));
        }
        write!(f, "{main}b{}", seconds(self.period_ms))?;
        if self.periods != 1 {
            write!(f, "x{}", self.periods)?;
        }
        Ok(())
    }
}

/// A game's [`Recordable`] as the generic floors reach it through [`Rules::record_format`]
/// (the rules cannot name `Recordable`, which is built on them).
pub struct RecordFormat<R: Rules> {
    /// [`Recordable::FORMAT`].
    pub name: &'static str,
    pub write: fn(&GameRecord<R>) -> String,
    pub read: fn(&str) -> Result<GameRecord<R>, RecordError>,
    /// [`Recordable::read_game`].
    pub read_game: fn(&str, usize) -> Result<GameRecord<R>, RecordError>,
    /// [`Recordable::BETWEEN_GAMES`].
    pub between_games: &'static str,
    pub result_tag: fn(GameEnd, Option<f64>) -> String,
    pub match_tags: fn(&mut Tags, &OptionValues),
    pub time_tags: fn(&mut Tags, &TimeTerms),
}

impl<R: Recordable> RecordFormat<R> {
    /// The format of `R`'s [`Recordable`] impl.
    pub fn of() -> Self {
        RecordFormat {
            name: R::FORMAT,
            write: R::write_record,
            read: R::read_record,
            read_game: R::read_game,
            between_games: R::BETWEEN_GAMES,
            result_tag: R::result_tag,
            match_tags: R::match_tags,
            time_tags: R::time_tags,
        }
    }
}

impl<R: Rules> RecordFormat<R> {
    /// The file extension of its records: the format's name in lowercase (`sgf`, `ggf`, `kifu`).
    pub fn extension(&self) -> String {
        self.name.to_ascii_lowercase()
    }

    /// A game's record text as an entry of a collection file: the text, one line break, and
    /// what the format puts between games.
    pub fn collection_entry(&self, text: &str) -> String {
        format!("{}\n{}", text.trim_end(), self.between_games)
    }
}

/// Why a record is refused: what failed and where (the byte, the property or the ply).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("{format} record too large: {bytes} bytes, at most {max}")]
    TooLarge {
        format: &'static str,
        bytes: usize,
        max: usize,
    },
    /// Bad syntax at byte `at` (0-based), with `line` and `column` (1-based) and what was
    /// expected there.
    #[error("{format} syntax error at line {line}, column {column} (byte {at}): {what}")]
    Syntax {
        format: &'static str,
        at: usize,
        line: usize,
        column: usize,
        what: String,
    },
    #[error("{format} variations nested deeper than {MAX_NESTING} at byte {at}")]
    Nesting { format: &'static str, at: usize },
    /// A property (or header tag) whose value cannot be taken.
    #[error("{name}[{}]: {why}", crate::text::printable(.value))]
    Property {
        name: String,
        value: String,
        why: String,
    },
    /// Move `ply` (from 1) is illegal or does not read.
    #[error("illegal move {} at ply {ply}: {why}", crate::text::printable(.text))]
    Move {
        ply: usize,
        text: String,
        why: String,
    },
    /// The record holds no game.
    #[error("{format} record holds no game")]
    Empty { format: &'static str },
    /// Game `game` was asked of a collection of `games` games.
    #[error("no game {game}: the {format} record holds {games} game{}", if *.games == 1 { "" } else { "s" })]
    NoGame {
        format: &'static str,
        game: usize,
        games: usize,
    },
}

error_text!(derived: RecordError);

impl RecordError {
    /// A syntax error at the byte `at` of `text`, its line and column counted.
    pub fn syntax(format: &'static str, text: &str, at: usize, what: impl Into<String>) -> Self {
        let at = at.min(text.len());
        let before = text.get(..at).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        RecordError::Syntax {
            format,
            at,
            line,
            column,
            what: what.into(),
        }
    }

    /// A property error.
    pub fn property(name: &str, value: &str, why: impl Into<String>) -> Self {
        RecordError::Property {
            name: name.into(),
            value: value.into(),
            why: why.into(),
        }
    }

    /// Refuses a text longer than [`MAX_RECORD_BYTES`].
    pub fn check_size(format: &'static str, text: &str) -> Result<(), RecordError> {
        if text.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLarge {
                format,
                bytes: text.len(),
                max: MAX_RECORD_BYTES,
            });
        }
        Ok(())
    }
}
