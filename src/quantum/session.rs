//! The quantum shogi adapter: protocol notation and output lines over `quantum`.

use crate::games::record::GameRecord;
use crate::games::rules::Rules;
use crate::memory;
use crate::protocol::args::unknown_command;
use crate::protocol::Args;
use crate::protocol::StartSpec;
use crate::quantum::kifu;
use crate::quantum::puzzles::solve::{defend, Defence};
use crate::quantum::search::job::{bench, job, Setup};
use crate::quantum::search::mate::{self, MateSearch, MAX_MATE_PLIES};
use crate::quantum::search::{self as player, Player, QGame};
use crate::quantum::{perft, Position, Record, Ruleset};
use crate::quantum::{square_name, PlayError, RecordError};
use crate::search::tt::Table;
use crate::search::{Control, Info, Job, Limits, MateJob, Outcome, Searcher};
use crate::session::options::{Kind, Options, Spec};
use crate::session::variant::{self, Adapter, Kept, Out, PerftJob, SessionError, Variant};
use crate::stop::Budget;
use parking_lot::Mutex;
use std::sync::Arc;

/// Why the quantum shogi session refuses a command.
#[derive(Debug, thiserror::Error)]
pub enum QuantumError {
    #[error(transparent)]
    Rules(#[from] RecordError),
    /// Move `number` (from 1) of a `position` command's list.
    #[error("illegal move {text} (move {number} of the list): {error}")]
    Listed {
        number: usize,
        text: String,
        error: PlayError,
    },
    #[error("perft depth must be 1 to {max}, got {0}", max = perft::MAX_DEPTH)]
    PerftDepth(u32),
    #[error("undo: no action to take back")]
    NothingToUndo,
    #[error("defend: plies must be 0 to {MAX_DEFEND_PLIES}, got {0}")]
    DefendPlies(u32),
}

/// The longest threat `defend` judges: a 7-ply puzzle's defender has 6 plies to hold out.
const MAX_DEFEND_PLIES: u32 = 8;
/// The most one `defend` may take: it runs in the session's thread, where neither `stop` nor a
/// closing tab reaches it.
const DEFEND_MS: u64 = 10_000;

/// `defend <plies>`'s answer line: `defence <action> mate <n>`, `defence <action> escape`,
/// `defence none` or `defence timeout`.
fn defence_line(pos: &Position, rules: &Ruleset, plies: u32) -> String {
    let control = Control::new(
        Limits {
            movetime: Some(DEFEND_MS),
            ..Default::default()
        },
        0,
    );
    let mut search = MateSearch::new(*rules, &control, 16);
    match defend(pos, rules, plies, &mut search) {
        Defence::Lost => "defence none".into(),
        Defence::Escape(a) => format!("defence {} escape", pos.action_name(a)),
        Defence::Mated(a, n) => format!("defence {} mate {n}", pos.action_name(a)),
        Defence::Timeout => "defence timeout".into(),
    }
}

crate::games::error_text!(derived: QuantumError);

impl From<QuantumError> for SessionError {
    fn from(e: QuantumError) -> Self {
        SessionError::game(e)
    }
}

pub struct QuantumVariant {
    /// The current position and the keys of the game so far (for repetition), with the loaded
    /// kifu's tags.
    kept: Kept<Record>,
    /// The search with its hash table, kept from one `go` to the next (allocated on first use).
    searcher: Arc<Mutex<Option<Searcher<QGame>>>>,
}

impl QuantumVariant {
    pub fn new() -> Self {
        QuantumVariant {
            kept: Kept::new(Record::new(Position::start(), Ruleset::default())),
            searcher: Arc::new(Mutex::new(None)),
        }
    }
}

impl Default for QuantumVariant {
    fn default() -> Self {
        Self::new()
    }
}

/// Search threads (`Threads`; 256 at most, so the conversion cannot fail).
fn threads(options: &Options) -> usize {
    usize::try_from(options.threads).unwrap_or(1)
}

fn rules(options: &Options) -> Ruleset {
    Ruleset {
        kakutei_nifu: options.check("KakuteiNifu"),
    }
}

/// `Strategy`'s values: the search, or one of the baseline players Shogitter offers.
const STRATEGIES: &[&str] = &["search", "possibilityist", "random"];

impl Adapter for QuantumVariant {
    const COMMANDS: &'static [&'static str] = &["undo", "defend"];
    const OPTIONS: &'static [Spec] = &[
        Spec::game("KakuteiNifu", Kind::Check(true)),
        Spec::game(
            "Strategy",
            Kind::Combo {
                default: "search",
                vars: STRATEGIES,
            },
        ),
    ];
    type Rules = Record;
    type Record = Record;

    type Error = QuantumError;

    fn kept(&self) -> &Kept<Record> {
        &self.kept
    }

    fn kept_mut(&mut self) -> &mut Kept<Record> {
        &mut self.kept
    }

    fn start(start: &StartSpec, options: &Options) -> Result<Record, QuantumError> {
        let record: Record = variant::start(start)?;
        Ok(Record::new(record.position().clone(), rules(options)))
    }

    fn play_listed(record: &mut Record, number: usize, text: &str) -> Result<(), QuantumError> {
        record
            .play_str(text)
            .map(drop)
            .map_err(|error| QuantumError::Listed {
                number,
                text: text.into(),
                error,
            })
    }

    fn with_options(&self, options: &Options) -> Option<Record> {
        Some(self.kept.record.under(rules(options)))
    }

    fn status(&self) -> Vec<String> {
        let repeats = self.kept.record.repetitions();
        let attacked = threatened(&self.kept.record);
        (repeats > 1)
            .then(|| format!("repetition: this position occurred {repeats} times"))
            .into_iter()
            .chain((!attacked.is_empty()).then(|| format!("king attacked: {}", attacked.join(" "))))
            .collect()
    }

    /// The kept tags, with the result and its reason once the game has ended.
    fn game_record(&self, _options: &Options) -> GameRecord<Record> {
        let Kept { record, tags, .. } = &self.kept;
        let mut tags = tags.clone();
        if let Some(end) = record.outcome() {
            tags.result = Some(end.verdict.score().into());
            tags.reason = Some(end.reason.to_string());
        }
        kifu::from_record(record, tags)
    }
}

