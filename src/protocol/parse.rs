//! nom parsers from one protocol line to a [`Command`].
//!
//! A known keyword dispatches straight to its own argument parser (no backtracking), so bad
//! arguments to a known command are reported as such, with the column where parsing failed,
//! instead of as an unknown command.

use super::command::{Command, GameOutcome, GoParams, StartSpec};
use crate::text::printable;
use nom::branch::alt;
use nom::bytes::complete::take_till1;
use nom::character::complete::{space0, space1};
use nom::combinator::{all_consuming, cut, map, map_res, opt, rest, verify};
use nom::multi::many0;
use nom::sequence::{preceded, terminated};
use nom::IResult;

/// Why a line was rejected, and where (1-based column in the trimmed line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} (column {column})")]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

/// nom error that keeps the failing input and a human message.
#[derive(Debug)]
pub(super) struct Fail<'a> {
    pub(super) input: &'a str,
    pub(super) message: String,
}

impl<'a> nom::error::ParseError<&'a str> for Fail<'a> {
    fn from_error_kind(input: &'a str, _kind: nom::error::ErrorKind) -> Self {
        Fail {
            input,
            message: String::new(),
        }
    }
    fn append(_input: &'a str, _kind: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a, E> nom::error::FromExternalError<&'a str, E> for Fail<'a> {
    fn from_external_error(input: &'a str, _kind: nom::error::ErrorKind, _e: E) -> Self {
        Fail {
            input,
            message: String::new(),
        }
    }
}

pub(super) type Res<'a, T> = IResult<&'a str, T, Fail<'a>>;

/// Attaches a message to any failure of `parser` that has none yet.
pub(super) fn expect<'a, T>(
    message: &'static str,
    mut parser: impl FnMut(&'a str) -> Res<'a, T>,
) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |input| {
        parser(input).map_err(|e| {
            e.map(|mut f| {
                if f.message.is_empty() {
                    f.message = message.to_string();
                }
                f
            })
        })
    }
}

/// Tokens are separated by spaces and tabs only; any other character (a vertical tab, a form
/// feed, NBSP, U+3000) belongs to the token it touches, and so makes it fail.
fn is_separator(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn token(input: &str) -> Res<'_, &str> {
    take_till1(is_separator)(input)
}

/// A whitespace-separated token, after at least one separator.
pub(super) fn arg(input: &str) -> Res<'_, &str> {
    preceded(space1, token)(input)
}

pub(super) fn keyword<'a>(word: &'static str) -> impl FnMut(&'a str) -> Res<'a, &'a str> {
    preceded(space1, verify(token, move |t: &str| t == word))
}

/// A whole token of decimal digits (`1nodes` is not a number followed by a word).
pub(super) fn number<T: std::str::FromStr>(input: &str) -> Res<'_, T> {
    preceded(
        space1,
        map_res(
            verify(token, |t: &str| t.bytes().all(|b| b.is_ascii_digit())),
            |d: &str| d.parse::<T>(),
        ),
    )(input)
}

pub(super) fn end(input: &str) -> Res<'_, ()> {
    expect(
        "unexpected trailing text",
        map(all_consuming(space0), |_| ()),
    )(input)
}

fn setoption(input: &str) -> Res<'_, Command> {
    let (input, _) = expect("expected 'name'", keyword("name"))(input)?;
    let (input, name) = expect("expected an option name", arg)(input)?;
    // The value is the rest of the line; `value` with nothing after it is no value.
    let (input, value) = opt(preceded(
        keyword("value"),
        map(rest, |v: &str| v.trim_matches(is_blank).to_string()),
    ))(input)?;
    let (input, _) = end(input)?;
    Ok((
        input,
        Command::SetOption {
            name: name.to_string(),
            value: value.filter(|v| !v.is_empty()),
        },
    ))
}

fn not_moves(t: &&str) -> bool {
    *t != "moves"
}

fn position(input: &str) -> Res<'_, Command> {
    let startpos = map(keyword("startpos"), |_| StartSpec::Startpos);
    let sfen = map(
        preceded(
            keyword("sfen"),
            expect(
                "expected position fields after 'sfen'",
                nom::multi::many1(verify(arg, not_moves)),
            ),
        ),
        |fields: Vec<&str>| StartSpec::Sfen(fields.into_iter().map(str::to_string).collect()),
    );
    let (input, start) = expect("expected 'startpos' or 'sfen'", alt((startpos, sfen)))(input)?;
    let (input, moves) = opt(preceded(keyword("moves"), many0(arg)))(input)?;
    let (input, _) = end(input)?;
    let moves = moves
        .unwrap_or_default()
        .into_iter()
        .map(str::to_string)
        .collect();
    Ok((input, Command::Position { start, moves }))
}

