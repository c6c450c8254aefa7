//! SGF (FF[3]/FF[4]) reading with nom: the game-tree syntax in full, then the main line applied
//! to a board. Properties used: `SZ`, `AB`/`AW`/`AE`, `B`/`W`, `PL`; others are parsed and ignored.

use super::board::{
    index_row_col, point_index, Board, Color, Illegal, SizeError, BLACK, EMPTY, WHITE,
};
use super::notation::format_vertex;
use super::position::Position;
use crate::games::error_text;
use nom::{
    bytes::complete::{escaped, is_not, take_while1},
    character::complete::{anychar, char, multispace0},
    combinator::{map, opt},
    multi::{many0, many1},
    sequence::{delimited, pair, preceded},
    IResult,
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub props: Vec<(String, Vec<String>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub children: Vec<Tree>,
}

type Res<'a, T> = IResult<&'a str, T>;

fn ws<'a, T>(inner: impl FnMut(&'a str) -> Res<'a, T>) -> impl FnMut(&'a str) -> Res<'a, T> {
    preceded(multispace0, inner)
}

fn value(input: &str) -> Res<'_, String> {
    let body = opt(escaped(is_not("\\]"), '\\', anychar));
    map(delimited(char('['), body, char(']')), |s: Option<&str>| {
        unescape(s.unwrap_or(""))
    })(input)
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                if next != '\n' {
                    out.push(next);
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn property(input: &str) -> Res<'_, (String, Vec<String>)> {
    // FF[3] allowed lowercase letters inside identifiers ("AddBlack"); only capitals count.
    let ident = map(take_while1(|c: char| c.is_ascii_alphabetic()), |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_uppercase())
            .collect::<String>()
    });
    pair(ws(ident), many1(ws(value)))(input)
}

fn node(input: &str) -> Res<'_, Node> {
    map(preceded(ws(char(';')), many0(property)), |props| Node {
        props,
    })(input)
}

/// Deepest nesting of variations accepted (real files stay far below; the parser keeps its own
/// stack, so this bounds memory and the drop of the tree, not the call stack).
pub const MAX_NESTING: usize = 1000;

/// Why parsing stopped: where, and a message when it is not a plain syntax error.
struct Stop<'a> {
    input: &'a str,
    message: Option<String>,
}

fn syntax(input: &str) -> Stop<'_> {
    Stop {
        input,
        message: None,
    }
}

/// `Node+` after a `(`.
fn nodes(input: &str) -> Result<(&str, Vec<Node>), Stop<'_>> {
    many1(node)(input).map_err(|e| match e {
        nom::Err::Error(e) | nom::Err::Failure(e) => syntax(e.input),
        nom::Err::Incomplete(_) => syntax(""),
    })
}

/// The collection `Tree+` with `Tree = "(" Node+ Tree* ")"`, with an explicit stack of open
/// trees instead of recursion.
fn collection(text: &str) -> Result<Vec<Tree>, Stop<'_>> {
    let mut trees = Vec::new();
    let mut open: Vec<Tree> = Vec::new();
    let mut input = text;
    loop {
        input = input.trim_start();
        if let Some(rest) = input.strip_prefix('(') {
            if open.len() >= MAX_NESTING {
                return Err(Stop {
                    input,
                    message: Some(format!("SGF variations nested deeper than {MAX_NESTING}")),
                });
            }
            let (rest, nodes) = nodes(rest)?;
            open.push(Tree {
                nodes,
                children: Vec::new(),
            });
            input = rest;
        } else if let Some(rest) = input.strip_prefix(')') {
            let Some(done) = open.pop() else {
                return Err(syntax(input));
            };
            match open.last_mut() {
                Some(parent) => parent.children.push(done),
                None => trees.push(done),
            }
            input = rest;
        } else if input.is_empty() && open.is_empty() && !trees.is_empty() {
            return Ok(trees);
        } else {
            return Err(syntax(input));
        }
    }
}

