//! The quantum shogi kifu (protocol/quantum-kifu.md): header tags, then one numbered USI move
//! per ply with the candidate sets it narrowed as a comment, then the result.
//!
//! ```text
//! [Game "quantum shogi"]
//! [Date "2026-12-04"]
//! [Sente "ryoshi"]
//! [Gote "human"]
//! [Result "1-0"]
//! [Reason "king capture"]
//! [Start "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1"]
//!
//! 1. 7g7f {7f:KRGSLP}
//! 2. 3c3d {3d:KRGSLP}
//! 1-0
//! ```
//!
//! Every element delimits itself (a tag by its brackets and quotes, a move number by its dot, a
//! comment by its braces), so the kifu reads the same with its line breaks turned into spaces.

use super::position::{Position, Ruleset, HAND};
use super::record::Record;
use super::types::{mask_letters, square_name};
use super::Action;
use crate::games::record::{tag_text, GameRecord, RecordError, Recordable, Tags, TimeTerms};
use crate::games::rules::Rules;
use nom::branch::alt;
use nom::bytes::complete::{escaped_transform, is_not, tag, take_while1};
use nom::character::complete::{char, digit1, multispace0};
use nom::combinator::{map, opt, value};
use nom::sequence::{delimited, preceded, separated_pair, terminated};
use nom::IResult;

const FORMAT: &str = "kifu";

/// The `Game` tag's value.
pub const GAME: &str = "quantum shogi";

/// Most plies a kifu may hold: each ply is checked against the whole game for repetition, so the
/// cap keeps a load to a fraction of a second (real games last a few hundred plies).
pub const MAX_KIFU_PLIES: usize = 10_000;

/// Most header tags a kifu may have (ryoshi writes at most nine; each is kept and written back).
const MAX_TAGS: usize = 64;

/// The results a kifu ends with.
const TERMINATIONS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// `[Key "value"]`, the value with `\"` and `\\` escapes.
fn header_tag(input: &str) -> IResult<&str, (&str, String)> {
    delimited(
        preceded(multispace0, char('[')),
        separated_pair(
            take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_'),
            multispace0,
            delimited(
                char('"'),
                map(
                    opt(escaped_transform(
                        is_not("\\\""),
                        '\\',
                        alt((value("\\", tag("\\")), value("\"", tag("\"")))),
                    )),
                    Option::unwrap_or_default,
                ),
                char('"'),
            ),
        ),
        preceded(multispace0, char(']')),
    )(input)
}

/// `12.`
fn move_number(input: &str) -> IResult<&str, &str> {
    preceded(multispace0, terminated(digit1, char('.')))(input)
}

/// A move or a result: the characters up to white space or a brace.
fn word(input: &str) -> IResult<&str, &str> {
    preceded(
        multispace0,
        take_while1(|c: char| !c.is_whitespace() && c != '{' && c != '}'),
    )(input)
}

/// `{...}`, no brace inside.
fn comment(input: &str) -> IResult<&str, &str> {
    preceded(
        multispace0,
        delimited(
            char('{'),
            map(opt(is_not("{}")), Option::unwrap_or_default),
            char('}'),
        ),
    )(input)
}

/// A tag value with `\` and `"` escaped.
fn quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The candidate sets an action narrowed: `square:letters` of every piece whose set changed
/// (`hand` for a piece in hand), by piece.
pub fn narrowed(before: &Position, after: &Position) -> String {
    let mut parts = Vec::new();
    for (b, a) in before.pieces().iter().zip(after.pieces()) {
        if b.mask != a.mask {
            let at = if a.square == HAND {
                "hand".to_string()
            } else {
                square_name(a.square)
            };
            parts.push(format!("{at}:{}", mask_letters(a.mask)));
        }
    }
    parts.join(" ")
}

/// Writes a kifu.
pub fn write(record: &GameRecord<Record>) -> String {
    let tags = &record.tags;
    let mut s = format!("[Game \"{GAME}\"]\n");
    for (key, v) in [
        ("Date", &tags.date),
        ("Sente", &tags.players[0]),
        ("Gote", &tags.players[1]),
        ("Result", &tags.result),
        ("Reason", &tags.reason),
    ] {
        if let Some(v) = v {
            s += &format!("[{key} \"{}\"]\n", quote(v));
        }
    }
    if !record.start.rules().kakutei_nifu {
        s += "[KakuteiNifu \"off\"]\n";
    }
    s += &format!("[Start \"{}\"]\n", record.start.to_text());
    for (key, v) in &tags.extra {
        s += &format!("[{key} \"{}\"]\n", quote(v));
    }
    s += "\n";
    let mut game = record.start.clone();
    for (i, &action) in record.moves.iter().enumerate() {
        let before = game.position().clone();
        s += &format!("{}. {}", i + 1, game.move_text(action));
        if game.play(action).is_err() {
            s += "\n";
            break;
        }
        let note = narrowed(&before, game.position());
        if !note.is_empty() {
            s += &format!(" {{{note}}}");
        }
        s += "\n";
    }
    s += tags.result.as_deref().unwrap_or("*");
    s += "\n";
    s
}

