//! `ryoshi match --merge a.jsonl b.jsonl ...`: the summary, Elo and SPRT of the union of results
//! files, such as the shards of one match played on several machines (`--shard K/N`).

use super::config::SprtConfig;
use super::error::MatchError;
use super::stats::Sprt;
use super::{summary_text, PairScore, Summary, Verdict};
use crate::files::{self, FileError};
use crate::protocol::lines;
use ahash::AHashMap;
use serde::Deserialize;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// The longest results line read, in bytes. A line holds a game's moves and their times, some
/// 20 bytes a ply, so this is far beyond any game `max_plies` lets a match play; a longer line
/// is set aside without being held.
pub const MAX_RESULTS_LINE: usize = 16 << 20;

/// One game as the results file tells it: the fields the readers use, not the moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub game: u64,
    pub first: String,
    pub second: String,
    pub result: Verdict,
    /// The game's `USI_Variant` value (`None` in a line without one).
    pub variant: Option<String>,
    /// The opening as an openings-file line.
    pub opening: Option<String>,
    /// The opening's index (the round); `None` in older files.
    pub opening_index: Option<u64>,
    /// The GTP engines' `final_score` checks: (engine, agrees with the referee).
    pub checks: Vec<(String, bool)>,
    /// What the game was played under (the game's own options, time control, ply limit); `None`
    /// in older files.
    pub conditions: Option<serde_json::Value>,
    /// The path of the game's text record (`None` when it could not be written).
    pub record: Option<String>,
}

impl Row {
    /// The GTP engines' `final_score` checks the line records: (engine, agrees with the referee).
    pub fn final_scores(&self) -> impl Iterator<Item = (&str, bool)> {
        self.checks.iter().map(|(e, agrees)| (e.as_str(), *agrees))
    }
}

/// What [`Row`] is read from: every other field of a line (the moves, their times) is skipped
/// by the parser without being kept.
#[derive(Deserialize)]
struct Fields {
    game: Option<u64>,
    first: Option<String>,
    second: Option<String>,
    result: Option<String>,
    variant: Option<String>,
    opening: Option<String>,
    opening_index: Option<u64>,
    final_scores: Option<Vec<Check>>,
    conditions: Option<serde_json::Value>,
    record: Option<String>,
}

#[derive(Deserialize)]
struct Check {
    engine: Option<String>,
    agrees: Option<bool>,
}

/// Why results files cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A results file that cannot be opened, or is no regular file (a FIFO would block).
    #[error(transparent)]
    File(#[from] FileError),
    /// Line `line` (from 1) of the file `name` is not JSON (or not a game's JSON).
    #[error("{name}: line {line}: {error}")]
    Json {
        name: String,
        line: usize,
        error: serde_json::Error,
    },
    /// Line `line` is not UTF-8 from byte `at` (a line cut inside a character).
    #[error("{name}: line {line}: not UTF-8 text at byte {at}")]
    NotUtf8 {
        name: String,
        line: usize,
        at: usize,
    },
    /// The file could not be read at line `line` (a disk error): its games are not all known.
    #[error("{name}: line {line}: cannot be read: {kind}")]
    Read {
        name: String,
        line: usize,
        kind: std::io::ErrorKind,
    },
    /// Line `line` is longer than [`MAX_RESULTS_LINE`].
    #[error("{name}: line {line}: longer than {} MiB", MAX_RESULTS_LINE >> 20)]
    TooLong { name: String, line: usize },
    /// The line has no `key` of the right type.
    #[error("{name}: line {line}: no `{key}`")]
    Missing {
        name: String,
        line: usize,
        key: &'static str,
    },
    #[error("{name}: line {line}: bad result `{result}`")]
    BadResult {
        name: String,
        line: usize,
        result: String,
    },
    /// Game `game` was played by `first` and `second` in one file, `other` in another.
    #[error(
        "game {game} appears with different engines ({} vs {}, {} vs {}): results of different matches?",
        .seen[0], .seen[1], .other[0], .other[1]
    )]
    DifferentEngines {
        game: u64,
        seen: [String; 2],
        other: [String; 2],
    },
    /// Game `game` started from one opening in one file, another in another.
    #[error("game {game} appears with different openings ({seen:?}, {other:?}): results of different matches (another seed or openings file?)")]
    DifferentOpenings {
        game: u64,
        seen: String,
        other: String,
    },
}

crate::games::error_text!(derived: MergeError);