/// The `go` / `ponderhit` parameters, in any order.
fn go_params(mut input: &str) -> Res<'_, GoParams> {
    let mut p = GoParams::default();
    loop {
        let (rest_input, _) = space0(input)?;
        if rest_input.is_empty() {
            return Ok((rest_input, p));
        }
        let (after, word) = expect("expected a go parameter", preceded(space0, token))(input)?;
        let ms = |input| expect("expected a number of milliseconds", number::<u64>)(input);
        input = match word {
            "btime" => ms(after).map(|(i, v)| (i, p.btime = Some(v)))?.0,
            "wtime" => ms(after).map(|(i, v)| (i, p.wtime = Some(v)))?.0,
            "binc" => ms(after).map(|(i, v)| (i, p.binc = Some(v)))?.0,
            "winc" => ms(after).map(|(i, v)| (i, p.winc = Some(v)))?.0,
            "byoyomi" => ms(after).map(|(i, v)| (i, p.byoyomi = Some(v)))?.0,
            "movetime" => ms(after).map(|(i, v)| (i, p.movetime = Some(v)))?.0,
            "nodes" => {
                expect("expected a node count", number::<u64>)(after)
                    .map(|(i, v)| (i, p.nodes = Some(v)))?
                    .0
            }
            "depth" => {
                expect("expected a depth", number::<u32>)(after)
                    .map(|(i, v)| (i, p.depth = Some(v)))?
                    .0
            }
            "infinite" => {
                p.infinite = true;
                after
            }
            "ponder" => {
                p.ponder = true;
                after
            }
            _ => {
                return Err(nom::Err::Failure(Fail {
                    input: rest_input,
                    message: format!("unknown go parameter '{}'", printable(word)),
                }))
            }
        };
    }
}

fn go(input: &str) -> Res<'_, Command> {
    alt((
        map(
            preceded(
                keyword("perft"),
                cut(terminated(expect("expected a depth", number::<u32>), end)),
            ),
            Command::Perft,
        ),
        map(
            preceded(
                keyword("mate"),
                cut(terminated(
                    opt(alt((
                        map(keyword("infinite"), |_| None),
                        map(number::<u64>, Some),
                    ))),
                    expect("expected a number of milliseconds or 'infinite'", end),
                )),
            ),
            |limit| Command::Mate(limit.flatten()),
        ),
        map(go_params, Command::Go),
    ))(input)
}

fn gameover(input: &str) -> Res<'_, Command> {
    let outcome = alt((
        map(keyword("win"), |_| GameOutcome::Win),
        map(keyword("lose"), |_| GameOutcome::Lose),
        map(keyword("draw"), |_| GameOutcome::Draw),
    ));
    map(terminated(opt(outcome), end), Command::GameOver)(input)
}

fn no_args(command: Command) -> impl FnMut(&str) -> Res<Command> {
    move |input| map(end, |_| command.clone())(input)
}

fn command(input: &str) -> Res<'_, Command> {
    let (after, word) = token(input)?;
    let body = match word {
        "usi" => no_args(Command::Usi)(after),
        "isready" => no_args(Command::IsReady)(after),
        "usinewgame" => no_args(Command::UsiNewGame)(after),
        "quit" => no_args(Command::Quit)(after),
        "stop" => no_args(Command::Stop)(after),
        "d" => no_args(Command::Display)(after),
        "moves" => no_args(Command::Moves)(after),
        "bench" => no_args(Command::Bench)(after),
        "setoption" => setoption(after),
        "position" => position(after),
        "go" => go(after),
        "ponderhit" => map(go_params, Command::PonderHit)(after),
        "gameover" => gameover(after),
        // The selected game reads its own commands (`protocol/` names no game).
        _ => Ok((
            "",
            Command::Extension {
                name: word.to_string(),
                args: after.to_string(),
            },
        )),
    };
    body
}

/// What is ignored at the ends of a line: separators and the line end (`\r`, `\n`).
pub(super) fn is_blank(c: char) -> bool {
    is_separator(c) || c == '\r' || c == '\n'
}

