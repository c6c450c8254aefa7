//! GGF, the game format of the Generic Game Server that NBoard sends with `set game`:
//! `(;GM[Othello]PC[NBoard]...TY[8]BO[8 <64 squares> <side>]B[F5]W[F6/-1.50/2.1]...;)`.
//!
//! Only what decides the position and the clock is read: `GM` (must be Othello), `TY` (board
//! size 8, not anti-Othello), `BO` (the start position), the clocks `TI`/`TB`/`TW` and the
//! `B[...]`/`W[...]` move list; [`parse_annotated`] also keeps the players, date, result and
//! place and each move's note as written, for `othello::record`; every other property
//! (comments, ...) is skipped. Moves are replayed under the rules, so a game that parses is a
//! legal game. The parser is a loop over properties (no
//! recursion) on input of at most [`MAX_GGF_BYTES`].

use super::board::square_name;
use super::position::{parse_square, Position};
use crate::games::error_text;
use crate::games::record::{tag_text, Tags};
use crate::text::printable;
use nom::branch::alt;
use nom::bytes::complete::{escaped, tag, tag_no_case, take_while1};
use nom::character::complete::{anychar, char, digit0, digit1, multispace0, none_of, one_of};
use nom::combinator::{all_consuming, map, opt, recognize, rest, value};
use nom::sequence::{delimited, pair, preceded, tuple};
use nom::IResult;

/// Longer game text is refused before parsing (a full game with evaluations and clocks is
/// under 2 KiB).
pub const MAX_GGF_BYTES: usize = 64 * 1024;

/// One entry of a move list: `F5`, `PA` (a pass), optionally `/<eval>` and `/<seconds>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveItem {
    /// None for a pass.
    pub square: Option<u32>,
    /// The evaluation in discs, when given.
    pub eval: Option<f64>,
    /// The thinking time in seconds, when given.
    pub time: Option<f64>,
}

impl MoveItem {
    /// GGF notation: `F5`, `PA`, `F5/1.5`, `F5//2.5`, `F5/1.5/2.5`.
    pub fn to_text(&self) -> String {
        move_field(
            self.square,
            &note_text(self.eval.map(|e| e.to_string()), self.time),
        )
    }
}

/// A move field, `B[...]`'s value: the square in capitals or `PA`, then `/<note>` unless the
/// note is empty.
pub fn move_field(square: Option<u32>, note: &str) -> String {
    let mut text = match square {
        Some(sq) => square_name(sq).to_ascii_uppercase(),
        None => "PA".to_string(),
    };
    if !note.is_empty() {
        text.push('/');
        text.push_str(note);
    }
    text
}

/// A move's note as a move field holds it: `<eval>`, `<eval>/<time>` or `/<time>` (the eval
/// already written, in the caller's precision).
pub fn note_text(eval: Option<String>, time: Option<f64>) -> String {
    let mut note = eval.unwrap_or_default();
    if let Some(t) = time {
        note.push('/');
        note.push_str(&t.to_string());
    }
    note
}

/// A parsed and replayed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub start: Position,
    /// The moves as listed, each with its colour (true = black, `B[...]`).
    pub moves: Vec<(bool, MoveItem)>,
    /// The position after the last move (no pass is added after it).
    pub position: Position,
    /// The clocks at the start, black's then white's (`TI` for both, `TB`, `TW`), when given.
    pub clocks: [Option<Clock>; 2],
}

/// A GGS clock, `TI[15:00]`, `TB[5:00/10/2:00]`: main time, increment per move, and a grace
/// period after the main time runs out, all in whole seconds (as GGS and NBoard write them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub seconds: u64,
    pub increment: u64,
    pub grace: u64,
}

impl Record {
    /// A game with no moves yet from `start`.
    pub fn from_start(start: Position) -> Record {
        Record {
            start,
            moves: Vec::new(),
            position: start,
            clocks: [None; 2],
        }
    }

