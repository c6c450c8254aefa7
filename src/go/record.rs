//! Go records in SGF (FF[4], GM[1]), read and written for the session, GTP and the runner.
//!
//! Reading is one pass over the text with nom: the game-tree grammar in full (`(;...(;...)(;...))`,
//! properties with one or more `[values]`, `\` escapes), the open variations counted (at most
//! [`MAX_NESTING`], no recursion), and only the first game's **main line** kept (the first
//! variation at every branch), node by node, so memory follows the main line's moves and not
//! the file. Kept: `SZ` (any size ryoshi plays, `n` or `n:n`), `KM`, `RU`, `HA`, `PB`, `PW`,
//! `DT`, `RE`, the setup `AB`/`AW`/`AE` (rectangles `aa:cc` too) and `PL` before the first move,
//! and the moves `B`/`W`, one a node (`B[]`, and `B[tt]` on boards up to 19x19, are passes).
//! A move by the side not to move is read as the other side's pass first (GNU Go plays it as
//! given; a record has alternating moves). Every move is replayed under the rules.
//!
//! Writing gives `(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[19]KM[7.5]...PB[..]PW[..]AB[..]AW[..]PL[W]`
//! then one node per move (`;B[dd]`, passes `;W[]`), ten to a line, as GNU Go, Sabaki and KGS
//! read them.

use super::board::{index_row_col, point_index, Board, Color, BLACK, EMPTY, WHITE};
use super::notation::format_vertex;
use super::position::Position;
use super::rules::Record;
use crate::games::record::{
    seconds, tag_text, GameRecord, RecordError, Recordable, Tags, TimeTerms, MAX_NESTING,
};
use crate::games::rules::{GameEnd, OptionValues, Reason, Side, Verdict};
use nom::bytes::complete::{escaped, is_not, take_while1};
use nom::character::complete::{anychar, char, multispace0};
use nom::combinator::opt;
use nom::sequence::{delimited, preceded};
use nom::IResult;

const FORMAT: &str = "SGF";

/// The properties kept in [`Tags::extra`], in the order they are written.
const EXTRA: [&str; 5] = ["KM", "RU", "HA", "TM", "OT"];

/// `[value]`, escapes still in.
fn value(input: &str) -> IResult<&str, &str> {
    preceded(
        multispace0,
        delimited(
            char('['),
            |i| opt(escaped(is_not("\\]"), '\\', anychar))(i).map(|(r, v)| (r, v.unwrap_or(""))),
            char(']'),
        ),
    )(input)
}

/// A property identifier. FF[3] allowed lowercase letters inside (`AddBlack`); only capitals
/// count, and a main-line name with none (`b[dd]`) is refused rather than read as no property.
fn ident(input: &str) -> IResult<&str, &str> {
    preceded(multispace0, take_while1(|c: char| c.is_ascii_alphabetic()))(input)
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // A soft line break (`\` before a newline) is removed.
            if let Some(next) = chars.next().filter(|&n| n != '\n') {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The properties the reader takes; any other is skipped without being kept, so that a file
/// of unknown properties costs no memory.
const READ: [&str; 15] = [
    "GM", "SZ", "KM", "HA", "RU", "PB", "PW", "DT", "RE", "AB", "AW", "AE", "PL", "B", "W",
];

/// The name a property identifier stands for, if the reader takes it: its capitals, compared
/// without being collected.
fn kept(ident: &str) -> Option<&'static str> {
    let capitals = || ident.bytes().filter(u8::is_ascii_uppercase);
    READ.into_iter().find(|name| capitals().eq(name.bytes()))
}

/// `[value]...` from the start of `text`, escapes still in.
fn values(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let (after, v) = value(rest).ok()?;
        rest = after;
        Some(v)
    })
}

/// One property of a main-line node that the reader takes: its name and the text of its
/// values, which are read again when wanted, so that a node of a million properties costs
/// 32 bytes each, borrowed from the text, in one list reused from node to node (issue 70).
struct Property<'a> {
    name: &'static str,
    /// From the first `[` on, escapes still in.
    values: &'a str,
}

