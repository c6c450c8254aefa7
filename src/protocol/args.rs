//! The arguments of a game's own command ([`super::Command::Extension`]), read by the game with
//! the protocol's own token rules and error texts: a bad argument is reported with its column in
//! the whole line, as the protocol's own commands are.

use super::parse::{arg, end, expect, is_blank, keyword, number, Fail, Res};
use crate::text::printable;
use nom::character::complete::space1;
use nom::combinator::{opt, rest, verify};
use nom::sequence::{preceded, terminated};

use super::ParseError;

/// The text after an extension's name, and where it starts in the line.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    /// Columns before the arguments (the name's length: a parsed line starts with its name).
    offset: usize,
    text: &'a str,
}

impl<'a> Args<'a> {
    pub fn new(name: &str, text: &'a str) -> Args<'a> {
        Args {
            offset: name.len(),
            text,
        }
    }

    /// Runs `parser` over the whole argument text.
    fn read<T>(&self, parser: impl FnMut(&'a str) -> Res<'a, T>) -> Result<T, ParseError> {
        match terminated(parser, end)(self.text) {
            Ok((_, value)) => Ok(value),
            Err(nom::Err::Error(f)) | Err(nom::Err::Failure(f)) => Err(self.error(f)),
            Err(nom::Err::Incomplete(_)) => Err(ParseError {
                column: self.offset + self.text.len() + 1,
                message: "incomplete command".into(),
            }),
        }
    }

    fn error(&self, f: Fail<'a>) -> ParseError {
        ParseError {
            column: self.offset + self.text.len() - f.input.len() + 1,
            message: if f.message.is_empty() {
                "malformed command".to_string()
            } else {
                f.message
            },
        }
    }

    /// No arguments.
    pub fn none(&self) -> Result<(), ParseError> {
        self.read(|input| Ok((input, ())))
    }

    /// One whole decimal number; `missing` says what was expected (`expected a depth`).
    pub fn number<T: std::str::FromStr>(&self, missing: &'static str) -> Result<T, ParseError> {
        self.read(expect(missing, number::<T>))
    }

    /// An optional decimal number.
    pub fn optional_number<T: std::str::FromStr>(&self) -> Result<Option<T>, ParseError> {
        self.read(opt(number::<T>))
    }

    /// One token.
    pub fn word(&self, missing: &'static str) -> Result<&'a str, ParseError> {
        self.read(expect(missing, arg))
    }

    /// An optional token.
    pub fn optional_word(&self) -> Result<Option<&'a str>, ParseError> {
        self.read(opt(arg))
    }

    /// Whether the optional keyword `word` is there (nothing else may be).
    pub fn flag(&self, word: &'static str) -> Result<bool, ParseError> {
        self.read(opt(keyword(word))).map(|k| k.is_some())
    }

    /// The rest of the line, trimmed, which must not be empty (a path, an SGF).
    pub fn rest(&self, missing: &'static str) -> Result<&'a str, ParseError> {
        self.read(expect(
            missing,
            preceded(
                space1,
                verify(rest, |r: &str| !r.trim_matches(is_blank).is_empty()),
            ),
        ))
        .map(|r| r.trim_matches(is_blank))
    }
}

/// The answer to a word that neither the protocol nor any game knows.
pub fn unknown_command(name: &str) -> ParseError {
    ParseError {
        column: 1,
        message: format!("unknown command '{}'", printable(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{parse_line, Command};

    /// The extension's arguments as the parser hands them over.
    fn args(line: &str) -> (String, String) {
        match parse_line(line).unwrap().unwrap() {
            Command::Extension { name, args } => (name, args),
            other => panic!("not an extension: {other:?}"),
        }
    }

    #[test]
    fn each_shape_reads_its_arguments() {
        let (n, a) = args("hint 3");
        assert_eq!(Args::new(&n, &a).optional_number::<u32>(), Ok(Some(3)));
        let (n, a) = args("hint");
        assert_eq!(Args::new(&n, &a).optional_number::<u32>(), Ok(None));
        let (n, a) = args("benson classic");
        assert_eq!(Args::new(&n, &a).flag("classic"), Ok(true));
        let (n, a) = args("benson");
        assert_eq!(Args::new(&n, &a).flag("classic"), Ok(false));
        let (n, a) = args("loadsgf  /tmp/a b.sgf ");
        assert_eq!(
            Args::new(&n, &a).rest("expected a file path"),
            Ok("/tmp/a b.sgf")
        );
        let (n, a) = args("flips F5");
        assert_eq!(Args::new(&n, &a).word("expected a move"), Ok("F5"));
        let (n, a) = args("solve");
        assert_eq!(Args::new(&n, &a).none(), Ok(()));
    }

    #[test]
    fn errors_name_their_column_in_the_whole_line() {
        let (n, a) = args("count");
        let e = Args::new(&n, &a)
            .number::<u32>("expected a depth")
            .unwrap_err();
        assert_eq!(e.to_string(), "expected a depth (column 6)");
        let (n, a) = args("count 3 4");
        let e = Args::new(&n, &a)
            .number::<u32>("expected a depth")
            .unwrap_err();
        assert_eq!(e.to_string(), "unexpected trailing text (column 9)");
        let (n, a) = args("loadsgftext");
        assert!(Args::new(&n, &a).rest("expected SGF text").is_err());
        let (n, a) = args("solve now");
        assert_eq!(Args::new(&n, &a).none().unwrap_err().column, 7);
        assert!(unknown_command("\u{1}x").message.is_ascii());
    }
}
