//! One SPRT for all the shards of a match: each shard (`--shard K/N`, by hand, by GNU parallel
//! or as a Slurm array task) reads its siblings' results files in the shared folder and stops
//! when the SPRT of the union of their games decides, as `--merge` would count them.
//!
//! The files are read as they grow: each read takes only the whole lines appended since the
//! last one, so a check costs the new games, not the match so far.

use super::config::{Shard, SprtConfig};
use super::merge::{self, MergeError, Row};
use super::stats::{Sprt, SprtState};
use super::summary::PairScore;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The results files of all `count` shards of the match whose results file is `base`.
pub fn shard_files(base: &Path, count: usize) -> Vec<PathBuf> {
    (1..=count)
        .map(|index| Shard { index, count }.results_path(base))
        .collect()
}

/// The match's results file from a shard's own (`results-shard2of4.jsonl` of shard 2/4 is
/// `results.jsonl`); `None` when `own` is not named as [`Shard::results_path`] names it.
pub fn base_of(own: &Path, shard: Shard) -> Option<PathBuf> {
    let name = own.file_name()?.to_str()?;
    let tag = format!("-shard{}of{}", shard.index, shard.count);
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if stem.ends_with(&tag) => (stem, Some(ext)),
        _ if name.ends_with(&tag) => (name, None),
        _ => return None,
    };
    let stem = stem.strip_suffix(&tag)?;
    let base = match ext {
        Some(ext) => format!("{stem}.{ext}"),
        None => stem.to_string(),
    };
    Some(own.with_file_name(base))
}

/// A results file read as it grows: the offset after its last whole line read.
struct Tail {
    path: PathBuf,
    offset: u64,
}

impl Tail {
    /// The games of the whole lines appended since the last read (none from a missing file).
    /// A line being written (no newline yet) waits for the next read; a line cut off by a
    /// killed task is set aside, as `--merge` sets it aside.
    fn read_new(&mut self) -> Result<Vec<Row>, MergeError> {
        let name = self.path.display().to_string();
        let Ok(mut file) = crate::files::open_regular(&self.path.to_string_lossy(), None) else {
            return Ok(Vec::new());
        };
        let mut bytes = Vec::new();
        let read = file
            .seek(SeekFrom::Start(self.offset))
            .and_then(|_| file.read_to_end(&mut bytes));
        if let Err(error) = read {
            return Err(MergeError::Read {
                name,
                line: 0,
                kind: error.kind(),
            });
        }
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
            return Ok(Vec::new());
        };
        self.offset += end as u64 + 1;
        Ok(merge::read_games_from(&bytes[..=end], &name)?.rows)
    }
}

/// The SPRT of the union of the shards' games, kept up to date by [`Joint::refresh`].
pub struct Joint {
    tails: Vec<Tail>,
    games: Vec<Row>,
    sprt: Option<Sprt>,
    state: SprtState,
}

impl Joint {
    /// Over the results files of all shards of `shard.count`, found from this shard's own file
    /// `own`; `None` when `own` is not a shard's file name (the shard then decides nothing).
    pub fn new(own: &Path, shard: Shard, sprt: SprtConfig) -> Option<Joint> {
        let base = base_of(own, shard)?;
        Some(Joint::over(&shard_files(&base, shard.count), Some(sprt)))
    }

    /// Over the results files `files`; without an SPRT it only gathers the games.
    pub fn over(files: &[PathBuf], sprt: Option<SprtConfig>) -> Joint {
        Joint {
            tails: files
                .iter()
                .map(|path| Tail {
                    path: path.clone(),
                    offset: 0,
                })
                .collect(),
            games: Vec::new(),
            sprt: sprt.map(Sprt::new),
            state: SprtState::Continue,
        }
    }

    /// Reads what the files gained and decides again. Two different games under one number are
    /// the error `--merge` gives (two matches in one folder).
    pub fn refresh(&mut self) -> Result<SprtState, MergeError> {
        let mut new = Vec::new();
        for tail in &mut self.tails {
            new.extend(tail.read_new()?);
        }
        if !new.is_empty() {
            let games = std::mem::take(&mut self.games);
            self.games = merge::union(vec![games, new])?;
            self.state = match (&self.sprt, self.pairs().as_slice()) {
                (Some(sprt), [pair]) => sprt.state(&pair.penta),
                _ => SprtState::Continue,
            };
        }
        Ok(self.state)
    }

    /// The union's games, by game number.
    pub fn games(&self) -> &[Row] {
        &self.games
    }

    /// The union's score per pair of engines, as `--merge` counts it.
    pub fn pairs(&self) -> Vec<PairScore> {
        merge::pair_scores(&self.games)
    }

    /// The decision as of the last [`Joint::refresh`].
    pub fn state(&self) -> SprtState {
        self.state
    }

    pub fn sprt(&self) -> Option<&Sprt> {
        self.sprt.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shards_file_names_its_match_file() {
        let shard = Shard { index: 2, count: 4 };
        for base in ["out/results.jsonl", "results", "a.b.jsonl"] {
            let own = shard.results_path(Path::new(base));
            assert_eq!(base_of(&own, shard), Some(PathBuf::from(base)), "{base}");
        }
        assert_eq!(base_of(Path::new("results.jsonl"), shard), None);
        let other = Shard { index: 3, count: 4 }.results_path(Path::new("r.jsonl"));
        assert_eq!(base_of(&other, shard), None);
    }

    #[test]
    fn only_whole_lines_are_read_and_each_once() {
        let dir = std::env::temp_dir().join(format!("ryoshi-joint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let line = |n: u32| format!(r#"{{"game":{n},"first":"x","second":"y","result":"first"}}"#);
        std::fs::write(&path, format!("{}\n{}", line(1), &line(2)[..10])).unwrap();
        let mut tail = Tail {
            path: path.clone(),
            offset: 0,
        };
        let numbers = |rows: Vec<Row>| rows.iter().map(|r| r.game).collect::<Vec<_>>();
        assert_eq!(numbers(tail.read_new().unwrap()), [1]);
        assert_eq!(numbers(tail.read_new().unwrap()), [] as [u64; 0]);
        // The line being written is finished, and another follows.
        let text = format!("{}\n{}\n{}\n", line(1), line(2), line(3));
        std::fs::write(&path, text).unwrap();
        assert_eq!(numbers(tail.read_new().unwrap()), [2, 3]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
