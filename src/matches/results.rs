//! What a finished game leaves behind: one JSON line in the results file, appended and flushed at
//! once, and a human-readable game record.

use super::config::Config;
use super::game::FinishedGame;
use super::referee::Verdict;
use serde_json::json;
use std::fmt::Write as _;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why the results file or a game record cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot create {}: {error}", .dir.display())]
    CreateDir { dir: PathBuf, error: std::io::Error },
    #[error("cannot open {}: {error}", .path.display())]
    Open {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The results path names a FIFO, a device or a folder: opening it could block the runner,
    /// and it could not be read back.
    #[error("'{}' is not a regular file (the results file must be one)", .path.display())]
    NotAFile { path: PathBuf },
    /// Another run holds the results file (its lock, taken when it opened it).
    #[error("{} is in use by another run of the match", .path.display())]
    InUse { path: PathBuf },
    #[error("cannot write {}: {error}", .path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

crate::games::error_text!(derived: OutputError);

pub(super) fn create_dir(dir: &Path) -> Result<(), OutputError> {
    fs::create_dir_all(dir).map_err(|error| OutputError::CreateDir {
        dir: dir.to_path_buf(),
        error,
    })
}

/// The results file, opened for appending.
pub struct ResultsFile {
    file: File,
    path: PathBuf,
    /// Its last line had no newline (a run killed while writing it) and was ended with one, so
    /// that no result is written onto it; readers set it aside.
    pub ended_cut_line: bool,
}

impl ResultsFile {
    /// Opens (or creates) the file for appending. A last line without its newline is ended
    /// first: the next result then starts a line of its own. Anything but a regular file is
    /// refused without blocking: checked before it is opened, opened non-blocking (a FIFO
    /// swapped in since then does not wait for a reader), and checked again once open.
    pub fn open(path: &Path) -> Result<ResultsFile, OutputError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_dir(dir)?;
        }
        let not_a_file = || OutputError::NotAFile {
            path: path.to_path_buf(),
        };
        if fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
            return Err(not_a_file());
        }
        let open = |error| OutputError::Open {
            path: path.to_path_buf(),
            error,
        };
        let mut options = OpenOptions::new();
        options.create(true).read(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
        let file = options.open(path).map_err(open)?;
        if !file.metadata().map_err(open)?.is_file() {
            return Err(not_a_file());
        }
        // One run at a time appends (two would play the same games under the same numbers).
        // A file system without locks is no reason to refuse the run.
        if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock() {
            return Err(OutputError::InUse {
                path: path.to_path_buf(),
            });
        }
        let mut results = ResultsFile {
            file,
            path: path.to_path_buf(),
            ended_cut_line: false,
        };
        if last_byte(&results.file).is_some_and(|b| b != b'\n') {
            results.write_synced(b"\n")?;
            results.ended_cut_line = true;
        }
        Ok(results)
    }

    /// How many results the file already holds (one per non-empty line, a line set aside
    /// excepted), read a line at a time.
    pub fn earlier_results(&self) -> usize {
        use std::io::{Seek, SeekFrom};
        let mut file = &self.file;
        if file.seek(SeekFrom::Start(0)).is_err() {
            return 0;
        }
        // Appends go to the end whatever the position read here.
        super::merge::count_results(std::io::BufReader::new(file))
    }

    fn write_synced(&mut self, bytes: &[u8]) -> Result<(), OutputError> {
        self.file
            .write_all(bytes)
            .and_then(|_| self.file.sync_data())
            .map_err(|error| OutputError::Write {
                path: self.path.clone(),
                error,
            })
    }

    /// Appends one line with a single write, then flushes it to the file.
    pub fn append(&mut self, line: &str) -> Result<(), OutputError> {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.write_synced(&bytes)
    }
}

/// The file's last byte; `None` for an empty or unreadable file.
fn last_byte(file: &File) -> Option<u8> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::End(-1)).ok()?;
    let mut byte = [0u8];
    file.read_exact(&mut byte).ok()?;
    Some(byte[0])
}

/// The JSON line for a finished game.
pub fn json_line(config: &Config, game: &FinishedGame, record: Option<&Path>) -> String {
    let mut time_ms = [0u64; 2];
    for m in &game.moves {
        time_ms[m.side.index()] += m.ms;
    }
    let value = json!({
        "game": game.job.game,
        "variant": config.play.variant.as_str(),
        "first": game.first,
        "second": game.second,
        "result": game.end.verdict.as_str(),
        "reason": game.end.reason.as_str(),
        "detail": game.detail,
        "plies": game.plies(),
        "opening": game.job.opening.to_string(),
        "opening_index": game.job.opening_index,
        "opening_plies": game.job.opening.moves.len(),
        "moves": game.moves.iter().map(|m| m.mv.as_str()).collect::<Vec<_>>(),
        "move_ms": game.moves.iter().map(|m| m.ms).collect::<Vec<_>>(),
        "time_ms": time_ms,
        "final_position": game.final_position,
        "record": record.map(|p| p.display().to_string()),
        "conditions": conditions(config),
    });
    // Only games with a score carry it (and the GTP engines' check of it), so lines of other
    // games keep their form.
    let mut value = value;
    if let (Some(score), Some(map)) = (game.score, value.as_object_mut()) {
        map.insert("score".into(), json!(crate::text::gtp_score(score)));
        if !game.engine_scores.is_empty() {
            let checks: Vec<serde_json::Value> = game
                .engine_scores
                .iter()
                .map(|e| json!({"engine": e.engine, "final_score": e.said, "agrees": e.agrees}))
                .collect();
            map.insert("final_scores".into(), json!(checks));
        }
    }
    value.to_string()
}