/// Reads a kifu (the first game of a collection).
pub fn read(text: &str) -> Result<GameRecord<Record>, RecordError> {
    read_game(text, 1)
}

/// Reads game `n` (from 1) of a collection: kifus one after another, each ended by its result
/// or by the next game's first tag (protocol/quantum-kifu.md, "Collections"). The other games
/// are checked for their syntax only: their moves are not played.
pub fn read_game(text: &str, n: usize) -> Result<GameRecord<Record>, RecordError> {
    RecordError::check_size(FORMAT, text)?;
    let mut rest = text.trim_start_matches('\u{feff}');
    let mut found = None;
    let mut games = 0;
    loop {
        games += 1;
        let (record, after) = one_game(text, rest, games == n)?;
        found = found.or(record);
        rest = after.trim_start();
        if rest.is_empty() {
            break;
        }
    }
    found.ok_or(RecordError::NoGame {
        format: FORMAT,
        game: n,
        games,
    })
}

/// The game at `rest` of the kifu text `text`, and the text after it; the game is built (its
/// start read, its moves played) only when `build`, and otherwise checked for its syntax.
fn one_game<'a>(
    text: &'a str,
    rest: &'a str,
    build: bool,
) -> Result<(Option<GameRecord<Record>>, &'a str), RecordError> {
    let (rest, mut tags, start) = read_tags(text, rest, build)?;
    let (rest, moves, plies) = read_moves(text, rest, start.as_ref())?;
    let rest = read_result(text, rest, plies, &mut tags)?;
    Ok((start.map(|start| finished(tags, start, moves)), rest))
}

/// A syntax error at `rest`, a tail of `text`.
fn syntax(text: &str, rest: &str, what: &str) -> RecordError {
    RecordError::syntax(FORMAT, text, text.len() - rest.len(), what)
}

/// The header tags at `rest` (a tail of `text`): the tags kept, and the game's start with its
/// rules when `build`.
fn read_tags<'a>(
    text: &str,
    mut rest: &'a str,
    build: bool,
) -> Result<(&'a str, Tags, Option<Record>), RecordError> {
    let mut tags = Tags::default();
    let mut start = None;
    let mut rules = Ruleset::default();
    let mut game_tag = false;
    let mut keys: Vec<&str> = Vec::new();
    while let Ok((r, (key, value))) = header_tag(rest) {
        if keys.contains(&key) {
            return Err(RecordError::property(key, &value, "the tag is given twice"));
        }
        if keys.len() == MAX_TAGS {
            return Err(syntax(
                text,
                rest.trim_start(),
                &format!("more than {MAX_TAGS} tags"),
            ));
        }
        keys.push(key);
        let value = tag_text(&value);
        match key {
            "Game" if value != GAME => {
                return Err(RecordError::property(
                    "Game",
                    &value,
                    "not a quantum shogi kifu",
                ))
            }
            "Game" => game_tag = true,
            "Date" => tags.date = Some(value),
            "Sente" => tags.players[0] = Some(value),
            "Gote" => tags.players[1] = Some(value),
            "Result" if !TERMINATIONS.contains(&value.as_str()) => {
                return Err(RecordError::property(
                    "Result",
                    &value,
                    "not 1-0, 0-1, 1/2-1/2 or *",
                ))
            }
            "Result" => tags.result = Some(value),
            "Reason" => tags.reason = Some(value),
            "KakuteiNifu" => {
                rules.kakutei_nifu = match value.as_str() {
                    "on" => true,
                    "off" => false,
                    _ => return Err(RecordError::property(key, &value, "not on or off")),
                }
            }
            "Start" if build => {
                let position = super::qsfen::read(&value)
                    .map_err(|e| RecordError::property("Start", &value, e.to_string()))?;
                start = Some(position);
            }
            "Start" => {}
            _ => tags.extra.push((key.to_string(), value)),
        }
        rest = r;
    }
    if !game_tag {
        return Err(syntax(
            text,
            rest,
            "a kifu starts with [Game \"quantum shogi\"]",
        ));
    }
    let start = build.then(|| Record::new(start.unwrap_or_else(Position::start), rules));
    Ok((rest, tags, start))
}

