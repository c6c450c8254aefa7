//! `ryoshi match --merge a.jsonl b.jsonl ...`: the summary, Elo and SPRT of the union of results
//! files, such as the shards of one match played on several machines (`--shard K/N`).

use super::config::SprtConfig;
use super::error::MatchError;
use super::stats::Sprt;
use super::{summary_text, PairScore, Summary, Verdict};
use ahash::AHashMap;
use std::io::Write;

/// One game as the results file tells it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub game: u64,
    pub first: String,
    pub second: String,
    pub result: Verdict,
    /// The whole line, for comparing games between files.
    pub line: serde_json::Value,
}

impl Row {
    /// The GTP engines' `final_score` checks the line records: (engine, agrees with the referee).
    pub fn final_scores(&self) -> impl Iterator<Item = (&str, bool)> {
        let checks = self.line["final_scores"].as_array().into_iter().flatten();
        checks.filter_map(|c| Some((c["engine"].as_str()?, c["agrees"] == true)))
    }
}

/// Why results files cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Line `line` (from 1) of the file `name` is not JSON.
    #[error("{name}: line {line}: {error}")]
    Json {
        name: String,
        line: usize,
        error: serde_json::Error,
    },
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

/// A results file as the runner reads it back: its games, and the lines set aside.
pub struct ResultsText {
    pub rows: Vec<Row>,
    /// Lines that are not JSON ([`MergeError::Json`]): a line cut off by a killed run, set aside
    /// instead of refusing every game of the file.
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

/// Reads the games of one results file, setting aside the lines that are not JSON (a line cut
/// off by a killed run); a JSON line that is not a game is still an error.
pub fn read_games(text: &str, name: &str) -> Result<ResultsText, MergeError> {
    let mut games = Vec::new();
    let mut set_aside = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = i + 1;
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(error) => {
                set_aside.push(MergeError::Json {
                    name: name.into(),
                    line: number,
                    error,
                });
                continue;
            }
        };
        let missing = |key: &'static str| MergeError::Missing {
            name: name.into(),
            line: number,
            key,
        };
        let text_of = |key: &'static str| {
            value[key]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| missing(key))
        };
        let game = value["game"].as_u64().ok_or_else(|| missing("game"))?;
        let (first, second) = (text_of("first")?, text_of("second")?);
        let result = text_of("result")?;
        let Some(verdict) = Verdict::parse(&result) else {
            return Err(MergeError::BadResult {
                name: name.into(),
                line: number,
                result,
            });
        };
        games.push(Row {
            game,
            first,
            second,
            result: verdict,
            line: value.clone(),
        });
    }
    Ok(ResultsText {
        rows: games,
        set_aside,
    })
}

/// The union of the files' games in game order. A game number seen twice must be the same game
/// (a shard run twice); two different games with one number are an error (different matches).
pub fn union(files: Vec<Vec<Row>>) -> Result<Vec<Row>, MergeError> {
    let mut by_number: AHashMap<u64, Row> = AHashMap::default();
    for game in files.into_iter().flatten() {
        match by_number.get(&game.game) {
            Some(seen) if seen.first != game.first || seen.second != game.second => {
                return Err(MergeError::DifferentEngines {
                    game: game.game,
                    seen: [seen.first.clone(), seen.second.clone()],
                    other: [game.first, game.second],
                });
            }
            Some(_) => {}
            None => {
                by_number.insert(game.game, game);
            }
        }
    }
    let mut games: Vec<Row> = by_number.into_values().collect();
    games.sort_by_key(|g| g.game);
    Ok(games)
}

/// Per pair, the tally from the earlier-listed engine's side, as the match printed it. The
/// schedule gives each round two games per pair, the earlier-listed engine first in the
/// odd-numbered one, so any shard tells the order: the first player of an odd game, the second
/// of an even one.
pub fn pair_scores(games: &[Row]) -> Vec<PairScore> {
    let mut pairs: Vec<PairScore> = Vec::new();
    for g in games {
        let index = pairs.iter().position(|p| {
            (p.a == g.first && p.b == g.second) || (p.a == g.second && p.b == g.first)
        });
        let index = index.unwrap_or_else(|| {
            let (a, b) = if g.game % 2 == 1 {
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
        match g.line["opening_index"].as_u64() {
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
        let text = std::fs::read_to_string(path).map_err(|error| MatchError::Unreadable {
            path: path.into(),
            error,
        })?;
        let file = read_games(&text, path)?;
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
    let _ = write!(out, "{}", summary_text(&summary, sprt.as_ref()));
    let _ = out.flush();
    Ok(summary)
}