/// Parses one line. `Ok(None)` for blank lines and `#` comments.
pub fn parse_line(line: &str) -> Result<Option<Command>, ParseError> {
    let trimmed = line.trim_matches(is_blank);
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    match command(trimmed) {
        Ok((_, cmd)) => Ok(Some(cmd)),
        Err(nom::Err::Error(f)) | Err(nom::Err::Failure(f)) => Err(ParseError {
            column: trimmed.len() - f.input.len() + 1,
            message: if f.message.is_empty() {
                "malformed command".to_string()
            } else {
                f.message
            },
        }),
        Err(nom::Err::Incomplete(_)) => Err(ParseError {
            column: trimmed.len() + 1,
            message: "incomplete command".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse_line(line).expect("parses").expect("a command")
    }

    #[test]
    fn plain_commands() {
        assert_eq!(ok("usi"), Command::Usi);
        assert_eq!(ok("  isready \r"), Command::IsReady);
        assert_eq!(parse_line("# a comment").unwrap(), None);
        assert_eq!(parse_line("   ").unwrap(), None);
        assert!(parse_line("usi now").is_err());
    }

    #[test]
    fn position_with_moves() {
        assert_eq!(
            ok("position sfen a b c 1 moves 7g7f 3c3d"),
            Command::Position {
                start: StartSpec::Sfen(vec!["a".into(), "b".into(), "c".into(), "1".into()]),
                moves: vec!["7g7f".into(), "3c3d".into()]
            }
        );
        assert_eq!(
            ok("position startpos"),
            Command::Position {
                start: StartSpec::Startpos,
                moves: vec![]
            }
        );
        let e = parse_line("position foo").unwrap_err();
        assert_eq!(e.column, 10);
        assert!(e.message.contains("startpos"));
    }

    #[test]
    fn go_variants() {
        let g = ok("go btime 1000 wtime 2000 byoyomi 300 ponder");
        assert_eq!(
            g,
            Command::Go(GoParams {
                btime: Some(1000),
                wtime: Some(2000),
                byoyomi: Some(300),
                ponder: true,
                ..Default::default()
            })
        );
        assert_eq!(ok("go perft 3"), Command::Perft(3));
        assert_eq!(ok("go mate 1000"), Command::Mate(Some(1000)));
        assert_eq!(ok("go mate infinite"), Command::Mate(None));
        assert_eq!(ok("go mate"), Command::Mate(None));
        assert!(parse_line("go mate soon").is_err());
        assert!(parse_line("go mate 10 20").is_err());
        assert_eq!(ok("go"), Command::Go(GoParams::default()));
        let e = parse_line("go movetime soon").unwrap_err();
        assert!(e.message.contains("milliseconds"), "{e}");
        assert!(parse_line("go sideways")
            .unwrap_err()
            .message
            .contains("sideways"));
    }

    #[test]
    fn options_and_extensions() {
        assert_eq!(
            ok("setoption name USI_Variant value othello"),
            Command::SetOption {
                name: "USI_Variant".into(),
                value: Some("othello".into())
            }
        );
        assert_eq!(
            ok("setoption name Clear"),
            Command::SetOption {
                name: "Clear".into(),
                value: None
            }
        );
        // An empty value, with or without a blank after `value`, is no value.
        for line in [
            "setoption name DebugLog value",
            "setoption name DebugLog value \t",
        ] {
            assert_eq!(
                ok(line),
                Command::SetOption {
                    name: "DebugLog".into(),
                    value: None
                },
                "{line:?}"
            );
        }
        assert_eq!(
            ok("setoption name DebugLog value /tmp/a b.log "),
            Command::SetOption {
                name: "DebugLog".into(),
                value: Some("/tmp/a b.log".into())
            }
        );
        assert!(parse_line("setoption name DebugLog valuex").is_err());
        assert_eq!(
            ok("loadsgf /tmp/a b.sgf"),
            Command::Extension {
                name: "loadsgf".into(),
                args: " /tmp/a b.sgf".into()
            }
        );
        assert_eq!(ok("gameover"), Command::GameOver(None));
        assert_eq!(
            ok("gameover win"),
            Command::GameOver(Some(GameOutcome::Win))
        );
        assert!(parse_line("gameover maybe").is_err());
    }

    #[test]
    fn other_words_are_left_to_the_game() {
        assert_eq!(
            ok("frobnicate 1 2"),
            Command::Extension {
                name: "frobnicate".into(),
                args: " 1 2".into()
            }
        );
    }
}
