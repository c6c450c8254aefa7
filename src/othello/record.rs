//! Othello records: GGF as GGS and NBoard write it, and the transcript (`f5d6c3...`).
//!
//! - **GGF**: `(;GM[Othello]PC[..]DT[..]PB[..]PW[..]RE[..]TI[..]TY[8]BO[8 <64 squares> *]B[F5//1.2]W[..];)`,
//!   read by [`super::ggf::parse`] (at most [`MAX_GGF_BYTES`]), which replays the moves; a pass
//!   is `PA`, and one left out is implied. The moves' `/eval/time` are kept as notes. Written
//!   with every pass as `PA`, as GGS writes them.
//! - **Transcript**: the placements run together from the standard start, in either case, white
//!   space allowed between them, passes implied (`f5d6c3d3c4`); written in lowercase.
//!
//! [`Recordable::read_record`] reads either (GGF when the text opens with `(`, or with GGS's
//! game count `1 (`) and writes GGF.

use super::ggf::{self, GgfError, MAX_GGF_BYTES};
use super::position::Position;
use super::{square_name, squares};
use crate::games::record::{GameRecord, RecordError, Recordable, Tags};
use crate::games::rules::{GameEnd, Reason, Rules, Side, Verdict};
use nom::character::complete::{multispace0, one_of};
use nom::combinator::recognize;
use nom::sequence::{pair, preceded};
use nom::IResult;

/// The start as the rules hold it: a side without a move has passed.
fn settled(position: Position) -> Position {
    position.forced_pass().unwrap_or(position)
}

/// Whether `text` is GGF (not a transcript).
pub fn is_ggf(text: &str) -> bool {
    let t = text.trim_start();
    let t = t
        .strip_prefix(['1', '2'])
        .map_or(t, |rest| rest.trim_start());
    t.starts_with('(')
}

/// A [`GgfError`] of the game at byte `base` of `text` as a record error: the byte (of the
/// whole text), the property or the move it names.
fn from_ggf(text: &str, base: usize, e: GgfError) -> RecordError {
    let syntax = |at: usize, what: String| RecordError::syntax("GGF", text, base + at, what);
    let what = e.to_string();
    // A property's error already names it (`TY[10]: ...`, `BO: ...`); the record error names it
    // again, so its own words go without the name.
    let why = what
        .split_once(": ")
        .filter(|(name, _)| name.starts_with("TY") || name.starts_with("BO"))
        .map_or(what.clone(), |(_, why)| why.to_string());
    match e {
        GgfError::TooLong(bytes) => RecordError::TooLarge {
            format: "GGF",
            bytes,
            max: MAX_GGF_BYTES,
        },
        GgfError::NoStart => syntax(0, what),
        GgfError::Truncated => syntax(text.len() - base, what),
        GgfError::Unclosed { at, .. }
        | GgfError::BadProperty { at, .. }
        | GgfError::NoEnd(at)
        | GgfError::NextGame(at) => syntax(at, what),
        GgfError::NotOthello(v) => RecordError::property("GM", &v, "not an Othello game"),
        GgfError::Type(v) | GgfError::AntiOthello(v) => RecordError::property("TY", &v, why),
        GgfError::Move { n, error } => RecordError::Move {
            ply: n,
            text: match *error {
                GgfError::BadMoveItem(ref t) => t.clone(),
                _ => String::new(),
            },
            why: error.to_string(),
        },
        GgfError::Replay {
            n,
            colour,
            item,
            error,
        } => RecordError::Move {
            ply: n,
            text: format!("{colour}[{item}]"),
            why: error.to_string(),
        },
        GgfError::OutOfTurn {
            n,
            colour,
            item,
            side,
        } => RecordError::Move {
            ply: n,
            text: format!("{colour}[{item}]"),
            why: format!("{side} is to move"),
        },
        GgfError::MustPass {
            n,
            colour,
            item,
            side,
        } => RecordError::Move {
            ply: n,
            text: format!("{colour}[{item}]"),
            why: format!("{side} has no legal move and must pass"),
        },
        GgfError::BoardSize(_)
        | GgfError::BoardCharacter { .. }
        | GgfError::BoardSquares(_)
        | GgfError::BoardSide(_)
        | GgfError::BoardNoSide
        | GgfError::BoardTrailing
        | GgfError::TwoBoards => RecordError::property("BO", "...", why),
        other => syntax(0, other.to_string()),
    }
}