/// What a game is played under beyond its opening and engines, as its results line records it
/// and `--resume` checks it: the game's own options (each under its key, the game's default when
/// the configuration sets none), the time control (the limits set) and the ply limit.
pub fn conditions(config: &Config) -> serde_json::Value {
    let play = &config.play;
    let mut map = serde_json::Map::new();
    let mut put = |key: &str, value: serde_json::Value| {
        if !value.is_null() {
            map.insert(key.into(), value);
        }
    };
    for (option, value) in config.option_values().iter() {
        put(option.key, json!(value));
    }
    put("main_ms", json!(play.main_ms));
    put("inc_ms", json!(play.inc_ms));
    put("byoyomi_ms", json!(play.byoyomi_ms));
    put("movetime_ms", json!(play.movetime_ms));
    put("nodes", json!(play.nodes));
    put("max_plies", json!(play.max_plies));
    serde_json::Value::Object(map)
}

/// The record's file name for game `n` of run `run`.
pub fn record_name(run: &str, game: usize) -> String {
    format!("{run}-game-{game:05}.txt")
}

/// A name for this run, unique in `records`: the UTC start time (`20261201T035500Z`), with `-2`,
/// `-3`, ... when a run that started in the same second already left records there. Records of
/// earlier runs are kept, as their lines in the (appended) results file point at them.
pub fn run_name(records: &Path) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = utc_stamp(secs);
    // A run's records and its collection (`<run>-games.sgf`) all start so.
    let taken = |name: &str| {
        fs::read_dir(records).is_ok_and(|dir| {
            dir.flatten().any(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|f| f.starts_with(&format!("{name}-game")))
            })
        })
    };
    let mut name = base.clone();
    let mut k = 2;
    while taken(&name) {
        name = format!("{base}-{k}");
        k += 1;
    }
    name
}