    /// Milliseconds left on the clock of black (`black`) or white: the start clock, less the
    /// times of that side's moves, plus an increment per move (the grace period is left as a
    /// reserve). None without a clock, and for a clock that is all zero: NBoard writes `TI[0]`
    /// for a game without one, and its own engines then search to their depth.
    pub fn remaining_ms(&self, black: bool) -> Option<u64> {
        let clock = self.clocks[usize::from(!black)].filter(|c| *c != Clock::default())?;
        let (mut used, mut count) = (0.0f64, 0u64);
        for (_, item) in self.moves.iter().filter(|(b, _)| *b == black) {
            used += item.time.filter(|t| *t > 0.0).unwrap_or(0.0);
            count += 1;
        }
        let total = clock
            .seconds
            .saturating_add(clock.increment.saturating_mul(count))
            .saturating_mul(1000);
        Some(total.saturating_sub((used * 1000.0).min(u64::MAX as f64) as u64))
    }

    /// GGF text of this game; [`parse`] reads it back to the same game.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "(;GM[Othello]PC[ryoshi]TY[8]BO[{}]",
            board_value(&self.start)
        );
        for (tag, clock) in ["TB", "TW"].iter().zip(self.clocks) {
            if let Some(c) = clock {
                text.push_str(&format!("{tag}[{}/{}/{}]", c.seconds, c.increment, c.grace));
            }
        }
        for (black, item) in &self.moves {
            text.push_str(if *black { "B[" } else { "W[" });
            text.push_str(&item.to_text());
            text.push(']');
        }
        text.push_str(";)");
        text
    }
}

/// `BO`'s value: the size, the squares ([`board_text`]) and the side to move.
pub fn board_value(position: &Position) -> String {
    let side = if position.black_to_move { '*' } else { 'O' };
    format!("8 {} {side}", board_text(position))
}

/// The 64 squares in GGF's characters: `*` black, `O` white, `-` empty.
pub fn board_text(position: &Position) -> String {
    let (b, w) = (position.black(), position.white());
    (0..64)
        .map(|sq| match (b >> sq & 1, w >> sq & 1) {
            (1, _) => '*',
            (_, 1) => 'O',
            _ => '-',
        })
        .collect()
}

/// Why a GGF text (or one of its moves) is refused. Texts from the input are kept printable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfError {
    #[error("the game is over")]
    GameOver,
    /// A pass by a side that has moves (listed).
    #[error("{side} cannot pass with legal moves ({legal})")]
    PassWithMoves { side: &'static str, legal: String },
    #[error(
        "illegal move {} for {side} (legal: {legal})",
        square_name(*.square).to_ascii_uppercase()
    )]
    Illegal {
        square: u32,
        side: &'static str,
        legal: String,
    },
    #[error(
        "bad move '{}' (a square A1..H8 or PA, then optionally /eval/seconds)",
        printable(.0)
    )]
    BadMoveItem(String),
    #[error("BO: only 8x8 boards are supported (board size '{}')", printable(.0))]
    BoardSize(String),
    #[error(
        "BO: bad square character '{}' at {} (use *, O or -)",
        .character.escape_default(),
        square_name(*.square).to_ascii_uppercase()
    )]
    BoardCharacter { character: char, square: u32 },
    #[error("BO: the board has {0} squares, not 64")]
    BoardSquares(u32),
    #[error("BO: the side to move is * or O, not '{}'", .0.escape_default())]
    BoardSide(char),
    #[error("BO: the side to move (* or O) is missing")]
    BoardNoSide,
    #[error("BO: text after the side to move (more than 64 squares?)")]
    BoardTrailing,
    #[error("TY[{}]: only 8x8 Othello is supported", printable(.0))]
    Type(String),
    /// `TY` with `a`: anti-Othello, whose winner has fewer discs.
    #[error(
        "TY[{}]: anti-Othello (fewer discs wins) is not supported, only standard Othello",
        printable(.0)
    )]
    AntiOthello(String),
    #[error("game text too long ({0} bytes, at most {MAX_GGF_BYTES})")]
    TooLong(usize),
    #[error("a GGF game starts with '(;'")]
    NoStart,
    #[error("the game text ends before ';)'")]
    Truncated,
    #[error("property {name} at byte {at} has no closing ']'")]
    Unclosed { name: String, at: usize },
    #[error(
        "bad property at byte {at} ('{}'): expected TAG[value] or ';)'",
        printable(.text)
    )]
    BadProperty { at: usize, text: String },
    #[error("GM[{}]: not an Othello game", printable(.0))]
    NotOthello(String),
    #[error("two BO properties")]
    TwoBoards,
    /// The `n`th move's text (1-based).
    #[error("move {n}: {error}")]
    Move { n: usize, error: Box<GgfError> },
    #[error("a GGF game ends with ';)' (at byte {0})")]
    NoEnd(usize),
    /// Text after a game that opens no next game.
    #[error("expected '(;' to open the next game (at byte {0})")]
    NextGame(usize),
    /// Move `n`, `colour[item]`, written when `side` is to move.
    #[error("move {n}: {colour}[{item}] but {side} is to move")]
    OutOfTurn {
        n: usize,
        colour: char,
        item: String,
        side: &'static str,
    },
    /// Move `n`, `colour[item]`, refused by [`play`].
    #[error("move {n}: {colour}[{item}]: {error}")]
    Replay {
        n: usize,
        colour: char,
        item: String,
        error: Box<GgfError>,
    },
    /// Move `n`, `colour[item]`, by a side (`side`) that had to pass.
    #[error("move {n}: {colour}[{item}]: {side} has no legal move and must pass")]
    MustPass {
        n: usize,
        colour: char,
        item: String,
        side: &'static str,
    },
}