/// Reads the games of one results file; `name` is used in errors. Every line must be a game.
pub fn read(text: &str, name: &str) -> Result<Vec<Row>, MergeError> {
    let file = read_games(text, name)?;
    match file.set_aside.into_iter().next() {
        Some(error) => Err(error),
        None => Ok(file.rows),
    }
}

/// Reads the games of one results file with each whole line, for the readers that want every
/// field (the tuner); every line must be a game.
pub fn read_values(text: &str, name: &str) -> Result<Vec<(Row, serde_json::Value)>, MergeError> {
    let mut games = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let row = match parse_line(line.as_bytes(), name, i + 1) {
            Line::Blank => continue,
            Line::Game(row) => row,
            Line::SetAside(error) | Line::Bad(error) | Line::Unread(error) => return Err(error),
        };
        let value = serde_json::from_str(line).map_err(|error| MergeError::Json {
            name: name.into(),
            line: i + 1,
            error,
        })?;
        games.push((row, value));
    }
    Ok(games)
}

/// A results file as the runner reads it back: its games, and the lines set aside.
pub struct ResultsText {
    pub rows: Vec<Row>,
    /// Lines that are not JSON ([`MergeError::Json`]), not UTF-8 or too long: a line cut off by
    /// a killed run, set aside instead of refusing every game of the file.
    pub set_aside: Vec<MergeError>,
}

impl ResultsText {
    /// One line per line set aside: `Set aside: results.jsonl: line 4: EOF while parsing ...`.
    pub fn notes(&self) -> String {
        self.set_aside
            .iter()
            .map(|e| format!("Set aside (cut off by a killed run?): {e}\n"))
            .collect()
    }
}

/// What one line of a results file is.
enum Line {
    Blank,
    Game(Row),
    /// Not a line at all (not JSON, not UTF-8, too long): a line cut off by a killed run.
    SetAside(MergeError),
    /// JSON, but not a game.
    Bad(MergeError),
    /// The file could not be read on (the last item).
    Unread(MergeError),
}

/// Line `number` (from 1) of the file `name`, as bytes without its `\n`.
fn parse_line(bytes: &[u8], name: &str, number: usize) -> Line {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            return Line::SetAside(MergeError::NotUtf8 {
                name: name.into(),
                line: number,
                at: e.valid_up_to(),
            })
        }
    };
    let json = |error| MergeError::Json {
        name: name.into(),
        line: number,
        error,
    };
    let fields: Fields = match serde_json::from_str(text) {
        Ok(fields) => fields,
        Err(e) if e.is_syntax() || e.is_eof() => return Line::SetAside(json(e)),
        Err(e) => return Line::Bad(json(e)),
    };
    match row(fields, name, number) {
        Ok(row) => Line::Game(row),
        Err(e) => Line::Bad(e),
    }
}

/// The game a line's fields tell, or the field that is missing or wrong.
fn row(fields: Fields, name: &str, number: usize) -> Result<Row, MergeError> {
    let missing = |key: &'static str| MergeError::Missing {
        name: name.into(),
        line: number,
        key,
    };
    let game = fields.game.ok_or_else(|| missing("game"))?;
    let first = fields.first.ok_or_else(|| missing("first"))?;
    let second = fields.second.ok_or_else(|| missing("second"))?;
    let result = fields.result.ok_or_else(|| missing("result"))?;
    let Some(verdict) = Verdict::parse(&result) else {
        return Err(MergeError::BadResult {
            name: name.into(),
            line: number,
            result,
        });
    };
    let checks = fields.final_scores.unwrap_or_default().into_iter();
    Ok(Row {
        game,
        first,
        second,
        result: verdict,
        variant: fields.variant,
        opening: fields.opening,
        opening_index: fields.opening_index,
        checks: checks
            .filter_map(|c| Some((c.engine?, c.agrees == Some(true))))
            .collect(),
        conditions: fields.conditions,
        record: fields.record,
    })
}

/// The lines of a results file, read one at a time within [`MAX_RESULTS_LINE`].
struct Lines<R> {
    input: R,
    buf: Vec<u8>,
    number: usize,
    name: String,
    failed: bool,
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.failed {
            return None;
        }
        let read = lines::read_line(&mut self.input, &mut self.buf, MAX_RESULTS_LINE);
        self.number += 1;
        match read {
            lines::Read::Eof => None,
            lines::Read::Failed(kind) => {
                self.failed = true;
                Some(Line::Unread(MergeError::Read {
                    name: self.name.clone(),
                    line: self.number,
                    kind,
                }))
            }
            lines::Read::TooLong => Some(Line::SetAside(MergeError::TooLong {
                name: self.name.clone(),
                line: self.number,
            })),
            lines::Read::Line => Some(parse_line(&self.buf, &self.name, self.number)),
        }
    }
}