/// Why an SGF text is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SgfError {
    /// Parsing stopped at `line`, `column` (1-based), with a message when it is not a plain
    /// syntax error.
    #[error("{}", syntax_text(.message, *.line, *.column))]
    Syntax {
        message: Option<String>,
        line: usize,
        column: usize,
    },
    #[error("SZ[{0}] is not a size")]
    Size(String),
    #[error("SZ[{0}]: only square boards are supported")]
    NotSquare(String),
    #[error(transparent)]
    Board(SizeError),
    #[error("'{0}' is not an SGF point")]
    NotPoint(String),
    #[error("SGF point '{text}' is off a {size}x{size} board")]
    OffBoard { text: String, size: usize },
    #[error("bad point rectangle '{0}'")]
    Rectangle(String),
    #[error("'{0}' is not a stone position")]
    NotStone(String),
    /// `key[value]` at the vertex `at` is illegal.
    #[error("illegal move {key}[{value}] at {at}: {why}")]
    Illegal {
        key: String,
        value: String,
        at: String,
        why: Illegal,
    },
    #[error("PL[{0}] is not B or W")]
    Player(String),
    #[error("the block at {0} has no liberties")]
    NoLiberties(String),
}

fn syntax_text(message: &Option<String>, line: usize, column: usize) -> String {
    match message {
        Some(message) => format!("{message} (line {line}, column {column})"),
        None => format!("SGF syntax error at line {line}, column {column}"),
    }
}

error_text!(derived: SgfError);

impl From<SizeError> for SgfError {
    fn from(e: SizeError) -> Self {
        SgfError::Board(e)
    }
}

/// [`read_trees`] with the error as text.
pub fn parse(text: &str) -> Result<Vec<Tree>, String> {
    Ok(read_trees(text)?)
}

/// Parses a whole SGF collection; errors name the line and column where parsing stopped.
pub fn read_trees(text: &str) -> Result<Vec<Tree>, SgfError> {
    let text = text.trim_start_matches('\u{feff}');
    collection(text).map_err(|stop| {
        let offset = text.len() - stop.input.len();
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SgfError::Syntax {
            message: stop.message,
            line,
            column,
        }
    })
}

fn sgf_point(text: &str, size: usize) -> Result<Option<usize>, SgfError> {
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
        return Err(SgfError::NotPoint(text.into()));
    }
    match (coord(b[0]), coord(b[1])) {
        (Some(col), Some(row)) if col < size && row < size => Ok(Some(point_index(size, row, col))),
        _ => Err(SgfError::OffBoard {
            text: text.into(),
            size,
        }),
    }
}

/// A point list value: a point or a compressed rectangle `aa:cc`.
fn sgf_points(text: &str, size: usize, out: &mut Vec<usize>) -> Result<(), SgfError> {
    if let Some((a, b)) = text.split_once(':') {
        let (Some(p), Some(q)) = (sgf_point(a, size)?, sgf_point(b, size)?) else {
            return Err(SgfError::Rectangle(text.into()));
        };
        let ((r1, c1), (r2, c2)) = (index_row_col(size, p), index_row_col(size, q));
        for r in r1.min(r2)..=r1.max(r2) {
            for c in c1.min(c2)..=c1.max(c2) {
                out.push(point_index(size, r, c));
            }
        }
        Ok(())
    } else {
        match sgf_point(text, size)? {
            Some(p) => {
                out.push(p);
                Ok(())
            }
            None => Err(SgfError::NotStone(text.into())),
        }
    }
}

/// Loads the main line of the first game of an SGF text into a game record.
pub fn load(text: &str) -> Result<Position, String> {
    load_until(text, None)
}

/// As [`load`], stopping before move number `until` (1 = the first move) when given.
pub fn load_until(text: &str, until: Option<usize>) -> Result<Position, String> {
    Ok(read_game(text, until)?)
}