/// Reads a GGF game (the first of a collection).
pub fn read_ggf(text: &str) -> Result<GameRecord<Position>, RecordError> {
    read_ggf_game(text, 1)
}

/// Reads game `n` (from 1) of a GGF collection, the others checked for their syntax only.
pub fn read_ggf_game(text: &str, n: usize) -> Result<GameRecord<Position>, RecordError> {
    RecordError::check_size("GGF", text)?;
    let (span, games) = ggf::find_game(text, n).map_err(|e| from_ggf(text, 0, e))?;
    let Some(span) = span else {
        return Err(RecordError::NoGame {
            format: "GGF",
            game: n,
            games,
        });
    };
    let game = &text[span.clone()];
    let read = ggf::parse_annotated(game).map_err(|e| from_ggf(text, span.start, e))?;
    let mut record = GameRecord::new(settled(read.game.start));
    record.tags = read.tags;
    for ((_, item), note) in read.game.moves.into_iter().zip(read.notes) {
        if let Some(sq) = item.square {
            // The eval and time as written (NBoard's `-2.00`, not a reformatted `-2`).
            record.moves.push(sq);
            record.notes.push(note);
        }
    }
    while record.notes.last().is_some_and(String::is_empty) {
        record.notes.pop();
    }
    Ok(record)
}

/// The record of a game NBoard's session holds (`set game` and the moves since, read by
/// [`ggf::parse`]), with `tags`: each placement's eval (two decimals) and time become its note,
/// so [`write_ggf`] writes them as `B[F5/-4.00/0.01]`.
pub fn from_ggf_game(game: &ggf::Record, tags: Tags) -> GameRecord<Position> {
    let mut record = GameRecord::new(settled(game.start));
    record.tags = tags;
    for (_, item) in &game.moves {
        let Some(sq) = item.square else { continue };
        record.moves.push(sq);
        record.notes.push(ggf::note_text(
            item.eval.map(|e| format!("{e:.2}")),
            item.time,
        ));
    }
    while record.notes.last().is_some_and(String::is_empty) {
        record.notes.pop();
    }
    record
}

/// Writes a game as GGF, every pass as `PA`.
pub fn write_ggf(record: &GameRecord<Position>) -> String {
    let tags = &record.tags;
    let start = record.start;
    let value = |v: &str| v.replace('\\', "\\\\").replace(']', "\\]");
    let mut s = String::from("(;GM[Othello]");
    s += &format!("PC[{}]", value(tags.get("PC").unwrap_or("ryoshi")));
    for (key, v) in [
        ("DT", &tags.date),
        ("PB", &tags.players[0]),
        ("PW", &tags.players[1]),
        ("RE", &tags.result),
    ] {
        if let Some(v) = v {
            s += &format!("{key}[{}]", value(v));
        }
    }
    for key in &ggf::EXTRA_TAGS[1..] {
        if let Some(v) = tags.get(key) {
            s += &format!("{key}[{}]", value(v));
        }
    }
    s += &format!("TY[8]BO[{}]", ggf::board_value(&start));
    let mut position = start;
    for (i, &mv) in record.moves.iter().enumerate() {
        let colour = if position.black_to_move { 'B' } else { 'W' };
        s += &format!(
            "{colour}[{}]",
            value(&ggf::move_field(Some(mv), record.note(i)))
        );
        let before = position.black_to_move;
        if Rules::play(&mut position, mv).is_err() {
            break;
        }
        // The rules passed for a side without a move: GGS writes that pass.
        if position.black_to_move == before && !position.board.is_game_over() {
            let colour = if before { 'W' } else { 'B' };
            s += &format!("{colour}[{}]", ggf::move_field(None, ""));
        }
    }
    s += ";)";
    s
}