error_text!(derived: GgfError);

/// What a move did to a position, for callers that replay moves one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    /// The move was played.
    Moved(Position),
    /// The side to move had to pass; the pass was added, then the move played.
    PassedThenMoved(Position),
}

/// Plays `square` (None = pass) for the side to move. A placement by a side that must pass
/// first is accepted when its opponent is stuck (the pass is implied, as game records that
/// omit passes write it). Errors name the side and the legal moves.
pub fn play(pos: &Position, square: Option<u32>) -> Result<Played, GgfError> {
    let side = side_name(pos.black_to_move);
    let board = pos.board;
    if board.is_game_over() {
        return Err(GgfError::GameOver);
    }
    let Some(sq) = square else {
        if board.moves() != 0 {
            return Err(GgfError::PassWithMoves {
                side,
                legal: legal_list(pos),
            });
        }
        return Ok(Played::Moved(pos.pass()));
    };
    if let Some(next) = pos.play(sq) {
        return Ok(Played::Moved(next));
    }
    if board.moves() == 0 {
        if let Some(next) = pos.pass().play(sq) {
            return Ok(Played::PassedThenMoved(next));
        }
    }
    Err(GgfError::Illegal {
        square: sq,
        side,
        legal: legal_list(pos),
    })
}

fn side_name(black: bool) -> &'static str {
    if black {
        "black"
    } else {
        "white"
    }
}

fn legal_list(pos: &Position) -> String {
    let m = pos.board.moves();
    if m == 0 {
        return "none, it must pass".into();
    }
    super::board::squares(m)
        .map(|sq| square_name(sq).to_ascii_uppercase())
        .collect::<Vec<_>>()
        .join(" ")
}

fn number(input: &str) -> IResult<&str, f64> {
    nom::combinator::map_res(
        recognize(tuple((
            opt(one_of("+-")),
            alt((
                recognize(pair(digit1, opt(pair(char('.'), digit0)))),
                recognize(pair(char('.'), digit1)),
            )),
            // Java's Double.toString, which NBoard's GGF writer uses, writes 1.0E-4.
            opt(tuple((one_of("eE"), opt(one_of("+-")), digit1))),
        ))),
        |s: &str| match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(()),
        },
    )(input)
}

fn square_or_pass(input: &str) -> IResult<&str, Option<u32>> {
    alt((
        // `PA`, also `PASS` and `pass` as people write it.
        value(
            None,
            alt((tag_no_case("pass"), tag_no_case("pa"), tag_no_case("ps"))),
        ),
        map(
            recognize(pair(one_of("abcdefghABCDEFGH"), one_of("12345678"))),
            |s: &str| parse_square(s),
        ),
    ))(input)
}

