//! The server's games on disk: one SQLite file (rusqlite with its bundled SQLite, so no system
//! library is needed) holding every room and every engine page's game, running or finished.
//!
//! A move is written (and the write synced) before anyone is shown it, so `kill -9` at any moment
//! loses no move a player saw. The file is locked (`flock`) for as long as the server runs: a
//! second server on the same file is refused at start instead of interleaving its writes. Seat
//! tokens are stored as their SHA-1 (they are 128 random bits: the hash cannot be turned back).
//! The schema's version is `PRAGMA user_version`; [`MIGRATIONS`] bring an older file up to date
//! and a newer one is refused. The file is marked as ryoshi's with `PRAGMA application_id`
//! ([`APPLICATION_ID`]); a file without the mark is taken only when it is empty, or when its
//! tables are exactly those some schema version of ryoshi made (files kept before the mark),
//! and is then marked.

// SAFETY: allowed for flock on the database's lock file (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::clock::{Clock, ClockSpec};
use super::offers::{Answer, Kind, OfferRow};
use super::waits::{Lock, Timed};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Each step brings the schema from version `i` to `i + 1`, in one transaction.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: games and their moves. `kind` is `room` or `engine`; `seats` holds the two seat
    // tokens' hashes of a room; `result` and `reason` are set when the game is over.
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        game TEXT NOT NULL,
        start TEXT NOT NULL,
        seat0 TEXT,
        seat1 TEXT,
        resigned INTEGER,
        result TEXT,
        reason TEXT,
        created INTEGER NOT NULL,
        updated INTEGER NOT NULL,
        plies INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX games_by_date ON games (created DESC, id);
    CREATE TABLE moves (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        move TEXT NOT NULL,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID;",
    // 2: rooms' clocks (protocol/serve.md): the time control as `clock=` gave it (NULL:
    // untimed), each side's main time left (ms) and byoyomi periods left, the side whose time
    // runs and since when (ms since 1970), and the side whose flag fell.
    "ALTER TABLE games ADD COLUMN clock TEXT;
    ALTER TABLE games ADD COLUMN clock_left0 INTEGER;
    ALTER TABLE games ADD COLUMN clock_left1 INTEGER;
    ALTER TABLE games ADD COLUMN clock_periods0 INTEGER;
    ALTER TABLE games ADD COLUMN clock_periods1 INTEGER;
    ALTER TABLE games ADD COLUMN clock_running INTEGER;
    ALTER TABLE games ADD COLUMN clock_since INTEGER;
    ALTER TABLE games ADD COLUMN clock_flagged INTEGER;",
    // 3: the players' names (the first player's, the second's), given in a room or on an
    // engine page; none in a game from before. The evaluation graph: the engine's score for
    // the first player after move `ply` (from 1), and the score lead of a game that counts one.
    "ALTER TABLE games ADD COLUMN name0 TEXT;
    ALTER TABLE games ADD COLUMN name1 TEXT;
    CREATE TABLE points (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        score INTEGER NOT NULL,
        lead REAL,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID;",
    // 4: a room's end agreement, in its first form, for one game (6 makes it the game's own
    // text): the ply of its last `resume` (0: none), the proposal (NULL while the server's is
    // judged), the acceptances (bit 1: the first seat, bit 2: the second) and, once both
    // accepted, the verdict.
    "CREATE TABLE go_ends (
        game TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        resumed INTEGER NOT NULL DEFAULT 0,
        dead TEXT,
        accepted INTEGER NOT NULL DEFAULT 0,
        score TEXT
    ) WITHOUT ROWID;",
    // 5: the rules an engine page's game was played under, when not the defaults, as the
    // options that set them (`KakuteiNifu false`; played.rs `rules_text`).
    "ALTER TABLE games ADD COLUMN rules TEXT;",
    // 6: a room's end agreement (end.rs), one text a row that the agreement writes and reads
    // (JSON: the ply of its last `resume`, the proposal, the acceptances, the verdict; the
    // proposal and the verdict in the game's own words). A room of a game with an agreement
    // stored without a row ended before 4. The rows of 4's table keep their words.
    "CREATE TABLE game_ends (
        game TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        state TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO game_ends (game, state)
        SELECT game, json_object(
            'resumed', resumed,
            'proposal', dead,
            'accepted', json_array(json(iif(accepted & 1, 'true', 'false')),
                                   json(iif(accepted & 2, 'true', 'false'))),
            'verdict', score)
        FROM go_ends;
    DROP TABLE go_ends;",
    // 7: what a room's players offer each other (offers.rs): a draw, a takeback or a
    // rematch, one row per kind and seat: the game's plies when it was made, its answer (NULL
    // while it waits; `declined`, `withdrawn` or `accepted`) and an accepted rematch's room.
    "CREATE TABLE offers (
        game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        seat INTEGER NOT NULL,
        ply INTEGER NOT NULL,
        answer TEXT,
        room TEXT,
        PRIMARY KEY (game, kind, seat)
    ) WITHOUT ROWID;",
];

/// SQLite's `application_id` of ryoshi's game databases: "RYSH", so that `file(1)` and
/// `sqlite3` name the file's owner, and another program's file is never taken for ours.
pub const APPLICATION_ID: i32 = 0x5259_5348;

/// Longest text or blob read from or written to the file, in bytes (names and moves are
/// short; the longest is a 25×25 marking, a few KiB).
const MAX_TEXT: i32 = 1 << 20;
/// Most rows read at once: a stored game's moves (a page's game is at most one message long,
/// 256 KiB, a few tens of thousands of moves), its graph points, the running clocks. A game
/// beyond it is refused, rather than a file someone else wrote read without bound.
pub const MAX_ROWS: usize = 1_000_000;

/// How long a write waits for another program holding the file (a `sqlite3` shell, a backup).
const BUSY_WAIT: Duration = Duration::from_secs(2);

