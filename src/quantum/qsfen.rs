//! QSFEN: parse (nom) and canonical write. See `protocol/qsfen.md` for the exact format.

use super::position::{origin_of, Piece, Position, PositionError, HAND};
use super::types::*;
use crate::games::error_text;
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{char as ch, digit1, multispace1, one_of, satisfy};
use nom::combinator::{all_consuming, map, map_res, opt};
use nom::multi::{many1, separated_list1};
use nom::sequence::{delimited, preceded, tuple};
use nom::IResult;

/// The start position.
pub const START: &str = "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1";

/// A piece token as written: promoted, letter (case = owner), explicit set, foreign origin.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    promoted: bool,
    owner: Color,
    /// None for a bare `Q` (no restriction).
    mask: Option<Mask>,
    foreign: bool,
}

type Res<'a, T> = IResult<&'a str, T>;

fn types(input: &str) -> Res<'_, Mask> {
    map(
        delimited(ch('['), many1(one_of("KRBGSNLP")), ch(']')),
        |letters: Vec<char>| {
            letters
                .into_iter()
                .fold(0, |m, c| m | letter_bit(c).unwrap_or(0))
        },
    )(input)
}

/// `LETTER ['[' TYPES ']'] ['~']` (no promotion mark).
fn bare_token(input: &str) -> Res<'_, Token> {
    let (rest, (letter, set, tilde)) = tuple((
        satisfy(|c| "QKRBGSNLPqkrbgsnlp".contains(c)),
        opt(types),
        opt(ch('~')),
    ))(input)?;
    let owner = if letter.is_ascii_uppercase() {
        Color::Black
    } else {
        Color::White
    };
    let upper = letter.to_ascii_uppercase();
    let mask = match (upper, set) {
        ('Q', set) => set,
        (_, Some(_)) => {
            // A standard letter already says its single type.
            return Err(nom::Err::Failure(nom::error::Error::new(
                input,
                nom::error::ErrorKind::Verify,
            )));
        }
        (c, None) => letter_bit(c),
    };
    Ok((
        rest,
        Token {
            promoted: false,
            owner,
            mask,
            foreign: tilde.is_some(),
        },
    ))
}

fn board_token(input: &str) -> Res<'_, Token> {
    map(tuple((opt(ch('+')), bare_token)), |(plus, mut t)| {
        t.promoted = plus.is_some();
        t
    })(input)
}

enum Cell {
    Empty(u32),
    Piece(Token),
}

fn row(input: &str) -> Res<'_, Vec<Cell>> {
    many1(alt((
        map(one_of("123456789"), |d| {
            Cell::Empty(d.to_digit(10).unwrap_or(0))
        }),
        map(board_token, Cell::Piece),
    )))(input)
}

fn count(input: &str) -> Res<'_, u32> {
    map_res(digit1, str::parse::<u32>)(input)
}

fn hands(input: &str) -> Res<'_, Vec<(u32, Token)>> {
    alt((
        map(tag("-"), |_| Vec::new()),
        many1(map(tuple((opt(count), bare_token)), |(n, t)| {
            (n.unwrap_or(1), t)
        })),
    ))(input)
}

fn side(input: &str) -> Res<'_, Color> {
    alt((
        map(ch('b'), |_| Color::Black),
        map(ch('w'), |_| Color::White),
    ))(input)
}

#[allow(clippy::type_complexity)]
fn qsfen(input: &str) -> Res<'_, (Vec<Vec<Cell>>, Color, Vec<(u32, Token)>, Option<u32>)> {
    all_consuming(tuple((
        separated_list1(ch('/'), row),
        preceded(multispace1, side),
        preceded(multispace1, hands),
        opt(preceded(multispace1, count)),
    )))(input)
}