/// An eval or time field: a number, or `None` when empty or unreadable. NBoard writes evals
/// with the user's locale (`String.format("%3.2f")`), so a German system sends `-0,22`: a
/// lone decimal comma is read as a point, and anything else that is not a number is ignored
/// (the field is informative; refusing the move would refuse the whole game).
fn lenient_number(text: &str) -> Option<f64> {
    let text = text.trim();
    let text = if !text.contains('.') && text.matches(',').count() == 1 {
        text.replace(',', ".")
    } else {
        text.to_string()
    };
    let parsed: IResult<&str, f64> = all_consuming(number)(&text);
    parsed.ok().map(|(_, v)| v)
}

/// A move field and its note as written (the text after the square's `/`: `<eval>/<time>`).
fn move_item(input: &str) -> IResult<&str, (MoveItem, &str)> {
    let (input, square) = square_or_pass(input)?;
    let (input, note) = opt(preceded(char('/'), rest))(input)?;
    let note = note.unwrap_or("");
    let (eval, time) = match note.split_once('/') {
        Some((eval, time)) => (eval, Some(time)),
        None => (note, None),
    };
    let item = MoveItem {
        square,
        eval: lenient_number(eval),
        time: time.and_then(lenient_number),
    };
    Ok((input, (item, note)))
}

/// A move field with its note as written (`F5/-2.00/0.01`: `-2.00/0.01`), so that a record
/// writes the eval back as it came.
pub fn parse_move_field(text: &str) -> Result<(MoveItem, &str), GgfError> {
    let text = text.trim();
    all_consuming(move_item)(text)
        .map(|(_, m)| m)
        .map_err(|_| GgfError::BadMoveItem(text.into()))
}

/// One move as NBoard's `move` command and GGF's `B[...]` write it: `F5`, `f5`, `PA`,
/// `F5/-1.25/3.2`, `F5//3.2`, `D3/-0,22` (an eval or time that does not parse is ignored).
pub fn parse_move_item(text: &str) -> Result<MoveItem, GgfError> {
    parse_move_field(text).map(|(item, _)| item)
}

/// `TAG[value]`: the tag and the raw value (escapes still in).
fn property(input: &str) -> IResult<&str, (&str, &str)> {
    pair(
        take_while1(|c: char| c.is_ascii_uppercase()),
        preceded(
            multispace0,
            delimited(
                char('['),
                map(opt(escaped(none_of("\\]"), '\\', anychar)), |v| {
                    v.unwrap_or("")
                }),
                char(']'),
            ),
        ),
    )(input)
}

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn offset(all: &str, rest: &str) -> usize {
    all.len() - rest.len()
}

/// `BO[8 <64 squares> <side>]`: squares `*`/`X` black, `O`/`0` white, `-`/`.`/`_` empty,
/// whitespace anywhere between them; the side `*`/`X` (black) or `O`/`0` (white).
fn parse_board(text: &str) -> Result<Position, GgfError> {
    let rest = text.trim_start();
    let size_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let size = &rest[..size_end];
    if size != "8" {
        return Err(GgfError::BoardSize(size.into()));
    }
    let mut cells = rest[size_end..].chars().filter(|c| !c.is_whitespace());
    let (mut black, mut white) = (0u64, 0u64);
    for sq in 0..64 {
        match cells.next() {
            Some('*' | 'X' | 'x') => black |= 1 << sq,
            Some('O' | 'o' | '0') => white |= 1 << sq,
            Some('-' | '.' | '_') => {}
            Some(c) => {
                return Err(GgfError::BoardCharacter {
                    character: c,
                    square: sq,
                })
            }
            None => return Err(GgfError::BoardSquares(sq)),
        }
    }
    let black_to_move = match cells.next() {
        Some('*' | 'X' | 'x') => true,
        Some('O' | 'o' | '0') => false,
        Some(c) => return Err(GgfError::BoardSide(c)),
        None => return Err(GgfError::BoardNoSide),
    };
    if cells.next().is_some() {
        return Err(GgfError::BoardTrailing);
    }
    // No check of the centre: NBoard's set-up window can empty any square, and the rules and
    // the search need no disc there (an empty centre square with no neighbour stays empty).
    Ok(Position::from_colours(black, white, black_to_move))
}

