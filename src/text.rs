//! Text helpers below every other floor: how user text is quoted in error messages.
//!
//! Every front end (USI, GTP, NBoard, the pages) and the games' own parsers quote what the user
//! typed through these, so that no error line echoes control bytes or megabytes.

/// A score as GTP writes it, black's lead: `B+3.5`, `W+12`, `0` (rounded to three decimals, so
/// that a lead such as 0.1 prints as written). The games' own score commands, their records,
/// and the match runner's results all write it so.
pub fn gtp_score(lead: f64) -> String {
    let points = (lead.abs() * 1000.0).round() / 1000.0;
    if points == 0.0 {
        "0".to_string()
    } else if lead > 0.0 {
        format!("B+{points}")
    } else {
        format!("W+{points}")
    }
}

/// A score as GTP's `final_score` writes it (`B+2.5`, `W+7`, `0`), as black's lead; `None` when
/// it is not one.
pub fn parse_score(text: &str) -> Option<f64> {
    let t = text.trim();
    if t == "0" {
        return Some(0.0);
    }
    let (sign, number) = match t.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("B+") => (1.0, &t[2..]),
        Some(p) if p.eq_ignore_ascii_case("W+") => (-1.0, &t[2..]),
        _ => return None,
    };
    let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite())?;
    Some(sign * value)
}

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

/// Words for a sentence: `a`, `a or b`, `a, b or c` (`conjunction` is `or` or `and`).
pub fn listed<S: AsRef<str>>(words: &[S], conjunction: &str) -> String {
    let words: Vec<&str> = words.iter().map(AsRef::as_ref).collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} {conjunction} {last}", rest.join(", ")),
    }
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

#[cfg(test)]
mod tests {
    use super::{gtp_score, listed, parse_score};

    #[test]
    fn listed_words_read_as_a_sentence() {
        assert_eq!(listed::<&str>(&[], "or"), "");
        assert_eq!(listed(&["go"], "or"), "go");
        assert_eq!(listed(&["a", "b"], "and"), "a and b");
        assert_eq!(listed(&["a", "b", "c"], "or"), "a, b or c");
    }

    #[test]
    fn scores_read_and_written() {
        for (text, lead) in [("B+2.5", 2.5), ("W+7", -7.0), ("0", 0.0), ("w+0.5", -0.5)] {
            assert_eq!(parse_score(text), Some(lead), "{text}");
        }
        for bad in ["", "B+", "B+x", "Jigo", "B+inf", "X+3"] {
            assert_eq!(parse_score(bad), None, "{bad}");
        }
    }

    #[test]
    fn scores_print_as_gtp_writes_them() {
        assert_eq!(gtp_score(3.5), "B+3.5");
        assert_eq!(gtp_score(-12.0), "W+12");
        assert_eq!(gtp_score(0.0), "0");
        assert_eq!(gtp_score(7.0 - 0.1), "B+6.9");
        assert_eq!(gtp_score(-(20.0 - 13.3)), "W+6.7");
    }
}