/// `YYYYMMDDThhmmssZ` for seconds since 1970.
pub fn utc_stamp(secs: u64) -> String {
    let rem = secs % 86_400;
    let (year, month, day) = crate::logging::civil_date(secs / 86_400);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A game record: the players, the start, numbered moves with their times, the end.
///
/// Moves are numbered by ply from the start position; a line is `<ply>. <move>` followed by who
/// played it and how long it took. Opening moves are marked `(opening)`.
pub fn record_text(config: &Config, game: &FinishedGame) -> String {
    let [first_role, second_role] = config.play.variant.players();
    let mut s = String::new();
    let _ = writeln!(s, "Game {}", game.job.game);
    let _ = writeln!(s, "Variant: {}", config.play.variant.as_str());
    let _ = writeln!(s, "First: {} ({first_role})", game.first);
    let _ = writeln!(s, "Second: {} ({second_role})", game.second);
    let _ = writeln!(
        s,
        "Time control: {}, margin {} ms",
        config.time_control(),
        config.play.margin_ms
    );
    let _ = writeln!(
        s,
        "Opening {}: {}",
        game.job.opening_index + 1,
        game.job.opening
    );
    let _ = writeln!(s, "Start: {}", game.job.opening.start_text());
    let _ = writeln!(s, "Start position: {}", game.start_position);
    let _ = writeln!(s);
    let _ = writeln!(s, "Moves:");
    let mut ply = 0;
    for mv in &game.job.opening.moves {
        ply += 1;
        let _ = writeln!(s, "{ply:>4}. {mv:<12} (opening)");
    }
    for m in &game.moves {
        ply += 1;
        let who = match m.side {
            super::referee::Side::First => &game.first,
            super::referee::Side::Second => &game.second,
        };
        let eval = m
            .eval
            .as_deref()
            .map(|e| format!("  {e}"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{ply:>4}. {:<12} {who} {}.{:03} s{eval}",
            m.mv,
            m.ms / 1000,
            m.ms % 1000
        );
    }
    let _ = writeln!(s);
    let result = match game.end.verdict {
        Verdict::Win(side) => {
            let name = match side {
                super::referee::Side::First => &game.first,
                super::referee::Side::Second => &game.second,
            };
            format!("{name} wins")
        }
        Verdict::Draw => "draw".into(),
    };
    let _ = writeln!(
        s,
        "Result: {} {result} ({})",
        game.end.verdict.score(),
        game.end.reason
    );
    if let Some(detail) = &game.detail {
        let _ = writeln!(s, "Detail: {detail}");
    }
    if let Some(score) = game.score {
        let _ = writeln!(s, "Score: {}", crate::text::gtp_score(score));
    }
    for e in &game.engine_scores {
        let verdict = if e.agrees { "agrees" } else { "disagrees" };
        let _ = writeln!(s, "final_score of {}: {} ({verdict})", e.engine, e.said);
    }
    let _ = writeln!(s, "Final position: {}", game.final_position);
    if !game.diagram.is_empty() {
        let _ = writeln!(s);
        for line in &game.diagram {
            let _ = writeln!(s, "{line}");
        }
    }
    s
}

/// Writes the records of `game` into `dir`: the text record, and beside it the record in its
/// game's format (`.sgf`, `.ggf`, `.kifu`: [`super::record`]); returns the text record's path
/// and the game's own-format text (for the run's collection).
pub fn write_record(
    dir: &Path,
    run: &str,
    config: &Config,
    game: &FinishedGame,
) -> Result<(PathBuf, Option<String>), OutputError> {
    create_dir(dir)?;
    let name = record_name(run, game.job.game);
    let own = super::record::write(config, game, &super::record::today());
    if let Some(record) = &own {
        let own = format!("{}.{}", name.trim_end_matches(".txt"), record.extension);
        write_whole(dir, &own, &record.text)?;
    }
    let path = write_whole(dir, &name, &record_text(config, game))?;
    Ok((path, own.map(|r| r.text)))
}

/// Writes `text` to `dir/name` whole: to a temporary name, then renamed, so a record is never
/// seen half-written.
fn write_whole(dir: &Path, name: &str, text: &str) -> Result<PathBuf, OutputError> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    fs::write(&tmp, text)
        .and_then(|_| fs::rename(&tmp, &path))
        .map_err(|error| OutputError::Write {
            path: path.clone(),
            error,
        })?;
    Ok(path)
}

/// Parses a record's moves back: `(start text, moves in order)`; for checking records.
pub fn parse_record(text: &str) -> Option<(String, Vec<String>)> {
    let mut start = None;
    let mut moves = Vec::new();
    let mut in_moves = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Start: ") {
            start = Some(rest.to_string());
        } else if line == "Moves:" {
            in_moves = true;
        } else if in_moves {
            let mut words = line.split_whitespace();
            match words.next() {
                Some(n) if n.ends_with('.') && n[..n.len() - 1].parse::<usize>().is_ok() => {
                    moves.push(words.next()?.to_string());
                }
                _ => in_moves = false,
            }
        }
    }
    Some((start?, moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's own options are recorded under their keys as before they were the game's
    /// (protocol/match.md's example), so older results files still `--resume` and `--merge`;
    /// a game without any records none.
    #[test]
    fn conditions_hold_the_games_own_options_under_their_keys() {
        let config = |variant: &str, extra: &str| {
            let text = format!(
                "[[engine]]\nname = \"a\"\ncmd = \"a\"\n[[engine]]\nname = \"b\"\ncmd = \"b\"\n\
                 [match]\nvariant = \"{variant}\"\nengines = [\"a\", \"b\"]\nnodes = 26000\n{extra}"
            );
            Config::read(&text, Path::new("")).unwrap()
        };
        let go = conditions(&config("go", "komi = 7"));
        assert_eq!(
            go.to_string(),
            r#"{"komi":7.0,"max_plies":512,"nodes":26000}"#
        );
        let default = conditions(&config("go", ""));
        assert_eq!(default["komi"], 7.5);
        let othello = conditions(&config("othello", ""));
        assert_eq!(othello.to_string(), r#"{"max_plies":512,"nodes":26000}"#);
    }

    #[test]
    fn utc_stamps_match_the_calendar() {
        // Values from Python's datetime (a leap day, the end of a century year).
        for (secs, want) in [
            (0, "19700101T000000Z"),
            (951_782_400, "20000229T000000Z"),
            (1_764_561_366, "20251201T035606Z"),
            (4_102_444_799, "20991231T235959Z"),
        ] {
            assert_eq!(utc_stamp(secs), want);
        }
    }

    #[test]
    fn a_run_name_is_not_reused_in_the_same_folder() {
        let dir = std::env::temp_dir().join(format!("ryoshi-run-name-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let first = run_name(&dir);
        fs::write(dir.join(record_name(&first, 1)), "x").unwrap();
        let second = run_name(&dir);
        let _ = fs::remove_dir_all(&dir);
        assert_ne!(first, second);
        // The same second gives the suffix; otherwise the clock has moved on.
        assert!(
            second == format!("{first}-2") || !second.starts_with(&first),
            "{first} {second}"
        );
    }
}