/// Parses one hand token as a drop names it (uppercase, no count, no `+`):
/// (explicit set or None for a bare `Q`, foreign origin).
pub fn parse_hand_token(text: &str) -> Option<(Option<Mask>, bool)> {
    match all_consuming(bare_token)(text) {
        Ok((_, t)) if t.owner == Color::Black => Some((t.mask, t.foreign)),
        _ => None,
    }
}

/// Why a text is not a QSFEN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QsfenError {
    /// Not QSFEN syntax (the text, clipped to 80 bytes).
    #[error("malformed QSFEN '{0}'")]
    Malformed(String),
    #[error("a QSFEN board has 9 ranks, not {0}")]
    Ranks(usize),
    #[error("more than {PIECES} pieces")]
    TooManyPieces,
    #[error("the promoted piece on {} cannot be a gold or king", square_name(*.0))]
    PromotedGoldOrKing(Square),
    #[error("the piece on {} could never move again", square_name(*.0))]
    NeverMoves(Square),
    #[error("rank {} of the QSFEN has {squares} squares, not 9", (b'a' + *.rank as u8) as char)]
    RankWidth { rank: usize, squares: u32 },
    #[error("a piece in hand cannot be promoted")]
    PromotedInHand,
    #[error("bad hand count {0}")]
    HandCount(u32),
    #[error("a king cannot be in hand")]
    KingInHand,
    /// A piece of the other origin (`~`) was captured once, so it is not the king.
    #[error("the piece on {} is of the other origin (~), so it cannot be a king", square_name(*.0))]
    CapturedKing(Square),
    #[error("origin {} has {pieces} pieces, not {PIECES_PER_SIDE}", .origin.letter())]
    OriginCount { origin: Color, pieces: usize },
    #[error("the move number starts at 1")]
    MoveNumberZero,
    #[error(transparent)]
    Position(PositionError),
}

error_text!(derived: QsfenError);

impl From<PositionError> for QsfenError {
    fn from(e: PositionError) -> Self {
        QsfenError::Position(e)
    }
}

/// Parses and validates a QSFEN (fields separated by whitespace; move number optional).
pub fn read(text: &str) -> Result<Position, QsfenError> {
    let text = text.trim();
    let (_, (rows, side_to_move, hand, number)) =
        qsfen(text).map_err(|_| QsfenError::Malformed(clip(text)))?;
    if rows.len() != 9 {
        return Err(QsfenError::Ranks(rows.len()));
    }
    let mut pieces: Vec<(Piece, Color)> = Vec::new();
    for (r, cells) in rows.iter().enumerate() {
        read_rank(r, cells, &mut pieces)?;
    }
    for (n, t) in hand {
        read_hand(n, &t, &mut pieces)?;
    }
    let placed = by_origin(pieces)?;
    let number = number.unwrap_or(1);
    if number == 0 {
        return Err(QsfenError::MoveNumberZero);
    }
    Ok(Position::from_pieces(placed, side_to_move, number)?)
}

/// The pieces of rank `r` (from the top), each with its origin, appended to `pieces`.
fn read_rank(r: usize, cells: &[Cell], pieces: &mut Vec<(Piece, Color)>) -> Result<(), QsfenError> {
    let mut c = 0u32;
    for cell in cells {
        match cell {
            Cell::Empty(n) => c += n,
            Cell::Piece(t) => {
                if c >= 9 {
                    c += 1;
                    break;
                }
                if pieces.len() == PIECES {
                    return Err(QsfenError::TooManyPieces);
                }
                let sq = (r as u32 * 9 + c) as Square;
                pieces.push(board_piece(t, sq)?);
                c += 1;
            }
        }
    }
    if c != 9 {
        return Err(QsfenError::RankWidth {
            rank: r,
            squares: c,
        });
    }
    Ok(())
}

