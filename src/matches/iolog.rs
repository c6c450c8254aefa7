//! `ryoshi match --log FILE`: every line the runner sends to an engine and every line it reads
//! from one, with the time, the game's number (0 before the first game) and the engine's name,
//! as cutechess-cli's `-debug` and fastchess's `-log` keep them:
//!
//! ```text
//! 20261204T184001.123Z game 3 alice > position startpos moves f5
//! 20261204T184001.327Z game 3 alice < bestmove d6
//! ```

use parking_lot::Mutex;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The log file, shared by every engine of the match; each line is one write.
pub struct IoLog {
    file: Mutex<File>,
}

impl IoLog {
    /// Opens `path` for appending (created if missing).
    pub fn open(path: &Path) -> std::io::Result<Arc<IoLog>> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Arc::new(IoLog {
            file: Mutex::new(file),
        }))
    }

    /// Writes one line; a failed write is ignored (the log must not stop the match).
    fn line(&self, game: usize, engine: &str, arrow: char, text: &str) {
        let line = format!("{} game {game} {engine} {arrow} {text}\n", now());
        let _ = self.file.lock().write_all(line.as_bytes());
    }
}

/// An engine's end of the log: its name and the number of the game it is playing.
#[derive(Clone)]
pub struct Tap {
    log: Arc<IoLog>,
    engine: Arc<str>,
    game: Arc<AtomicUsize>,
}

impl Tap {
    pub fn new(log: Arc<IoLog>, engine: &str, game: usize) -> Tap {
        Tap {
            log,
            engine: engine.into(),
            game: Arc::new(AtomicUsize::new(game)),
        }
    }

    /// From now on the engine plays game `game`.
    pub fn set_game(&self, game: usize) {
        self.game.store(game, Ordering::Relaxed);
    }

    /// A line sent to the engine.
    pub fn sent(&self, text: &str) {
        self.log
            .line(self.game.load(Ordering::Relaxed), &self.engine, '>', text);
    }

    /// A line read from the engine.
    pub fn read(&self, text: &str) {
        self.log
            .line(self.game.load(Ordering::Relaxed), &self.engine, '<', text);
    }
}

/// The UTC time to the millisecond: `20261204T184001.123Z`.
fn now() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let stamp = super::results::utc_stamp(since.as_secs());
    format!(
        "{}.{:03}Z",
        stamp.trim_end_matches('Z'),
        since.subsec_millis()
    )
}
