//! `ryoshi match --resume`: the games of this match that its results file already holds, so that
//! a run cut short (a reboot, a killed job, the end of a session) goes on at the first game not
//! yet played instead of starting again at game 1 (as fastchess resumes from its saved state).

use super::game::Fixture;
use super::merge::{self, MergeError, Row};
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
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
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

/// The scheduled games (`jobs`, engines named by `names`) that the results file at `path`
/// already holds, and the notes on lines set aside (a line cut off by a killed run); none when
/// there is no such file. A game number found twice counts once, as `--merge` counts it. A game
/// that is not this match's (another pairing, another opening, a number beyond the schedule) is
/// an error: resuming another match would mix two matches.
pub fn kept(
    path: &Path,
    jobs: &[Fixture],
    names: &[String],
) -> Result<(Vec<Kept>, String), ResumeError> {
    let name = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((Vec::new(), String::new()))
        }
        Err(error) => return Err(ResumeError::Unreadable { path: name, error }),
    };
    let file = merge::read_games(&text, &name)?;
    let notes = file.notes();
    let rows = merge::union(vec![file.rows])?;
    let mut kept = Vec::with_capacity(rows.len());
    for row in rows {
        let other = |why: String| ResumeError::OtherMatch {
            name: name.clone(),
            game: row.game,
            why,
        };
        let Some(job) = jobs.iter().position(|j| j.game as u64 == row.game) else {
            return Err(other("is not in this match's schedule".into()));
        };
        let fixture = &jobs[job];
        let (first, second) = (&names[fixture.first], &names[fixture.second]);
        if row.first != *first || row.second != *second {
            return Err(other(format!(
                "was {} vs {}, this match plays {first} vs {second}",
                row.first, row.second
            )));
        }
        let opening = fixture.opening.to_string();
        if row.line["opening"].as_str() != Some(opening.as_str()) {
            return Err(other(format!(
                "started from {}, this match from {opening}",
                row.line["opening"]
            )));
        }
        kept.push(Kept { job, row });
    }
    Ok((kept, notes))
}