/// The piece a token puts on `sq`, with its origin: its set narrowed by what a foreign piece,
/// a promoted one, or one on its last ranks cannot be.
fn board_piece(t: &Token, sq: Square) -> Result<(Piece, Color), QsfenError> {
    let mut mask = t.mask.unwrap_or(ALL);
    if t.foreign {
        mask &= !K;
        if mask == 0 {
            return Err(QsfenError::CapturedKing(sq));
        }
    }
    if t.promoted {
        mask &= !(G | K);
        if mask == 0 {
            return Err(QsfenError::PromotedGoldOrKing(sq));
        }
    } else {
        mask &= rank_filter(t.owner, sq);
        if mask == 0 {
            return Err(QsfenError::NeverMoves(sq));
        }
    }
    let origin = if t.foreign {
        t.owner.opponent()
    } else {
        t.owner
    };
    let piece = Piece {
        square: sq,
        owner: t.owner,
        promoted: t.promoted,
        mask,
    };
    Ok((piece, origin))
}

/// `n` pieces in hand as token `t`, each with its origin, appended to `pieces`.
fn read_hand(n: u32, t: &Token, pieces: &mut Vec<(Piece, Color)>) -> Result<(), QsfenError> {
    if t.promoted {
        return Err(QsfenError::PromotedInHand);
    }
    if n == 0 || n > PIECES as u32 {
        return Err(QsfenError::HandCount(n));
    }
    let mask = t.mask.unwrap_or(ALL) & !K;
    if mask == 0 {
        return Err(QsfenError::KingInHand);
    }
    let origin = if t.foreign {
        t.owner.opponent()
    } else {
        t.owner
    };
    if pieces.len() + n as usize > PIECES {
        return Err(QsfenError::TooManyPieces);
    }
    for _ in 0..n {
        pieces.push((
            Piece {
                square: HAND,
                owner: t.owner,
                promoted: false,
                mask,
            },
            origin,
        ));
    }
    Ok(())
}

/// The pieces in their slots: each origin's twenty in the order given, black's first.
fn by_origin(pieces: Vec<(Piece, Color)>) -> Result<[Piece; PIECES], QsfenError> {
    let mut placed = [Piece {
        square: HAND,
        owner: Color::Black,
        promoted: false,
        mask: ALL,
    }; PIECES];
    let mut used = [0usize; 2];
    for origin in Color::BOTH {
        let n = pieces.iter().filter(|(_, o)| *o == origin).count();
        if n != PIECES_PER_SIDE {
            return Err(QsfenError::OriginCount { origin, pieces: n });
        }
    }
    for (p, origin) in pieces {
        let o = origin.index();
        placed[o * PIECES_PER_SIDE + used[o]] = p;
        used[o] += 1;
    }
    Ok(placed)
}

fn clip(text: &str) -> String {
    if text.len() <= 80 {
        text.to_string()
    } else {
        let mut end = 80;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &text[..end])
    }
}

/// `Q`, a single letter, or `Q[TYPES]` for a mask (uppercase).
pub fn letters_of(mask: Mask, bare: bool) -> String {
    if candidate_count(mask) == 1 {
        LETTERS[mask.trailing_zeros() as usize].to_string()
    } else if bare {
        "Q".to_string()
    } else {
        format!("Q[{}]", mask_letters(mask))
    }
}

/// The canonical token of piece `i` (board form, with `+`; hand form has no promotion).
/// `bare` is [`Position::bare_q`].
pub fn piece_token(pos: &Position, i: usize, bare: u64) -> String {
    let p = pos.piece(i);
    let origin = origin_of(i);
    let mut s = String::new();
    if p.promoted {
        s.push('+');
    }
    let body = letters_of(p.mask, bare & (1 << i) != 0);
    if p.owner == Color::White {
        // Only the leading letter carries the owner; the set stays uppercase.
        let mut chars = body.chars();
        if let Some(first) = chars.next() {
            s.push(first.to_ascii_lowercase());
        }
        s.extend(chars);
    } else {
        s.push_str(&body);
    }
    if origin != p.owner {
        s.push('~');
    }
    s
}

