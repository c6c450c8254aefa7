//! The othello adapter: protocol notation and output lines over `othello`.
//!
//! The game record keeps, for every placement, the state before it, so `undo` takes back the
//! placement together with any automatic pass that followed it. A side without a move passes
//! automatically; an explicit `pass` is accepted right after such an automatic pass (clients
//! that send the passes they saw) and refused otherwise.

use crate::games::record::{GameRecord, RecordError, Recordable};
use crate::games::rules::{OptionValues, Rules, Verdict};
use crate::othello::board::{flips, squares};
use crate::othello::count::{count, CountError, CountRow};
use crate::othello::position::PositionError;
use crate::othello::record as othello_record;
use crate::othello::rules::RulesError;
use crate::othello::search::reason::reason;
use crate::othello::search::solve::Solver;
use crate::othello::search::{self as search, Ranker};
use crate::othello::{perft, square_name, Board, Position};
use crate::protocol::args::unknown_command;
use crate::protocol::{Args, StartSpec};
use crate::search::{Job, Limits};
use crate::session::options::{Kind, Options, Spec};
use crate::session::variant::{Adapter, Kept, Out, PerftJob, SessionError, Variant};
use crate::stop::{Budget, Halt};
use std::borrow::Borrow;
use std::time::Instant;

/// `count` goes no deeper: depth 12 already holds a few hundred million positions.
pub const MAX_COUNT_DEPTH: u32 = 12;
/// `solve` refuses positions with more empties (it cannot be interrupted).
pub const MAX_SOLVE_EMPTIES: u32 = 28;
/// Deepest `count` a served session runs (depth 9 already keeps a few million positions).
pub const MAX_SERVED_COUNT: u32 = 8;
/// Nodes one `solve` of a served session may visit.
pub const SERVED_SOLVE_NODES: u64 = 200_000_000;
/// `hint` solves every move exactly at or below this many empties.
pub const HINT_EXACT_EMPTIES: u32 = 18;
/// `hint` without an exact solve searches this deep.
const HINT_DEPTH: u32 = 6;
/// `go perft` goes no deeper (an Othello game has at most 60 placements; this is beyond any
/// count that can finish).
pub const MAX_PERFT_DEPTH: u32 = 20;
/// `go perft` uses a transposition table from this depth on.
pub const PERFT_HASH_DEPTH: u32 = 9;
/// `hint` with no K.
pub const HINT_DEFAULT: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    position: Position,
    /// The last placement was followed by an automatic pass not yet confirmed by `pass`.
    auto_passed: bool,
}

impl State {
    fn start(position: Position) -> State {
        match position.forced_pass() {
            Some(passed) => State {
                position: passed,
                auto_passed: true,
            },
            None => State {
                position,
                auto_passed: false,
            },
        }
    }
}

/// Why the Othello session refuses a command.
#[derive(Debug, thiserror::Error)]
pub enum OthelloError {
    #[error(transparent)]
    Position(PositionError),
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("pass: the game is over")]
    PassGameOver,
    /// Move `number` (from 1) of a `position` command's list.
    #[error("move {number}: {error}")]
    Listed {
        number: usize,
        error: Box<OthelloError>,
    },
    /// A move of bench line `line` (from 1).
    #[error("bench line {line}: {error}")]
    BenchLine {
        line: usize,
        error: Box<OthelloError>,
    },
    /// `flips` of a token that is no square.
    #[error("bad move '{}' (a1..h8)", crate::text::printable(.0))]
    FlipsSquare(String),
    #[error("illegal move {token} for {side}")]
    FlipsIllegal { token: String, side: &'static str },
    /// `record transcript` of a game from another start: a transcript is read from the
    /// standard one, so it would be another game.
    #[error(
        "record transcript: the game does not start from the standard position (use record ggf)"
    )]
    TranscriptStart,
    #[error("hint needs K of at least 1")]
    HintCount,
    #[error("hint: the game is over")]
    HintGameOver,
    #[error("solve handles at most {MAX_SOLVE_EMPTIES} empty squares (this position has {0})")]
    SolveEmpties(u32),
    /// The session's budget ended a `solve` ([`crate::stop::Budget`]).
    #[error("solve {0}")]
    SolveStopped(Halt),
    #[error("count depth must be 1 to {MAX_COUNT_DEPTH}")]
    CountDepth,
    #[error(transparent)]
    Count(CountError),
    #[error("perft depth must be 1 to {MAX_PERFT_DEPTH}, got {0}")]
    PerftDepth(u32),
    #[error("perft: no memory for its table")]
    PerftMemory,
    #[error("undo: no placement to take back")]
    NothingToUndo,
}