/// [`Position::king_capture_threats`] by square name.
fn threatened(record: &Record) -> Vec<String> {
    record
        .position()
        .king_capture_threats()
        .into_iter()
        .map(square_name)
        .collect()
}

impl Variant for QuantumVariant {
    fn warnings(&self) -> Vec<String> {
        threatened(&self.kept.record)
    }

    fn new_game(&mut self) {
        if let Some(searcher) = self.searcher.lock().as_mut() {
            searcher.clear();
        }
        self.kept.record = Record::new(
            self.kept.record.position().clone(),
            self.kept.record.rules(),
        );
    }

    fn perft(&self, depth: u32, options: &Options, _out: Out) -> Result<PerftJob, SessionError> {
        if depth == 0 || depth > perft::MAX_DEPTH {
            return Err(QuantumError::PerftDepth(depth).into());
        }
        let pos = self.kept.record.position().clone();
        let rules = rules(options);
        Ok(Box::new(move |stop| {
            let counts = perft::divide_until(&pos, depth, &rules, &stop)?;
            let actions: Vec<_> = counts.iter().map(|&(a, _)| a).collect();
            let mut divide: Vec<(String, u64)> = pos
                .action_names(&actions)
                .into_iter()
                .zip(counts.iter().map(|&(_, n)| n))
                .collect();
            divide.sort();
            Some(divide)
        }))
    }

    fn prepare(&mut self, options: &Options) -> Option<String> {
        // A running search holds the table: nothing to change until it ends.
        let mut slot = self.searcher.try_lock()?;
        let wanted = options.hash_mb;
        let mut note = None;
        if slot.as_ref().is_none_or(|s| s.hash_mb() != wanted) {
            // The old table goes first, so its memory can serve the new one.
            *slot = None;
            note = match memory::largest(wanted, Table::try_new) {
                Some((table, got)) => {
                    *slot = Some(Searcher::with_table(table, wanted));
                    (got < wanted).then(|| memory::shortfall_note("USI_Hash", wanted, got))
                }
                None => Some(format!(
                    "USI_Hash: no memory for a hash table; {wanted} MiB asked"
                )),
            };
        }
        // The helper threads' tables (Lazy SMP), also allocated fallibly.
        let threads = slot.as_mut()?.set_threads(threads(options));
        match (note, threads) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        }
    }

    fn search(&self, _limits: &Limits, options: &Options) -> Job {
        // The game was drawn by repetition: no move is legal (`position` refuses one), so `go`
        // answers as in every finished game.
        if self.kept.record.repetitions() >= 4 {
            return Box::new(|control, _| Outcome {
                info: Info {
                    time_ms: control.elapsed_ms(),
                    ..Default::default()
                },
                best: None,
                ponder: None,
            });
        }
        let game = QGame::new(self.kept.record.position().clone(), rules(options));
        // The current position is the last key; the search adds it itself.
        let keys = self.kept.record.keys();
        let keys = keys[..keys.len().saturating_sub(1)].to_vec();
        let player = match STRATEGIES.get(options.combo("Strategy")) {
            Some(&"possibilityist") => Player::Possibilityist,
            Some(&"random") => Player::Random { seed: options.seed },
            _ => Player::Search,
        };
        let setup = Setup {
            hash_mb: options.hash_mb,
            multipv: options.multipv as usize,
            pruning: true,
            threads: threads(options),
        };
        job(game, keys, player, setup, Arc::clone(&self.searcher))
    }

    fn mate(&self, options: &Options) -> Option<MateJob> {
        let pos = self.kept.record.position().clone();
        let rules = rules(options);
        let hash_mb = options.hash_mb;
        Some(Box::new(move |control| {
            let mut search = MateSearch::new(rules, control, hash_mb);
            let result = search.run(&pos, MAX_MATE_PLIES);
            mate::answer(&pos, &result)
        }))
    }

    fn bench(&mut self, _options: &Options, out: Out) -> Result<(), SessionError> {
        let (lines, _) = bench(player::BENCH_DEPTH, true);
        for line in lines {
            out(&line);
        }
        Ok(())
    }

    fn extension(
        &mut self,
        name: &str,
        args: Args,
        options: &Options,
        _budget: &Budget,
        out: Out,
    ) -> Result<(), SessionError> {
        match name {
            "defend" => {
                let plies: u32 = args.number("expected a number of plies")?;
                if plies > MAX_DEFEND_PLIES {
                    return Err(QuantumError::DefendPlies(plies).into());
                }
                let line = defence_line(self.kept.record.position(), &rules(options), plies);
                out(&line);
                Ok(())
            }
            "undo" => {
                args.none()?;
                if self.kept.record.undo() {
                    let plies = self.kept.record.actions().len();
                    self.kept.undone(plies);
                    Ok(())
                } else {
                    Err(QuantumError::NothingToUndo.into())
                }
            }
            _ => Err(SessionError::Parse(unknown_command(name))),
        }
    }
}
