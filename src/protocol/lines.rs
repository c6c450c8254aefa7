//! The one line reader of every text protocol (USI, GTP, the match runner's view of an engine):
//! bytes up to `\n`, never more than a fixed cap held in memory. A longer line is not cut and
//! used: it is reported as too long (and its rest skipped), so the caller can fail it.

use std::io::{BufRead, ErrorKind};

/// The longest line any reader accepts, in bytes without the `\n`.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// What one read produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// A whole line is in the buffer (without its `\n`; a `\r` before it is kept).
    Line,
    /// The line was longer than the cap: the buffer holds its first `cap` bytes, the rest of it
    /// was read and dropped.
    TooLong,
    /// End of input before any byte of a new line.
    Eof,
    /// The input failed (not at its end: a disk error, a pipe reset); what was read of the line
    /// is dropped, and nothing more should be read.
    Failed(ErrorKind),
}

/// Reads the next line into `buf` (cleared first), keeping at most `cap` bytes. An unterminated
/// last line counts as a line.
pub fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>, cap: usize) -> Read {
    buf.clear();
    let mut seen = 0usize;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Read::Failed(e.kind()),
        };
        if chunk.is_empty() {
            break;
        }
        let (take, found) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        seen = seen.saturating_add(take);
        input.consume(if found { take + 1 } else { take });
        if found {
            return if seen > cap {
                Read::TooLong
            } else {
                Read::Line
            };
        }
    }
    if seen == 0 {
        Read::Eof
    } else if seen > cap {
        Read::TooLong
    } else {
        Read::Line
    }
}

/// The error text for a line over the cap.
pub fn too_long_message() -> String {
    format!("line longer than {MAX_LINE_BYTES} bytes; not executed")
}

/// An input that gives `ok` bytes, then fails (as a disk can), for the readers' tests.
#[cfg(test)]
pub struct Failing {
    pub ok: &'static [u8],
}

#[cfg(test)]
impl std::io::Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.ok.is_empty() {
            return Err(std::io::Error::other("disk gone"));
        }
        let n = self.ok.len().min(buf.len());
        buf[..n].copy_from_slice(&self.ok[..n]);
        self.ok = &self.ok[n..];
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], cap: usize) -> Vec<(Read, Vec<u8>)> {
        let mut r = input;
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let got = read_line(&mut r, &mut buf, cap);
            if got == Read::Eof {
                return out;
            }
            out.push((got, buf.clone()));
        }
    }

    #[test]
    fn lines_and_the_cap() {
        let got = all(b"ab\n\ncdef\ngh", 3);
        assert_eq!(
            got,
            vec![
                (Read::Line, b"ab".to_vec()),
                (Read::Line, b"".to_vec()),
                (Read::TooLong, b"cde".to_vec()),
                (Read::Line, b"gh".to_vec()),
            ]
        );
        assert_eq!(all(b"abc\nabcd", 3)[1].0, Read::TooLong);
        assert!(all(b"", 3).is_empty());
    }

    #[test]
    fn a_failed_read_is_no_end_of_input_and_no_line() {
        let mut r = std::io::BufReader::with_capacity(2, Failing { ok: b"ab\ncd" });
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 10), Read::Line);
        assert_eq!(buf, b"ab");
        // "cd" was read, but the line never ended: it is not passed on as one.
        assert_eq!(
            read_line(&mut r, &mut buf, 10),
            Read::Failed(ErrorKind::Other)
        );
    }
}