crate::games::error_text!(derived: OthelloError);

impl From<OthelloError> for SessionError {
    fn from(e: OthelloError) -> Self {
        SessionError::game(e)
    }
}

#[derive(Clone, Debug)]
pub struct Record {
    state: State,
    /// The state before each placement, oldest first.
    history: Vec<State>,
}

impl Record {
    fn new(position: Position) -> Record {
        Record {
            state: State::start(position),
            history: Vec::new(),
        }
    }

    fn apply(&mut self, token: &str) -> Result<(), OthelloError> {
        let pos = self.state.position;
        if token.eq_ignore_ascii_case("pass") {
            if self.state.auto_passed {
                self.state.auto_passed = false;
                return Ok(());
            }
            if pos.board.is_game_over() {
                return Err(OthelloError::PassGameOver);
            }
        }
        // The rules read the placement, or refuse the pass of a side that has a move.
        let mv = pos.parse_move(token)?;
        let mut next = pos;
        Rules::play(&mut next, mv)?;
        self.history.push(self.state);
        // The rules pass for a side without a move: the same side is to move again.
        self.state = State {
            position: next,
            auto_passed: next.black_to_move == pos.black_to_move,
        };
        Ok(())
    }
}

fn side_name(black: bool) -> &'static str {
    if black {
        "black"
    } else {
        "white"
    }
}

fn move_list(board: &Board) -> Vec<String> {
    squares(board.moves()).map(square_name).collect()
}

impl From<Position> for Record {
    fn from(position: Position) -> Record {
        Record::new(position)
    }
}

impl Borrow<Position> for Record {
    fn borrow(&self) -> &Position {
        &self.state.position
    }
}

pub struct OthelloVariant {
    kept: Kept<Record>,
}

impl OthelloVariant {
    pub fn new() -> Self {
        OthelloVariant {
            kept: Kept::new(Record::new(Position::START)),
        }
    }

    pub fn position(&self) -> Position {
        self.kept.record.state.position
    }
}

impl Default for OthelloVariant {
    fn default() -> Self {
        Self::new()
    }
}

/// The exact solver's threads (`Threads`; 256 at most, so the conversion cannot fail).
fn threads(options: &Options) -> usize {
    usize::try_from(options.threads).unwrap_or(1)
}

/// Integer discs from centi-discs, rounded to nearest.
fn discs(centi: i32) -> i32 {
    (centi + if centi >= 0 { 50 } else { -50 }) / 100
}

impl OthelloVariant {
    fn flips_line(&self, token: &str) -> Result<String, OthelloError> {
        let pos = self.position();
        let sq = crate::othello::rules::parse_placement(token)
            .ok_or_else(|| OthelloError::FlipsSquare(token.into()))?;
        if pos.board.moves() & 1u64 << sq == 0 {
            return Err(OthelloError::FlipsIllegal {
                token: token.into(),
                side: side_name(pos.black_to_move),
            });
        }
        let turned = flips(pos.board.player, pos.board.opponent, sq);
        let mut line = format!("flips {}", square_name(sq));
        for t in squares(turned) {
            line.push(' ');
            line.push_str(&square_name(t));
        }
        Ok(line)
    }

    fn hint(&self, k: Option<u32>, out: Out) -> Result<(), OthelloError> {
        let k = k.unwrap_or(HINT_DEFAULT);
        if k == 0 {
            return Err(OthelloError::HintCount);
        }
        let board = self.position().board;
        if board.moves() == 0 {
            return Err(OthelloError::HintGameOver);
        }
        let empties = board.empties().count_ones();
        let ranked: Vec<(u32, i32, bool)> = if empties <= HINT_EXACT_EMPTIES {
            let mut solver = Solver::new(20);
            let mut list: Vec<(u32, i32, bool)> = squares(board.moves())
                .map(|sq| {
                    let after = board.play_with(sq, flips(board.player, board.opponent, sq));
                    (sq, -solver.score(&after), true)
                })
                .collect();
            list.sort_by_key(|&(sq, s, _)| (-s, sq));
            list
        } else {
            let mut ranker = Ranker::new(None, crate::othello::search::Eval::Pattern);
            ranker
                .rank(&board, HINT_DEPTH)
                .into_iter()
                .map(|(sq, s)| (sq, discs(s), false))
                .collect()
        };
        for (sq, score, exact) in ranked.into_iter().take(k as usize) {
            let why = reason(&board, sq, exact.then_some(score));
            out(&format!(
                "hint {} score {score} reason {why}",
                square_name(sq)
            ));
        }
        Ok(())
    }