/// One transcript placement.
fn placement(input: &str) -> IResult<&str, &str> {
    preceded(
        multispace0,
        recognize(pair(one_of("abcdefghABCDEFGH"), one_of("12345678"))),
    )(input)
}

/// Reads a transcript from the standard start.
pub fn read_transcript(text: &str) -> Result<GameRecord<Position>, RecordError> {
    RecordError::check_size("transcript", text)?;
    let mut record = GameRecord::new(<Position as Rules>::start());
    let mut game = record.start;
    let mut rest = text;
    while let Ok((r, token)) = placement(rest) {
        let ply = record.moves.len() + 1;
        let mv = game.parse_move(token).map_err(|e| RecordError::Move {
            ply,
            text: token.into(),
            why: e.to_string(),
        })?;
        Rules::play(&mut game, mv).map_err(|e| RecordError::Move {
            ply,
            text: token.into(),
            why: e.to_string(),
        })?;
        record.moves.push(mv);
        rest = r;
    }
    let tail = rest.trim_start();
    if !tail.is_empty() {
        return Err(RecordError::syntax(
            "transcript",
            text,
            text.len() - tail.len(),
            "expected a square a1..h8",
        ));
    }
    Ok(record)
}

/// The transcript of a game from the standard start (the placements, lowercase).
pub fn write_transcript(record: &GameRecord<Position>) -> String {
    record.moves.iter().map(|&m| square_name(m)).collect()
}

/// The game a list of positions holds: `states[0]` the start, each next one a placement later.
pub fn from_positions(states: &[Position], tags: Tags) -> GameRecord<Position> {
    let mut record = GameRecord::new(states.first().copied().unwrap_or_else(Position::start));
    record.tags = tags;
    for pair in states.windows(2) {
        if let Some(sq) = squares(pair[0].board.empties() & !pair[1].board.empties()).next() {
            record.moves.push(sq);
        }
    }
    record
}

impl Recordable for Position {
    const FORMAT: &'static str = "GGF";

    fn write_record(record: &GameRecord<Self>) -> String {
        write_ggf(record)
    }

    /// GGF, or a transcript (one game).
    fn read_game(text: &str, n: usize) -> Result<GameRecord<Self>, RecordError> {
        if is_ggf(text) {
            read_ggf_game(text, n)
        } else if n == 1 {
            read_transcript(text)
        } else {
            Err(RecordError::NoGame {
                format: "transcript",
                game: n,
                games: 1,
            })
        }
    }

