//! The collection file of a run: the records of all its games in one file of its game's format
//! (an SGF collection, a GGF file of one game a line, kifus one after another), as cutechess
//! writes one PGN. `<records>/<run>-games.<ext>` beside the per-game records.
//!
//! Each finished game is appended as it comes, so a killed run keeps what it played; the file
//! is then made whole, in game order and each game once, from the per-game records that the
//! results lines point at: at the end of a run, by `--resume` (the kept games first), and by
//! `--merge` and `--slurm` for the games of all the shards.

use super::merge::Row;
use super::results::OutputError;
use crate::files::read_record_file;
use crate::games::record::MAX_RECORD_BYTES;
use crate::games::rules::Rules;
use crate::registry::{Game, Visit};
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// How a game's records are collected: the per-game record's extension and what stands between
/// two games.
#[derive(Clone, Debug)]
pub struct Format {
    pub extension: String,
    between: &'static str,
}

impl Format {
    /// The record format of `game`; `None` for a game without one.
    pub fn of(game: Game) -> Option<Format> {
        struct Of;
        impl Visit for Of {
            type Output = Option<Format>;
            fn visit<R: Rules>(self) -> Option<Format> {
                let format = R::record_format()?;
                Some(Format {
                    extension: format.extension(),
                    between: format.between_games,
                })
            }
        }
        game.visit(Of)
    }

    /// A game's record text as an entry of the collection.
    fn entry(&self, text: &str) -> String {
        format!("{}\n{}", text.trim_end(), self.between)
    }

    /// The game's own-format record beside its text record (`...-game-00003.txt`).
    pub fn record_of(&self, text_record: &Path) -> PathBuf {
        text_record.with_extension(&self.extension)
    }
}

/// A game of a collection: its number and its text record's path (the results line's
/// `record`), beside which its own-format record is.
#[derive(Clone, Debug)]
pub struct Entry {
    pub game: u64,
    pub record: Option<PathBuf>,
}

impl Entry {
    /// The game a results line tells.
    pub fn of(row: &Row) -> Entry {
        Entry {
            game: row.game,
            record: row.record.as_ref().map(PathBuf::from),
        }
    }
}

/// The collection file's name for the run `run`.
pub fn name(run: &str, format: &Format) -> String {
    format!("{run}-games.{}", format.extension)
}

/// A run's collection file, open for appending.
pub struct Collection {
    pub path: PathBuf,
    format: Format,
    file: File,
    /// The last game number appended, and whether the numbers came in order so far.
    last: u64,
    in_order: bool,
}

fn write_error(path: &Path) -> impl Fn(std::io::Error) -> OutputError + '_ {
    move |error| OutputError::Write {
        path: path.to_path_buf(),
        error,
    }
}

impl Collection {
    /// Creates `dir/<run>-games.<ext>` (`run` with a shard's `-shardKofN`) holding the records of `kept` (the games a resumed run
    /// keeps), in game order; more are appended with [`Collection::append`].
    pub fn create(
        dir: &Path,
        run: &str,
        format: Format,
        kept: &[Entry],
    ) -> Result<(Collection, Missing), OutputError> {
        super::results::create_dir(dir)?;
        let path = dir.join(name(run, &format));
        let missing = write_whole(&path, &format, kept)?;
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|error| OutputError::Open {
                path: path.clone(),
                error,
            })?;
        let last = kept.iter().map(|e| e.game).max().unwrap_or(0);
        let collection = Collection {
            path,
            format,
            file,
            last,
            in_order: true,
        };
        Ok((collection, missing))
    }

    /// Appends game `game`'s record text with a single write.
    pub fn append(&mut self, game: u64, text: &str) -> Result<(), OutputError> {
        self.in_order &= game > self.last;
        self.last = self.last.max(game);
        self.file
            .write_all(self.format.entry(text).as_bytes())
            .map_err(write_error(&self.path))
    }

    /// Makes the file whole in game order from the records of `games` (sorted by number), when
    /// the games were appended out of order (concurrency, a resumed run's gaps).
    pub fn finish(self, games: &[Entry]) -> Result<Missing, OutputError> {
        if self.in_order {
            return Ok(Missing::default());
        }
        write_whole(&self.path, &self.format, games)
    }
}

/// The games whose own-format record could not be read (deleted, or written on a machine whose
/// folder is not this one): left out of the collection.
#[derive(Debug, Default, PartialEq)]
pub struct Missing {
    pub games: Vec<u64>,
}

impl Missing {
    /// `Collection: 2 games left out, their records not found: 4, 7` (empty when none).
    pub fn note(&self) -> String {
        if self.games.is_empty() {
            return String::new();
        }
        let list: Vec<String> = self.games.iter().map(u64::to_string).collect();
        format!(
            "Collection: {} game{} left out, {} record not found: {}\n",
            self.games.len(),
            if self.games.len() == 1 { "" } else { "s" },
            if self.games.len() == 1 {
                "its"
            } else {
                "their"
            },
            list.join(", ")
        )
    }
}

/// Writes the records of `games` (in the order given) to `path` whole: to a temporary name,
/// then renamed, so the collection is never seen half-written. A record is read one at a time
/// and written on (within the records' 16 MiB cap), so memory stays that of one game.
pub fn write_whole(path: &Path, format: &Format, games: &[Entry]) -> Result<Missing, OutputError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    // Two runs in one folder never share a temporary file.
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        file_name.unwrap_or_default(),
        std::process::id()
    ));
    let failed = write_error(path);
    let mut out = BufWriter::new(File::create(&tmp).map_err(&failed)?);
    let mut missing = Missing::default();
    for game in games {
        let own = game.record.as_deref().map(|p| format.record_of(p));
        let text = own.and_then(|p| read_record_file(&p.to_string_lossy(), MAX_RECORD_BYTES).ok());
        match text {
            Some(text) => out
                .write_all(format.entry(&text).as_bytes())
                .map_err(&failed)?,
            None => missing.games.push(game.game),
        }
    }
    out.into_inner()
        .map_err(|e| failed(e.into_error()))?
        .sync_all()
        .map_err(&failed)?;
    fs::rename(&tmp, path).map_err(&failed)?;
    Ok(missing)
}

/// Writes the collection of the games `games` (each once, in game order, as the readers count
/// them) into the folder of their records, under a new run name: `--merge` and `--slurm` make
/// the whole match's collection so. Its path and the note on games left out; `None` when the
/// games have no record format or no record path.
pub fn of_games(games: &[Row]) -> Result<Option<(PathBuf, Missing)>, OutputError> {
    let variant = games.iter().find_map(|r| r.variant.as_deref());
    let Some(format) = variant.and_then(Game::named).and_then(Format::of) else {
        return Ok(None);
    };
    let Some(dir) = games
        .iter()
        .find_map(|r| r.record.as_deref())
        .and_then(|p| Path::new(p).parent())
    else {
        return Ok(None);
    };
    let run = super::results::run_name(dir);
    let path = dir.join(name(&run, &format));
    let entries: Vec<Entry> = games.iter().map(Entry::of).collect();
    let missing = write_whole(&path, &format, &entries)?;
    Ok(Some((path, missing)))
}
