//! The GTP loop: lines in from a reader thread, one reply out per command, and the analysis
//! commands' streams, which run until the next line arrives (so the reader cannot be the loop
//! itself).

use super::{analyze, Args, Gtp, Reply};
use crate::go::search::mcts::{Settings, Snapshot};
use crate::protocol::driver::{self, Input};
use crate::protocol::lines;
use crate::search::{Control, Limits};
use crate::text::sanitize_message;
use parking_lot::Mutex;
use std::io::{self, BufRead, Write};

/// Removes control characters other than tab/newline, turns tabs into spaces and drops
/// everything after a `#` (GTP's preprocessing).
fn preprocess(line: &str) -> String {
    let line = line.split('#').next().unwrap_or("");
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// The id of a line too long to read, from its first bytes: digits followed by a space, as a
/// command's id is (a controller matches replies by id, so the refusal carries it).
fn id_of(head: &str) -> Option<String> {
    let head = preprocess(head);
    let head = head.trim_start();
    // The first token, as `handle` splits it, and only when it ends before the cut.
    let id = head.split_whitespace().next()?;
    let ended = head[id.len()..].starts_with(char::is_whitespace);
    (ended && id.bytes().all(|b| b.is_ascii_digit())).then(|| id.to_string())
}

/// The controller's end of the output is gone: the loop stops with this.
#[derive(Debug, thiserror::Error)]
#[error("writing output: {0}")]
pub struct OutputError(#[from] io::Error);

crate::games::error_text!(derived: OutputError);

fn write_text<W: Write>(output: &Mutex<W>, text: &str) -> Result<(), OutputError> {
    for line in text.lines() {
        crate::logging::output(line);
    }
    let mut out = output.lock();
    out.write_all(text.as_bytes()).and_then(|_| out.flush())?;
    Ok(())
}

/// Runs the GTP loop until `quit` or the end of the input. Lines over
/// [`lines::MAX_LINE_BYTES`] fail with `? line longer than ...` and are not executed.
/// Input is read on its own thread, so that a running analysis stops when the next command
/// arrives.
pub fn run<R: BufRead + Send + 'static, W: Write + Send>(
    input: R,
    output: W,
) -> Result<(), OutputError> {
    run_with(Args::default(), input, output)
}

/// [`run`] with the engine settings of the command line.
pub fn run_with<R: BufRead + Send + 'static, W: Write + Send>(
    args: Args,
    input: R,
    output: W,
) -> Result<(), OutputError> {
    let mut gtp = Gtp::with_args(args);
    // A few lines of look-ahead: the reader waits when the engine is busy.
    let rx = driver::spawn_reader(input, 4);
    let output = Mutex::new(output);
    let mut pending: Option<Input> = None;
    loop {
        let msg = match pending.take() {
            Some(msg) => msg,
            None => rx.recv().unwrap_or(Input::Eof),
        };
        let (id, reply) = match msg {
            Input::Eof => break,
            Input::TooLong(head) => (id_of(&head), Reply::failure(lines::too_long_message())),
            Input::Line(line) => {
                crate::logging::input(&line);
                let Some(answer) = gtp.handle(&preprocess(&line)) else {
                    continue;
                };
                answer
            }
        };
        let id = id.unwrap_or_default();
        if let Some(request) = reply.stream {
            pending = gtp.stream(&id, &request, &output, &rx)?;
            continue;
        }
        let mark = if reply.ok { '=' } else { '?' };
        let body = if reply.ok {
            reply.text
        } else {
            sanitize_message(&reply.text)
        };
        let text = if body.is_empty() {
            format!("{mark}{id}\n\n")
        } else {
            format!("{mark}{id} {body}\n\n")
        };
        write_text(&output, &text)?;
        if reply.quit {
            break;
        }
    }
    Ok(())
}

impl Gtp {
    /// Streams an analysis: `=id`, then a line per report; `lz-analyze`/`kata-analyze` run until
    /// the next input line (returned, to be handled next), `genmove_analyze` until the move's
    /// time is up, then `play <move>`. An empty line ends the reply.
    fn stream<W: Write + Send>(
        &mut self,
        id: &str,
        request: &analyze::Request,
        output: &Mutex<W>,
        rx: &crossbeam_channel::Receiver<Input>,
    ) -> Result<Option<Input>, OutputError> {
        if let Err(e) = self.engine() {
            let text = sanitize_message(&e.to_string());
            write_text(output, &format!("?{id} {text}\n\n"))?;
            return Ok(None);
        }
        write_text(output, &format!("={id}\n"))?;
        let board = self.game.board.clone();
        // A failed write shows again, and is returned, at the reply's last line.
        let mut report = |snap: &Snapshot| {
            let line = analyze::line(request, &board, snap);
            // Nothing to list yet (`allow` keeps only moves not visited): an empty line would
            // end the reply.
            if !line.is_empty() {
                let _ = write_text(output, &format!("{line}\n"));
            }
        };
        if request.genmove {
            let result = self.generate_reporting(
                request.color,
                false,
                Some(request.interval_ms),
                &mut report,
            );
            // The move is played unless the rules refuse it (a bug): then the reply says so.
            let end = match result {
                Ok(mv) => format!("play {mv}\n\n"),
                Err(e) => format!("{}\n\n", sanitize_message(&e.to_string())),
            };
            write_text(output, &end)?;
            return Ok(None);
        }
        let control = Control::new(
            Limits {
                infinite: true,
                ..Limits::default()
            },
            0,
        );
        let game = self.game_for(request.color);
        let settings = Settings {
            bans: analyze::bans(request),
            ..self.settings(&game, Some(request.interval_ms))
        };
        if !settings.bans.is_empty() {
            // Visits a kept tree gave the banned moves would still count at the root.
            self.forget_tree();
        }
        let Some(engine) = &self.engine else {
            unreachable!("allocated above")
        };
        let (next, snap) = std::thread::scope(|scope| {
            // A thread the system refuses is no analysis; the stream still ends at the next
            // command.
            let search = std::thread::Builder::new().spawn_scoped(scope, || {
                engine.search(&game, &settings, &control, &mut report)
            });
            let next = rx.recv().unwrap_or(Input::Eof);
            control.stop();
            (next, search.ok().and_then(|s| s.join().ok()))
        });
        if let Some(snap) = snap {
            self.last = Some((game, settings.komi, snap));
        }
        write_text(output, "\n")?;
        Ok(Some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::id_of;

    #[test]
    fn the_id_of_a_line_too_long_is_read_as_handle_reads_it() {
        assert_eq!(id_of("1 name xxxx").as_deref(), Some("1"));
        assert_eq!(id_of("  007\tplay b C3").as_deref(), Some("007"));
        assert_eq!(id_of("name 12 xxxx"), None);
        assert_eq!(id_of("12a name"), None);
        // All digits up to the cut: the id's end is not known, so there is none.
        assert_eq!(id_of(&"9".repeat(64)), None);
        assert_eq!(id_of("#12 name"), None);
        assert_eq!(id_of("5\u{3000}name").as_deref(), Some("5"));
    }
}
