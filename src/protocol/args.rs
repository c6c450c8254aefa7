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

    /// [`Args::rest`], less a last `game N` (N counting from 1), which picks a game of a
    /// collection: `loadrecord games.sgf game 3` is `("games.sgf", Some(3))`. A number past
    /// `usize` is `usize::MAX` (past the end of any collection); `game 0` is refused.
    pub fn rest_and_game(
        &self,
        missing: &'static str,
    ) -> Result<(&'a str, Option<usize>), ParseError> {
        let whole = self.rest(missing)?;
        let text = self.text.trim_end_matches(is_blank);
        // `whole` ends where `text` does; each `game` preceded by a blank is a candidate.
        let start = text.len() - whole.len();
        for (i, _) in whole.match_indices("game").filter(|&(i, _)| i > 0) {
            let head = whole[..i].trim_end_matches(is_blank);
            if head.len() == i {
                continue;
            }
            let at = start + head.len();
            let suffix: Res<'a, &'a str> =
                terminated(preceded(keyword("game"), arg), end)(&self.text[at..]);
            let Ok((_, digits)) = suffix else { continue };
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let n = digits.parse::<usize>().unwrap_or(usize::MAX);
            if n == 0 {
                // `digits` is the line's own text: its place there is the column.
                let k = digits.as_ptr() as usize - self.text.as_ptr() as usize;
                return Err(self.error(Fail {
                    input: &self.text[k..],
                    message: "a game number counts from 1".into(),
                }));
            }
            return Ok((head, Some(n)));
        }
        Ok((whole, None))
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

    #[test]
    fn a_last_game_n_picks_a_game_of_the_collection() {
        let read = |line: &str| {
            let (n, a) = args(line);
            Args::new(&n, &a)
                .rest_and_game("expected a file path")
                .map(|(path, game)| (path.to_string(), game))
        };
        assert_eq!(read("loadrecord a.sgf"), Ok(("a.sgf".to_string(), None)));
        assert_eq!(
            read("loadrecord a.sgf game 3 "),
            Ok(("a.sgf".to_string(), Some(3)))
        );
        assert_eq!(
            read("loadrecord my game 2.sgf game  12"),
            Ok(("my game 2.sgf".to_string(), Some(12)))
        );
        // Not a number, or glued to the path: part of the path.
        assert_eq!(
            read("loadrecord a game x"),
            Ok(("a game x".to_string(), None))
        );
        assert_eq!(
            read("loadrecord agame 3"),
            Ok(("agame 3".to_string(), None))
        );
        assert_eq!(read("loadrecord game 3"), Ok(("game 3".to_string(), None)));
        assert_eq!(
            read("loadrecord a game 99999999999999999999999"),
            Ok(("a".to_string(), Some(usize::MAX)))
        );
        let e = read("loadrecord a.sgf game 0").unwrap_err();
        assert_eq!(e.to_string(), "a game number counts from 1 (column 23)");
        assert!(read("loadrecord ").is_err());
    }
}