fn lines_of<R: BufRead>(input: R, name: &str) -> Lines<R> {
    Lines {
        input,
        buf: Vec::new(),
        number: 0,
        name: name.into(),
        failed: false,
    }
}

/// Reads the games of one results file, setting aside the lines that are not JSON, not UTF-8
/// or too long (a line cut off by a killed run); a JSON line that is not a game is still an
/// error.
pub fn read_games(text: &str, name: &str) -> Result<ResultsText, MergeError> {
    read_games_from(text.as_bytes(), name)
}

/// [`read_games`] from a reader, a line at a time: what is held is the games' fields and one
/// line, never the whole file.
pub fn read_games_from(input: impl BufRead, name: &str) -> Result<ResultsText, MergeError> {
    let mut rows = Vec::new();
    let mut set_aside = Vec::new();
    for line in lines_of(input, name) {
        match line {
            Line::Blank => {}
            Line::Game(row) => rows.push(row),
            Line::SetAside(error) => set_aside.push(error),
            Line::Bad(error) | Line::Unread(error) => return Err(error),
        }
    }
    Ok(ResultsText { rows, set_aside })
}

/// The results file at `path`, read a line at a time. It must be a regular file: a FIFO or a
/// device is refused before it could block the runner.
pub fn read_path(path: &Path) -> Result<ResultsText, MergeError> {
    let name = path.display().to_string();
    let file = files::open_regular(&path.to_string_lossy(), None)?;
    read_games_from(BufReader::new(file), &name)
}

/// How many lines of a results file hold a result: the lines that are neither blank nor set
/// aside.
pub fn count_results(input: impl BufRead) -> usize {
    lines_of(input, "")
        .filter(|line| matches!(line, Line::Game(_) | Line::Bad(_)))
        .count()
}

/// The union of the files' games in game order. A game number seen twice must be the same game
/// (a shard run twice, a run repeated without `--resume`) and counts once; two different games
/// with one number (other engines or another opening) are an error (different matches).
pub fn union(files: Vec<Vec<Row>>) -> Result<Vec<Row>, MergeError> {
    let mut by_number: AHashMap<u64, Row> = AHashMap::default();
    for game in files.into_iter().flatten() {
        let Some(seen) = by_number.get(&game.game) else {
            by_number.insert(game.game, game);
            continue;
        };
        if seen.first != game.first || seen.second != game.second {
            return Err(MergeError::DifferentEngines {
                game: game.game,
                seen: [seen.first.clone(), seen.second.clone()],
                other: [game.first, game.second],
            });
        }
        if let (Some(a), Some(b)) = (&seen.opening, &game.opening) {
            if a != b {
                return Err(MergeError::DifferentOpenings {
                    game: game.game,
                    seen: a.clone(),
                    other: b.clone(),
                });
            }
        }
    }
    let mut games: Vec<Row> = by_number.into_values().collect();
    games.sort_by_key(|g| g.game);
    Ok(games)
}

/// A pair of engines, its names in sorted order.
type Pair<'a> = (&'a str, &'a str);

/// A pair's games of one round: the lowest game number, that game's first player, how many.
type Round<'a> = (u64, &'a str, u32);

fn pair_key(g: &Row) -> Pair<'_> {
    let (x, y) = (g.first.as_str(), g.second.as_str());
    if x <= y {
        (x, y)
    } else {
        (y, x)
    }
}

/// Per pair, the engine listed earlier in the match's `engines`, from the games' own `first`
/// fields. Each round (opening) a pair plays twice, the earlier-listed engine first in the
/// lower-numbered game (alone in a last round of one game): so the first player of the lower
/// game of the pair's earliest round held whole tells it, and without a whole round, the first
/// player of the pair's lowest-numbered game. Game numbers alone cannot: how they fall on odd
/// and even depends on the number of pairs and on `games`.
fn earlier_listed(games: &[Row]) -> AHashMap<Pair<'_>, &str> {
    let mut rounds: AHashMap<(Pair, u64), Round> = AHashMap::default();
    let mut lowest: AHashMap<Pair, (u64, &str)> = AHashMap::default();
    for g in games {
        let key = pair_key(g);
        let low = lowest.entry(key).or_insert((g.game, &g.first));
        if g.game < low.0 {
            *low = (g.game, &g.first);
        }
        if let Some(round) = g.opening_index {
            let r = rounds.entry((key, round)).or_insert((g.game, &g.first, 0));
            r.2 += 1;
            if g.game < r.0 {
                (r.0, r.1) = (g.game, &g.first);
            }
        }
    }
    let mut whole: AHashMap<Pair, (u64, &str)> = AHashMap::default();
    for ((key, round), (_, first, count)) in rounds {
        if count >= 2 && whole.get(&key).is_none_or(|&(r, _)| round < r) {
            whole.insert(key, (round, first));
        }
    }
    lowest
        .into_iter()
        .map(|(key, (_, first))| (key, whole.get(&key).map_or(first, |&(_, f)| f)))
        .collect()
}