/// [`load_until`] with a typed error.
pub fn read_game(text: &str, until: Option<usize>) -> Result<Position, SgfError> {
    let trees = read_trees(text)?;
    let first = &trees[0];
    let mut line: Vec<&Node> = Vec::new();
    let mut t = first;
    loop {
        line.extend(t.nodes.iter());
        match t.children.first() {
            Some(c) => t = c,
            None => break,
        }
    }
    let mut size = 19;
    if let Some(values) = line[0]
        .props
        .iter()
        .find(|(k, _)| k == "SZ")
        .map(|(_, v)| v)
    {
        let v = values[0].trim();
        let (a, b) = v.split_once(':').unwrap_or((v, v));
        let (a, b): (usize, usize) = (
            a.trim().parse().map_err(|_| SgfError::Size(v.into()))?,
            b.trim().parse().map_err(|_| SgfError::Size(v.into()))?,
        );
        if a != b {
            return Err(SgfError::NotSquare(v.into()));
        }
        size = a;
    }
    let mut game = Position::new(Board::new(size)?, Color::Black);
    let mut moves = 0usize;
    'nodes: for node in line {
        let mut setup = false;
        for (key, values) in &node.props {
            let cell = match key.as_str() {
                "AB" => BLACK,
                "AW" => WHITE,
                "AE" => EMPTY,
                _ => continue,
            };
            let mut points = Vec::new();
            for v in values {
                sgf_points(v, size, &mut points)?;
            }
            for p in points {
                game.board.set(p, cell);
            }
            setup = true;
        }
        if setup {
            game.ko = None;
        }
        for (key, values) in &node.props {
            let color = match key.as_str() {
                "B" => Color::Black,
                "W" => Color::White,
                _ => continue,
            };
            moves += 1;
            if until.is_some_and(|u| moves >= u) {
                game.to_move = color;
                break 'nodes;
            }
            let mv = sgf_point(&values[0], size)?;
            game.play_as(color, mv).map_err(|why| SgfError::Illegal {
                key: key.clone(),
                value: values[0].clone(),
                at: mv.map_or("pass".to_string(), |p| format_vertex(&game.board, p)),
                why,
            })?;
        }
        for (key, values) in &node.props {
            if key == "PL" {
                game.to_move = match values[0].trim() {
                    "B" | "b" => Color::Black,
                    "W" | "w" => Color::White,
                    v => return Err(SgfError::Player(v.into())),
                };
            }
        }
    }
    for (_, stones, libs) in game.board.blocks() {
        if libs.is_empty() {
            return Err(SgfError::NoLiberties(format_vertex(&game.board, stones[0])));
        }
    }
    Ok(game)
}

/// What an SGF record says besides the moves.
#[derive(Clone, Debug, Default)]
pub struct Header<'a> {
    pub black: &'a str,
    pub white: &'a str,
    pub komi: f64,
    /// `RE`: `B+2.5`, `W+R`, `0`, `Void`, ... (absent when `None`).
    pub result: Option<&'a str>,
    /// `RU`, as `Chinese` (area scoring).
    pub rules: Option<&'a str>,
}