/// The numbered moves at `rest` (a tail of `text`), each played from `start` and checked when
/// there is one (a game being built), else read for their syntax: the moves kept, and how many
/// plies there were.
fn read_moves<'a>(
    text: &str,
    mut rest: &'a str,
    start: Option<&Record>,
) -> Result<(&'a str, Vec<Action>, usize), RecordError> {
    let mut game = start.cloned();
    let mut moves = Vec::new();
    let mut plies = 0;
    while let Ok((r, number)) = move_number(rest) {
        let ply = plies + 1;
        if ply > MAX_KIFU_PLIES {
            return Err(syntax(
                text,
                rest.trim_start(),
                &format!("more than {MAX_KIFU_PLIES} plies"),
            ));
        }
        if number.parse::<usize>().ok() != Some(ply) {
            return Err(syntax(
                text,
                rest.trim_start(),
                &format!("expected move number {ply}."),
            ));
        }
        let Ok((r, token)) = word(r) else {
            return Err(syntax(
                text,
                r.trim_start(),
                &format!("expected move {ply}"),
            ));
        };
        if let Some(game) = game.as_mut() {
            let bad = |e: &dyn std::fmt::Display| RecordError::Move {
                ply,
                text: token.into(),
                why: e.to_string(),
            };
            let action: Action = game.parse_move(token).map_err(|e| bad(&e))?;
            game.play(action).map_err(|e| bad(&e))?;
            moves.push(action);
        }
        plies = ply;
        rest = r;
        if let Ok((r, _)) = comment(rest) {
            rest = r;
        } else if rest.trim_start().starts_with('{') {
            return Err(syntax(
                text,
                rest.trim_start(),
                "a comment has no closing '}'",
            ));
        }
    }
    Ok((rest, moves, plies))
}

/// The result after `plies` moves at `rest` (a tail of `text`), checked against the Result
/// tag; the text after it, which is empty or the next game. The next game's first tag ends a
/// game that gives no result.
fn read_result<'a>(
    text: &str,
    mut rest: &'a str,
    plies: usize,
    tags: &mut Tags,
) -> Result<&'a str, RecordError> {
    let next_game = |rest: &str| rest.trim_start().starts_with('[');
    if next_game(rest) {
        return Ok(rest);
    }
    if let Ok((r, result)) = word(rest) {
        if !TERMINATIONS.contains(&result) {
            return Err(syntax(
                text,
                rest.trim_start(),
                &format!("expected move number {}. or a result", plies + 1),
            ));
        }
        // `*` (unknown) yields to a result given in the other place; two results must agree.
        match tags.result.as_deref() {
            _ if result == "*" => {}
            None | Some("*") => tags.result = Some(result.to_string()),
            Some(tagged) if tagged != result => {
                return Err(syntax(
                    text,
                    rest.trim_start(),
                    &format!("the result {result} is not the Result tag's {tagged}"),
                ))
            }
            Some(_) => {}
        }
        rest = r;
    }
    let tail = rest.trim_start();
    if !tail.is_empty() && !next_game(tail) {
        return Err(syntax(text, tail, "text after the result"));
    }
    Ok(rest)
}

fn finished(tags: Tags, start: Record, moves: Vec<Action>) -> GameRecord<Record> {
    GameRecord {
        tags,
        start,
        moves,
        notes: Vec::new(),
    }
}

impl Recordable for Record {
    const FORMAT: &'static str = FORMAT;

    fn write_record(record: &GameRecord<Self>) -> String {
        write(record)
    }

    fn read_game(text: &str, n: usize) -> Result<GameRecord<Self>, RecordError> {
        read_game(text, n)
    }

    /// A blank line between two games of a collection.
    const BETWEEN_GAMES: &'static str = "\n";

    /// `[TimeControl "600+10"]` (main + increment, seconds) or `"600b30x5"` (byoyomi).
    fn time_tags(tags: &mut Tags, terms: &TimeTerms) {
        tags.set("TimeControl", terms.to_string());
    }
}