    fn solve(&self, threads: usize, budget: &Budget, out: Out) -> Result<(), OthelloError> {
        let board = self.position().board;
        let empties = board.empties().count_ones();
        if empties > MAX_SOLVE_EMPTIES {
            return Err(OthelloError::SolveEmpties(empties));
        }
        let t0 = Instant::now();
        // A served session's budget: the solve stops when its tab closes or past its nodes.
        let stopped = std::cell::Cell::new(None);
        let abort = |nodes| {
            let why = budget.check(nodes, SERVED_SOLVE_NODES);
            stopped.set(why);
            why.is_some()
        };
        let mut solver = Solver::new(22).with_abort(&abort).with_threads(threads);
        let spinner = crate::progress::spinner(format!("solving {empties} empties"));
        let r = solver.solve(&board);
        if let Some(spinner) = spinner {
            spinner.finish_and_clear();
        }
        if let Some(why) = stopped.get() {
            return Err(OthelloError::SolveStopped(why));
        }
        let ms = t0.elapsed().as_millis();
        out(&format!(
            "solve {} score {} nodes {} time {ms}",
            r.best.map(square_name).unwrap_or_else(|| "none".into()),
            r.score,
            solver.nodes.max(1)
        ));
        Ok(())
    }

    fn count(&self, depth: u32, budget: &Budget, out: Out) -> Result<(), OthelloError> {
        if depth == 0 || depth > MAX_COUNT_DEPTH {
            return Err(OthelloError::CountDepth);
        }
        let pos = self.position();
        let bar = crate::progress::bar("{msg} [{bar:40}] {pos}/{len} positions", 1);
        let mut last_depth = 0;
        let result = count(
            &pos,
            depth,
            &mut |r: CountRow| {
                if let Some(bar) = &bar {
                    bar.suspend(|| {
                        out(&format!(
                            "count {} paths {} positions {}",
                            r.depth, r.paths, r.positions
                        ))
                    });
                } else {
                    out(&format!(
                        "count {} paths {} positions {}",
                        r.depth, r.paths, r.positions
                    ));
                }
            },
            &mut |d, done, total| {
                if let Some(bar) = &bar {
                    if d != last_depth {
                        last_depth = d;
                        bar.set_message(format!("depth {d}"));
                    }
                    bar.set_length(total.max(1));
                    bar.set_position(done);
                }
                // A served session's budget: the count stops when its tab closes.
                budget.interrupted().map_or(Ok(()), Err)
            },
        );
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        result.map(|_| ()).map_err(OthelloError::Count)
    }
}

