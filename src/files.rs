//! The files a user names (records to load, openings, records to write): read within a cap and
//! written without blocking, whatever the path turns out to be (a FIFO, a device, a directory).

/// Why a file cannot be read (the path as given).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// A directory, a FIFO, a device...: `kind` says which.
    #[error("'{path}' is {kind}")]
    NotAFile { path: String, kind: &'static str },
    #[error("'{path}' is larger than {} MiB", .max >> 20)]
    TooLarge { path: String, max: usize },
    #[error("cannot read '{path}': {why}")]
    Unreadable { path: String, why: String },
    #[error("'{0}' is not UTF-8 text")]
    NotUtf8(String),
}

/// Reads a file a user named: a regular file of at most `max` bytes ([`open_regular`]), read no
/// further than the cap.
pub fn read_file(path: &str, max: usize) -> Result<String, FileError> {
    let bytes = read_bytes(path, max)?;
    String::from_utf8(bytes).map_err(|_| FileError::NotUtf8(path.into()))
}

/// [`read_file`] for a game record: bytes that are not UTF-8 (a Latin-1 or Shift_JIS name or
/// comment in an old SGF) become U+FFFD, as on stdin and in `loadrecordtext`, instead of
/// refusing the whole file (GNU Go loads such files).
pub fn read_record_file(path: &str, max: usize) -> Result<String, FileError> {
    let bytes = read_bytes(path, max)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

fn read_bytes(path: &str, max: usize) -> Result<Vec<u8>, FileError> {
    use std::io::Read;
    let file = open_regular(path, Some(max))?;
    let mut bytes = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::Unreadable {
            path: path.into(),
            why: e.to_string(),
        })?;
    if bytes.len() > max {
        return Err(FileError::TooLarge {
            path: path.into(),
            max,
        });
    }
    Ok(bytes)
}

/// Opens a file a user named for reading: a regular file (of at most `max` bytes, when given),
/// checked before it is opened (a FIFO, a device or a directory is refused without blocking),
/// opened non-blocking in case it was swapped since, and checked again once open.
pub fn open_regular(path: &str, max: Option<usize>) -> Result<std::fs::File, FileError> {
    let unreadable = |e: std::io::Error| FileError::Unreadable {
        path: path.into(),
        why: e.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    check_regular(path, &meta, max)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(unreadable)?;
    check_regular(path, &file.metadata().map_err(unreadable)?, max)?;
    Ok(file)
}

/// A regular file within `max` bytes, or why not.
pub fn check_regular(
    path: &str,
    meta: &std::fs::Metadata,
    max: Option<usize>,
) -> Result<(), FileError> {
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
    match max {
        Some(max) if meta.len() > max as u64 => Err(FileError::TooLarge {
            path: path.into(),
            max,
        }),
        _ => Ok(()),
    }
}

/// Writes a file a user named (GTP's `printsgf <file>`, NBoard's `record <path>`): a new file or
/// a regular one, replaced. A FIFO, a device or a directory is refused without blocking: checked
/// before it is opened, opened non-blocking (a FIFO with no reader fails at once), checked again
/// once open, and only then emptied and written.
pub fn write_file(path: &str, text: &str) -> std::io::Result<()> {
    use std::io::{Error, Write};
    let not_a_file = || Error::other("not a regular file");
    if std::fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
        return Err(not_a_file());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_a_file());
    }
    file.set_len(0)?;
    file.write_all(text.as_bytes())
}