/// Why the store cannot open, or an action on it failed (one `info string error:` line).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the game database {path}: {why}")]
    Open { path: String, why: String },
    #[error(
        "the game database {0} is in use by another ryoshi serve; stop it, or give this one \
         another file with --db PATH"
    )]
    InUse(String),
    #[error(
        "the game database {0} is locked by another program (a sqlite3 shell, a backup); \
         close it and start again"
    )]
    Locked(String),
    #[error("the game database {0} is read-only; give a writable file with --db PATH")]
    ReadOnly(String),
    #[error(
        "the game database {path} cannot be created: this user may not write in {folder} \
         ({why}); give a writable folder with --db PATH"
    )]
    CannotCreate {
        path: String,
        folder: String,
        why: String,
    },
    #[error(
        "the game database {path} is not a ryoshi game database or is damaged ({why}); move it \
         away or give another file with --db PATH"
    )]
    Corrupt { path: String, why: String },
    #[error(
        "the game database {0} is not a ryoshi game database; move it away or give another \
         file with --db PATH"
    )]
    Foreign(String),
    #[error(
        "the game database {path} has schema version {found}, newer than this ryoshi knows \
         ({known}); use a newer ryoshi or another file"
    )]
    Newer {
        path: String,
        found: i64,
        known: usize,
    },
    /// A tab's change to a game another tab changed since this one last wrote or read it.
    #[error("the game {0} was changed in another tab meanwhile")]
    Changed(String),
    /// An action failed: SQLite's words (disk full, file locked by another program ...).
    #[error("the game database: {0}")]
    Action(String),
}

crate::games::error_text!(derived: StoreError);

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Action(e.to_string())
    }
}

/// A game as stored: enough to play it on.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    pub id: String,
    /// `room` or `engine`.
    pub kind: String,
    /// The registry's name (the game's `USI_Variant`).
    pub game: String,
    /// `startpos` or `sfen <fields>`, as a `position` command writes it.
    pub start: String,
    /// The hashes of a room's seat tokens.
    pub seats: Option<[String; 2]>,
    pub resigned: Option<usize>,
    pub moves: Vec<String>,
    /// The rules it is played under, when not the defaults (`KakuteiNifu false`).
    pub rules: Option<String>,
}

/// One line of the archive.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub id: String,
    pub kind: String,
    pub game: String,
    /// The players' names, the first player's first.
    pub names: super::names::Names,
    pub result: Option<String>,
    pub reason: Option<String>,
    /// Milliseconds since 1970, UTC.
    pub created: i64,
    pub updated: i64,
    pub plies: i64,
    /// A timed room's time control, as its `clock=` gave it (`600+10`); None: untimed.
    pub clock: Option<String>,
}

/// How a game ended, for the archive: `white wins` / `draw`, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    pub result: String,
    pub reason: String,
}

/// What a new game is kept with beside its row and moves, in the same transaction (a game is
/// never seen half made, and its making is one write to the disk).
#[derive(Default)]
pub struct Birth<'a> {
    pub names: super::names::Names,
    /// A timed room's clock.
    pub clock: Option<&'a Clock>,
    /// The game it copies and the plies they share: the graph's points of those plies.
    pub points_from: Option<(&'a str, usize)>,
    /// How it ended already (a finished game opened for review and played on is a new game).
    pub ending: Option<&'a Ending>,
    /// Its end agreement's text (end.rs), as judged.
    pub end: Option<&'a str>,
    /// A rematch: the room it follows, and that room's offer, accepted.
    pub rematch_of: Option<(&'a str, &'a OfferRow)>,
}

pub struct Store {
    conn: Timed<Connection>,
    path: String,
    /// Holds the `flock` for as long as the server runs (closing it would drop the lock).
    _lock: File,
}

/// `$XDG_DATA_HOME/ryoshi/games.db`, else `~/.local/share/ryoshi/games.db`.
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })?;
    Some(base.join("ryoshi").join("games.db"))
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Hex SHA-1 of a seat token, as stored.
pub fn token_hash(token: &str) -> String {
    <sha1::Sha1 as sha1::Digest>::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether a file system call failed for want of the right to write (permissions, a read-only
/// file system), rather than for what is at the path.
fn refused_write(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
    )
}

/// Takes the file's `flock` without waiting; false when another process holds it. (SQLite's own
/// locks are `fcntl` locks, which `flock` does not touch on Linux.)
fn lock_exclusive(file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this File owns.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        true
    }
}

