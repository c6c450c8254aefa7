//! `ryoshi match --resume`: the games of this match that its results file already holds, so that
//! a run cut short (a reboot, a killed job, the end of a session) goes on at the first game not
//! yet played instead of starting again at game 1 (as fastchess resumes from its saved state).

use super::game::Fixture;
use super::merge::{self, MergeError, Row};
use ahash::AHashMap;
use std::path::Path;

/// A game of the schedule already in the results file.
pub struct Kept {
    /// Its place in the schedule.
    pub job: usize,
    pub row: Row,
}

/// Why `--resume` refuses a results file.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// Game `game` of the file `name` is not this match's (`why`).
    #[error("{name}: game {game} {why}: the results of another match? (without --resume the run appends to them)")]
    OtherMatch {
        name: String,
        game: u64,
        why: String,
    },
}

/// What a kept game must share with the match that resumes it.
pub struct Match<'a> {
    /// The scheduled games (the shard's).
    pub jobs: &'a [Fixture],
    /// The engines, as the jobs number them.
    pub names: &'a [String],
    /// The variant's `USI_Variant` value.
    pub variant: &'a str,
    /// What its games are played under ([`super::results::conditions`]).
    pub conditions: &'a serde_json::Value,
}

/// The scheduled games of `of` that the results file at `path` already holds, and the notes on
/// lines set aside (a line cut off by a killed run); none when there is no such file. A game
/// number found twice counts once, as `--merge` counts it. A game that is not this match's
/// (another variant, pairing or opening, a number beyond the schedule) is an error: resuming
/// another match would mix two matches.
pub fn kept(path: &Path, of: &Match) -> Result<(Vec<Kept>, String), ResumeError> {
    let name = path.display().to_string();
    if std::fs::metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok((Vec::new(), String::new()));
    }
    let file = merge::read_path(path)?;
    let notes = file.notes();
    let rows = merge::union(vec![file.rows])?;
    // By game number: a lookup per kept game, where a search of the schedule made 100,000 kept
    // games take 10.8 s.
    let by_number: AHashMap<u64, usize> = of
        .jobs
        .iter()
        .enumerate()
        .map(|(i, job)| (job.game as u64, i))
        .collect();
    let mut kept = Vec::with_capacity(rows.len());
    for row in rows {
        let job = check(&row, of, &by_number).map_err(|why| ResumeError::OtherMatch {
            name: name.clone(),
            game: row.game,
            why: why.0,
        })?;
        kept.push(Kept { job, row });
    }
    Ok((kept, notes))
}

/// How a kept game differs from the game of this match with its number.
struct Mismatch(String);

impl From<String> for Mismatch {
    fn from(why: String) -> Mismatch {
        Mismatch(why)
    }
}

/// The place in the schedule of a kept game, or how it differs from the game of this match.
fn check(row: &Row, of: &Match, by_number: &AHashMap<u64, usize>) -> Result<usize, Mismatch> {
    let Some(&job) = by_number.get(&row.game) else {
        return Err(Mismatch("is not in this match's schedule".into()));
    };
    if row.variant.as_deref() != Some(of.variant) {
        let was = row.variant.as_deref().unwrap_or("(no variant)");
        return Err(format!("was a {was} game, this match plays {}", of.variant).into());
    }
    let fixture = &of.jobs[job];
    let (first, second) = (&of.names[fixture.first], &of.names[fixture.second]);
    if row.first != *first || row.second != *second {
        return Err(format!(
            "was {} vs {}, this match plays {first} vs {second}",
            row.first, row.second
        )
        .into());
    }
    let opening = fixture.opening.to_string();
    if row.opening.as_deref() != Some(opening.as_str()) {
        let was = row
            .opening
            .as_ref()
            .map_or("null".into(), |o| format!("{o:?}"));
        return Err(format!("started from {was}, this match from {opening}").into());
    }
    // Lines written before the conditions were recorded are taken as they are.
    if let Some(was) = row.conditions.as_ref().filter(|c| *c != of.conditions) {
        return Err(format!("was played under {was}, this match under {}", of.conditions).into());
    }
    Ok(job)
}