impl<'a> Property<'a> {
    fn values(&self) -> impl Iterator<Item = &'a str> {
        values(self.values)
    }

    /// The first value, unescaped.
    fn value(&self) -> String {
        unescape(self.values().next().unwrap_or(""))
    }

    /// The values as written, for a message.
    fn written(&self) -> String {
        self.values().collect::<Vec<_>>().join("][")
    }

    /// The one value of a property that takes one (a move, `PL`).
    fn single(&self) -> Result<String, RecordError> {
        let mut all = self.values();
        match (all.next(), all.next()) {
            (Some(v), None) => Ok(unescape(v)),
            _ => Err(RecordError::property(
                self.name,
                &self.written(),
                "takes one value",
            )),
        }
    }
}

/// What the tree syntax allows next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Open,
    Node,
    Close,
}

/// Builds the game from the main line's nodes as they come.
struct Builder {
    tags: Tags,
    size: usize,
    /// The start, until the first move fixes it.
    setup: Option<Position>,
    /// Whether `PL` set the side to move of the start.
    player_given: bool,
    start: Option<Position>,
    board: Option<Board>,
    to_move: Color,
    ko: Option<usize>,
    moves: Vec<Option<usize>>,
    /// `B`/`W` properties read (the ply an error names).
    plies: usize,
    /// The index in `moves` of each move the record gives (`B`/`W`), the other side's passes
    /// read between two moves of one colour left out.
    given: Vec<usize>,
}

fn sgf_point(text: &str, size: usize, name: &str) -> Result<Option<usize>, RecordError> {
    let b = text.as_bytes();
    if b.is_empty() || (size <= 19 && text == "tt") {
        return Ok(None);
    }
    let coord = |c: u8| -> Option<usize> {
        match c {
            b'a'..=b'z' => Some((c - b'a') as usize),
            b'A'..=b'Z' => Some((c - b'A') as usize + 26),
            _ => None,
        }
    };
    if b.len() != 2 {
        return Err(RecordError::property(name, text, "not an SGF point"));
    }
    match (coord(b[0]), coord(b[1])) {
        (Some(col), Some(row)) if col < size && row < size => Ok(Some(point_index(size, row, col))),
        _ => Err(RecordError::property(
            name,
            text,
            format!("off a {size}x{size} board"),
        )),
    }
}

impl Builder {
    fn new() -> Builder {
        Builder {
            tags: Tags::default(),
            size: 19,
            setup: None,
            player_given: false,
            start: None,
            board: None,
            to_move: Color::Black,
            ko: None,
            moves: Vec::new(),
            plies: 0,
            given: Vec::new(),
        }
    }