/// Per pair, the tally from the earlier-listed engine's side, as the match printed it, in the
/// order the pairs first appear in `games`.
pub fn pair_scores(games: &[Row]) -> Vec<PairScore> {
    let earlier = earlier_listed(games);
    let mut pairs: Vec<PairScore> = Vec::new();
    for g in games {
        let index = pairs.iter().position(|p| {
            (p.a == g.first && p.b == g.second) || (p.a == g.second && p.b == g.first)
        });
        let index = index.unwrap_or_else(|| {
            let a_is_first = earlier.get(&pair_key(g)).is_none_or(|&a| a == g.first);
            let (a, b) = if a_is_first {
                (&g.first, &g.second)
            } else {
                (&g.second, &g.first)
            };
            pairs.push(PairScore::new(a, b));
            pairs.len() - 1
        });
        let p = &mut pairs[index];
        let a_first = p.a == g.first;
        // A line without its opening's index (an older file) counts by game only.
        match g.opening_index {
            Some(opening) => p.add(g.result, a_first, opening as usize),
            None => p.tally.add(g.result, a_first),
        }
    }
    pairs
}

/// Reads, merges and summarises `paths`; writes the summary to `out`.
pub fn run(paths: &[String], sprt: SprtConfig, out: &mut dyn Write) -> Result<Summary, MatchError> {
    let mut files = Vec::new();
    let mut notes = String::new();
    for path in paths {
        let file = read_path(Path::new(path))?;
        notes.push_str(&file.notes());
        files.push(file.rows);
    }
    let read_games: usize = files.iter().map(Vec::len).sum();
    let games = union(files)?;
    let pairs = pair_scores(&games);
    let sprt = (pairs.len() == 1).then(|| Sprt::new(sprt));
    let summary = Summary {
        finished: games.len(),
        scheduled: games.len(),
        interrupted: false,
        stopped: false,
        sprt: sprt
            .as_ref()
            .zip(pairs.first())
            .map(|(s, p)| s.state(&p.penta)),
        pairs,
    };
    let _ = write!(out, "{notes}");
    let _ = writeln!(
        out,
        "Merged {} games from {} files ({} duplicates skipped)",
        games.len(),
        paths.len(),
        read_games - games.len()
    );
    let _ = write!(out, "{}", collection_note(&games));
    let _ = write!(out, "{}", summary_text(&summary, sprt.as_ref()));
    let _ = out.flush();
    Ok(summary)
}

