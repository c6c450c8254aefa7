//! Quantum shogi (量子将棋) rules: every piece is a set of candidate types, narrowed by what it
//! does and kept exact by Hall's condition. No I/O, threads or clocks.
//!
//! # The state
//! A [`Position`] holds 40 individual [`Piece`]s (square or hand, current owner, promoted flag,
//! exact candidate [`Mask`]); piece `i`'s origin is [`origin_of`]`(i)` (0..20 sente, 20..40 gote),
//! fixed for life. Masks are always *exact* (projected): each type in a mask occurs in some
//! complete assignment of its origin side (K1 R1 B1 G2 S2 N2 L2 P9).
//!
//! # For a search
//! - [`Position::generate`]`(&rules, &mut Vec<Action>)` appends the legal actions (distinct
//!   from/to/promote; drops one per hand class and square); [`Position::count_legal`] counts them;
//!   [`Position::generate_captures`] appends only captures. Every generated action is legal
//!   (consistency is `mask ∩ E ≠ ∅` on exact masks, see `movegen`).
//! - Copy-make: positions are plain data (~370 bytes); `let mut c = pos.clone(); c.apply(a);`
//!   or [`Position::after`]. [`Position::apply`] re-projects only the affected origin side(s).
//! - [`Position::key`]: 64-bit Zobrist key over board, hands (as a multiset), side to move,
//!   promotion and candidate masks; fixed constants, incrementally updated.
//! - [`Position::winner`]: `Some(side)` once a certain king was captured (no actions follow).
//!   An empty action list means the side to move has lost.
//! - [`Position::pieces`], [`Position::piece_at`], [`Position::side_to_move`], and per origin
//!   side [`Position::tight`] (least tight sets) for evaluation.
//!
//! # For a referee
//! - [`qsfen::parse`] / [`qsfen::write`] (canonical; [`Position::bare_q`] decides where a bare
//!   `Q` is written); [`Position::parse_action`] reads protocol
//!   notation (`7g7f`, `8h2b+`, `Q[RSL]~*5e`) and checks legality; [`Position::action_name`]
//!   writes it.
//! - [`Record`] keeps the key history: [`Record::play_str`] plays a move given in notation and
//!   [`Record::ending`] reports king capture, no legal action or fourfold repetition.
//!
//! # Modules
//! `types` (sides, masks, squares), `hall` (fast projection, from one seating of a side),
//! `oracle` (matching projection), `position` (state, apply), `tally` (the evaluation's sums
//! and the generators' sets, kept as the pieces change), `movegen` (narrowing table,
//! generation), `action` (notation), `qsfen`, `zobrist`, `perft` (bulk-counting perft and
//! `perft_by_apply`), `record`, `reference` (slow independent rules: per-type generation,
//! matching-oracle projections).

pub(crate) mod action;
pub mod bench;
pub mod hall;
pub mod kifu;
pub mod material;
pub(crate) mod movegen;
pub mod oracle;
pub mod perft;
pub(crate) mod position;
pub mod puzzles;
pub mod qsfen;
pub(crate) mod record;
pub mod reference;
pub mod search;
pub mod serve;
pub(crate) mod session;
pub(crate) mod tally;
pub mod tune;
pub mod types;
pub mod weights;
pub(crate) mod zobrist;

pub use action::{Action, ActionError};
pub use movegen::Displacement;
pub use position::{loose_mask, origin_of, Piece, Position, PositionError, Ruleset, HAND};
pub use qsfen::QsfenError;
pub use record::{Ending, PlayError, Record, RecordError};
pub use types::{square_name, Color, Mask, Square};