/// One time of a clock, `[[[days.]hours:]minutes:]seconds`, in seconds.
fn clock_time(input: &str) -> IResult<&str, u64> {
    let (input, first) = digit1(input)?;
    let (input, days) = opt(preceded(char('.'), digit1))(input)?;
    let (input, rest) = nom::multi::many_m_n(0, 3, preceded(char(':'), digit1))(input)?;
    let (days, first) = match days {
        Some(hours) => (first.parse::<u64>().unwrap_or(u64::MAX), hours),
        None => (0, first),
    };
    let mut seconds = 0u64;
    for part in std::iter::once(first).chain(rest) {
        let n = part.parse::<u64>().unwrap_or(u64::MAX);
        seconds = seconds.saturating_mul(60).saturating_add(n);
    }
    let seconds = seconds.saturating_add(days.saturating_mul(86_400));
    Ok((input, seconds))
}

/// `TI`, `TB`, `TW`: `time[/[increment][/grace]]`; None when it does not read (a clock is
/// advice for `go`, not a reason to refuse the game).
pub fn parse_clock(text: &str) -> Option<Clock> {
    let parsed: IResult<&str, _> = all_consuming(tuple((
        clock_time,
        opt(preceded(char('/'), opt(clock_time))),
        opt(preceded(char('/'), clock_time)),
    )))(text.trim());
    let (_, (seconds, increment, grace)) = parsed.ok()?;
    Some(Clock {
        seconds,
        increment: increment.flatten().unwrap_or(0),
        grace: grace.unwrap_or(0),
    })
}

/// `TY`: the board size must be 8; `a` (anti-Othello) is refused, other letters (synchro,
/// komi, random start) change nothing for one game's position.
fn check_type(text: &str) -> Result<(), GgfError> {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    if digits != "8" {
        return Err(GgfError::Type(text.into()));
    }
    if text.contains('a') {
        return Err(GgfError::AntiOthello(text.into()));
    }
    Ok(())
}

/// Parses one GGF game (optionally preceded by GGS's game count `1`) and replays its moves.
pub fn parse(text: &str) -> Result<Record, GgfError> {
    parse_annotated(text).map(|annotated| annotated.game)
}

/// The GGF properties a record keeps in [`Tags::extra`], in the order it writes them.
pub const EXTRA_TAGS: [&str; 4] = ["PC", "TI", "TB", "TW"];

/// A game with what a record keeps besides: the players, date, result, place and clocks as
/// written, and each move's note as written (`-2.00/0.01` of `B[F5/-2.00/0.01]`).
pub struct Annotated {
    pub game: Record,
    pub tags: Tags,
    /// One per move of `game.moves`.
    pub notes: Vec<String>,
}

/// A game's opening `(;`, after white space and GGS's optional game count (`1`, `2`).
fn head(text: &str) -> IResult<&str, ()> {
    value(
        (),
        tuple((
            multispace0,
            opt(pair(one_of("12"), multispace0)),
            tag("("),
            multispace0,
            tag(";"),
        )),
    )(text)
}

/// Where game `n` (from 1) of a GGF collection is (games one after another, as GGS archives
/// them one a line), and how many games the text holds. Every game is checked for its syntax
/// only (`(;`, `TAG[value]`s, `;)`), a property at a time, none built; an error's byte is the
/// whole text's.
pub fn find_game(
    text: &str,
    n: usize,
) -> Result<(Option<std::ops::Range<usize>>, usize), GgfError> {
    let mut found = None;
    let mut games = 0;
    let mut rest = text;
    loop {
        if rest.trim_start().is_empty() && games > 0 {
            return Ok((found, games));
        }
        let begin = offset(text, rest) + (rest.len() - rest.trim_start().len());
        let Ok((mut r, _)) = head(rest) else {
            return Err(match games {
                0 => GgfError::NoStart,
                _ => GgfError::NextGame(begin),
            });
        };
        loop {
            r = r.trim_start();
            if r.starts_with(';') {
                break;
            }
            match property(r) {
                Ok((after, _)) => r = after,
                Err(_) => return Err(property_error(r, offset(text, r))),
            }
        }
        let tail: IResult<&str, _> = tuple((tag(";"), multispace0, tag(")")))(r);
        let Ok((after, _)) = tail else {
            return Err(GgfError::NoEnd(offset(text, r)));
        };
        games += 1;
        if games == n {
            found = Some(begin..offset(text, after));
        }
        rest = after;
    }
}

