//! What the session asks of each game. One implementation per variant, chosen once per command.

use super::options::Options;
use crate::protocol::{Command, StartSpec};
use crate::search::{Job, Limits, MateJob};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Where an extension command writes its lines (flushed one by one, so long jobs stream).
pub type Out<'a> = &'a mut dyn FnMut(&str);

/// A perft count: per root action (in notation) the leaves below it, or `None` when `stop` was
/// raised before it finished.
pub type PerftJob = Box<dyn FnOnce(Arc<AtomicBool>) -> Option<Vec<(String, u64)>> + Send>;

pub trait Variant: Send {
    /// Replaces the position, all or nothing. On a bad move the error names it.
    fn set_position(
        &mut self,
        start: &StartSpec,
        moves: &[String],
        options: &Options,
    ) -> Result<(), String>;

    /// `usinewgame`: forget per-game state (history, tables); the position stays.
    fn new_game(&mut self) {}

    /// `d`: the human-readable board; the last line is `sfen <position>`.
    fn display(&self) -> Vec<String>;

    /// `moves`: the legal actions in protocol notation.
    fn legal_moves(&self, options: &Options) -> Vec<String>;

    /// `go perft N`: checks the request (depth, memory; notes go to `out` as whole lines) and
    /// returns the count, run off the session thread so that it can be stopped.
    fn perft(&self, depth: u32, options: &Options, out: Out) -> Result<PerftJob, String>;

    /// Allocates what `options` ask for ahead of a search (the hash table), so that a failure
    /// is reported here and no search pays for it. A note when the table is smaller than asked.
    fn prepare(&mut self, options: &Options) -> Option<String> {
        let _ = options;
        None
    }

    /// `go`: a search over a copy of the current position.
    fn search(&self, limits: &Limits, options: &Options) -> Job;

    /// `go mate`: a search for a forced win by the side to move, or None when the variant has
    /// none (the session answers `checkmate notimplemented`).
    fn mate(&self, options: &Options) -> Option<MateJob> {
        let _ = options;
        None
    }

    /// The side to move, for picking `btime` or `wtime` (true = the first player: sente, black).
    fn first_player_to_move(&self) -> bool;

    /// `bench`: a fixed deterministic search; the last line must be `Nodes searched: <n>`.
    fn bench(&mut self, options: &Options, out: Out) -> Result<(), String>;

    /// Variant-only commands (`count`, `flips`, `benson`, ...). The default refuses them.
    fn extension(&mut self, command: &Command, options: &Options, out: Out) -> Result<(), String> {
        let _ = (options, out);
        Err(format!(
            "{} is not available in this variant",
            command_name(command)
        ))
    }
}

pub fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Count(_) => "count",
        Command::Flips(_) => "flips",
        Command::Hint(_) => "hint",
        Command::Undo => "undo",
        Command::Solve => "solve",
        Command::Benson { .. } => "benson",
        Command::LoadSgf(_) => "loadsgf",
        Command::LoadSgfText(_) => "loadsgftext",
        _ => "this command",
    }
}
