//! Logs, through the `log` facade and one logger of ours: the engine's debug log (every line
//! in and out with a timestamp: USI's `setoption name DebugLog value <file>`, the CLI's
//! `--debug-log FILE`) and the access log of `ryoshi serve` (one line per HTTP request).
//!
//! Each log has its own target and its own sink: the debug log goes to the file last opened
//! (none: nothing is written), the access log to stderr or `--access-log FILE`. A line is
//! `2026-12-04T19:05:01.123Z <text>` (UTC, milliseconds).

use parking_lot::Mutex;
use std::fs::File;
use std::io::{self, Write};
use std::sync::Once;
use std::time::{SystemTime, UNIX_EPOCH};

/// The target of the engine's lines in and out.
pub const IO: &str = "ryoshi::io";
/// The target of `ryoshi serve`'s access log.
pub const ACCESS: &str = "ryoshi::access";

enum Sink {
    None,
    Stderr,
    File(File),
}

struct Logger {
    io: Mutex<Sink>,
    access: Mutex<Sink>,
}

static LOGGER: Logger = Logger {
    io: Mutex::new(Sink::None),
    access: Mutex::new(Sink::None),
};
static INSTALL: Once = Once::new();

impl log::Log for Logger {
    fn enabled(&self, meta: &log::Metadata) -> bool {
        meta.target() == IO || meta.target() == ACCESS
    }

    fn log(&self, record: &log::Record) {
        let sink = match record.target() {
            IO => &self.io,
            ACCESS => &self.access,
            _ => return,
        };
        let mut sink = sink.lock();
        let line = format!("{} {}\n", timestamp(SystemTime::now()), record.args());
        // A log that cannot be written is not the engine's failure: the line is dropped.
        let _ = match &mut *sink {
            Sink::None => Ok(()),
            Sink::Stderr => io::stderr().write_all(line.as_bytes()),
            Sink::File(f) => f.write_all(line.as_bytes()).and_then(|_| f.flush()),
        };
    }

    fn flush(&self) {}
}

fn install() {
    INSTALL.call_once(|| {
        // Fails only when another logger was set first (none is, in this crate).
        let _ = log::set_logger(&LOGGER);
        log::set_max_level(log::LevelFilter::Info);
    });
}

fn open(path: &str) -> io::Result<File> {
    File::options().create(true).append(true).open(path)
}

/// Sends the engine's lines in and out to `path` (appended), from now on; an empty path (or
/// `<empty>`, as USI GUIs send a cleared string) closes the log. On an error the log is
/// unchanged.
pub fn debug_to(path: &str) -> io::Result<()> {
    install();
    let sink = match path.trim() {
        "" | "<empty>" => Sink::None,
        p => Sink::File(open(p)?),
    };
    *LOGGER.io.lock() = sink;
    Ok(())
}

/// Sends the access log to `path` (appended), or to stderr when None.
pub fn access_to(path: Option<&str>) -> io::Result<()> {
    install();
    let sink = match path {
        Some(p) => Sink::File(open(p)?),
        None => Sink::Stderr,
    };
    *LOGGER.access.lock() = sink;
    Ok(())
}

/// A line the engine read.
pub fn input(line: &str) {
    log::info!(target: IO, "< {line}");
}

/// A line the engine wrote.
pub fn output(line: &str) {
    log::info!(target: IO, "> {line}");
}

/// One request of `ryoshi serve`: the client's address, the method, the path (printable) and
/// the status code sent.
pub fn access(client: &str, method: &str, path: &str, status: &str) {
    let code = status.split(' ').next().unwrap_or(status);
    log::info!(
        target: ACCESS,
        "{client} {} {} {code}",
        crate::text::printable(method),
        crate::text::printable(path)
    );
}

/// The UTC date `(year, month, day)` of a day counted from 1970-01-01 (Howard Hinnant's
/// civil-from-days algorithm).
pub fn civil_date(days: u64) -> (i64, i64, i64) {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// `2026-12-04T19:05:01.123Z`.
pub fn timestamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let rem = secs % 86_400;
    let (year, month, day) = civil_date(secs / 86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_dates() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_208_000_250);
        assert_eq!(timestamp(t), "2024-02-29T12:00:00.250Z");
    }
}