/// [`parse`], keeping the [`Annotated`] extras.
pub fn parse_annotated(text: &str) -> Result<Annotated, GgfError> {
    if text.len() > MAX_GGF_BYTES {
        return Err(GgfError::TooLong(text.len()));
    }
    let Ok((mut rest, _)) = head(text) else {
        return Err(GgfError::NoStart);
    };
    let mut start: Option<Position> = None;
    let mut clocks = [None; 2];
    let mut items: Vec<(usize, bool, MoveItem)> = Vec::new();
    let mut tags = Tags::default();
    let mut notes = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.starts_with(';') {
            break;
        }
        let at = offset(text, rest);
        let Ok((r, (name, raw))) = property(rest) else {
            return Err(property_error(rest, at));
        };
        rest = r;
        let value = unescape(raw);
        match name {
            "GM" if !value.trim().eq_ignore_ascii_case("othello") => {
                return Err(GgfError::NotOthello(value))
            }
            "TY" => check_type(&value)?,
            "TI" => clocks = [parse_clock(&value); 2],
            "TB" => clocks[0] = parse_clock(&value),
            "TW" => clocks[1] = parse_clock(&value),
            "BO" => {
                if start.is_some() {
                    return Err(GgfError::TwoBoards);
                }
                start = Some(parse_board(&value)?);
            }
            "B" | "W" => {
                let (item, note) = parse_move_field(&value).map_err(|e| GgfError::Move {
                    n: items.len() + 1,
                    error: Box::new(e),
                })?;
                notes.push(tag_text(note));
                items.push((at, name == "B", item));
            }
            _ => {}
        }
        match name {
            "DT" => tags.date = Some(tag_text(&value)),
            "PB" => tags.players[0] = Some(tag_text(&value)),
            "PW" => tags.players[1] = Some(tag_text(&value)),
            "RE" => tags.result = Some(tag_text(&value)),
            n if EXTRA_TAGS.contains(&n) => tags.set(n, tag_text(&value)),
            _ => {}
        }
    }
    let tail: IResult<&str, _> =
        all_consuming(tuple((tag(";"), multispace0, tag(")"), multispace0)))(rest);
    if tail.is_err() {
        return Err(GgfError::NoEnd(offset(text, rest)));
    }
    let start = start.unwrap_or(Position::START);
    let (moves, position) = replay(start, items)?;
    Ok(Annotated {
        game: Record {
            start,
            moves,
            position,
            clocks,
        },
        tags,
        notes,
    })
}

/// Replays the listed moves (each with its colour) from `start`: the moves as listed and the
/// position after them.
fn replay(
    start: Position,
    items: Vec<(usize, bool, MoveItem)>,
) -> Result<(Vec<(bool, MoveItem)>, Position), GgfError> {
    let mut position = start;
    let mut moves = Vec::with_capacity(items.len());
    for (i, (_, black, item)) in items.into_iter().enumerate() {
        let colour = if black { 'B' } else { 'W' };
        let n = i + 1;
        let out_of_turn = || GgfError::OutOfTurn {
            n,
            colour,
            item: item.to_text(),
            side: side_name(position.black_to_move),
        };
        // A colour out of turn is only accepted as the opponent's pass left out of the record;
        // after the end, no move is (the side to move says nothing then).
        let implied_pass = black != position.black_to_move;
        if implied_pass && !position.board.is_game_over() {
            let stuck = position.board.moves() == 0 && !position.board.is_game_over();
            if !stuck || item.square.is_none() {
                return Err(out_of_turn());
            }
        }
        match play(&position, item.square).map_err(|e| GgfError::Replay {
            n,
            colour,
            item: item.to_text(),
            error: Box::new(e),
        })? {
            Played::Moved(next) => position = next,
            Played::PassedThenMoved(next) if implied_pass => position = next,
            Played::PassedThenMoved(_) => {
                return Err(GgfError::MustPass {
                    n,
                    colour,
                    item: item.to_text(),
                    side: side_name(black),
                })
            }
        }
        moves.push((black, item));
    }
    Ok((moves, position))
}