impl Store {
    /// Opens (creating it and its folder when absent) the database at `path`, checks it and
    /// brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
        let open_error = |why: String| StoreError::Open {
            path: shown.clone(),
            why,
        };
        let folder = path.parent().filter(|d| !d.as_os_str().is_empty());
        let cannot_write = |dir: &Path, e: std::io::Error| StoreError::CannotCreate {
            path: shown.clone(),
            folder: dir.display().to_string(),
            why: e.to_string(),
        };
        if let Some(dir) = folder {
            std::fs::create_dir_all(dir).map_err(|e| match refused_write(&e) {
                true => cannot_write(dir, e),
                false => open_error(format!("cannot create {}: {e}", dir.display())),
            })?;
        }
        let lock = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
        {
            Ok(file) => file,
            // The file is there but may not be written, or it may not be made there (a new
            // file in a folder this user cannot write, whose own error would only say that the
            // file is not there).
            Err(e) if refused_write(&e) => match path.try_exists() {
                Ok(true) => return Err(StoreError::ReadOnly(shown)),
                _ => return Err(cannot_write(folder.unwrap_or(Path::new(".")), e)),
            },
            Err(e) => return Err(open_error(e.to_string())),
        };
        if !lock
            .metadata()
            .map_err(|e| open_error(e.to_string()))?
            .is_file()
        {
            return Err(open_error("not a regular file".into()));
        }
        if !lock_exclusive(&lock) {
            return Err(StoreError::InUse(shown));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| open_error(e.to_string()))?;
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            return Err(StoreError::ReadOnly(shown));
        }
        let _ = conn.busy_timeout(BUSY_WAIT);
        // A file written by someone else may hold anything: no text read from it is longer
        // than this (SQLite answers "string or blob too big" instead), so that no read of it
        // allocates without bound.
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, MAX_TEXT)
            .map_err(|e| open_error(e.to_string()))?;
        let check: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| classify(&shown, e))?;
        if check != "ok" {
            return Err(StoreError::Corrupt {
                path: shown,
                why: check,
            });
        }
        // Another program's database is left exactly as it is (WAL mode would stay switched on):
        // only an empty file becomes a game database.
        if !empty_or_ours(&conn).map_err(|e| classify(&shown, e))? {
            return Err(StoreError::Foreign(shown));
        }
        // WAL: a write is one append and one fsync (`synchronous = FULL`), readers never wait.
        // Changing the journal mode needs the file to itself: a program holding it is found
        // here (after the busy wait) or by the write lock taken to migrate.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| classify(&shown, e))?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(|e| classify(&shown, e))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| classify(&shown, e))?;
        let store = Store {
            conn: Timed::new(Lock::Store, conn),
            path: shown,
            _lock: lock,
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| classify(&self.path, e))?;
        if version < 0 || version as usize > MIGRATIONS.len() {
            return Err(StoreError::Newer {
                path: self.path.clone(),
                found: version,
                known: MIGRATIONS.len(),
            });
        }
        // One write transaction, taken even when there is nothing to migrate: a program that
        // holds the file's write lock (a `sqlite3` shell in `BEGIN EXCLUSIVE`, which a WAL file
        // still lets readers past) is found at start, not at the first move.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| classify(&self.path, e))?;
        for (i, step) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(step)
                .and_then(|_| tx.pragma_update(None, "user_version", (i + 1) as i64))
                .map_err(|e| classify(&self.path, e))?;
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .and_then(|_| tx.commit())
            .map_err(|e| classify(&self.path, e))?;
        Ok(())
    }

    /// Records a new game (a room at its creation, an engine page's at its first move), with
    /// what `birth` gives, in one transaction.
    pub fn create(&self, game: &StoredGame, birth: &Birth) -> Result<(), StoreError> {
        let now = now_ms();
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        let seats = game.seats.as_ref();
        let [name0, name1] = &birth.names;
        tx.execute(
            "INSERT INTO games (id, kind, game, start, seat0, seat1, resigned, created, updated, plies,
                                rules, name0, name1, result, reason)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                game.id,
                game.kind,
                game.game,
                game.start,
                seats.map(|s| &s[0]),
                seats.map(|s| &s[1]),
                game.resigned.map(|r| r as i64),
                now,
                game.moves.len() as i64,
                game.rules,
                name0,
                name1,
                birth.ending.map(|e| &e.result),
                birth.ending.map(|e| &e.reason),
            ],
        )?;
        insert_moves(&tx, &game.id, 0, &game.moves)?;
        if let Some(clock) = birth.clock {
            write_clock(&tx, &game.id, clock)?;
        }
        if let Some((from, plies)) = birth.points_from {
            tx.execute(
                "INSERT OR REPLACE INTO points (game, ply, score, lead)
                 SELECT ?2, ply, score, lead FROM points WHERE game = ?1 AND ply <= ?3",
                params![from, game.id, plies as i64],
            )?;
        }
        if let Some(end) = birth.end {
            write_end(&tx, &game.id, end)?;
        }
        if let Some((old, offer)) = birth.rematch_of {
            write_offer(&tx, old, offer)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Replaces the moves from ply `from` (0-based) on with `moves` (a move played: one move;
    /// a takeback: none), and sets how the game stands.
    pub fn set_moves(
        &self,
        id: &str,
        from: usize,
        moves: &[String],
        resigned: Option<usize>,
        ending: Option<&Ending>,
    ) -> Result<(), StoreError> {
        self.set_moves_and_clock(id, from, moves, resigned, ending, None)
    }

    /// [`Store::set_moves`] and, in the same transaction, a room's clock.
    pub fn set_moves_and_clock(
        &self,
        id: &str,
        from: usize,
        moves: &[String],
        resigned: Option<usize>,
        ending: Option<&Ending>,
        clock: Option<&Clock>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        write_moves(&tx, id, from, moves, resigned, ending)?;
        if let Some(clock) = clock {
            write_clock(&tx, id, clock)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Turns an engine page's game `id` from `base` (its moves as the tab last wrote or read
    /// them) into `moves`, and sets how it stands. Several tabs may play the same game, each
    /// from its own copy: when the stored game is no longer `base`, or is over, nothing is
    /// written and the answer is false, so the store never holds a mix of two tabs' moves nor
    /// rewrites a finished game.
    pub fn set_engine_moves(
        &self,
        id: &str,
        base: &[String],
        moves: &[String],
        ending: Option<&Ending>,
        end: Option<&str>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        if !engine_game_is(&tx, id, base, false)? {
            return Ok(false);
        }
        let same = base.iter().zip(moves).take_while(|(a, b)| a == b).count();
        write_moves(&tx, id, same, &moves[same..], None, ending)?;
        if let Some(end) = end {
            write_end(&tx, id, end)?;
        }
        tx.commit()?;
        Ok(true)
    }

    /// A room's clock as stored (None: untimed, or a time control this ryoshi cannot read).
    pub fn load_clock(&self, id: &str) -> Result<Option<Clock>, StoreError> {
        let conn = self.conn.lock();
        let row = conn
            .query_row(
                "SELECT clock, clock_left0, clock_left1, clock_periods0, clock_periods1,
                        clock_running, clock_since, clock_flagged
                 FROM games WHERE id = ?1",
                params![id],
                |r| {
                    let spec: Option<String> = r.get(0)?;
                    let number = |i: usize| -> rusqlite::Result<u64> {
                        Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0).max(0) as u64)
                    };
                    let side = |i: usize| -> rusqlite::Result<Option<usize>> {
                        Ok(r.get::<_, Option<i64>>(i)?.map(|s| s.clamp(0, 1) as usize))
                    };
                    let Some(spec) = spec.and_then(|s| ClockSpec::parse(&s).ok()) else {
                        return Ok(None);
                    };
                    let since: Option<i64> = r.get(6)?;
                    Ok(Some(Clock {
                        spec,
                        left: [number(1)?, number(2)?],
                        periods: [
                            number(3)?.min(u32::MAX.into()) as u32,
                            number(4)?.min(u32::MAX.into()) as u32,
                        ],
                        running: side(5)?.zip(since),
                        flagged: side(7)?,
                    }))
                },
            )
            .optional()?;
        Ok(row.flatten())
    }

    /// The rooms whose clock runs (for the timer, at start), at most [`MAX_ROWS`].
    pub fn running_clocks(&self) -> Result<Vec<String>, StoreError> {
        let conn = self.conn.lock();
        let mut query = conn.prepare(
            "SELECT id FROM games WHERE clock_running IS NOT NULL AND result IS NULL LIMIT ?1",
        )?;
        let ids = query
            .query_map(params![MAX_ROWS as i64], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// The game `id`, or None.
    pub fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let conn = self.conn.lock();
        let row = conn
            .query_row(
                "SELECT kind, game, start, seat0, seat1, resigned, rules FROM games WHERE id = ?1",
                params![id],
                |r| {
                    let seat0: Option<String> = r.get(3)?;
                    let seat1: Option<String> = r.get(4)?;
                    let resigned: Option<i64> = r.get(5)?;
                    Ok(StoredGame {
                        id: id.to_string(),
                        kind: r.get(0)?,
                        game: r.get(1)?,
                        start: r.get(2)?,
                        seats: seat0.zip(seat1).map(|(a, b)| [a, b]),
                        resigned: resigned.and_then(|r| usize::try_from(r).ok()),
                        moves: Vec::new(),
                        rules: r.get(6)?,
                    })
                },
            )
            .optional()?;
        let Some(mut game) = row else {
            return Ok(None);
        };
        let mut query =
            conn.prepare("SELECT move FROM moves WHERE game = ?1 ORDER BY ply LIMIT ?2")?;
        game.moves = query
            .query_map(params![id, MAX_ROWS as i64 + 1], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        if game.moves.len() > MAX_ROWS {
            return Err(StoreError::Action(format!(
                "the game {id} has more than {MAX_ROWS} moves; it is not read"
            )));
        }
        Ok(Some(game))
    }

    /// Writes a room's end agreement (its text), and with `ending` the game's result and
    /// reason too (the agreed verdict), with `clock` the room's clock (restarted when play
    /// resumes), in one transaction.
    pub fn set_end(
        &self,
        id: &str,
        end: &str,
        ending: Option<&Ending>,
        clock: Option<&Clock>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        write_end(&tx, id, end)?;
        if let Some(ending) = ending {
            tx.execute(
                "UPDATE games SET result = ?2, reason = ?3, updated = ?4 WHERE id = ?1",
                params![id, ending.result, ending.reason, now_ms()],
            )?;
        }
        if let Some(clock) = clock {
            write_clock(&tx, id, clock)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A room's end agreement (its text), or None (a game without one, or a room stored
    /// before its game kept one).
    pub fn load_end(&self, id: &str) -> Result<Option<String>, StoreError> {
        let conn = self.conn.lock();
        Ok(conn
            .query_row(
                "SELECT state FROM game_ends WHERE game = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Games, newest first: `limit` of them after the first `offset`; and how many there are.
    pub fn list(&self, offset: usize, limit: usize) -> Result<(Vec<Summary>, usize), StoreError> {
        let conn = self.conn.lock();
        let total: i64 = conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))?;
        let mut query = conn.prepare(
            "SELECT id, kind, game, result, reason, created, updated, plies, name0, name1, clock
             FROM games ORDER BY created DESC, rowid DESC LIMIT ?1 OFFSET ?2",
        )?;
        let rows = query
            .query_map(params![limit as i64, offset as i64], |r| {
                Ok(Summary {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    game: r.get(2)?,
                    result: r.get(3)?,
                    reason: r.get(4)?,
                    created: r.get(5)?,
                    updated: r.get(6)?,
                    plies: r.get(7)?,
                    names: [r.get(8)?, r.get(9)?],
                    clock: r.get(10)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok((rows, total.max(0) as usize))
    }
}

/// One point of a game's evaluation graph (see `tab_game.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// After this move (from 1).
    pub ply: usize,
    /// The engine's score for the first player, in its game's unit (`score cp`).
    pub score: i64,
    /// The first player's score lead, in points, of a game that counts one.
    pub lead: Option<f64>,
}

/// The evaluation graph of a game.
impl Store {
    /// Adds points of the game `id`'s graph, all or none: replacing those it has when
    /// `replace`, else only filling the plies it has none for; with `base`, only while the
    /// game's moves are still those (see [`Store::set_engine_moves`]).
    pub fn add_points(
        &self,
        id: &str,
        points: &[Point],
        replace: bool,
        base: Option<&[String]>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        if let Some(base) = base {
            if !engine_game_is(&tx, id, base, true)? {
                return Err(StoreError::Changed(id.to_string()));
            }
        }
        {
            let mut insert = tx.prepare_cached(if replace {
                "INSERT OR REPLACE INTO points (game, ply, score, lead) VALUES (?1, ?2, ?3, ?4)"
            } else {
                "INSERT OR IGNORE INTO points (game, ply, score, lead) VALUES (?1, ?2, ?3, ?4)"
            })?;
            for p in points {
                insert.execute(params![id, p.ply as i64, p.score, p.lead])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The game `id`'s graph, by ply.
    pub fn points(&self, id: &str) -> Result<Vec<Point>, StoreError> {
        let conn = self.conn.lock();
        let mut query = conn
            .prepare("SELECT ply, score, lead FROM points WHERE game = ?1 ORDER BY ply LIMIT ?2")?;
        let points = query
            .query_map(params![id, MAX_ROWS as i64], |r| {
                Ok(Point {
                    ply: usize::try_from(r.get::<_, i64>(0)?).unwrap_or(0),
                    score: r.get(1)?,
                    lead: r.get(2)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(points)
    }
}

/// The players' names of a game (see `names.rs`).
impl Store {
    /// Sets the name of seat `seat` (0 or 1) of the game `id`; None takes it back. With
    /// `base`, only while the game's moves are still those and it is not over (see
    /// [`Store::set_engine_moves`]).
    pub fn set_name(
        &self,
        id: &str,
        seat: usize,
        name: Option<&str>,
        base: Option<&[String]>,
    ) -> Result<(), StoreError> {
        let column = if seat == 0 { "name0" } else { "name1" };
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        if let Some(base) = base {
            if !engine_game_is(&tx, id, base, false)? {
                return Err(StoreError::Changed(id.to_string()));
            }
        }
        let changed = tx.execute(
            &format!("UPDATE games SET {column} = ?2 WHERE id = ?1"),
            params![id, name],
        )?;
        if changed == 0 {
            return Err(StoreError::Action(format!("no game {id} is stored")));
        }
        tx.commit()?;
        Ok(())
    }

    /// Both names of the game `id` (none for an unknown game).
    pub fn names(&self, id: &str) -> Result<super::names::Names, StoreError> {
        let found = self
            .conn
            .lock()
            .query_row(
                "SELECT name0, name1 FROM games WHERE id = ?1",
                params![id],
                |r| Ok([r.get(0)?, r.get(1)?]),
            )
            .optional()?;
        Ok(found.unwrap_or_default())
    }
}

/// What a room's players offer each other (see offers.rs).
impl Store {
    /// The offers of the room `id`, made and answered.
    pub fn offers(&self, id: &str) -> Result<Vec<OfferRow>, StoreError> {
        let conn = self.conn.lock();
        let mut query = conn
            .prepare("SELECT kind, seat, ply, answer, room FROM offers WHERE game = ?1 LIMIT 16")?;
        let rows = query
            .query_map(params![id], |r| {
                let kind: String = r.get(0)?;
                let answer: Option<String> = r.get(3)?;
                Ok((
                    kind,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    answer,
                    r.get(4)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        // A row this ryoshi cannot read (another program's) is left out, not trusted.
        Ok(rows
            .into_iter()
            .filter_map(|(kind, seat, ply, answer, room)| {
                Some(OfferRow {
                    kind: Kind::parse(&kind)?,
                    seat: usize::try_from(seat).ok().filter(|s| *s < 2)?,
                    ply: usize::try_from(ply).ok()?,
                    answer: Answer::parse(answer.as_deref())?,
                    room,
                })
            })
            .collect())
    }

    /// Keeps an offer as made or answered.
    pub fn set_offer(&self, id: &str, offer: &OfferRow) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        write_offer(&tx, id, offer)?;
        tx.commit()?;
        Ok(())
    }

    /// A draw agreed: the offer accepted, the game's result and its clock, stopped, at once.
    pub fn agree_draw(
        &self,
        id: &str,
        offer: &OfferRow,
        ending: &Ending,
        clock: Option<&Clock>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        write_offer(&tx, id, offer)?;
        tx.execute(
            "UPDATE games SET result = ?2, reason = ?3, updated = ?4 WHERE id = ?1",
            params![id, ending.result, ending.reason, now_ms()],
        )?;
        if let Some(clock) = clock {
            write_clock(&tx, id, clock)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A takeback agreed: the game cut to its first `keep` moves, its clock, and the offers of
    /// the game on (draws, takebacks) forgotten, at once.
    pub fn take_back(
        &self,
        id: &str,
        keep: usize,
        clock: Option<&Clock>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        write_moves(&tx, id, keep, &[], None, None)?;
        tx.execute(
            "DELETE FROM offers WHERE game = ?1 AND kind IN ('draw', 'takeback')",
            params![id],
        )?;
        if let Some(clock) = clock {
            write_clock(&tx, id, clock)?;
        }
        tx.commit()?;
        Ok(())
    }
}

fn write_offer(tx: &rusqlite::Transaction, id: &str, offer: &OfferRow) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT OR REPLACE INTO offers (game, kind, seat, ply, answer, room)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            id,
            offer.kind.as_str(),
            offer.seat as i64,
            offer.ply as i64,
            offer.answer.as_str(),
            offer.room
        ],
    )?;
    Ok(())
}

fn insert_moves(
    tx: &rusqlite::Transaction,
    id: &str,
    from: usize,
    moves: &[String],
) -> rusqlite::Result<()> {
    let mut insert =
        tx.prepare_cached("INSERT INTO moves (game, ply, move) VALUES (?1, ?2, ?3)")?;
    for (i, mv) in moves.iter().enumerate() {
        insert.execute(params![id, (from + i) as i64, mv])?;
    }
    Ok(())
}

/// Replaces the moves of game `id` from ply `from` on, and sets how the game stands.
fn write_moves(
    tx: &rusqlite::Transaction,
    id: &str,
    from: usize,
    moves: &[String],
    resigned: Option<usize>,
    ending: Option<&Ending>,
) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM moves WHERE game = ?1 AND ply >= ?2",
        params![id, from as i64],
    )?;
    insert_moves(tx, id, from, moves)?;
    // The graph's points of the moves replaced go with them.
    tx.execute(
        "DELETE FROM points WHERE game = ?1 AND ply > ?2",
        params![id, from as i64],
    )?;
    let changed = tx.execute(
        "UPDATE games SET plies = ?2, resigned = ?3, result = ?4, reason = ?5, updated = ?6
         WHERE id = ?1",
        params![
            id,
            (from + moves.len()) as i64,
            resigned.map(|r| r as i64),
            ending.map(|e| &e.result),
            ending.map(|e| &e.reason),
            now_ms()
        ],
    )?;
    if changed == 0 {
        return Err(StoreError::Action(format!("no game {id} is stored")));
    }
    Ok(())
}

fn write_end(tx: &rusqlite::Transaction, id: &str, end: &str) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT OR REPLACE INTO game_ends (game, state) VALUES (?1, ?2)",
        params![id, end],
    )?;
    Ok(())
}

/// Whether the engine page's game `id` is still `base` (the moves as a tab last wrote or read
/// them), and, unless `over_too`, not over: what a tab may change.
fn engine_game_is(
    tx: &rusqlite::Transaction,
    id: &str,
    base: &[String],
    over_too: bool,
) -> rusqlite::Result<bool> {
    let over: Option<bool> = tx
        .query_row(
            "SELECT result IS NOT NULL FROM games WHERE id = ?1",
            params![id],
            |r| r.get(0),
        )
        .optional()?;
    let stored: Vec<String> = tx
        .prepare("SELECT move FROM moves WHERE game = ?1 ORDER BY ply LIMIT ?2")?
        .query_map(params![id, base.len() as i64 + 1], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(over.is_some_and(|over| over_too || !over) && stored == base)
}

fn write_clock(tx: &rusqlite::Transaction, id: &str, clock: &Clock) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE games SET clock = ?2, clock_left0 = ?3, clock_left1 = ?4, clock_periods0 = ?5,
         clock_periods1 = ?6, clock_running = ?7, clock_since = ?8, clock_flagged = ?9
         WHERE id = ?1",
        params![
            id,
            clock.spec.to_string(),
            clock.left[0] as i64,
            clock.left[1] as i64,
            clock.periods[0],
            clock.periods[1],
            clock.running.map(|(side, _)| side as i64),
            clock.running.map(|(_, since)| since),
            clock.flagged.map(|side| side as i64)
        ],
    )?;
    Ok(())
}

/// Whether the database is empty (no tables, no schema version, no mark), marked as ryoshi's,
/// or unmarked with exactly the tables, columns and indexes that ryoshi's first `user_version`
/// migrations make (a file kept before the mark). A table of the same name is not enough.
fn empty_or_ours(conn: &Connection) -> rusqlite::Result<bool> {
    let pragma = |name: &str| conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0));
    let (id, version) = (pragma("application_id")?, pragma("user_version")?);
    if id == i64::from(APPLICATION_ID) {
        return Ok(true);
    }
    if id != 0 || version < 0 || version as usize > MIGRATIONS.len() {
        return Ok(false);
    }
    let Some(found) = schema(conn)? else {
        return Ok(false);
    };
    let made = Connection::open_in_memory()?;
    made.execute_batch(&MIGRATIONS[..version as usize].concat())?;
    Ok(schema(&made)?.is_some_and(|made| made == found))
}

/// The schema's shape, in order: each table and index with its table, and each table's
/// columns (name, type, not null, default, key). None past a bound no ryoshi file comes near.
fn schema(conn: &Connection) -> rusqlite::Result<Option<Vec<String>>> {
    const MAX_SHAPE: usize = 1000;
    let mut query = conn.prepare(
        "SELECT m.type, m.name, m.tbl_name, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk
         FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) p ON m.type = 'table'
         ORDER BY m.type, m.name, p.cid",
    )?;
    let mut rows = query.query([])?;
    let mut shape = Vec::new();
    while let Some(row) = rows.next()? {
        if shape.len() == MAX_SHAPE {
            return Ok(None);
        }
        let mut cells = Vec::with_capacity(8);
        for i in 0..8 {
            cells.push(match row.get_ref(i)? {
                rusqlite::types::ValueRef::Null => "-".to_string(),
                rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                value => value.as_str().unwrap_or("?").to_string(),
            });
        }
        shape.push(cells.join("|"));
    }
    Ok(Some(shape))
}

/// An error at start, said for what it is.
fn classify(path: &str, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
            path: path.into(),
            why: e.to_string(),
        },
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly(path.into()),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Locked(path.into())
        }
        _ => StoreError::Open {
            path: path.into(),
            why: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens stored by earlier versions (SHA-1 written by hand) still match.
    #[test]
    fn token_hashes_are_sha1() {
        assert_eq!(
            token_hash("abc"),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ryoshi-store-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("games.db")
    }

    fn game(id: &str, moves: &[&str]) -> StoredGame {
        StoredGame {
            id: id.into(),
            kind: "room".into(),
            game: "othello".into(),
            start: "startpos".into(),
            seats: Some([token_hash("a"), token_hash("b")]),
            resigned: None,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            rules: None,
        }
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_game_is_made_whole_in_one_write() {
        let path = temp("birth");
        let store = Store::open(&path).unwrap();
        let mut first = game("g1", &["f5", "d6"]);
        first.kind = "engine".into();
        first.seats = None;
        store.create(&first, &Birth::default()).unwrap();
        let point = |ply, score| Point {
            ply,
            score,
            lead: None,
        };
        store
            .add_points("g1", &[point(1, 5), point(2, 7)], true, None)
            .unwrap();
        let clock = Clock::new(ClockSpec::parse("60+5").unwrap());
        let ending = Ending {
            result: "black wins".into(),
            reason: "resignation".into(),
        };
        // The store keeps an agreement's text as it is, without reading it.
        let end = r#"{"resumed":2,"proposal":"A1"}"#;
        let birth = Birth {
            names: [Some("Ann".into()), None],
            clock: Some(&clock),
            points_from: Some(("g1", 1)),
            ending: Some(&ending),
            end: Some(end),
            rematch_of: None,
        };
        store.create(&game("g2", &["f5", "f6"]), &birth).unwrap();
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.load("g2").unwrap().unwrap().moves, ["f5", "f6"]);
        assert_eq!(store.names("g2").unwrap(), [Some("Ann".to_string()), None]);
        assert_eq!(store.load_clock("g2").unwrap(), Some(clock));
        assert_eq!(store.points("g2").unwrap(), [point(1, 5)]);
        assert_eq!(store.load_end("g2").unwrap().as_deref(), Some(end));
        let (list, _) = store.list(0, 10).unwrap();
        let g2 = list.iter().find(|g| g.id == "g2").unwrap();
        assert_eq!(g2.result.as_deref(), Some("black wins"));
        // A game made twice is refused whole: nothing of the second making is kept.
        let again = Birth {
            names: [None, Some("Bob".into())],
            ..Birth::default()
        };
        assert!(store.create(&game("g2", &["d3"]), &again).is_err());
        assert_eq!(store.names("g2").unwrap(), [Some("Ann".to_string()), None]);
        drop(store);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_tab_behind_the_game_changes_nothing_of_it() {
        let path = temp("behind");
        let store = Store::open(&path).unwrap();
        store
            .create(&game("g1", &["f5", "d6"]), &Birth::default())
            .unwrap();
        let base = strings(&["f5", "d6"]);
        let longer = strings(&["f5", "d6", "c3"]);
        assert!(store
            .set_engine_moves("g1", &base, &longer, None, None)
            .unwrap());
        // The first tab still thinks the game is two moves long.
        let point = [Point {
            ply: 1,
            score: 3,
            lead: None,
        }];
        let e = store
            .add_points("g1", &point, true, Some(&base))
            .unwrap_err();
        assert!(matches!(e, StoreError::Changed(_)), "{e}");
        let e = store
            .set_name("g1", 0, Some("Ann"), Some(&base))
            .unwrap_err();
        assert!(matches!(e, StoreError::Changed(_)), "{e}");
        assert!(!store
            .set_engine_moves("g1", &base, &strings(&["f5"]), None, None)
            .unwrap());
        assert_eq!(store.points("g1").unwrap(), []);
        assert_eq!(store.names("g1").unwrap(), [None, None]);
        assert_eq!(store.load("g1").unwrap().unwrap().moves, longer);
        // Up to date, the same changes are kept.
        store.add_points("g1", &point, true, Some(&longer)).unwrap();
        store.set_name("g1", 0, Some("Ann"), Some(&longer)).unwrap();
        assert_eq!(store.points("g1").unwrap(), point);
        assert_eq!(store.names("g1").unwrap()[0].as_deref(), Some("Ann"));
        drop(store);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_file_written_by_someone_else_is_read_within_bounds() {
        let path = temp("hostile");
        let store = Store::open(&path).unwrap();
        for id in ["long", "many"] {
            store.create(&game(id, &["f5"]), &Birth::default()).unwrap();
        }
        drop(store);
        {
            // Another program writes a 2 MiB name and more moves than are ever read.
            let conn = Connection::open(&path).unwrap();
            conn.execute(
                "UPDATE games SET name0 = ?1 WHERE id = 'long'",
                ["x".repeat(2 << 20)],
            )
            .unwrap();
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <= ?1)
                 INSERT INTO moves (game, ply, move) SELECT 'many', i, 'f5' FROM n",
                [MAX_ROWS as i64],
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let e = store.names("long").unwrap_err();
        assert!(e.to_string().contains("too big"), "{e}");
        let e = store.load("many").unwrap_err();
        assert!(e.to_string().contains("more than"), "{e}");
        // The rest reads as before, and nothing longer than the bound is written.
        assert_eq!(store.load("long").unwrap().unwrap().moves, ["f5"]);
        let long = "y".repeat(MAX_TEXT as usize + 1);
        assert!(store.set_name("long", 1, Some(&long), None).is_err());
        drop(store);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn games_survive_reopening_and_takebacks_rewrite_the_tail() {
        let path = temp("reopen");
        {
            let store = Store::open(&path).unwrap();
            store
                .create(&game("g1", &["f5"]), &Birth::default())
                .unwrap();
            store
                .set_moves("g1", 1, &["d6".into()], None, None)
                .unwrap();
            store
                .set_moves("g1", 2, &["c3".into()], None, None)
                .unwrap();
            store
                .set_moves("g1", 1, &["f6".into()], Some(1), None)
                .unwrap();
            assert!(Store::open(&path).is_err_and(|e| matches!(e, StoreError::InUse(_))));
        }
        let store = Store::open(&path).unwrap();
        let back = store.load("g1").unwrap().unwrap();
        assert_eq!(back.moves, ["f5", "f6"]);
        assert_eq!(back.resigned, Some(1));
        assert_eq!(back.seats, game("g1", &[]).seats);
        assert!(store.load("nope").unwrap().is_none());
        let (list, total) = store.list(0, 10).unwrap();
        assert_eq!((list.len(), total, list[0].plies), (1, 1, 2));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A file of schema version 5 keeps its rooms' end agreements, written by then in one
    /// game's columns, as the agreements' texts: each reads back as it was, with the same
    /// version (an `accept` a page sent before the upgrade still matches).
    #[test]
    fn a_version_5_file_keeps_its_rooms_ends() {
        use super::super::end::{version, Agreement};
        let path = temp("v5");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        {
            let old = Connection::open(&path).unwrap();
            old.execute_batch(&MIGRATIONS[..5].concat()).unwrap();
            old.execute_batch(
                "PRAGMA user_version = 5;
                 INSERT INTO games (id, kind, game, start, created, updated, plies)
                     VALUES ('judging', 'room', 'go', 'startpos', 1, 1, 2),
                            ('marked', 'room', 'go', 'startpos', 1, 1, 5),
                            ('agreed', 'room', 'go', 'startpos', 1, 1, 2);
                 INSERT INTO go_ends (game, resumed) VALUES ('judging', 0);
                 INSERT INTO go_ends (game, resumed, dead, accepted)
                     VALUES ('marked', 3, 'A1 B2', 2);
                 INSERT INTO go_ends (game, resumed, dead, accepted, score)
                     VALUES ('agreed', 0, '', 3, 'score W+7.5 komi 7.5');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let read = |id: &str| Agreement::read(&store.load_end(id).unwrap().unwrap()).unwrap();
        assert_eq!(read("judging"), Agreement::default());
        let marked = read("marked");
        assert_eq!(
            marked,
            Agreement {
                resumed: 3,
                proposal: Some("A1 B2".into()),
                accepted: [false, true],
                verdict: None,
            }
        );
        // The version the old columns gave: FNV-1a of "3", 0xfe, "A1 B2", 0xfe.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in b"3\xfeA1 B2\xfe" {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        assert_eq!(version(&marked), hash & ((1 << 53) - 1));
        let agreed = read("agreed");
        assert_eq!(agreed.proposal.as_deref(), Some(""));
        assert_eq!(agreed.accepted, [true, true]);
        assert_eq!(agreed.verdict.as_deref(), Some("score W+7.5 komi 7.5"));
        let tables: i64 = store
            .conn
            .lock()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'go_ends'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 0, "the old table goes");
        drop(store);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A file of the first schema is brought up to date at start and keeps its games; the
    /// names, new since, are none until given.
    #[test]
    fn a_version_1_file_is_brought_up_to_date() {
        let path = temp("v1");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        {
            let old = Connection::open(&path).unwrap();
            old.execute_batch(MIGRATIONS[0]).unwrap();
            old.execute_batch(
                "PRAGMA user_version = 1;
                 INSERT INTO games (id, kind, game, start, created, updated, plies)
                     VALUES ('old', 'engine', 'othello', 'startpos', 1, 1, 1);
                 INSERT INTO moves VALUES ('old', 0, 'f5');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let version: i64 = store
            .conn
            .lock()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version as usize, MIGRATIONS.len());
        assert_eq!(store.load("old").unwrap().unwrap().moves, ["f5"]);
        assert_eq!(store.names("old").unwrap(), [None, None]);
        store.set_name("old", 1, Some("Bob"), None).unwrap();
        assert_eq!(store.names("old").unwrap(), [None, Some("Bob".into())]);
        assert_eq!(
            store.list(0, 1).unwrap().0[0].names,
            [None, Some("Bob".into())]
        );
        assert!(store.set_name("nope", 0, Some("x"), None).is_err());
        // The graph: points beyond a takeback go with the moves.
        store
            .set_moves("old", 1, &["d6".into(), "c3".into()], None, None)
            .unwrap();
        let point = |ply, score| Point {
            ply,
            score,
            lead: None,
        };
        let lead = Point {
            lead: Some(-1.5),
            ..point(3, 40)
        };
        store
            .add_points("old", &[point(1, 10), point(2, -20), lead], true, None)
            .unwrap();
        assert_eq!(
            store.points("old").unwrap(),
            [point(1, 10), point(2, -20), lead]
        );
        store
            .set_moves("old", 2, &["c4".into()], None, None)
            .unwrap();
        assert_eq!(store.points("old").unwrap(), [point(1, 10), point(2, -20)]);
        drop(store);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_full_database_fails_the_action_and_keeps_what_it_had() {
        let path = temp("full");
        let store = Store::open(&path).unwrap();
        store
            .create(&game("g1", &["f5", "d6"]), &Birth::default())
            .unwrap();
        // No page more than the file has now: the next growth fails as a full disk would.
        {
            let conn = store.conn.lock();
            let pages: i64 = conn
                .query_row("PRAGMA page_count", [], |r| r.get(0))
                .unwrap();
            conn.pragma_update(None, "max_page_count", pages).unwrap();
        }
        let long: Vec<String> = (0..5000).map(|i| format!("move-{i:0>200}")).collect();
        let e = store.set_moves("g1", 2, &long, None, None).unwrap_err();
        assert!(matches!(e, StoreError::Action(_)), "{e}");
        assert!(e.to_string().contains("full"), "{e}");
        assert_eq!(store.load("g1").unwrap().unwrap().moves, ["f5", "d6"]);
        drop(store);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_file_locked_by_another_program_is_refused_clearly() {
        let path = temp("locked");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // A ryoshi file in SQLite's default journal mode, where a writer keeps readers out.
        let other = Connection::open(&path).unwrap();
        other.execute_batch(MIGRATIONS[0]).unwrap();
        other
            .execute_batch(
                "PRAGMA user_version = 1; BEGIN EXCLUSIVE;
                 INSERT INTO games (id, kind, game, start, created, updated)
                     VALUES ('g', 'engine', 'othello', 'startpos', 1, 1);",
            )
            .unwrap();
        let e = Store::open(&path).err().unwrap();
        assert!(matches!(e, StoreError::Locked(_)), "{e}");
        drop(other);
        assert!(Store::open(&path).is_ok(), "free again");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    fn marks(path: &Path) -> (i64, i64, String) {
        let conn = Connection::open(path).unwrap();
        let pragma = |name: &str| -> rusqlite::Result<i64> {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
        };
        let mode = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        (
            pragma("application_id").unwrap(),
            pragma("user_version").unwrap(),
            mode,
        )
    }

    /// A new file is marked as ryoshi's; so is an unmarked file of an older schema that ryoshi
    /// made, once opened.
    #[test]
    fn ryoshi_marks_its_files() {
        let path = temp("marked");
        drop(Store::open(&path).unwrap());
        let latest = MIGRATIONS.len() as i64;
        assert_eq!(
            marks(&path),
            (APPLICATION_ID.into(), latest, "wal".to_string())
        );
        for version in 1..=MIGRATIONS.len() {
            let path = temp(&format!("unmarked-{version}"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            {
                let old = Connection::open(&path).unwrap();
                old.execute_batch(&MIGRATIONS[..version].concat()).unwrap();
                old.pragma_update(None, "user_version", version as i64)
                    .unwrap();
            }
            drop(Store::open(&path).unwrap());
            assert_eq!(
                marks(&path),
                (APPLICATION_ID.into(), latest, "wal".to_string()),
                "version {version}"
            );
            let _ = std::fs::remove_dir_all(path.parent().unwrap());
        }
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// Without the mark, a file whose tables are named as ryoshi's but are not those ryoshi
    /// made (the attack's file: `games(x)`, `moves(y)`, `user_version` 1), or whose mark is
    /// another program's, is refused and left byte for byte as it was.
    #[test]
    fn a_foreign_file_is_refused_and_untouched() {
        let schemas = [
            "CREATE TABLE games(x); CREATE TABLE moves(y); PRAGMA user_version = 1;".to_string(),
            // Ryoshi's first tables with one column more.
            format!(
                "{} ALTER TABLE games ADD COLUMN extra TEXT; PRAGMA user_version = 1;",
                MIGRATIONS[0]
            ),
            // Ryoshi's tables, the schema version of the next migration.
            format!("{} PRAGMA user_version = 2;", MIGRATIONS[0]),
            // Ryoshi's tables under another program's mark.
            format!(
                "{} PRAGMA user_version = 1; PRAGMA application_id = 7;",
                MIGRATIONS[0]
            ),
        ];
        for (i, schema) in schemas.iter().enumerate() {
            let path = temp(&format!("foreign-{i}"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            Connection::open(&path)
                .unwrap()
                .execute_batch(schema)
                .unwrap();
            let before = std::fs::read(&path).unwrap();
            let e = Store::open(&path).err().unwrap();
            assert!(matches!(e, StoreError::Foreign(_)), "{schema}: {e}");
            assert!(std::fs::read(&path).unwrap() == before, "changed: {schema}");
            assert_eq!(marks(&path).2, "delete", "{schema}");
            let _ = std::fs::remove_dir_all(path.parent().unwrap());
        }
    }

    /// A WAL file lets readers past a writer: the write lock another program holds (a `sqlite3`
    /// shell in `BEGIN EXCLUSIVE`) is still found at start, and said.
    #[test]
    fn a_wal_file_locked_by_another_program_is_refused_at_start() {
        let path = temp("locked-wal");
        drop(Store::open(&path).unwrap());
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN EXCLUSIVE;").unwrap();
        let e = Store::open(&path).err().unwrap();
        assert!(matches!(e, StoreError::Locked(_)), "{e}");
        assert!(e.to_string().contains("locked by another program"), "{e}");
        drop(other);
        assert!(Store::open(&path).is_ok(), "free again");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A new file where this user may not write is said so, not "No such file or directory".
    /// Tests may run as root, whom permissions do not stop: sysfs refuses new files to anyone
    /// (read-only when mounted so: the same words).
    #[test]
    fn a_file_that_may_not_be_created_is_said_so() {
        let mut places = vec![PathBuf::from("/sys/ryoshi-games.db")];
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            use std::os::unix::fs::PermissionsExt;
            let path = temp("no-write");
            let dir = path.parent().unwrap();
            std::fs::create_dir_all(dir).unwrap();
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
            places.push(path);
        }
        for path in places.iter().filter(|p| p.parent().unwrap().is_dir()) {
            let e = Store::open(path).err().unwrap();
            assert!(matches!(e, StoreError::CannotCreate { .. }), "{e}");
            let text = e.to_string();
            assert!(text.contains("may not write in"), "{text}");
            assert!(!path.exists());
        }
        if let Some(path) = places.get(1) {
            let _ = std::fs::remove_dir_all(path.parent().unwrap());
        }
    }

    #[test]
    fn a_damaged_or_newer_file_is_refused() {
        let path = temp("damaged");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, vec![0x5a; 8192]).unwrap();
        let e = Store::open(&path).err().unwrap();
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
        std::fs::remove_file(&path).unwrap();
        {
            let store = Store::open(&path).unwrap();
            store
                .conn
                .lock()
                .pragma_update(None, "user_version", 99)
                .unwrap();
        }
        let e = Store::open(&path).err().unwrap();
        assert!(matches!(e, StoreError::Newer { found: 99, .. }), "{e}");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
