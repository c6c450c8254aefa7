//! A slow reference implementation of the rules, independent of `movegen`, `hall` and
//! `Position::apply`: moves are generated per candidate type with ordinary shogi movement and
//! deduplicated; the narrowing set of a move is "the candidates whose own movement reaches the
//! target"; projections use the matching oracle. Tests cross-check perft and positions with it.

use super::action::Action;
use super::oracle;
use super::position::{origin_of, Position, Ruleset, HAND};
use super::types::*;
use std::collections::BTreeSet;

/// Sente-frame (row step, column step) offsets; row -1 is forward for sente.
const KING: &[(i8, i8)] = &[
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
const GOLD: &[(i8, i8)] = &[(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0)];
const SILVER: &[(i8, i8)] = &[(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 1)];
const KNIGHT: &[(i8, i8)] = &[(-2, -1), (-2, 1)];
const PAWN: &[(i8, i8)] = &[(-1, 0)];
const ORTH: &[(i8, i8)] = &[(-1, 0), (1, 0), (0, -1), (0, 1)];
const DIAG: &[(i8, i8)] = &[(-1, -1), (-1, 1), (1, -1), (1, 1)];
const UP: &[(i8, i8)] = &[(-1, 0)];

type Offsets = Vec<(i8, i8)>;

/// (steps, slides) of one type, unpromoted or promoted.
fn movement(t: usize, promoted: bool) -> (Offsets, Offsets) {
    let v = |s: &[(i8, i8)]| s.to_vec();
    match (LETTERS[t], promoted) {
        ('K', false) => (v(KING), vec![]),
        ('R', false) => (vec![], v(ORTH)),
        ('B', false) => (vec![], v(DIAG)),
        ('G', false) => (v(GOLD), vec![]),
        ('S', false) => (v(SILVER), vec![]),
        ('N', false) => (v(KNIGHT), vec![]),
        ('L', false) => (vec![], v(UP)),
        ('P', false) => (v(PAWN), vec![]),
        ('R', true) => (v(DIAG), v(ORTH)),
        ('B', true) => (v(ORTH), v(DIAG)),
        ('S', true) | ('N', true) | ('L', true) | ('P', true) => (v(GOLD), vec![]),
        _ => (vec![], vec![]),
    }
}

/// Squares a piece of type `t` reaches from `from` (not onto its own pieces), with blocking.
fn targets(pos: &Position, t: usize, promoted: bool, owner: Color, from: Square) -> Vec<Square> {
    let flip = if owner == Color::Black { 1 } else { -1 };
    let (r0, c0) = ((from / 9) as i8, (from % 9) as i8);
    let (steps, slides) = movement(t, promoted);
    let mut out = Vec::new();
    let visit = |dr: i8, dc: i8, slide: bool, out: &mut Vec<Square>| {
        let (mut r, mut c) = (r0, c0);
        loop {
            r += dr * flip;
            c += dc * flip;
            if !(0..9).contains(&r) || !(0..9).contains(&c) {
                return;
            }
            let sq = (r * 9 + c) as Square;
            match pos.piece_at(sq) {
                Some(j) if pos.piece(j).owner == owner => return,
                Some(_) => {
                    out.push(sq);
                    return;
                }
                None => out.push(sq),
            }
            if !slide {
                return;
            }
        }
    };
    for (dr, dc) in steps {
        visit(dr, dc, false, &mut out);
    }
    for (dr, dc) in slides {
        visit(dr, dc, true, &mut out);
    }
    out
}

fn far_distance(owner: Color, sq: Square) -> u8 {
    if owner == Color::Black {
        sq / 9
    } else {
        8 - sq / 9
    }
}

fn filter(owner: Color, sq: Square) -> Mask {
    match far_distance(owner, sq) {
        0 => ALL & !(P | L | N),
        1 => ALL & !N,
        _ => ALL,
    }
}

/// The local restriction of a board move, by asking each candidate type (0 = impossible).
fn move_restriction(pos: &Position, from: Square, to: Square, promote: bool) -> Mask {
    let Some(i) = pos.piece_at(from) else {
        return 0;
    };
    let p = pos.piece(i);
    let mut e = 0;
    for t in 0..8 {
        if has_type(p.mask, t) && targets(pos, t, p.promoted, p.owner, from).contains(&to) {
            e |= 1 << t;
        }
    }
    restrict(p, (from, to), e, promote)
}

/// Promotion and the rank filters on top of the types that reach the target.
fn restrict(
    p: super::position::Piece,
    (from, to): (Square, Square),
    e: Mask,
    promote: bool,
) -> Mask {
    if promote {
        let zone = far_distance(p.owner, from) < 3 || far_distance(p.owner, to) < 3;
        if p.promoted || !zone {
            return 0;
        }
        e & !(G | K)
    } else if p.promoted {
        e
    } else {
        e & filter(p.owner, to)
    }
}

/// The lowest-index hand piece interchangeable with `i`.
fn representative(pos: &Position, i: usize) -> usize {
    let p = pos.piece(i);
    (0..PIECES)
        .find(|&j| {
            let q = pos.piece(j);
            q.square == HAND
                && q.owner == p.owner
                && q.mask == p.mask
                && origin_of(j) == origin_of(i)
        })
        .unwrap_or(i)
}

/// The legal actions, generated per candidate type and deduplicated, in sorted order.
pub fn legal_actions(pos: &Position, rules: &Ruleset) -> Vec<Action> {
    let mut set = BTreeSet::new();
    if pos.winner().is_some() {
        return Vec::new();
    }
    let side = pos.side_to_move();
    for i in 0..PIECES {
        let p = pos.piece(i);
        if p.owner != side {
            continue;
        }
        if p.square == HAND {
            for to in 0..SQUARES as Square {
                if pos.piece_at(to).is_some() || p.mask & filter(side, to) == 0 {
                    continue;
                }
                if rules.kakutei_nifu && p.mask == P {
                    let file = to % 9;
                    let doubled = (0..PIECES).any(|j| {
                        let q = pos.piece(j);
                        q.square != HAND
                            && q.square % 9 == file
                            && q.owner == side
                            && !q.promoted
                            && q.mask == P
                    });
                    if doubled {
                        continue;
                    }
                }
                set.insert(Action::Drop {
                    piece: representative(pos, i) as u8,
                    to,
                });
            }
            continue;
        }
        // Each candidate type's own targets; a target's narrowing set is the types reaching it.
        let reach: Vec<(usize, Vec<Square>)> = types_of(p.mask)
            .map(|t| (t, targets(pos, t, p.promoted, side, p.square)))
            .collect();
        for (_, squares) in &reach {
            for &to in squares {
                let e: Mask = reach
                    .iter()
                    .filter(|(_, s)| s.contains(&to))
                    .fold(0, |m, (t, _)| m | 1 << t);
                for promote in [false, true] {
                    if restrict(p, (p.square, to), e, promote) != 0 {
                        set.insert(Action::Move {
                            from: p.square,
                            to,
                            promote,
                        });
                    }
                }
            }
        }
    }
    set.into_iter().collect()
}

fn reproject(pieces: &mut [super::position::Piece; PIECES], origin: Color) -> bool {
    let base = origin.index() * PIECES_PER_SIDE;
    let masks: Vec<Mask> = (0..PIECES_PER_SIDE)
        .map(|k| pieces[base + k].mask)
        .collect();
    match oracle::project(&masks) {
        None => false,
        Some(exact) => {
            for k in 0..PIECES_PER_SIDE {
                pieces[base + k].mask = exact[k];
            }
            true
        }
    }
}

/// Plays an action the slow way; None when it is not legal.
pub fn apply(pos: &Position, action: Action, rules: &Ruleset) -> Option<Position> {
    if !legal_actions(pos, rules).contains(&action) {
        return None;
    }
    apply_generated(pos, action)
}

/// Plays an action that [`legal_actions`] produced.
fn apply_generated(pos: &Position, action: Action) -> Option<Position> {
    let side = pos.side_to_move();
    let mut pieces = *pos.pieces();
    let mut winner = None;
    match action {
        Action::Move { from, to, promote } => {
            let i = pos.piece_at(from)?;
            pieces[i].mask &= move_restriction(pos, from, to, promote);
            if !reproject(&mut pieces, origin_of(i)) {
                return None;
            }
            if let Some(j) = pos.piece_at(to) {
                if is_certain_king(pieces[j].mask) {
                    winner = Some(side);
                } else {
                    pieces[j].mask &= !K;
                }
                pieces[j].square = HAND;
                pieces[j].owner = side;
                pieces[j].promoted = false;
                if winner.is_none() && !reproject(&mut pieces, origin_of(j)) {
                    return None;
                }
            }
            pieces[i].square = to;
            pieces[i].promoted |= promote;
        }
        Action::Drop { piece, to } => {
            let i = piece as usize;
            pieces[i].mask &= filter(side, to);
            pieces[i].square = to;
            if !reproject(&mut pieces, origin_of(i)) {
                return None;
            }
        }
    }
    let mut next = pos.clone();
    next.board = [u8::MAX; SQUARES];
    for (k, p) in pieces.iter().enumerate() {
        if p.square != HAND {
            next.board[p.square as usize] = k as u8;
        }
    }
    next.pieces = pieces;
    next.side = side.opponent();
    next.winner = winner;
    next.move_number = next.move_number.saturating_add(1);
    next.key = next.compute_key();
    next.tally = super::tally::Tally::of(&next.pieces);
    Some(next)
}

/// Perft with the reference generator and the reference apply.
pub fn perft(pos: &Position, depth: u32, rules: &Ruleset) -> u64 {
    if depth == 0 {
        return 1;
    }
    let actions = legal_actions(pos, rules);
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .into_iter()
        .map(|a| {
            let next = apply_generated(pos, a).expect("a generated action applies");
            perft(&next, depth - 1, rules)
        })
        .sum()
}
