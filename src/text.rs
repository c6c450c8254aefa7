//! Text helpers below every other floor: how user text is quoted in error messages.
//!
//! Every front end (USI, GTP, NBoard, the pages) and the games' own parsers quote what the user
//! typed through these, so that no error line echoes control bytes or megabytes.

/// Most characters of user text an error message quotes.
pub const QUOTE_CHARS: usize = 40;

/// A short ASCII rendering of user text for error messages (never echo control bytes or megabytes).
pub fn printable(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(QUOTE_CHARS)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect();
    if text.chars().nth(QUOTE_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

/// The last line of defence for every error line: ASCII only (control and non-ASCII characters
/// become `?`), and no quoted span (`'...'`) nor run of non-blank characters longer than
/// [`QUOTE_CHARS`] (the rest becomes `...`). Idempotent on what [`printable`] produced.
pub fn sanitize_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    let mut in_quote = false;
    let mut quoted = 0usize;
    let mut run = 0usize;
    let mut cut = false;
    for c in message.chars() {
        let c = if c.is_ascii_graphic() || c == ' ' {
            c
        } else {
            '?'
        };
        if c == '\'' {
            in_quote = !in_quote;
            quoted = 0;
            run = 0;
            cut = false;
            out.push(c);
            continue;
        }
        if c == ' ' && !in_quote {
            run = 0;
            cut = false;
            out.push(c);
            continue;
        }
        let count = if in_quote { &mut quoted } else { &mut run };
        *count += 1;
        if *count > QUOTE_CHARS {
            if !cut {
                cut = true;
                out.push_str("...");
            }
            continue;
        }
        out.push(c);
    }
    out
}