/// The game a record holds, from its start.
pub fn from_record(record: &Record, tags: Tags) -> GameRecord<Record> {
    GameRecord {
        tags,
        start: Record::new(record.start_position().clone(), record.rules()),
        moves: record.actions().to_vec(),
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_games_round_trip_on_one_line_too() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for _ in 0..20 {
            let mut game = Record::start();
            for _ in 0..rng.index(120) {
                let legal = game.legal_moves();
                if legal.is_empty() || game.outcome().is_some() {
                    break;
                }
                game.play(legal[rng.index(legal.len())]).unwrap();
            }
            let mut tags = Tags {
                date: Some("2026-12-04".into()),
                players: [Some("a \"b\" \\c".into()), None],
                ..Tags::default()
            };
            if let Some(end) = game.outcome() {
                tags.result = Some(end.verdict.score().into());
                tags.reason = Some(end.reason.to_string());
            }
            let record = from_record(&game, tags);
            let text = write(&record);
            let back = read(&text).unwrap();
            assert_eq!(back.moves, record.moves, "{text}");
            assert_eq!(back.tags, record.tags, "{text}");
            assert_eq!(write(&back), text);
            let flat = read(&text.replace('\n', " ")).unwrap();
            assert_eq!(write(&flat), text);
            assert_eq!(back.replay().unwrap().to_text(), game.to_text());
        }
    }

    #[test]
    fn a_collection_gives_each_game_by_its_number() {
        let one = "[Game \"quantum shogi\"]\n[Sente \"one\"]\n\n1. 7g7f\n2. 3c3d\n1-0\n";
        let two = "[Game \"quantum shogi\"]\n[Sente \"two\"]\n\n1. 2g2f\n";
        let three = "[Game \"quantum shogi\"]\n*\n";
        let text = format!("{one}\n{two}{three}");
        assert_eq!(read(&text).unwrap().moves.len(), 2);
        let game = read_game(&text, 2).unwrap();
        assert_eq!(game.tags.players[0].as_deref(), Some("two"));
        assert_eq!(game.moves.len(), 1);
        assert!(read_game(&text, 3).unwrap().moves.is_empty());
        let e = read_game(&text, 4).unwrap_err().to_string();
        assert_eq!(e, "no game 4: the kifu record holds 3 games");
        // On one line too, and a game that is not read is not played.
        let flat = format!("{one}{two}").replace('\n', " ") + "[Game \"quantum shogi\"] 1. 9a9b";
        assert_eq!(read_game(&flat, 2).unwrap().moves.len(), 1);
        let e = read_game(&flat, 3).unwrap_err().to_string();
        assert!(e.contains("illegal move 9a9b at ply 1"), "{e}");
        let e = read(&format!("{one}x")).unwrap_err().to_string();
        assert!(e.contains("text after the result"), "{e}");
        let e = read(&format!("{one}[Gamer \"x\"]"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a kifu starts with"), "{e}");
    }

    #[test]
    fn tags_are_bounded_and_kept_on_one_line() {
        let game = "[Game \"quantum shogi\"]";
        let many: String = (0..MAX_TAGS).map(|i| format!("[T{i} \"x\"]")).collect();
        assert!(read(&format!("{game}{many}")).is_err());
        let fits: String = (1..MAX_TAGS).map(|i| format!("[T{i} \"x\"]")).collect();
        assert_eq!(
            read(&format!("{game}{fits}")).unwrap().tags.extra.len(),
            MAX_TAGS - 1
        );
        let e = read(&format!("{game}{many}")).unwrap_err().to_string();
        assert!(e.contains("more than 64 tags"), "{e}");
        let named = read(&format!("{game}[Sente \"a\nreadyok\"] *")).unwrap();
        assert_eq!(named.tags.players[0].as_deref(), Some("a readyok"));
        assert_eq!(
            write(&named)
                .lines()
                .filter(|l| l.contains("readyok"))
                .count(),
            1
        );
    }

    #[test]
    fn errors_name_the_tag_the_byte_or_the_ply() {
        for (text, want) in [
            ("", "starts with [Game"),
            ("[Game \"chess\"]", "Game[chess]: not a quantum shogi kifu"),
            (
                "[Game \"quantum shogi\"] 1. 7g7f 3. 3c3d",
                "expected move number 2.",
            ),
            (
                "[Game \"quantum shogi\"] 1. 7g7f 2. 7g7f",
                "illegal move 7g7f at ply 2",
            ),
            ("[Game \"quantum shogi\"] [Start \"x\"]", "Start[x]"),
            (
                "[Game \"quantum shogi\"] 1. 7g7f {a 1-0",
                "byte 31): a comment has no closing",
            ),
            (
                "[Game \"quantum shogi\"] 1. 7g7f 1-0 x",
                "text after the result",
            ),
            (
                "[Game \"quantum shogi\"] [Result \"1-0\"] 1. 7g7f 0-1",
                "byte 46): the result 0-1 is not the Result tag's 1-0",
            ),
            (
                "[Game \"quantum shogi\"] [Sente \"a\"] [Sente \"b\"]",
                "Sente[b]: the tag is given twice",
            ),
        ] {
            let e = read(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