/// An SGF (FF[4]) record of a game: `start`'s stones as `AB`/`AW` (and `PL[W]` when white moves
/// first), then `moves` (`None` = pass, written `B[]`) with colours alternating from
/// `start.to_move`. [`read_game`] reads it back to the same position.
pub fn write(start: &Position, moves: &[Option<usize>], header: &Header) -> String {
    let board = &start.board;
    let size = board.size();
    let point = |p: usize| {
        let (row, col) = index_row_col(size, p);
        format!(
            "{}{}",
            (b'a' + col as u8) as char,
            (b'a' + row as u8) as char
        )
    };
    let mut s = format!(
        "(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[{size}]KM[{}]PB[{}]PW[{}]",
        header.komi,
        escape(header.black),
        escape(header.white)
    );
    if let Some(rules) = header.rules {
        s += &format!("RU[{}]", escape(rules));
    }
    if let Some(result) = header.result {
        s += &format!("RE[{}]", escape(result));
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
    for (i, mv) in moves.iter().enumerate() {
        s += if i % 10 == 0 { "\n;" } else { ";" };
        s += if color == Color::Black { "B[" } else { "W[" };
        if let Some(p) = mv {
            s += &point(*p);
        }
        s += "]";
        color = color.other();
    }
    s += ")\n";
    s
}

/// A text value with `]` and `\\` escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::notation::format_position;

    fn pos(text: &str) -> String {
        let g = load(text).unwrap();
        format_position(&g.board, g.to_move)
    }

    #[test]
    fn setup_moves_and_side_to_move() {
        assert_eq!(pos("(;SZ[3]AB[aa][bb]AW[cc])"), "3 X../.X./..O b");
        assert_eq!(pos("(;SZ[3];B[aa];W[bb])"), "3 X../.O./... b");
        assert_eq!(pos("(;SZ[3]AB[aa]PL[W])"), "3 X../.../... w");
        // Rectangles, AE, passes (empty and tt), FF[3] identifiers, comments with escapes.
        assert_eq!(
            pos("(;SZ[3]AB[aa:cb]AE[bb];B[]C[a \\] b];W[tt])"),
            "3 XXX/X.X/... b"
        );
        assert_eq!(pos("(;FF[3]SZ[3]AddBlack[ab])"), "3 .../X../... b");
    }

    #[test]
    fn nesting_is_capped_not_recursed() {
        let nested = |depth: usize| format!("{}{}", "(;".repeat(depth), ")".repeat(depth));
        assert!(load(&nested(MAX_NESTING)).is_ok());
        let e = load(&nested(20_000)).unwrap_err();
        assert!(e.contains("nested deeper than 1000"), "{e}");
    }

    #[test]
    fn main_line_follows_first_variations() {
        let text = "(;SZ[3];B[aa](;W[bb];B[cc])(;W[ca]))\n(;SZ[5])";
        assert_eq!(pos(text), "3 X../.O./..X w");
        assert_eq!(load_until(text, Some(2)).map(|g| g.moves_played()), Ok(1));
    }

    #[test]
    fn captures_apply_and_bad_files_are_refused() {
        assert_eq!(pos("(;SZ[3]AB[ba]AW[aa];B[ab])"), "3 .X./X../... w");
        assert!(load("(;SZ[3];B[aa];W[aa])")
            .unwrap_err()
            .contains("illegal move"));
        assert!(load("(;SZ[3]AB[dd])")
            .unwrap_err()
            .contains("off a 3x3 board"));
        assert!(load("(;SZ[30])").unwrap_err().contains("out of range"));
        assert!(load("(;SZ[3:4])").unwrap_err().contains("square"));
        assert!(load("(;SZ[3]AB[aa]")
            .unwrap_err()
            .starts_with("SGF syntax error"));
        assert!(load("").unwrap_err().starts_with("SGF syntax error"));
        assert!(load("(;SZ[3])(")
            .unwrap_err()
            .starts_with("SGF syntax error"));
        assert!(load("(;SZ[3]))")
            .unwrap_err()
            .starts_with("SGF syntax error"));
        assert!(load("(;SZ[3]AB[aa]AW[ab][ba])")
            .unwrap_err()
            .contains("no liberties"));
    }

    #[test]
    fn written_records_read_back_to_the_same_game() {
        let mut rng = crate::rng::SplitMix64::new(22);
        for size in [5, 9, 19] {
            for round in 0..20 {
                let mut start = Position::empty(size).unwrap();
                // Half the games start from set-up stones with white to move.
                if round % 2 == 1 {
                    for _ in 0..size {
                        let legal = start.legal_points();
                        let p = legal[rng.index(legal.len())];
                        let cell = if rng.index(2) == 0 { BLACK } else { WHITE };
                        start.board.set(p, cell);
                        if start.board.blocks().iter().any(|(_, _, l)| l.is_empty()) {
                            start.board.set(p, EMPTY);
                        }
                    }
                    start.to_move = Color::White;
                }
                let mut game = start.clone();
                let mut moves = Vec::new();
                for _ in 0..rng.index(3 * size * size) {
                    let legal = game.legal_points();
                    let mv = if legal.is_empty() || rng.index(10) == 0 {
                        None
                    } else {
                        Some(legal[rng.index(legal.len())])
                    };
                    game.play(mv).unwrap();
                    moves.push(mv);
                }
                let header = Header {
                    black: "a]b",
                    white: "c\\d",
                    komi: 7.5,
                    result: Some("B+R"),
                    rules: Some("Chinese"),
                };
                let text = write(&start, &moves, &header);
                let back = read_game(&text, None).unwrap();
                assert_eq!(back.board, game.board, "{text}");
                assert_eq!(back.to_move, game.to_move, "{text}");
                assert_eq!(back.moves_played(), moves.len(), "{text}");
                let trees = read_trees(&text).unwrap();
                let root = &trees[0].nodes[0].props;
                let get = |k: &str| {
                    root.iter()
                        .find(|(key, _)| key == k)
                        .map(|(_, v)| v[0].clone())
                };
                assert_eq!(get("PB").as_deref(), Some("a]b"));
                assert_eq!(get("PW").as_deref(), Some("c\\d"));
                assert_eq!(get("KM").as_deref(), Some("7.5"));
                assert_eq!(get("RE").as_deref(), Some("B+R"));
            }
        }
    }
}