impl Adapter for OthelloVariant {
    const COMMANDS: &'static [&'static str] = &["count", "flips", "hint", "solve", "undo"];
    const OPTIONS: &'static [Spec] = &[Spec::game(
        "Level",
        Kind::Spin {
            default: 3,
            min: 1,
            max: 3,
        },
    )];
    const IGNORED_OPTIONS: &'static [&'static str] = &["MultiPV"];
    type Rules = Position;
    type Record = Record;
    type Error = OthelloError;

    fn served_refusal(name: &str, args: &str) -> Option<String> {
        (name == "count" && args.trim().parse::<u64>().ok() > Some(MAX_SERVED_COUNT.into())).then(
            || format!("count deeper than {MAX_SERVED_COUNT} is not available in a served session"),
        )
    }

    fn kept(&self) -> &Kept<Record> {
        &self.kept
    }

    fn kept_mut(&mut self) -> &mut Kept<Record> {
        &mut self.kept
    }

    /// The position as given (not the rules' `from_text`, which passes at once for a side
    /// without a move): a client may confirm that pass.
    fn start(start: &StartSpec, _options: &Options) -> Result<Record, OthelloError> {
        let position = match start {
            StartSpec::Startpos => Position::START,
            StartSpec::Sfen(fields) => {
                let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
                Position::from_fields(&fields).map_err(OthelloError::Position)?
            }
        };
        Ok(Record::new(position))
    }

    fn play_listed(game: &mut Record, number: usize, text: &str) -> Result<(), OthelloError> {
        game.apply(text).map_err(|e| OthelloError::Listed {
            number,
            error: Box::new(e),
        })
    }

    /// The discs, and `*` where the side to move may play.
    fn board(&self) -> Vec<String> {
        let pos = self.position();
        let (b, w) = (pos.black(), pos.white());
        let legal = pos.board.moves();
        let mut lines = vec!["  a b c d e f g h".to_string()];
        for rank in 0..8 {
            let mut row = format!("{}", rank + 1);
            for file in 0..8 {
                let sq = rank * 8 + file;
                let bit = 1u64 << sq;
                let c = if b & bit != 0 {
                    'X'
                } else if w & bit != 0 {
                    'O'
                } else if legal & bit != 0 {
                    '*'
                } else {
                    '.'
                };
                row.push(' ');
                row.push(c);
            }
            lines.push(row);
        }
        lines
    }

    fn status(&self) -> Vec<String> {
        let pos = self.position();
        let (b, w) = (pos.black(), pos.white());
        // The verdict is the rules layer's (the referee's), so the two cannot disagree.
        let status = if let Some(end) = Rules::outcome(&pos) {
            match end.verdict {
                Verdict::Win(side) => {
                    format!(
                        "game over, {} wins",
                        <Position as Rules>::PLAYERS[side.index()]
                    )
                }
                Verdict::Draw => "game over, draw".to_string(),
            }
        } else {
            format!("{} to move", side_name(pos.black_to_move))
        };
        vec![
            format!(
                "black X {} white O {}, {status}",
                b.count_ones(),
                w.count_ones()
            ),
            format!("moves: {}", move_list(&pos.board).join(" ")),
        ]
    }

    /// Every position of the game so far, with the kept tags.
    fn game_record(&self, _options: &Options) -> GameRecord<Position> {
        let Kept {
            record,
            tags,
            notes,
        } = &self.kept;
        let mut states: Vec<Position> = record.history.iter().map(|s| s.position).collect();
        states.push(record.state.position);
        let mut tags = tags.clone();
        // A game over on the board has its result, as GGS writes it (black's disc lead, the
        // empties to the winner), like the other games' records.
        let last = record.state.position;
        if tags.result.is_none() {
            if let Some(end) = Rules::outcome(&last) {
                tags.result = Some(<Position as Recordable>::result_tag(
                    end,
                    last.final_score(&OptionValues::default()),
                ));
                tags.reason = Some(end.reason.to_string());
            }
        }
        let mut game = othello_record::from_positions(&states, tags);
        game.notes = notes.clone();
        game
    }

    /// GGF, or the transcript with `record transcript` (`record ggf`: GGF too).
    fn write_record(&self, args: Args, options: &Options) -> Result<Vec<String>, SessionError> {
        let game = self.game_record(options);
        match args.optional_word()? {
            Some("transcript") => {
                if game.start != <Position as Rules>::start() {
                    return Err(SessionError::game(OthelloError::TranscriptStart));
                }
                return Ok(vec![othello_record::write_transcript(&game)]);
            }
            Some("ggf") => {}
            _ => args.none()?,
        }
        let ggf = othello_record::write_ggf(&game);
        Ok(ggf.lines().map(String::from).collect())
    }

    /// Its start, then every placement, so that `undo` steps back through them.
    fn load_record(game: &GameRecord<Position>) -> Result<Record, RecordError> {
        let mut record = Record::new(game.start);
        for (i, &mv) in game.moves.iter().enumerate() {
            record
                .apply(&square_name(mv))
                .map_err(|e| RecordError::Move {
                    ply: i + 1,
                    text: square_name(mv),
                    why: e.to_string(),
                })?;
        }
        Ok(record)
    }
}

impl Variant for OthelloVariant {
    fn perft(&self, depth: u32, options: &Options, out: Out) -> Result<PerftJob, SessionError> {
        if depth == 0 || depth > MAX_PERFT_DEPTH {
            return Err(OthelloError::PerftDepth(depth).into());
        }
        // Deep counts share transposed subtrees through a table of USI_Hash MiB (or the
        // largest that can be had: the count is the same, only slower).
        let mut table = None;
        if depth >= PERFT_HASH_DEPTH {
            let wanted = options.hash_mb;
            let (t, got) = crate::memory::largest(wanted, perft::PerftTable::try_new)
                .ok_or(OthelloError::PerftMemory)?;
            if got < wanted {
                out(&format!(
                    "info string {}",
                    crate::memory::shortfall_note("USI_Hash", wanted, got)
                ));
            }
            table = Some(t);
        }
        let board = self.position().board;
        Ok(Box::new(move |stop| {
            if let Some(t) = &mut table {
                t.set_stop(stop.clone());
            }
            let divide = perft::divide_hashed(&board, depth, &mut table);
            if stop.is_raised() {
                return None;
            }
            Some(
                divide
                    .into_iter()
                    .map(|(m, n)| (m.map(square_name).unwrap_or_else(|| "pass".into()), n))
                    .collect(),
            )
        }))
    }

