//! The record commands every game answers (protocol/usi.md, "Game records"): `record` prints
//! the game so far from its start in the game's format; `loadrecord <path>` and
//! `loadrecordtext <text>` load a record with its whole history, all or nothing. The session
//! answers them for every game (`variant::Shared::record_command`) with the adapter's hooks;
//! the formats are the games' (`games::record::Recordable`).

use super::variant::SessionError;
use crate::games::record::{GameRecord, RecordError, Recordable, MAX_RECORD_BYTES};
use crate::protocol::Args;

/// The record commands, every game's.
pub const COMMANDS: [&str; 3] = ["record", "loadrecord", "loadrecordtext"];

/// Why `loadrecord` cannot read a file (the path as given).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// A directory, a FIFO, a device...: `kind` says which.
    #[error("'{path}' is {kind}")]
    NotAFile { path: String, kind: &'static str },
    #[error("'{0}' is larger than {mib} MiB", mib = MAX_RECORD_BYTES >> 20)]
    TooLarge(String),
    #[error("cannot read '{path}': {why}")]
    Unreadable { path: String, why: String },
    #[error("'{0}' is not UTF-8 text")]
    NotUtf8(String),
}

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

/// Reads a record file: a regular file of at most [`MAX_RECORD_BYTES`], checked before it is
/// opened (a FIFO, a device or a directory is refused without blocking), opened non-blocking
/// in case it was swapped since, checked again once open, and read no further than the cap.
pub fn read_file(path: &str) -> Result<String, FileError> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| FileError::Unreadable {
        path: path.into(),
        why: e.to_string(),
    };
    let check = |meta: &std::fs::Metadata| -> Result<(), FileError> {
        if !meta.is_file() {
            let kind = if meta.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            };
            return Err(FileError::NotAFile {
                path: path.into(),
                kind,
            });
        }
        if meta.len() > MAX_RECORD_BYTES as u64 {
            return Err(FileError::TooLarge(path.into()));
        }
        Ok(())
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    check(&meta)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(unreadable)?;
    check(&file.metadata().map_err(unreadable)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(FileError::TooLarge(path.into()));
    }
    String::from_utf8(bytes).map_err(|_| FileError::NotUtf8(path.into()))
}

/// Reads the record of `loadrecord <path>` or `loadrecordtext <text>` (`name`) with `R`'s
/// reader; the session replaces its game only when this and the replay succeed.
pub fn read<R: Recordable>(name: &str, args: Args) -> Result<GameRecord<R>, SessionError> {
    if name == "loadrecord" {
        let path = args.rest("expected a file path")?.to_string();
        let text = read_file(&path).map_err(RecordCommandError::File)?;
        Ok(
            R::read_record(&text).map_err(|error| RecordCommandError::Record {
                path: Some(path),
                error,
            })?,
        )
    } else {
        let text = args.rest("expected a record")?;
        Ok(R::read_record(text)
            .map_err(|error| RecordCommandError::Record { path: None, error })?)
    }
}