    /// As GGS writes `RE`: black's disc lead (`+12.00`), flagged `:r` for a resignation and `:t`
    /// for a fallen flag; a win the discs did not decide counts all 64 discs.
    fn result_tag(end: GameEnd, score: Option<f64>) -> String {
        let lead = match (score, end.verdict) {
            (Some(lead), _) => return format!("{lead:+.2}"),
            (None, Verdict::Draw) => return "0.00".into(),
            (None, Verdict::Win(Side::First)) => 64.0,
            (None, Verdict::Win(Side::Second)) => -64.0,
        };
        let flag = match end.reason {
            Reason::Resign => ":r",
            Reason::TimeForfeit | Reason::Timeout => ":t",
            _ => "",
        };
        format!("{lead:+.2}{flag}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBOARD: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3//1.5]W[C5/-0.25/2.1]B[E6]W[F7]B[E7]W[F4];)";

    #[test]
    fn nboard_games_are_read_and_written_back() {
        let r = read_ggf(NBOARD).unwrap();
        assert_eq!(r.moves.len(), 8);
        assert_eq!(r.tags.players[0].as_deref(), Some("./mEdax"));
        assert_eq!(r.tags.get("TI"), Some("15:00"));
        assert_eq!(r.note(2), "/1.5");
        let text = write_ggf(&r);
        assert_eq!(
            text,
            "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3//1.5]W[C5/-0.25/2.1]B[E6]W[F7]B[E7]W[F4];)"
        );
        let back = read_ggf(&text).unwrap();
        assert_eq!(back.moves, r.moves);
        assert_eq!(back.tags, r.tags);
        assert_eq!(back.notes, r.notes);
    }

    #[test]
    fn notes_and_names_with_brackets_or_line_breaks_write_back_readable() {
        let r = read_ggf("(;GM[Othello]PB[a\nb]TY[8]B[F5/1/2\\]x];)").unwrap();
        assert_eq!(r.tags.players[0].as_deref(), Some("a b"));
        assert_eq!(r.note(0), "1/2]x");
        let text = write_ggf(&r);
        assert!(text.contains("B[F5/1/2\\]x]"), "{text}");
        let back = read_ggf(&text).unwrap();
        assert_eq!(
            (back.moves, back.notes, back.tags.players),
            (r.moves, r.notes, r.tags.players)
        );
    }

    #[test]
    fn a_collection_of_one_game_a_line_gives_each_by_its_number() {
        let first = read_ggf(NBOARD).unwrap();
        let text = format!("{NBOARD}\n1 (;GM[Othello]PB[two]TY[8]B[D3];)\n(;GM[Othello]TY[8];)\n");
        assert_eq!(read_ggf(&text).unwrap().moves, first.moves);
        let two = Position::read_game(&text, 2).unwrap();
        assert_eq!(two.tags.players[0].as_deref(), Some("two"));
        assert_eq!(write_transcript(&two), "d3");
        assert!(Position::read_game(&text, 3).unwrap().moves.is_empty());
        let e = Position::read_game(&text, 4).unwrap_err().to_string();
        assert_eq!(e, "no game 4: the GGF record holds 3 games");
        let e = Position::read_game("f5d6", 2).unwrap_err().to_string();
        assert_eq!(e, "no game 2: the transcript record holds 1 game");
        // Errors name the byte of the whole file; a later game's moves are not played when
        // an earlier one is read.
        let bad = format!("{NBOARD}\n(;GM[Othello]TY[8]B[A1];)");
        assert!(read_ggf(&bad).is_ok());
        let e = Position::read_game(&bad, 2).unwrap_err().to_string();
        assert!(e.contains("illegal move B[A1] at ply 1"), "{e}");
        let e = read_ggf(&format!("{NBOARD} x")).unwrap_err().to_string();
        let at = NBOARD.len() + 1;
        assert!(e.contains(&format!("(byte {at}): expected '(;'")), "{e}");
        // Each game has GGF's cap, not the file.
        let many = format!("{NBOARD}\n").repeat(400);
        assert!(many.len() > ggf::MAX_GGF_BYTES);
        assert_eq!(Position::read_game(&many, 400).unwrap().moves, first.moves);
    }

    #[test]
    fn transcripts_read_in_either_case_and_write_lowercase() {
        let r = read_transcript("F5d6 C3\nd3").unwrap();
        assert_eq!(write_transcript(&r), "f5d6c3d3");
        assert_eq!(Position::read_record("f5d6c3d3").unwrap().moves, r.moves);
        let e = read_transcript("f5d6a1").unwrap_err().to_string();
        assert!(e.contains("illegal move a1 at ply 3"), "{e}");
        let e = read_transcript("f5 x9").unwrap_err().to_string();
        assert!(
            e.contains("transcript syntax error at line 1, column 4 (byte 3)"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_byte_the_property_or_the_ply() {
        for (text, want) in [
            ("(;GM[Chess];)", "GM[Chess]: not an Othello game"),
            ("(;GM[Othello]B[F5]B[F6];)", "at ply 2"),
            ("(;GM[Othello]B[A1];)", "illegal move B[A1] at ply 1"),
            ("(;GM[Othello]B[F5;)", "byte 13"),
            ("(;GM[Othello]TY[8a];)", "TY[8a]"),
        ] {
            let e = Position::read_record(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