    /// The root node: the board size first, whatever the order of the properties.
    fn root(&mut self, props: &[Property<'_>]) -> Result<(), RecordError> {
        for p in props {
            let value = p.value();
            let v = value.trim();
            match p.name {
                "GM" if v != "1" => {
                    return Err(RecordError::property("GM", v, "not a Go record (GM[1])"))
                }
                "SZ" => {
                    let (a, b) = v.split_once(':').unwrap_or((v, v));
                    let n = |s: &str| s.trim().parse::<usize>();
                    match (n(a), n(b)) {
                        (Ok(a), Ok(b)) if a == b => self.size = a,
                        (Ok(_), Ok(_)) => {
                            return Err(RecordError::property(
                                "SZ",
                                v,
                                "only square boards are supported",
                            ))
                        }
                        _ => return Err(RecordError::property("SZ", v, "not a board size")),
                    }
                }
                _ => {}
            }
        }
        let board = Board::new(self.size)
            .map_err(|e| RecordError::property("SZ", &self.size.to_string(), e.to_string()))?;
        self.setup = Some(Position::new(board, Color::Black));
        self.node(props, true)
    }

    fn node(&mut self, props: &[Property<'_>], root: bool) -> Result<(), RecordError> {
        self.node_tags(props, root)?;
        self.node_setup(props)?;
        self.node_move(props)
    }

    /// The game information a node gives (`SZ` and `GM` only at the root).
    fn node_tags(&mut self, props: &[Property<'_>], root: bool) -> Result<(), RecordError> {
        for p in props {
            let raw = &p.value();
            let v = raw.trim();
            match p.name {
                "KM" => {
                    if !v.parse::<f64>().is_ok_and(f64::is_finite) {
                        return Err(RecordError::property("KM", v, "komi is not a number"));
                    }
                    self.tags.set("KM", v);
                }
                "HA" => {
                    if v.parse::<u32>().is_err() {
                        return Err(RecordError::property("HA", v, "not a number of stones"));
                    }
                    self.tags.set("HA", v);
                }
                "RU" => self.tags.set("RU", tag_text(raw)),
                "PB" => self.tags.players[0] = Some(tag_text(raw)),
                "PW" => self.tags.players[1] = Some(tag_text(raw)),
                "DT" => self.tags.date = Some(tag_text(raw)),
                "RE" => self.tags.result = Some(tag_text(raw)),
                "SZ" | "GM" if !root => {
                    return Err(RecordError::property(p.name, v, "only in the root node"))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Setup stones and the side to move, refused after a move.
    fn node_setup(&mut self, props: &[Property<'_>]) -> Result<(), RecordError> {
        for p in props {
            let cell = match p.name {
                "AB" => BLACK,
                "AW" => WHITE,
                "AE" => EMPTY,
                "PL" => {
                    let value = p.single()?;
                    let v = value.trim();
                    let color = match v {
                        "B" | "b" => Color::Black,
                        "W" | "w" => Color::White,
                        _ => return Err(RecordError::property("PL", v, "not B or W")),
                    };
                    // After a move the side to move is the moves' to say: a `PL` there that
                    // says otherwise was silently ignored, so it is refused as setup stones
                    // there are.
                    let Some(setup) = self.setup.as_mut() else {
                        if color == self.to_move {
                            continue;
                        }
                        return Err(RecordError::property(
                            "PL",
                            v,
                            format!(
                                "the side to move after move {} is not supported",
                                self.moves.len()
                            ),
                        ));
                    };
                    setup.to_move = color;
                    self.player_given = true;
                    continue;
                }
                _ => continue,
            };
            let Some(setup) = self.setup.as_mut() else {
                return Err(RecordError::property(
                    p.name,
                    &p.value(),
                    format!(
                        "setup stones after move {} are not supported",
                        self.moves.len()
                    ),
                ));
            };
            for v in p.values() {
                for q in points(&unescape(v), self.size, p.name)? {
                    setup.board.set(q, cell);
                }
            }
        }
        Ok(())
    }

    /// The node's move, played.
    fn node_move(&mut self, props: &[Property<'_>]) -> Result<(), RecordError> {
        // SGF gives a node one move. Two (`B[]B[]`, 3 bytes for a pass and the other side's)
        // would let a file hold more moves than its bytes allow in 16x the file (issue 70).
        let mut moved = false;
        for p in props {
            let color = match p.name {
                "B" => Color::Black,
                "W" => Color::White,
                _ => continue,
            };
            self.plies += 1;
            if std::mem::replace(&mut moved, true) {
                return Err(RecordError::Move {
                    ply: self.plies,
                    text: format!("{}[{}]", p.name, p.written()),
                    why: "a node holds one move (SGF FF[4])".into(),
                });
            }
            let raw = p.single().map_err(|e| RecordError::Move {
                ply: self.plies,
                text: format!("{}[{}]", p.name, p.written()),
                why: e.to_string(),
            })?;
            self.play(color, p.name, &raw)?;
        }
        Ok(())
    }

    /// Fixes the start (its blocks must have liberties) before the first move or at the end.
    fn freeze(&mut self, first: Option<Color>) -> Result<(), RecordError> {
        let Some(mut setup) = self.setup.take() else {
            return Ok(());
        };
        if let (Some(color), false) = (first, self.player_given) {
            setup.to_move = color;
        }
        if let Some((cell, stones, _)) = setup
            .board
            .blocks()
            .into_iter()
            .find(|(_, _, libs)| libs.is_empty())
        {
            let at = format_vertex(&setup.board, stones[0]);
            return Err(RecordError::property(
                if cell == WHITE { "AW" } else { "AB" },
                &at,
                format!("the setup block at {at} has no liberties"),
            ));
        }
        self.board = Some(setup.board.clone());
        self.to_move = setup.to_move;
        self.start = Some(setup);
        Ok(())
    }

    fn play(&mut self, color: Color, name: &str, raw: &str) -> Result<(), RecordError> {
        self.freeze(Some(color))?;
        let size = self.size;
        let text = format!("{name}[{raw}]");
        let mv = sgf_point(raw.trim(), size, name).map_err(|e| RecordError::Move {
            ply: self.plies,
            text: text.clone(),
            why: e.to_string(),
        })?;
        let Some(board) = self.board.as_mut() else {
            return Ok(());
        };
        if color != self.to_move {
            // The other side's pass, left out of the record.
            self.moves.push(None);
            self.ko = None;
        }
        self.ko = match mv {
            None => None,
            Some(p) => {
                board
                    .play(p, color, self.ko)
                    .map_err(|why| RecordError::Move {
                        ply: self.plies,
                        text: format!("{text} ({})", format_vertex(board, p)),
                        why: why.to_string(),
                    })?
                    .ko
            }
        };
        self.given.push(self.moves.len());
        self.moves.push(mv);
        self.to_move = color.other();
        Ok(())
    }

    fn finish(mut self) -> Result<(GameRecord<Record>, Vec<usize>), RecordError> {
        self.freeze(None)?;
        let Some(start) = self.start else {
            return Err(RecordError::Empty { format: FORMAT });
        };
        let game = GameRecord {
            tags: self.tags,
            start: Record::new(start),
            moves: self.moves,
            notes: Vec::new(),
        };
        Ok((game, self.given))
    }
}

/// A point list value: a point or a compressed rectangle `aa:cc`.
fn points(text: &str, size: usize, name: &str) -> Result<Vec<usize>, RecordError> {
    let one = |t: &str| -> Result<usize, RecordError> {
        sgf_point(t, size, name)?
            .ok_or_else(|| RecordError::property(name, text, "not a stone position"))
    };
    match text.split_once(':') {
        Some((a, b)) => {
            let ((r1, c1), (r2, c2)) = (index_row_col(size, one(a)?), index_row_col(size, one(b)?));
            let mut out = Vec::new();
            for r in r1.min(r2)..=r1.max(r2) {
                for c in c1.min(c2)..=c1.max(c2) {
                    out.push(point_index(size, r, c));
                }
            }
            Ok(out)
        }
        None => Ok(vec![one(text)?]),
    }
}

/// Reads an SGF text: the first game's main line, replayed.
pub fn read(text: &str) -> Result<GameRecord<Record>, RecordError> {
    read_given(text, 1).map(|(game, _)| game)
}

/// Game `n` (from 1) of an SGF collection (`(;...)(;...)`), its main line replayed, and where
/// each move the record gives is in the game's moves (a move by the side not to move follows
/// the other side's pass, which the record does not give): GTP's `loadsgf <file> <n>` counts
/// these, as GNU Go does. The other games' trees are only checked for their syntax, never
/// built; a collection of fewer than `n` games is [`RecordError::NoGame`].
pub fn read_given(text: &str, n: usize) -> Result<(GameRecord<Record>, Vec<usize>), RecordError> {
    RecordError::check_size(FORMAT, text)?;
    let all = text;
    let text = text.trim_start_matches('\u{feff}');
    let at = |rest: &str| all.len() - rest.len();
    let err = |rest: &str, what: &str| RecordError::syntax(FORMAT, all, at(rest), what);
    let mut rest = text;
    let mut depth = 0usize;
    let mut games = 0usize;
    let mut last = Last::Nothing;
    // Inside the main line: every tree opened is the first child of the one before; the first
    // `)` ends it.
    let mut main = false;
    let mut main_nodes = 0usize;
    let mut builder = Builder::new();
    // The main-line node's properties, the list reused.
    let mut props = Vec::new();
    loop {
        rest = rest.trim_start();
        let Some(c) = rest.chars().next() else {
            if depth == 0 && games > 0 {
                break;
            }
            return Err(err(rest, "the text ends inside a game tree (expected ')')"));
        };
        match c {
            '(' => {
                if depth > 0 && last == Last::Open {
                    return Err(err(rest, "expected ';' after '('"));
                }
                if depth >= MAX_NESTING {
                    return Err(RecordError::Nesting {
                        format: FORMAT,
                        at: at(rest),
                    });
                }
                if depth == 0 {
                    games += 1;
                    main = games == n;
                }
                depth += 1;
                last = Last::Open;
                rest = &rest[1..];
            }
            ')' => {
                if depth == 0 || last == Last::Open {
                    return Err(err(rest, "unexpected ')'"));
                }
                depth -= 1;
                main = false;
                last = Last::Close;
                rest = &rest[1..];
            }
            ';' => {
                if depth == 0 || last == Last::Close {
                    return Err(err(rest, "a node (';') outside a game tree's node list"));
                }
                rest = node_properties(all, &rest[1..], main, &mut props)?;
                if main {
                    if main_nodes == 0 {
                        builder.root(&props)?;
                    } else {
                        builder.node(&props, false)?;
                    }
                    main_nodes += 1;
                }
                last = Last::Node;
            }
            _ => {
                return Err(err(
                    rest,
                    if depth == 0 {
                        "expected '(' to open a game tree"
                    } else {
                        "expected a property name, ';', '(' or ')'"
                    },
                ))
            }
        }
    }
    if games < n {
        return Err(RecordError::NoGame {
            format: FORMAT,
            game: n,
            games,
        });
    }
    builder.finish()
}

/// The properties of the node at `rest` (a tail of `all`, after its `;`): where the node is on
/// the main line, those the record keeps go into `props`. Returns the text after them.
fn node_properties<'a>(
    all: &str,
    mut rest: &'a str,
    main: bool,
    props: &mut Vec<Property<'a>>,
) -> Result<&'a str, RecordError> {
    let err =
        |rest: &str, what: &str| RecordError::syntax(FORMAT, all, all.len() - rest.len(), what);
    props.clear();
    let mut moves_here = 0usize;
    while let Ok((after, name)) = ident(rest) {
        if main && !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(err(
                rest.trim_start(),
                "a property name needs a capital letter (B, not b)",
            ));
        }
        let mut r = after;
        let mut any = false;
        while let Ok((after_value, _)) = value(r) {
            any = true;
            r = after_value;
        }
        if !any {
            let r = r.trim_start();
            return Err(err(
                r,
                if r.starts_with('[') {
                    "a property value has no closing ']'"
                } else {
                    "expected '[' after a property name"
                },
            ));
        }
        let kept = kept(name).filter(|_| main);
        let a_move = matches!(kept, Some("B" | "W"));
        // Two moves are enough for the node's error (it holds one).
        moves_here += usize::from(a_move);
        if let Some(name) = kept.filter(|_| !a_move || moves_here <= 2) {
            props.push(Property {
                name,
                values: after.trim_start(),
            });
        }
        rest = r;
    }
    Ok(rest)
}

/// The SGF text of a game.
pub fn write(record: &GameRecord<Record>) -> String {
    let start = &record.start.game;
    let board = &start.board;
    let size = board.size();
    let point = |p: usize| {
        let (row, col) = index_row_col(size, p);
        let letter = |i: usize| {
            if i < 26 {
                (b'a' + i as u8) as char
            } else {
                (b'A' + (i - 26) as u8) as char
            }
        };
        format!("{}{}", letter(col), letter(row))
    };
    let tags = &record.tags;
    let mut s = format!("(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[{size}]");
    for key in EXTRA {
        if let Some(v) = tags.get(key) {
            s += &format!("{key}[{}]", escape(v));
        }
    }
    for (key, value) in [
        ("PB", &tags.players[0]),
        ("PW", &tags.players[1]),
        ("DT", &tags.date),
        ("RE", &tags.result),
    ] {
        if let Some(v) = value {
            s += &format!("{key}[{}]", escape(v));
        }
    }
    for (cell, key) in [(BLACK, "AB"), (WHITE, "AW")] {
        let stones: Vec<usize> = board.points().filter(|&p| board.get(p) == cell).collect();
        if !stones.is_empty() {
            s += key;
            for p in stones {
                s += &format!("[{}]", point(p));
            }
        }
    }
    if start.to_move == Color::White {
        s += "PL[W]";
    }
    let mut color = start.to_move;
    for (i, mv) in record.moves.iter().enumerate() {
        s += if i % 10 == 0 { "\n;" } else { ";" };
        s += if color == Color::Black { "B[" } else { "W[" };
        if let Some(p) = mv {
            s += &point(*p);
        }
        s += "]";
        // A Go move's note is Sabaki's win rate of the move (black's, in percent).
        let note = record.note(i);
        if !note.is_empty() {
            s += &format!("SBKV[{}]", escape(note));
        }
        color = color.other();
    }
    s += ")\n";
    s
}

/// A text value with `]` and `\` escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// The game a position's history holds, from its start (a colour out of turn is the other
/// side's pass first, as [`read`] has it).
pub fn from_position(game: &Position, tags: Tags) -> GameRecord<Record> {
    let start = game.start();
    let mut to_move = start.to_move;
    let mut moves = Vec::new();
    for (color, mv) in game.moves() {
        if color != to_move {
            moves.push(None);
        }
        moves.push(mv);
        to_move = color.other();
    }
    GameRecord {
        tags,
        start: Record::new(start),
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
        read_given(text, n).map(|(game, _)| game)
    }

    /// As gogui-twogtp writes it: the referee's count (`B+2.5`), else the winner with how:
    /// `R` resign, `T` time or timeout, `F` any other fault; `Void` for a draw not scored
    /// (`max_plies`).
    fn result_tag(end: GameEnd, score: Option<f64>) -> String {
        match (score, end.verdict) {
            (Some(lead), _) => crate::text::gtp_score(lead),
            // SGF's words for a draw; `Void` (no result) for one no rule decided (`max_plies`).
            (None, Verdict::Draw) if end.reason == Reason::Agreement => "Draw".into(),
            (None, Verdict::Draw) => "Void".into(),
            (None, Verdict::Win(side)) => {
                let winner = if side == Side::First { "B" } else { "W" };
                let how = match end.reason {
                    Reason::Resign => "R",
                    Reason::TimeForfeit | Reason::Timeout => "T",
                    _ => "F",
                };
                format!("{winner}+{how}")
            }
        }
    }

    /// The match's komi, and its area count of every stone on the board (`RU[Chinese]`).
    fn match_tags(tags: &mut Tags, options: &OptionValues) {
        if let Some(komi) = options.get(super::rules::KOMI_OPTION.key) {
            tags.set("KM", komi.to_string());
        }
        tags.set("RU", "Chinese");
    }

    /// KGS's words: `TM` the main time in seconds, `OT` the overtime (`5x30 byo-yomi`,
    /// `10 fischer`).
    fn time_tags(tags: &mut Tags, terms: &TimeTerms) {
        tags.set("TM", seconds(terms.main_ms));
        let overtime = if terms.byoyomi() {
            format!("{}x{} byo-yomi", terms.periods, seconds(terms.period_ms))
        } else {
            format!("{} fischer", seconds(terms.inc_ms))
        };
        tags.set("OT", overtime);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::rules::Rules;

    fn end(text: &str) -> String {
        read(text).unwrap().replay().unwrap().to_text()
    }

    #[test]
    fn setup_moves_passes_and_variations() {
        assert_eq!(end("(;SZ[3]AB[aa][bb]AW[cc])"), "3 X../.X./..O b");
        assert_eq!(end("(;SZ[3];B[aa];W[bb])"), "3 X../.O./... b");
        assert_eq!(end("(;SZ[3]AB[aa]PL[W])"), "3 X../.../... w");
        assert_eq!(
            end("(;SZ[3]AB[aa:cb]AE[bb];B[]C[a \\] b];W[tt])"),
            "3 XXX/X.X/... b"
        );
        assert_eq!(end("(;FF[3]SZ[3]AddBlack[ab])"), "3 .../X../... b");
        let text = "(;SZ[3];B[aa](;W[bb];B[cc])(;W[ca]))\n(;SZ[5])";
        assert_eq!(end(text), "3 X../.O./..X w");
        assert_eq!(read(text).unwrap().moves.len(), 3);
        // White first after setup: white is to move at the start.
        let r = read("(;SZ[5]AB[aa][bb];W[cc])").unwrap();
        assert_eq!(r.start.to_text(), "5 X..../.X.../...../...../..... w");
        // Two moves of one colour: the other side passed between them.
        let r = read("(;SZ[3];B[aa];B[cc])").unwrap();
        assert_eq!(
            r.moves,
            vec![Some(point_index(3, 0, 0)), None, Some(point_index(3, 2, 2))]
        );
    }

    #[test]
    fn errors_name_what_and_where() {
        let cases = [
            (
                "(;SZ[3];B[aa];W[aa])",
                "illegal move W[aa] (A3) at ply 2: the point is occupied",
            ),
            ("(;SZ[3]AB[dd])", "AB[dd]: off a 3x3 board"),
            ("(;SZ[30])", "SZ[30]: board size 30 is out of range"),
            ("(;SZ[3:4])", "SZ[3:4]: only square boards"),
            ("(;GM[2])", "GM[2]: not a Go record"),
            ("(;KM[x])", "KM[x]: komi is not a number"),
            (
                "(;SZ[3]AB[aa]",
                "SGF syntax error at line 1, column 14 (byte 13)",
            ),
            ("", "SGF syntax error at line 1, column 1"),
            ("(;SZ[3])(", "ends inside"),
            ("(;SZ[3]))", "unexpected ')'"),
            ("(;SZ[3]AB[aa]AW[ab][ba])", "no liberties"),
            ("(;SZ[3];B[aa];AB[bb])", "setup stones after move 1"),
            ("(;SZ[3]AB[aa", "no closing ']'"),
            (
                "(;SZ[9];b[ee])",
                "column 9 (byte 8): a property name needs a capital letter (B, not b)",
            ),
            ("(;sz[9])", "byte 2): a property name needs a capital"),
            (
                "(;SZ[9];B[ee][cc])",
                "illegal move B[ee][cc] at ply 1: B[ee][cc]: takes one value",
            ),
            ("(;SZ[9]PL[B][W])", "PL[B][W]: takes one value"),
        ];
        for (text, want) in cases {
            let e = read(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
        let deep = format!("{}{}", "(;".repeat(100_000), ")".repeat(100_000));
        let e = read(&deep).unwrap_err().to_string();
        assert!(e.contains("nested deeper than 1000 at byte 2000"), "{e}");
        let nested = format!("{}{}", "(;".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert!(read(&nested).is_ok());
    }

    #[test]
    fn a_collection_gives_each_game_by_its_number() {
        let text = "(;SZ[3];B[aa](;W[bb])(;W[cc]))\n(;SZ[5]PB[two];B[cc])\n(;SZ[4];W[dd])\n";
        assert_eq!(end(text), "3 X../.O./... b");
        let two = read_given(text, 2).unwrap().0;
        assert_eq!(two.tags.players[0].as_deref(), Some("two"));
        assert_eq!(
            two.replay().unwrap().to_text(),
            "5 ...../...../..X../...../..... w"
        );
        assert_eq!(Record::read_game(text, 3).unwrap().moves.len(), 1);
        let e = Record::read_game(text, 4).unwrap_err().to_string();
        assert_eq!(e, "no game 4: the SGF record holds 3 games");
        let e = Record::read_game("(;SZ[3])", 2).unwrap_err().to_string();
        assert_eq!(e, "no game 2: the SGF record holds 1 game");
        // Game 3's illegal move is not played when game 1 is read; its syntax is checked.
        let bad = "(;SZ[3];B[aa])(;SZ[3];B[aa];W[aa])";
        assert!(read(bad).is_ok());
        let e = Record::read_game(bad, 2).unwrap_err().to_string();
        assert!(e.contains("illegal move W[aa] (A3) at ply 2"), "{e}");
        let e = read("(;SZ[3];B[aa])(;SZ[3];B[aa]").unwrap_err().to_string();
        assert!(e.contains("byte 27"), "{e}");
    }

    #[test]
    fn lowercase_inside_a_name_counts_its_capitals_and_variations_are_not_checked() {
        let game = read("(;SiZe[5]AddBlack[cc];(;White[dd])(;b[aa]))").unwrap();
        assert_eq!(game.moves, [Some(point_index(5, 3, 3))]);
        assert_eq!(game.start.game.board.get(point_index(5, 2, 2)), BLACK);
    }

    #[test]
    fn tag_values_keep_no_line_breaks_and_unknown_properties_are_not_kept() {
        let game = read("(;SZ[9]PB[x\nreadyok\r\nbestmove pass]PW[\u{3b7}\t1]XX[a][b];B[ee]C[hi])")
            .unwrap();
        assert_eq!(
            game.tags.players[0].as_deref(),
            Some("x readyok  bestmove pass")
        );
        assert_eq!(game.tags.players[1].as_deref(), Some("\u{3b7} 1"));
        assert!(write(&game)
            .lines()
            .all(|l| !l.contains("readyok") || l.contains("PB[x ")));
    }

    #[test]
    fn written_records_read_back() {
        let mut rng = crate::rng::SplitMix64::new(42);
        for size in [2, 5, 9, 19, 25] {
            for round in 0..10 {
                let mut start = Record::new(Position::empty(size).unwrap());
                if round % 2 == 1 {
                    start.game.board.set(point_index(size, 0, 0), BLACK);
                    start.game.to_move = Color::White;
                }
                let mut game = start.clone();
                let mut moves = Vec::new();
                for _ in 0..rng.index(2 * size * size) {
                    let legal = game.legal_moves();
                    let mv = if legal.is_empty() || rng.index(10) == 0 {
                        None
                    } else {
                        legal[rng.index(legal.len())]
                    };
                    game.play(mv).unwrap();
                    moves.push(mv);
                }
                let mut record = GameRecord::new(start);
                record.moves = moves;
                record.tags.players = [Some("a]b".into()), Some("c\\d".into())];
                record.tags.set("KM", "6.5");
                let text = write(&record);
                let back = read(&text).unwrap();
                assert_eq!(back.moves, record.moves, "{text}");
                assert_eq!(back.tags, record.tags, "{text}");
                assert_eq!(back.replay().unwrap().to_text(), game.to_text());
                assert_eq!(write(&back), text);
                let flat = text.replace('\n', " ");
                assert_eq!(read(&flat).unwrap().moves, record.moves);
            }
        }
    }
}