/// Why the text at byte `at`, `rest`, is no `TAG[value]`.
fn property_error(rest: &str, at: usize) -> GgfError {
    let name_len = rest
        .find(|c: char| !c.is_ascii_uppercase())
        .unwrap_or(rest.len());
    let opened = name_len > 0 && rest[name_len..].trim_start().starts_with('[');
    if rest.is_empty() {
        GgfError::Truncated
    } else if opened {
        GgfError::Unclosed {
            name: rest[..name_len].into(),
            at,
        }
    } else {
        GgfError::BadProperty {
            at,
            text: rest.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBOARD: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)";

    #[test]
    fn reads_what_nboard_sends() {
        let g = parse(NBOARD).unwrap();
        assert_eq!(g.start, Position::START);
        assert_eq!(g.moves.len(), 8);
        let mut pos = Position::START;
        for m in ["f5", "f6", "d3", "c5", "e6", "f7", "e7", "f4"] {
            pos = pos.play(parse_square(m).unwrap()).unwrap();
        }
        assert_eq!(g.position, pos);
        assert!(g.position.black_to_move);
    }

    #[test]
    fn move_items() {
        let m = parse_move_item("F5/-1.50/2.25").unwrap();
        assert_eq!(
            (m.square, m.eval, m.time),
            (Some(37), Some(-1.5), Some(2.25))
        );
        let m = parse_move_item("E6//1.0E-4").unwrap();
        assert_eq!((m.square, m.eval, m.time), (Some(44), None, Some(0.0001)));
        let m = parse_move_item("d3//0.5").unwrap();
        assert_eq!((m.square, m.eval, m.time), (Some(19), None, Some(0.5)));
        assert_eq!(parse_move_item("PA").unwrap().square, None);
        assert_eq!(parse_move_item("pass").unwrap().square, None);
        for bad in ["", "I5", "F9", "F5 1", "F5x", "/1.5", "F5\\1"] {
            assert!(parse_move_item(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn evals_and_times_that_do_not_parse_are_ignored() {
        // NBoard on a German (French, Russian...) system writes `%3.2f` with a decimal comma.
        let m = parse_move_item("D3/-0,22").unwrap();
        assert_eq!((m.square, m.eval, m.time), (Some(19), Some(-0.22), None));
        let m = parse_move_item("C3//1,5").unwrap();
        assert_eq!((m.square, m.eval, m.time), (Some(18), None, Some(1.5)));
        for text in [
            "F5/x",
            "F5/1/2/3",
            "F5/inf/",
            "F5/NaN/NaN",
            "F5/1,000.5",
            "F5/\u{663}/-",
        ] {
            let m = parse_move_item(text).unwrap();
            assert_eq!(m.square, Some(37), "{text}");
            assert!(m.time.is_none(), "{text}");
        }
        assert_eq!(parse_move_item("F5/1/2/3").unwrap().eval, Some(1.0));
        let g = parse("(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[D3/-0,22]W[C3//1,5];)").unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].1.eval, Some(-0.22));
        assert_eq!(parse(&g.to_text()).unwrap(), g);
    }

    #[test]
    fn boards_with_an_empty_centre_are_read() {
        // NBoard's set-up window can clear any square, the centre ones included.
        let g = parse("(;GM[Othello]BO[8 -------------------*--------*------*O--------------------------- O];)").unwrap();
        assert_eq!(g.position.board.empties().count_ones(), 60);
        assert_eq!(g.position.board.player & (1 << 27), 0);
        assert_ne!(g.position.board.moves(), 0);
    }

    #[test]
    fn clocks_are_read_and_spent() {
        let c = |s, i, g| {
            Some(Clock {
                seconds: s,
                increment: i,
                grace: g,
            })
        };
        assert_eq!(parse_clock("15:00"), c(900, 0, 0));
        assert_eq!(parse_clock("5:00//2:00"), c(300, 0, 120));
        assert_eq!(parse_clock("1:00:00/10/2:00"), c(3600, 10, 120));
        assert_eq!(parse_clock("1.2:00:00"), c(86_400 + 7200, 0, 0));
        assert_eq!(parse_clock("45"), c(45, 0, 0));
        for bad in ["", "x", "15:00/x", "1:2:3:4:5"] {
            assert_eq!(parse_clock(bad), None, "{bad}");
        }
        let g = parse("(;GM[Othello]TI[15:00]TB[1:00/2]B[F5//10.5]W[F6/1.0/20]B[E6/-1,5/1.5];)")
            .unwrap();
        assert_eq!(g.clocks, [c(60, 2, 0), c(900, 0, 0)]);
        assert_eq!(g.remaining_ms(true), Some(60_000 + 4_000 - 12_000));
        assert_eq!(g.remaining_ms(false), Some(880_000));
        assert_eq!(parse(&g.to_text()).unwrap(), g);
        // A clock that does not read is no clock; the game is still read.
        assert_eq!(
            parse("(;GM[Othello]TI[soon];)").unwrap().remaining_ms(true),
            None
        );
        // A zero clock, however written, is no clock; zero left on a real clock is zero.
        for zero in ["TI[0]", "TI[0:00]", "TI[0/0/0]", "TB[0]TW[0:00:00]"] {
            let g = parse(&format!("(;GM[Othello]{zero}B[F5];)")).unwrap();
            assert_eq!(g.remaining_ms(true), None, "{zero}");
            assert_eq!(g.remaining_ms(false), None, "{zero}");
        }
        let g = parse("(;GM[Othello]TI[0/5]B[F5//1];)").unwrap();
        assert_eq!(g.remaining_ms(true), Some(4_000));
        let g = parse("(;GM[Othello]TI[0:02]B[F5//2];)").unwrap();
        assert_eq!(g.remaining_ms(true), Some(0));
    }

    #[test]
    fn anti_othello_is_refused_by_name() {
        let e = parse("(;GM[Othello]TY[8a];)").unwrap_err().to_string();
        assert!(e.contains("TY[8a]: anti-Othello"), "{e}");
    }

    #[test]
    fn errors_name_the_problem() {
        let cases = [
            ("", "starts with"),
            ("(;GM[Othello]BO[8 ---];)", "squares"),
            ("(;GM[Chess];)", "not an Othello game"),
            ("(;GM[Othello]TY[10];)", "8x8"),
            ("(;GM[Othello]B[F5]B[F6];)", "move 2"),
            ("(;GM[Othello]B[A1];)", "illegal move A1"),
            ("(;GM[Othello]W[PA];)", "move 1"),
            ("(;GM[Othello]B[F5]", "ends before"),
            ("(;GM[Othello]B[F5;)", "no closing"),
            ("(;GM[Othello]B[F5];) x", "ends with"),
            ("(;GM[Othello]b[F5];)", "bad property"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err();
            assert!(e.to_string().contains(want), "{text}: {e}");
        }
        let long = format!("(;GM[Othello]CO[{}];)", "x".repeat(MAX_GGF_BYTES));
        assert!(parse(&long).unwrap_err().to_string().contains("too long"));
    }

    #[test]
    fn escapes_and_spaced_boards() {
        let g = parse(
            "1 (;GM[Othello]CO[a \\] b]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- O]W[F4];)",
        )
        .unwrap();
        assert!(!g.start.black_to_move);
        assert!(g.position.black_to_move);
    }

    #[test]
    fn writes_what_it_reads() {
        let g = parse(NBOARD).unwrap();
        assert_eq!(parse(&g.to_text()).unwrap(), g);
    }
}
