//! The record commands every game answers (protocol/usi.md, "Game records"): `record` prints
//! the game so far from its start in the game's format; `loadrecord <path>` and
//! `loadrecordtext <text>` load a record with its whole history, all or nothing. The session
//! answers them for every game (`variant::Shared::record_command`) with the adapter's hooks;
//! the formats are the games' (`games::record::Recordable`).

use super::variant::SessionError;
use crate::files::{read_record_file, FileError};
use crate::games::record::{GameRecord, RecordError, Recordable, MAX_RECORD_BYTES};
use crate::protocol::Args;

/// The record commands, every game's.
pub const COMMANDS: [&str; 3] = ["record", "loadrecord", "loadrecordtext"];

/// Why a record command is refused.
#[derive(Debug, thiserror::Error)]
pub enum RecordCommandError {
    #[error(transparent)]
    File(FileError),
    /// A record that does not read (from the file `path`, when it came from one).
    #[error("{}{error}", .path.as_ref().map(|p| format!("'{p}': ")).unwrap_or_default())]
    Record {
        path: Option<String>,
        error: RecordError,
    },
}

crate::games::error_text!(derived: RecordCommandError);

impl From<RecordCommandError> for SessionError {
    fn from(e: RecordCommandError) -> Self {
        SessionError::game(e)
    }
}

impl From<RecordError> for SessionError {
    fn from(error: RecordError) -> Self {
        RecordCommandError::Record { path: None, error }.into()
    }
}

/// Reads the record of `loadrecord <path> [game N]` or `loadrecordtext <text> [game N]`
/// (`name`) with `R`'s reader: game N of a collection, the first without N. The session
/// replaces its game only when this and the replay succeed.
pub fn read<R: Recordable>(name: &str, args: Args) -> Result<GameRecord<R>, SessionError> {
    if name == "loadrecord" {
        let (path, n) = args.rest_and_game("expected a file path")?;
        let text = read_record_file(path, MAX_RECORD_BYTES).map_err(RecordCommandError::File)?;
        Ok(
            R::read_game(&text, n.unwrap_or(1)).map_err(|error| RecordCommandError::Record {
                path: Some(path.to_string()),
                error,
            })?,
        )
    } else {
        let (text, n) = args.rest_and_game("expected a record")?;
        Ok(R::read_game(text, n.unwrap_or(1))
            .map_err(|error| RecordCommandError::Record { path: None, error })?)
    }
}