/// Writes the collection of the merged games beside their records (each game once, in game
/// order) and says where: `Collection: <path> (N games)`. A collection that cannot be written
/// is said so, and the merge's summary stands.
fn collection_note(games: &[Row]) -> String {
    match super::collection::of_games(games) {
        Ok(Some((path, missing))) => format!(
            "Collection: {} ({} games)\n{}",
            path.display(),
            games.len() - missing.games.len(),
            missing.note()
        ),
        Ok(None) => String::new(),
        Err(e) => format!("Collection: not written: {e}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::config::Config;
    use crate::matches::opening::Opening;
    use crate::matches::schedule;

    /// The rows of a whole match of `engines` (named `e0`, `e1`, ...) and `games` games, as its
    /// schedule deals them, each won by its first player.
    fn match_rows(engines: usize, games: u32) -> Vec<Row> {
        let mut text = String::new();
        let names: Vec<String> = (0..engines).map(|i| format!("e{i}")).collect();
        for name in &names {
            text.push_str(&format!("[[engine]]\nname = \"{name}\"\ncmd = \"x\"\n\n"));
        }
        let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        text.push_str(&format!(
            "[match]\nvariant = \"othello\"\nengines = [{}]\ngames = {games}\nnodes = 1\n",
            list.join(", ")
        ));
        let config = Config::read(&text, Path::new("")).unwrap();
        let openings = schedule::deal(vec![Opening::startpos()], (games as usize).div_ceil(2));
        schedule::schedule(&config, &openings)
            .iter()
            .map(|job| Row {
                game: job.game as u64,
                first: names[job.first].clone(),
                second: names[job.second].clone(),
                result: Verdict::Win(crate::matches::Side::First),
                variant: Some("othello".into()),
                opening: Some("startpos".into()),
                opening_index: Some(job.opening_index as u64),
                checks: Vec::new(),
                conditions: None,
                record: None,
            })
            .collect()
    }

    /// The pairs as `pair_scores` orients them.
    fn sides(rows: &[Row]) -> Vec<(String, String)> {
        let pairs = pair_scores(rows);
        pairs.into_iter().map(|p| (p.a, p.b)).collect()
    }

    #[test]
    fn pairs_are_scored_from_the_earlier_listed_engine_whatever_the_numbering() {
        // Three engines, one game: games 1, 2 and 3 are each pair's only game, all with the
        // earlier-listed engine first; the odd-game rule read game 2 as e2 vs e0.
        for engines in 2..=4 {
            let want: Vec<(String, String)> =
                schedule::pairs(engines, crate::matches::config::Tournament::RoundRobin)
                    .into_iter()
                    .map(|(a, b)| (format!("e{a}"), format!("e{b}")))
                    .collect();
            for games in 1..=5 {
                let rows = match_rows(engines, games);
                assert_eq!(sides(&rows), want, "{engines} engines, {games} games");
                // A shard's slice (every other game pair) tells it as well.
                let shard: Vec<Row> = rows
                    .iter()
                    .filter(|r| r.opening_index.unwrap() % 2 == 1)
                    .cloned()
                    .collect();
                let seen = sides(&shard);
                assert!(seen.iter().all(|p| want.contains(p)), "{seen:?}");
            }
        }
    }

    #[test]
    fn one_number_with_two_openings_is_two_matches() {
        let a = r#"{"game":1,"first":"x","second":"y","result":"first","opening":"startpos"}"#;
        let b =
            r#"{"game":1,"first":"x","second":"y","result":"draw","opening":"startpos moves f5"}"#;
        let files = vec![read(a, "a").unwrap(), read(b, "b").unwrap()];
        let error = union(files).unwrap_err().to_string();
        assert!(error.contains("different openings"), "{error}");
        // The same game twice (a shard run again) counts once.
        let files = vec![read(a, "a").unwrap(), read(a, "b").unwrap()];
        assert_eq!(union(files).unwrap().len(), 1);
    }

    #[test]
    fn lines_that_are_not_lines_are_set_aside() {
        let good = r#"{"game":1,"first":"x","second":"y","result":"first","final_scores":[{"engine":"x","agrees":true}]}"#;
        let mut bytes = format!("{good}\n").into_bytes();
        bytes.extend(std::iter::repeat_n(b' ', MAX_RESULTS_LINE + 1));
        bytes.extend_from_slice(b"\n{\"game\":2,\"first\":\"x\xc3\n");
        bytes.extend_from_slice(br#"{"game":3,"first":"x","second":"y","result":"draw"}"#);
        let file = read_games_from(&bytes[..], "r").unwrap();
        let numbers: Vec<u64> = file.rows.iter().map(|r| r.game).collect();
        assert_eq!(numbers, [1, 3]);
        assert_eq!(
            file.rows[0].final_scores().collect::<Vec<_>>(),
            [("x", true)]
        );
        let notes = file.notes();
        assert!(notes.contains("r: line 2: longer than 16 MiB"), "{notes}");
        assert!(
            notes.contains("r: line 3: not UTF-8 text at byte 20"),
            "{notes}"
        );
        assert_eq!(count_results(&bytes[..]), 2);
        // A JSON line that is not a game is still an error.
        let error = read_games_from(&br#"{"game":"one"}"#[..], "r")
            .err()
            .unwrap();
        assert!(matches!(error, MergeError::Json { line: 1, .. }), "{error}");
    }

    #[test]
    fn a_file_that_cannot_be_read_on_is_no_shorter_file() {
        let ok = b"{\"game\":1,\"first\":\"x\",\"second\":\"y\",\"result\":\"first\"}\n{\"ga";
        let error = read_games_from(BufReader::new(lines::Failing { ok }), "r")
            .err()
            .unwrap();
        assert_eq!(error.to_string(), "r: line 2: cannot be read: other error");
        assert_eq!(count_results(BufReader::new(lines::Failing { ok })), 1);
    }
}