    fn search(&self, _limits: &Limits, options: &Options) -> Job {
        search::job(
            self.position(),
            options.spin("Level"),
            options.seed,
            threads(options),
        )
    }

    fn bench(&mut self, _options: &Options, out: Out) -> Result<(), SessionError> {
        search::bench::run(out).map_err(|(line, error)| OthelloError::BenchLine {
            line,
            error: Box::new(OthelloError::Rules(error.into())),
        })?;
        Ok(())
    }

    fn extension(
        &mut self,
        name: &str,
        args: Args,
        options: &Options,
        budget: &Budget,
        out: Out,
    ) -> Result<(), SessionError> {
        let done = match name {
            "count" => self.count(args.number("expected a depth")?, budget, out),
            "flips" => {
                let line = self.flips_line(args.word("expected a move")?)?;
                out(&line);
                Ok(())
            }
            "hint" => self.hint(args.optional_number()?, out),
            "solve" => {
                args.none()?;
                self.solve(threads(options), budget, out)
            }
            "undo" => {
                args.none()?;
                let game = &mut self.kept.record;
                match game.history.pop() {
                    Some(before) => {
                        game.state = before;
                        let plies = self.kept.record.history.len();
                        self.kept.undone(plies);
                        Ok(())
                    }
                    None => Err(OthelloError::NothingToUndo),
                }
            }
            _ => return Err(SessionError::Parse(unknown_command(name))),
        };
        Ok(done?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::variant::Shared;

    fn game(moves: &str) -> Record {
        let mut g = Record::new(Position::START);
        for m in moves.split_whitespace() {
            g.apply(m).unwrap();
        }
        g
    }

    #[test]
    fn undo_restores_each_state() {
        let mut v = OthelloVariant::new();
        let moves: Vec<String> = ["f5", "d6", "c3"].iter().map(|s| s.to_string()).collect();
        v.set_position(&StartSpec::Startpos, &moves, &Options::default())
            .unwrap();
        let after = v.position();
        let undo = |v: &mut OthelloVariant| {
            v.extension(
                "undo",
                Args::new("undo", ""),
                &Options::default(),
                &Budget::default(),
                &mut |_: &str| {},
            )
        };
        undo(&mut v).unwrap();
        assert_eq!(v.position(), game("f5 d6").state.position);
        undo(&mut v).unwrap();
        undo(&mut v).unwrap();
        assert_eq!(v.position(), Position::START);
        assert!(undo(&mut v).is_err());
        assert_eq!(v.position(), Position::START);
        assert_ne!(after, Position::START);
    }

    #[test]
    fn a_record_over_on_the_board_carries_its_result() {
        let options = Options::default();
        let mut v = OthelloVariant::new();
        let mut moves: Vec<String> = Vec::new();
        let ggf = |v: &OthelloVariant| {
            v.write_record(Args::new("record", ""), &options)
                .unwrap()
                .concat()
        };
        loop {
            v.set_position(&StartSpec::Startpos, &moves, &options)
                .unwrap();
            let position = v.position();
            let Some(&mv) = position.legal_moves().first() else {
                break;
            };
            assert!(!ggf(&v).contains("RE["), "a game on has no result");
            moves.push(square_name(mv));
        }
        let lead = v.position().final_score(&OptionValues::default()).unwrap();
        assert!(lead != 0.0);
        assert!(ggf(&v).contains(&format!("RE[{lead:+.2}]")), "{}", ggf(&v));
    }

    #[test]
    fn bad_moves_are_refused() {
        let mut g = game("f5");
        let before = g.state;
        for bad in ["a1", "pass", "z9", "f66", "F66", ""] {
            assert!(g.apply(bad).is_err(), "{bad}");
            assert_eq!(g.state, before);
        }
    }

    #[test]
    fn moves_are_read_in_either_case() {
        let (mut upper, mut lower) = (game("F5"), game("f5"));
        assert_eq!(upper.state, lower.state);
        upper.apply("F6").unwrap();
        lower.apply("f6").unwrap();
        assert_eq!(upper.state, lower.state);
    }
}