/// The canonical QSFEN of a position.
pub fn write(pos: &Position) -> String {
    let bare = pos.bare_q();
    let mut out = String::new();
    for r in 0..9u8 {
        if r > 0 {
            out.push('/');
        }
        let mut empty = 0;
        for c in 0..9u8 {
            match pos.piece_at(r * 9 + c) {
                None => empty += 1,
                Some(i) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push_str(&piece_token(pos, i, bare));
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
    }
    out.push(' ');
    out.push(pos.side_to_move().letter());
    out.push(' ');
    let hand = hand_groups(pos, bare);
    if hand.is_empty() {
        out.push('-');
    }
    for (n, token) in hand {
        if n > 1 {
            out.push_str(&n.to_string());
        }
        out.push_str(&token);
    }
    out.push(' ');
    out.push_str(&pos.move_number().to_string());
    out
}

/// Hand tokens with counts in canonical order: sente's then gote's; own origin before `~`;
/// fewer candidates first; then by the candidates in type order K R B G S N L P.
pub fn hand_groups(pos: &Position, bare: u64) -> Vec<(u32, String)> {
    // (holder, foreign, candidate count, candidate types), a representative, how many.
    type Group = ((usize, bool, u32, Vec<usize>), usize, u32);
    let mut groups: Vec<Group> = Vec::new();
    for i in 0..PIECES {
        let p = pos.piece(i);
        if p.square != HAND {
            continue;
        }
        let foreign = origin_of(i) != p.owner;
        let types: Vec<usize> = types_of(p.mask).collect();
        let key = (p.owner.index(), foreign, candidate_count(p.mask), types);
        match groups.iter_mut().find(|(k, _, _)| *k == key) {
            Some(g) => g.2 += 1,
            None => groups.push((key, i, 1)),
        }
    }
    groups.sort();
    groups
        .into_iter()
        .map(|(_, i, n)| (n, piece_token(pos, i, bare)))
        .collect()
}

/// A human-readable board (rank `a` on top, file 9 on the left), without the `sfen` line.
pub fn diagram(pos: &Position) -> Vec<String> {
    let bare = pos.bare_q();
    let mut cells = vec![vec![String::from("."); 9]; 9];
    let mut width = 1;
    for r in 0..9u8 {
        for c in 0..9u8 {
            if let Some(i) = pos.piece_at(r * 9 + c) {
                let t = piece_token(pos, i, bare);
                width = width.max(t.len());
                cells[r as usize][c as usize] = t;
            }
        }
    }
    let mut lines = Vec::new();
    let header: Vec<String> = (1..=9)
        .rev()
        .map(|f| format!("{:>w$}", f, w = width))
        .collect();
    lines.push(format!("  {}", header.join(" ")));
    for (r, row) in cells.iter().enumerate() {
        let row: Vec<String> = row
            .iter()
            .map(|t| format!("{:>w$}", t, w = width))
            .collect();
        lines.push(format!("{} {}", (b'a' + r as u8) as char, row.join(" ")));
    }
    for side in Color::BOTH {
        let tokens: Vec<String> = hand_groups(pos, bare)
            .into_iter()
            .filter(|(_, t)| {
                t.chars().next().map(|c| c.is_ascii_uppercase()) == Some(side == Color::Black)
            })
            .map(|(n, t)| if n > 1 { format!("{n}{t}") } else { t })
            .collect();
        lines.push(format!(
            "hand {}: {}",
            side.letter(),
            if tokens.is_empty() {
                "-".to_string()
            } else {
                tokens.join(" ")
            }
        ));
    }
    lines.push(format!(
        "side to move: {}, move {}, key {:016x}",
        pos.side_to_move().letter(),
        pos.move_number(),
        pos.key()
    ));
    if let Some(w) = pos.winner() {
        lines.push(format!("winner: {} (king capture)", w.letter()));
    }
    lines
}
