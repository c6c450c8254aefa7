//! `engines.toml`: the engines and the match settings, parsed with `toml` + `serde`.
//!
//! Every table denies unknown keys, so a typo is an error that names the key instead of a
//! setting silently ignored. Relative paths are taken from the configuration file's folder.

pub use super::overrides::{Override, OverrideError};
use crate::games::rules::{MatchSettings, OptionValues};
use crate::registry;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(rename = "engine", default)]
    pub engines: Vec<EngineConfig>,
    #[serde(rename = "match", deserialize_with = "super::game_keys::match_table")]
    pub play: MatchConfig,
    /// `[slurm]`: how `ryoshi match --slurm N` submits the match (see [`super::slurm`]).
    pub slurm: Option<super::slurm::SlurmConfig>,
    /// The folder relative paths are resolved against (the configuration file's folder).
    #[serde(skip)]
    pub base_dir: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    pub name: String,
    pub cmd: String,
    #[serde(default)]
    pub args: Vec<String>,
    pub working_dir: Option<PathBuf>,
    /// Sent as `setoption name K value V`, in key order, after the handshake.
    #[serde(default)]
    pub options: BTreeMap<String, OptionValue>,
    /// A file the engine's stderr is appended to (discarded when absent).
    pub stderr: Option<PathBuf>,
    /// How the runner speaks to it.
    #[serde(default)]
    pub protocol: Protocol,
    /// GTP: the engine plays by its own settings (a level), off the clock: it is sent no time
    /// commands, its moves are not timed, and only `timeout_ms` bounds each one.
    #[serde(default)]
    pub untimed: bool,
    /// GTP: the command that asks for a move.
    #[serde(default)]
    pub genmove: Genmove,
}

/// How a GTP engine is asked for its move. A referee that scores the board as it stands counts
/// everything left on it, so an engine that passes while pieces it counts as lost are still on
/// it (Pachi under `genmove`) is asked with KGS's cleanup command instead, under which it takes
/// them off first (Pachi's `pass_all_alive`), as GNU Go does with `--capture-all-dead`.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
pub enum Genmove {
    #[default]
    #[serde(rename = "genmove")]
    Genmove,
    #[serde(rename = "kgs-genmove_cleanup")]
    KgsCleanup,
}

impl Genmove {
    pub fn command(self) -> &'static str {
        match self {
            Genmove::Genmove => "genmove",
            Genmove::KgsCleanup => "kgs-genmove_cleanup",
        }
    }
}

/// The protocol an engine speaks: USI (ryoshi's own, the default) or GTP (GNU Go, GRhino, Edax,
/// `ryoshi gtp`), driven as gogui-twogtp and gomill drive it.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    #[default]
    Usi,
    Gtp,
}

/// Which pairs of the listed engines play each other.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Tournament {
    /// Every pair (two engines: their match).
    #[default]
    RoundRobin,
    /// The first engine against each other one; the others do not meet.
    Gauntlet,
}

/// What an openings file holds: `position` lines, or game records in the game's own format (one
/// a line, or one a file in a folder).
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OpeningsFormat {
    #[default]
    Positions,
    Records,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Float(x) => write!(f, "{x}"),
            OptionValue::Text(s) => write!(f, "{s}"),
        }
    }
}

/// A game of the registry, by its `USI_Variant` name (the engine's option reads the same list).
pub use crate::registry::Game as VariantName;

impl<'de> Deserialize<'de> for VariantName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        VariantName::named(&name).ok_or_else(|| {
            let known: Vec<String> = registry::NAMES.iter().map(|n| format!("`{n}`")).collect();
            serde::de::Error::custom(format!(
                "unknown variant `{name}`, expected one of {}",
                known.join(", ")
            ))
        })
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchConfig {
    pub variant: VariantName,
    pub engines: Vec<String>,
    /// Which pairs of `engines` play: every pair, or the first engine against each other one.
    #[serde(default)]
    pub tournament: Tournament,
    /// Games per pair of engines.
    #[serde(default = "default_games")]
    pub games: u32,
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    pub byoyomi_ms: Option<u64>,
    pub main_ms: Option<u64>,
    pub inc_ms: Option<u64>,
    pub movetime_ms: Option<u64>,
    pub nodes: Option<u64>,
    /// The board size, for a game of several (its [`MatchSettings::board_sizes`]); the games
    /// start from the game's standard start on a board of this size.
    pub board_size: Option<u32>,
    /// How far below zero a clock may go before the flag falls.
    #[serde(default = "default_margin")]
    pub margin_ms: u64,
    /// The longest wait for `usiok`/`readyok`, and for `bestmove` under a `nodes` limit.
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    pub openings: Option<PathBuf>,
    /// How `openings` is read: position lines (the default) or game records (a folder of
    /// them is always records).
    #[serde(default)]
    pub openings_format: OpeningsFormat,
    /// Records: each opening is the first this many plies of a record's main line (all of it
    /// when absent, or when the record is shorter).
    pub openings_cut: Option<u32>,
    pub opening_plies: Option<u32>,
    /// With `opening_plies`: each opening draws its length in `opening_plies..=opening_plies_max`.
    pub opening_plies_max: Option<u32>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_max_plies")]
    pub max_plies: u32,
    /// An engine whose process is lost (a crash, or no start) in this many games in a row stops
    /// the match; 0 = never.
    #[serde(default = "default_crash_limit")]
    pub crash_limit: u32,
    #[serde(default = "default_results")]
    pub results: PathBuf,
    #[serde(default = "default_records")]
    pub records: PathBuf,
    pub sprt: Option<SprtConfig>,
    /// When stdout is no terminal, a report line after every this many finished games; 0 =
    /// none.
    #[serde(default = "default_report_every")]
    pub report_every: u32,
    /// `[match.resign]`: resign adjudication by score (off when absent).
    pub resign: Option<ResignAdjudication>,
    /// `[match.draw]`: draw adjudication by score (off when absent).
    pub draw: Option<DrawAdjudication>,
    /// The game's own keys given (its [`MatchSettings::options`]), read beside the fields
    /// (`super::game_keys`), as given: checked against the game by [`Config::read`].
    #[serde(skip)]
    pub game_options: Vec<(&'static str, f64)>,
    /// `ryoshi match --shard K/N`: play only this slice of the schedule (never read from TOML).
    #[serde(skip)]
    pub shard: Option<Shard>,
    /// `ryoshi match --resume`: skip the games the results file already holds (never read from
    /// TOML).
    #[serde(skip)]
    pub resume: bool,
    /// `ryoshi match --log FILE`: every line to and from every engine (never read from TOML).
    #[serde(skip)]
    pub log: Option<PathBuf>,
    /// Print the report lines of `report_every` (`ryoshi match` sets it when stdout is no
    /// terminal; never read from TOML).
    #[serde(skip)]
    pub reports: bool,
}

/// The K-th (1-based) of N disjoint slices of a match: the game pairs (one opening, both
/// colours) numbered K, K + N, K + 2N, ... of the full schedule, with their own game numbers,
/// openings and colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// A `--shard` argument that is not `K/N` with 1 <= K <= N (the argument as given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard: expected K/N with 1 <= K <= N, got `{0}`")]
pub struct ShardError(pub String);

crate::games::error_text!(derived: ShardError);

impl Shard {
    /// `K/N` with 1 <= K <= N.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(text.into());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The shard's own results file: `results.jsonl` becomes `results-shard3of8.jsonl`, so shards
    /// sharing a folder never write to one file.
    pub fn results_path(&self, results: &Path) -> PathBuf {
        let stem = results
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = match results.extension() {
            Some(ext) => format!(
                "{stem}-shard{}of{}.{}",
                self.index,
                self.count,
                ext.to_string_lossy()
            ),
            None => format!("{stem}-shard{}of{}", self.index, self.count),
        };
        results.with_file_name(name)
    }

    /// Whether game pair number `pair` (0-based: the two games, colours swapped, of one opening
    /// for one pair of engines, in schedule order) belongs to this shard. A shard plays both
    /// games of each of its pairs, so both colours of its openings.
    pub fn holds(&self, pair: usize) -> bool {
        pair % self.count == self.index - 1
    }
}

/// `[match.resign]`, as cutechess-cli's `-resign movecount=N score=S`: a side whose own score is
/// `score` centipawns or more below zero for `movecount` of its moves in a row loses.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ResignAdjudication {
    pub movecount: u32,
    pub score: i64,
}

/// `[match.draw]`, as cutechess-cli's `-draw movenumber=M movecount=N score=S`: after at least
/// `movenumber` moves, a game in which both sides' scores stayed within `score` centipawns of
/// zero for `movecount` moves each in a row is drawn.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DrawAdjudication {
    #[serde(default)]
    pub movenumber: u32,
    pub movecount: u32,
    pub score: i64,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    pub elo0: f64,
    pub elo1: f64,
    #[serde(default = "default_error")]
    pub alpha: f64,
    #[serde(default = "default_error")]
    pub beta: f64,
}

fn default_games() -> u32 {
    2
}
/// Largest configuration file read.
const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Most games played at once: each is two engines and three threads of the runner, and far
/// more than a machine has cores is no faster.
pub const MAX_CONCURRENCY: usize = 256;

fn default_report_every() -> u32 {
    10
}
fn default_concurrency() -> usize {
    1
}
fn default_margin() -> u64 {
    50
}
fn default_timeout() -> u64 {
    10_000
}
fn default_max_plies() -> u32 {
    512
}
fn default_crash_limit() -> u32 {
    3
}
fn default_results() -> PathBuf {
    PathBuf::from("results.jsonl")
}
fn default_records() -> PathBuf {
    PathBuf::from("records")
}
fn default_error() -> f64 {
    0.05
}

/// The one time control of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeControl {
    /// Main time, then either an increment per move or a byoyomi per move (one of them is 0).
    Clock {
        main_ms: u64,
        inc_ms: u64,
        byoyomi_ms: u64,
    },
    MoveTime(u64),
    Nodes(u64),
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Clock {
                main_ms,
                inc_ms,
                byoyomi_ms,
            } => {
                if main_ms == 0 {
                    return write!(f, "byoyomi {byoyomi_ms} ms");
                }
                write!(f, "main {main_ms} ms")?;
                if inc_ms > 0 {
                    write!(f, " + {inc_ms} ms per move")?;
                }
                if byoyomi_ms > 0 {
                    write!(f, ", byoyomi {byoyomi_ms} ms")?;
                }
                Ok(())
            }
            TimeControl::MoveTime(ms) => write!(f, "{ms} ms per move"),
            TimeControl::Nodes(n) => write!(f, "{n} nodes per move"),
        }
    }
}

/// The most games a match schedules (all pairs together): the schedule is built whole before
/// the first game, about 100 bytes a game.
pub const MAX_GAMES: u64 = 1_000_000;

/// Why a configuration is refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read (the error names it): missing, not a regular file, too large.
    #[error("{0}")]
    Unreadable(crate::files::FileError),
    /// An error in the file `path`.
    #[error("{}: {error}", .path.display())]
    InFile {
        path: PathBuf,
        error: Box<ConfigError>,
    },
    /// toml's own message (one line), at `line` when it knows where.
    #[error("{}{message}", line_prefix(*.line))]
    Toml {
        line: Option<usize>,
        message: String,
    },
    /// A `--set` that cannot be applied (a path through a value, an engine no entry names).
    #[error(transparent)]
    Override(OverrideError),
    /// The configuration changed by `--set` (the overrides, joined) is refused.
    #[error("with --set {with}: {message}")]
    WithOverrides { with: String, message: String },
    #[error("[[engine]]: `name` must not be empty")]
    EmptyName,
    #[error("[[engine]]: the name `{0}` is used twice")]
    NameTwice(String),
    #[error("engine `{0}`: `cmd` must not be empty")]
    EmptyCmd(String),
    #[error("engine `{engine}`: option name `{key}` must be one word")]
    OptionName { engine: String, key: String },
    /// A value with a line break would send the engine a command of its own.
    #[error("engine `{engine}`: the value of option `{key}` must be one line, with no control characters")]
    OptionValue { engine: String, key: String },
    /// `options` given to a GTP engine, which has none.
    #[error("engine `{0}`: a GTP engine takes no `options`; give its settings in `args`")]
    GtpOptions(String),
    /// A GTP engine in a match of a game GTP does not carry (the games it does carry, named).
    #[error("[match]: engine `{engine}` speaks GTP, which carries only {games}")]
    GtpVariant { engine: String, games: String },
    /// `untimed` for a USI engine.
    #[error("engine `{0}`: `untimed` is for GTP engines (a USI engine needs a limit)")]
    UntimedUsi(String),
    /// `genmove` for a USI engine.
    #[error("engine `{0}`: `genmove` is for GTP engines")]
    GenmoveUsi(String),
    /// `board_size` or a game's own key for a game without it (the games with it, named).
    #[error("[match]: `{key}` is for variant {games} only")]
    NotForVariant { key: &'static str, games: String },
    #[error("[match]: `board_size` must be from {min} to {max}, not {size}")]
    BoardSize { size: u32, min: usize, max: usize },
    /// A game's own key that is not a finite number.
    #[error("[match]: `{0}` must be a finite number")]
    NotFinite(&'static str),
    #[error("[match]: `engines` needs at least two engine names")]
    TooFewEngines,
    #[error("[match]: `engines` names `{0}`, which no [[engine]] entry defines")]
    UnknownEngine(String),
    #[error("[match]: `engines` lists `{0}` twice")]
    EngineTwice(String),
    #[error("[match]: `games` must be at least 1")]
    NoGames,
    /// More games than the runner schedules: `games` per pair times the pairs.
    #[error("[match]: `games = {games}` makes {total} games with {pairs} pair(s); the runner schedules at most {MAX_GAMES}")]
    TooManyGames { games: u32, pairs: u64, total: u64 },
    #[error("[match]: `concurrency` must be from 1 to {MAX_CONCURRENCY}")]
    NoConcurrency,
    #[error("[match]: give either `openings` or `opening_plies`, not both")]
    OpeningsAndPlies,
    /// `openings_format` or `openings_cut` (the key) without `openings`.
    #[error("[match]: `{0}` needs `openings`")]
    OpeningsKeyAlone(&'static str),
    #[error("[match]: `openings_cut` is for openings from records (`openings_format = \"records\"` or a folder)")]
    CutWithoutRecords,
    #[error("[match]: `opening_plies_max` needs `opening_plies`")]
    PliesMaxAlone,
    #[error("[match]: `opening_plies_max` is below `opening_plies`")]
    PliesMaxBelow,
    #[error("[match]: `max_plies` must be at least 1")]
    NoMaxPlies,
    /// `[match.resign]` or `[match.draw]` (the table) with `movecount` 0 or a negative `score`.
    #[error("[match.{0}]: `movecount` must be at least 1 and `score` at least 0")]
    Adjudication(&'static str),
    #[error("[match.sprt]: SPRT needs exactly two engines (a tournament of more has no one test); leave it out, or run the pairs as matches of their own")]
    SprtEngines,
    #[error("[match.sprt]: `elo0` must be below `elo1`")]
    SprtElo,
    /// `alpha` or `beta` out of range.
    #[error("[match.sprt]: `{0}` must be between 0 and 0.5")]
    SprtRate(&'static str),
    #[error("[match]: no time control: give `byoyomi_ms`, `main_ms` (with `inc_ms` or `byoyomi_ms`), `movetime_ms` or `nodes`")]
    NoTimeControl,
    #[error("[match]: give exactly one time control (`byoyomi_ms`, `main_ms`, `movetime_ms` or `nodes`)")]
    TimeControls,
    #[error("[match]: `inc_ms` needs `main_ms`")]
    IncWithoutMain,
    #[error("[match]: give `inc_ms` or `byoyomi_ms`, not both")]
    IncAndByoyomi,
    #[error("[match]: the time control gives no time at all")]
    NoTime,
}

crate::games::error_text!(derived: ConfigError);

/// The games whose match settings pass `test`, by name in alphabetical order, for a message:
/// `` `go` ``, `` `go` and `othello` ``, `` `a`, `b` and `c` ``.
fn games_with(test: impl Fn(&MatchSettings) -> bool) -> String {
    let mut names: Vec<String> = registry::Game::ALL
        .iter()
        .filter(|g| test(&g.settings()))
        .map(|g| format!("`{}`", g.as_str()))
        .collect();
    names.sort();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "no game".into(),
    }
}

/// `line N: ` before a TOML message that knows its line.
fn line_prefix(line: Option<usize>) -> String {
    line.map(|line| format!("line {line}: "))
        .unwrap_or_default()
}

impl Config {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::load_with(path, &[])
    }

    /// Reads a configuration file, changes it by `overrides` (`--set`), and checks the result.
    pub fn load_with(path: &Path, overrides: &[Override]) -> Result<Config, ConfigError> {
        // A FIFO or a device is refused, not waited on; a configuration is a few KiB.
        let text = crate::files::read_file(&path.to_string_lossy(), MAX_CONFIG_BYTES)
            .map_err(ConfigError::Unreadable)?;
        let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
        Config::read_with(&text, &base, overrides).map_err(|error| ConfigError::InFile {
            path: path.to_path_buf(),
            error: Box::new(error),
        })
    }

    /// Parses and checks configuration text; `base_dir` anchors relative paths.
    pub fn read(text: &str, base_dir: &Path) -> Result<Config, ConfigError> {
        Config::read_with(text, base_dir, &[])
    }

    /// [`Config::read`], the text changed by `overrides` first. The file alone is read first,
    /// so that its own errors keep their line; the overrides then change its table, which is
    /// read as the file is (unknown keys and wrong types refused alike), and the checks run on
    /// the result.
    pub fn read_with(
        text: &str,
        base_dir: &Path,
        overrides: &[Override],
    ) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| {
            // One line: where, then toml's own message (which names an unknown key).
            let message = e.message().trim().replace('\n', "; ");
            let line = e
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
            ConfigError::Toml { line, message }
        })?;
        if !overrides.is_empty() {
            let with = || {
                let texts: Vec<&str> = overrides.iter().map(|o| o.text.as_str()).collect();
                texts.join(" --set ")
            };
            // The file parsed above, so it is a table.
            let mut table: toml::Table = toml::from_str(text).unwrap_or_default();
            for o in overrides {
                o.apply(&mut table).map_err(ConfigError::Override)?;
            }
            config = toml::Value::Table(table).try_into().map_err(|e| {
                let message = e.message().trim().replace('\n', "; ");
                ConfigError::WithOverrides {
                    with: with(),
                    message,
                }
            })?;
            config.base_dir = base_dir.to_path_buf();
            config.check().map_err(|error| ConfigError::WithOverrides {
                with: with(),
                message: error.to_string(),
            })?;
            return Ok(config);
        }
        config.base_dir = base_dir.to_path_buf();
        config.check()?;
        Ok(config)
    }

    /// A path from the file, taken relative to the configuration's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() || self.base_dir.as_os_str().is_empty() {
            path.to_path_buf()
        } else {
            self.base_dir.join(path)
        }
    }

    /// The board size of the games of a game that has several (`board_size`, or the game's
    /// standard one); `None` for a game of one board.
    pub fn board_size(&self) -> Option<usize> {
        let sizes = self.play.variant.settings().board_sizes?;
        Some(self.play.board_size.map_or(sizes.standard, |n| n as usize))
    }

    /// The values of the game's own options (its [`MatchSettings::options`]) its games are
    /// played under: the match's, or the game's defaults.
    pub fn option_values(&self) -> OptionValues {
        let given = |key: &str| {
            let mut given = self.play.game_options.iter();
            given.find(|(k, _)| *k == key).map(|&(_, v)| v)
        };
        OptionValues::new(self.play.variant.settings().options, given)
    }

    /// Whether `openings` holds game records: `openings_format = "records"`, or a folder.
    pub fn openings_are_records(&self) -> bool {
        self.play.openings_format == OpeningsFormat::Records
            || self
                .play
                .openings
                .as_ref()
                .is_some_and(|p| self.resolve(p).is_dir())
    }

    /// The pairs of engines (indices into `[match] engines`) that play, in schedule order.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        super::schedule::pairs(self.play.engines.len(), self.play.tournament)
    }

    pub fn engine(&self, name: &str) -> Option<&EngineConfig> {
        self.engines.iter().find(|e| e.name == name)
    }

    pub fn time_control(&self) -> TimeControl {
        // `check` guarantees exactly one family is present.
        let m = &self.play;
        if let Some(ms) = m.movetime_ms {
            TimeControl::MoveTime(ms)
        } else if let Some(n) = m.nodes {
            TimeControl::Nodes(n)
        } else {
            TimeControl::Clock {
                main_ms: m.main_ms.unwrap_or(0),
                inc_ms: m.inc_ms.unwrap_or(0),
                byoyomi_ms: m.byoyomi_ms.unwrap_or(0),
            }
        }
    }

    fn check(&self) -> Result<(), ConfigError> {
        self.check_engines()?;
        self.check_match()
    }

    /// The `[[engine]]` entries.
    fn check_engines(&self) -> Result<(), ConfigError> {
        let mut seen: Vec<&str> = Vec::new();
        for engine in &self.engines {
            if engine.name.trim().is_empty() {
                return Err(ConfigError::EmptyName);
            }
            if seen.contains(&engine.name.as_str()) {
                return Err(ConfigError::NameTwice(engine.name.clone()));
            }
            seen.push(&engine.name);
            if engine.cmd.trim().is_empty() {
                return Err(ConfigError::EmptyCmd(engine.name.clone()));
            }
            if engine.protocol == Protocol::Usi && engine.untimed {
                return Err(ConfigError::UntimedUsi(engine.name.clone()));
            }
            if engine.protocol == Protocol::Usi && engine.genmove != Genmove::Genmove {
                return Err(ConfigError::GenmoveUsi(engine.name.clone()));
            }
            if engine.protocol == Protocol::Gtp && !engine.options.is_empty() {
                return Err(ConfigError::GtpOptions(engine.name.clone()));
            }
            for (key, value) in &engine.options {
                if key.is_empty() || key.contains(char::is_whitespace) {
                    return Err(ConfigError::OptionName {
                        engine: engine.name.clone(),
                        key: key.clone(),
                    });
                }
                if value.to_string().contains(char::is_control) {
                    return Err(ConfigError::OptionValue {
                        engine: engine.name.clone(),
                        key: key.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The `[match]` table.
    fn check_match(&self) -> Result<(), ConfigError> {
        self.check_players()?;
        self.check_board()?;
        self.check_schedule()?;
        self.check_time_control()?;
        self.check_openings()?;
        self.check_adjudication()
    }

    /// The match's engines: at least two, each once, each defined and able to play the variant.
    fn check_players(&self) -> Result<(), ConfigError> {
        let m = &self.play;
        if m.engines.len() < 2 {
            return Err(ConfigError::TooFewEngines);
        }
        for (i, name) in m.engines.iter().enumerate() {
            match self.engine(name) {
                None => return Err(ConfigError::UnknownEngine(name.clone())),
                Some(e) if e.protocol == Protocol::Gtp && !m.variant.settings().gtp => {
                    return Err(ConfigError::GtpVariant {
                        engine: name.clone(),
                        games: games_with(|s| s.gtp),
                    })
                }
                Some(_) => {}
            }
            if m.engines[..i].contains(name) {
                return Err(ConfigError::EngineTwice(name.clone()));
            }
        }
        Ok(())
    }

    /// `board_size` and the game's own keys: only for a game that has them, within its bounds.
    fn check_board(&self) -> Result<(), ConfigError> {
        let m = &self.play;
        let settings = m.variant.settings();
        if m.board_size.is_some() && settings.board_sizes.is_none() {
            return Err(ConfigError::NotForVariant {
                key: "board_size",
                games: games_with(|s| s.board_sizes.is_some()),
            });
        }
        let declares = |s: &MatchSettings, key: &str| s.options.iter().any(|o| o.key == key);
        for &(key, _) in &m.game_options {
            if !declares(&settings, key) {
                return Err(ConfigError::NotForVariant {
                    key,
                    games: games_with(|s| declares(s, key)),
                });
            }
        }
        if let (Some(size), Some(sizes)) = (m.board_size, settings.board_sizes) {
            if !(sizes.min..=sizes.max).contains(&(size as usize)) {
                return Err(ConfigError::BoardSize {
                    size,
                    min: sizes.min,
                    max: sizes.max,
                });
            }
        }
        if let Some(&(key, _)) = m.game_options.iter().find(|(_, v)| !v.is_finite()) {
            return Err(ConfigError::NotFinite(key));
        }
        Ok(())
    }

    /// How many games, and how many at once.
    fn check_schedule(&self) -> Result<(), ConfigError> {
        let m = &self.play;
        if m.games == 0 {
            return Err(ConfigError::NoGames);
        }
        let pairs = self.pairs().len() as u64;
        let total = u64::from(m.games).saturating_mul(pairs);
        if total > MAX_GAMES {
            return Err(ConfigError::TooManyGames {
                games: m.games,
                pairs,
                total,
            });
        }
        if m.concurrency == 0 || m.concurrency > MAX_CONCURRENCY {
            return Err(ConfigError::NoConcurrency);
        }
        Ok(())
    }

    /// The openings: a file or random plies, never both, and the keys that go with each.
    fn check_openings(&self) -> Result<(), ConfigError> {
        let m = &self.play;
        if m.openings.is_some() && m.opening_plies.is_some() {
            return Err(ConfigError::OpeningsAndPlies);
        }
        if m.openings.is_none() {
            if m.openings_format != OpeningsFormat::Positions {
                return Err(ConfigError::OpeningsKeyAlone("openings_format"));
            }
            if m.openings_cut.is_some() {
                return Err(ConfigError::OpeningsKeyAlone("openings_cut"));
            }
        } else if m.openings_cut.is_some() && !self.openings_are_records() {
            return Err(ConfigError::CutWithoutRecords);
        }
        if let Some(max) = m.opening_plies_max {
            match m.opening_plies {
                None => return Err(ConfigError::PliesMaxAlone),
                Some(min) if max < min => return Err(ConfigError::PliesMaxBelow),
                _ => {}
            }
        }
        Ok(())
    }

    /// What ends a game or the match early: the ply limit, adjudication and the SPRT.
    fn check_adjudication(&self) -> Result<(), ConfigError> {
        let m = &self.play;
        if m.max_plies == 0 {
            return Err(ConfigError::NoMaxPlies);
        }
        if m.resign.is_some_and(|r| r.movecount == 0 || r.score < 0) {
            return Err(ConfigError::Adjudication("resign"));
        }
        if m.draw.is_some_and(|d| d.movecount == 0 || d.score < 0) {
            return Err(ConfigError::Adjudication("draw"));
        }
        if let Some(s) = &m.sprt {
            if m.engines.len() != 2 {
                return Err(ConfigError::SprtEngines);
            }
            if !(s.elo0.is_finite() && s.elo1.is_finite() && s.elo0 < s.elo1) {
                return Err(ConfigError::SprtElo);
            }
            for (key, v) in [("alpha", s.alpha), ("beta", s.beta)] {
                if !(v > 0.0 && v < 0.5) {
                    return Err(ConfigError::SprtRate(key));
                }
            }
        }
        Ok(())
    }

    fn check_time_control(&self) -> Result<(), ConfigError> {
        let m = &self.play;
        let families = [
            m.main_ms.is_some() || m.byoyomi_ms.is_some() || m.inc_ms.is_some(),
            m.movetime_ms.is_some(),
            m.nodes.is_some(),
        ];
        match families.iter().filter(|&&f| f).count() {
            0 => return Err(ConfigError::NoTimeControl),
            1 => {}
            _ => return Err(ConfigError::TimeControls),
        }
        if m.inc_ms.is_some() && m.main_ms.is_none() {
            return Err(ConfigError::IncWithoutMain);
        }
        if m.inc_ms.is_some() && m.byoyomi_ms.is_some() {
            return Err(ConfigError::IncAndByoyomi);
        }
        let zero = match self.time_control() {
            TimeControl::Clock {
                main_ms,
                inc_ms,
                byoyomi_ms,
            } => main_ms + inc_ms + byoyomi_ms == 0,
            TimeControl::MoveTime(ms) => ms == 0,
            TimeControl::Nodes(n) => n == 0,
        };
        if zero {
            return Err(ConfigError::NoTime);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
[[engine]]
name = "a"
cmd = "./a"
options = { Strategy = "search", USI_Hash = 16, Ponder = false }

[[engine]]
name = "b"
cmd = "b"
args = ["--x"]

[match]
variant = "othello"
engines = ["a", "b"]
byoyomi_ms = 100
"#;

    #[test]
    fn parses_defaults_and_options() {
        let c = Config::read(BASE, Path::new("/cfg")).unwrap();
        assert_eq!(c.engines.len(), 2);
        assert_eq!(c.play.variant, VariantName::Othello);
        assert_eq!(c.play.games, 2);
        assert_eq!(c.play.margin_ms, 50);
        let opts: Vec<String> = c.engines[0]
            .options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(opts, ["Ponder=false", "Strategy=search", "USI_Hash=16"]);
        assert_eq!(
            c.time_control(),
            TimeControl::Clock {
                main_ms: 0,
                inc_ms: 0,
                byoyomi_ms: 100
            }
        );
        assert_eq!(
            c.resolve(&c.play.results),
            PathBuf::from("/cfg/results.jsonl")
        );
    }

    #[test]
    fn unknown_keys_are_named() {
        let text = BASE.replace("byoyomi_ms = 100", "byoyomi_ms = 100\nbyoyomi = 3");
        let err = Config::read(&text, Path::new("")).unwrap_err().to_string();
        assert!(err.contains("unknown field `byoyomi`"), "{err}");
        let text = BASE.replace("args = [\"--x\"]", "argz = [\"--x\"]");
        let err = Config::read(&text, Path::new("")).unwrap_err().to_string();
        assert!(err.contains("`argz`"), "{err}");
        let text = format!("{BASE}\n[match.sprt]\nelo0 = 0\nelo1 = 5\ngamma = 1\n");
        let err = Config::read(&text, Path::new("")).unwrap_err().to_string();
        assert!(err.contains("`gamma`"), "{err}");
        let err = Config::read(&format!("{BASE}\n[extra]\n"), Path::new(""))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`extra`"), "{err}");
    }

    #[test]
    fn overrides_are_read_as_the_file_is() {
        let with = |sets: &[&str]| {
            let overrides: Vec<Override> =
                sets.iter().map(|s| Override::parse(s).unwrap()).collect();
            Config::read_with(BASE, Path::new(""), &overrides)
        };
        let c = with(&[
            "match.games=200",
            "engine.a.options.Threads=2",
            "engine.b.options.Hash=64",
            "match.byoyomi_ms=",
            "match.nodes=1000",
            "match.tournament=gauntlet",
        ])
        .unwrap();
        assert_eq!(c.play.games, 200);
        assert_eq!(c.engines[0].options["Threads"], OptionValue::Int(2));
        assert_eq!(c.engines[0].options["USI_Hash"], OptionValue::Int(16));
        assert_eq!(c.engines[1].options["Hash"], OptionValue::Int(64));
        assert_eq!(c.time_control(), TimeControl::Nodes(1000));
        assert_eq!(c.play.tournament, Tournament::Gauntlet);
        let refused = |sets: &[&str], want: &str| {
            let err = with(sets).unwrap_err().to_string();
            assert_eq!(err, want);
        };
        refused(
            &["match.gamez=3"],
            "with --set match.gamez=3: unknown field `gamez`, expected one of `variant`, `engines`, \
             `tournament`, `games`, `concurrency`, `byoyomi_ms`, `main_ms`, `inc_ms`, \
             `movetime_ms`, `nodes`, `board_size`, `margin_ms`, `timeout_ms`, `openings`, \
             `openings_format`, `openings_cut`, `opening_plies`, `opening_plies_max`, `seed`, \
             `max_plies`, `crash_limit`, `results`, `records`, `sprt`, `report_every`, `resign`, \
             `draw`, or a game's own `komi`",
        );
        // The file's own words for a wrong type, a wrong value, a wrong table.
        let file = |text: &str| {
            Config::read(&BASE.replace("byoyomi_ms = 100", text), Path::new(""))
                .unwrap_err()
                .to_string()
        };
        for (set, in_file) in [
            ("match.games=many", "byoyomi_ms = 100\ngames = \"many\""),
            ("match.games=-1", "byoyomi_ms = 100\ngames = -1"),
            (
                "match.openings_format=csv",
                "byoyomi_ms = 100\nopenings_format = \"csv\"",
            ),
            (
                "match.tournament=swiss",
                "byoyomi_ms = 100\ntournament = \"swiss\"",
            ),
            ("match.sprt.elo1=5", "byoyomi_ms = 100\nsprt = { elo1 = 5 }"),
            ("engine.a.options.Threads=[1]", "byoyomi_ms = 100\n"),
        ] {
            let err = with(&[set]).unwrap_err().to_string();
            let prefix = format!("with --set {set}: ");
            assert!(err.starts_with(&prefix), "{err}");
            if set.starts_with("match") {
                let want = file(in_file);
                let want = want.split_once(": ").map_or(&*want, |(_, m)| m);
                assert_eq!(&err[prefix.len()..], want, "{set}");
            }
        }
        refused(
            &["match.games=0"],
            "with --set match.games=0: [match]: `games` must be at least 1",
        );
        refused(
            &["match.nodes=5"],
            "with --set match.nodes=5: [match]: give exactly one time control (`byoyomi_ms`, \
             `main_ms`, `movetime_ms` or `nodes`)",
        );
        refused(
            &["engine.c.cmd=x"],
            "--set engine.c.cmd=x: no [[engine]] is named `c` (the engines: `a`, `b`)",
        );
        // The file's own errors keep their line whatever the overrides.
        let broken = BASE.replace("byoyomi_ms = 100", "byoyomi_ms = \"x\"");
        let overrides = [Override::parse("match.games=4").unwrap()];
        let err = Config::read_with(&broken, Path::new(""), &overrides)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("line 15: invalid type"), "{err}");
    }

    #[test]
    fn time_controls() {
        let with = |tc: &str| BASE.replace("byoyomi_ms = 100", tc);
        let c = Config::read(&with("main_ms = 1000\ninc_ms = 10"), Path::new("")).unwrap();
        assert_eq!(
            c.time_control(),
            TimeControl::Clock {
                main_ms: 1000,
                inc_ms: 10,
                byoyomi_ms: 0
            }
        );
        let c = Config::read(&with("movetime_ms = 20"), Path::new("")).unwrap();
        assert_eq!(c.time_control(), TimeControl::MoveTime(20));
        let c = Config::read(&with("nodes = 500"), Path::new("")).unwrap();
        assert_eq!(c.time_control(), TimeControl::Nodes(500));
        for bad in [
            "",
            "nodes = 5\nmovetime_ms = 5",
            "inc_ms = 5",
            "main_ms = 5\ninc_ms = 5\nbyoyomi_ms = 5",
            "movetime_ms = 0",
        ] {
            assert!(Config::read(&with(bad), Path::new("")).is_err(), "{bad}");
        }
    }

    #[test]
    fn rejects_bad_references() {
        let bad = [
            BASE.replace("engines = [\"a\", \"b\"]", "engines = [\"a\", \"c\"]"),
            BASE.replace("engines = [\"a\", \"b\"]", "engines = [\"a\"]"),
            BASE.replace("engines = [\"a\", \"b\"]", "engines = [\"a\", \"a\"]"),
            BASE.replace("name = \"b\"", "name = \"a\""),
            BASE.replace("variant = \"othello\"", "variant = \"chess\""),
            format!("{BASE}games = 0\n"),
            format!("{BASE}openings = \"x\"\nopening_plies = 2\n"),
            format!("{BASE}\n[match.sprt]\nelo0 = 5\nelo1 = 0\n"),
        ];
        for text in bad {
            assert!(Config::read(&text, Path::new("")).is_err(), "{text}");
        }
    }

    #[test]
    fn gtp_engines_board_size_and_komi() {
        let text = BASE
            .replace(
                "cmd = \"b\"",
                "cmd = \"b\"\nprotocol = \"gtp\"\nuntimed = true",
            )
            .replace(
                "variant = \"othello\"",
                "variant = \"go\"\nboard_size = 9\nkomi = 7",
            );
        let c = Config::read(&text, Path::new("")).unwrap();
        assert_eq!(c.engines[0].protocol, Protocol::Usi, "the default");
        assert!(!c.engines[0].untimed);
        assert_eq!(c.engines[1].protocol, Protocol::Gtp);
        assert!(c.engines[1].untimed);
        assert_eq!(
            (c.board_size(), c.option_values().get("komi")),
            (Some(9), Some(7.0))
        );
        let plain = Config::read(&BASE.replace("othello", "go"), Path::new("")).unwrap();
        assert_eq!(
            (plain.board_size(), plain.option_values().get("komi")),
            (Some(19), Some(7.5))
        );

        let refused = |text: &str, want: &str| {
            let err = Config::read(text, Path::new("")).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        };
        refused(
            &BASE.replace("cmd = \"b\"", "cmd = \"b\"\nprotocol = \"xboard\""),
            "unknown variant `xboard`, expected `usi` or `gtp`",
        );
        refused(
            &BASE.replace("cmd = \"./a\"", "cmd = \"./a\"\nprotocol = \"gtp\""),
            "engine `a`: a GTP engine takes no `options`",
        );
        refused(
            &BASE.replace("cmd = \"b\"", "cmd = \"b\"\nuntimed = true"),
            "engine `b`: `untimed` is for GTP engines",
        );
        refused(
            &BASE.replace(
                "cmd = \"b\"",
                "cmd = \"b\"\ngenmove = \"kgs-genmove_cleanup\"",
            ),
            "engine `b`: `genmove` is for GTP engines",
        );
        refused(
            &BASE.replace("cmd = \"b\"", "cmd = \"b\"\ngenmove = \"cleanup\""),
            "unknown variant `cleanup`",
        );
        refused(
            &BASE
                .replace("cmd = \"b\"", "cmd = \"b\"\nprotocol = \"gtp\"")
                .replace("othello", "quantumshogi"),
            "engine `b` speaks GTP",
        );
        refused(
            &format!("{BASE}board_size = 9\n"),
            "`board_size` is for variant `go` only",
        );
        refused(
            &format!("{BASE}komi = 6.5\n"),
            "`komi` is for variant `go` only",
        );
        let go = BASE.replace("othello", "go");
        refused(&format!("{go}board_size = 26\n"), "from 2 to 25, not 26");
        refused(&format!("{go}board_size = 1\n"), "from 2 to 25, not 1");
        refused(
            &format!("{go}komi = nan\n"),
            "`komi` must be a finite number",
        );
    }

    /// A game's own key (Go's `komi`) is read beside the runner's fields: where it stands in
    /// the table, from the file or from `--set`, with the file's lines kept in every message.
    #[test]
    fn a_games_own_keys_are_read_beside_the_runners() {
        let go = BASE.replace("othello", "go");
        let komi = |c: &Config| c.option_values().get("komi");
        let first = go.replace("variant = \"go\"", "komi = -3\nvariant = \"go\"");
        assert_eq!(
            komi(&Config::read(&first, Path::new("")).unwrap()),
            Some(-3.0)
        );
        let set = [Override::parse("match.komi=6.5").unwrap()];
        let c = Config::read_with(&go, Path::new(""), &set).unwrap();
        assert_eq!((komi(&c), c.play.games), (Some(6.5), 2));
        let err = Config::read_with(BASE, Path::new(""), &set).unwrap_err();
        assert_eq!(
            err.to_string(),
            "with --set match.komi=6.5: [match]: `komi` is for variant `go` only"
        );
        // Line 16 is the first after BASE.
        let line16 = |text: &str| {
            let err = Config::read(&format!("{go}{text}\n"), Path::new(""));
            err.unwrap_err().to_string()
        };
        assert_eq!(
            line16("komi = \"x\""),
            "line 16: invalid type: string \"x\", expected f64"
        );
        let unknown = line16("komu = 6.5");
        assert!(
            unknown.starts_with("line 16: unknown field `komu`, expected one of `variant`"),
            "{unknown}"
        );
        assert!(
            unknown.ends_with("`draw`, or a game's own `komi`"),
            "{unknown}"
        );
        // A wrong runner's key after a game's keeps its own line too.
        let after = line16("komi = 6.5\ngames = \"many\"");
        assert!(
            after.starts_with("line 17: invalid type: string"),
            "{after}"
        );
    }

    #[test]
    fn the_shipped_gtp_examples_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let gnugo = Config::load(&root.join("engines-gnugo.toml")).unwrap();
        assert_eq!(gnugo.play.variant, VariantName::Go);
        assert_eq!(
            (gnugo.board_size(), gnugo.option_values().get("komi")),
            (Some(9), Some(7.0))
        );
        assert_eq!(gnugo.time_control(), TimeControl::MoveTime(1000));
        let engine = gnugo.engine("gnugo").unwrap();
        assert_eq!(engine.protocol, Protocol::Gtp);
        assert!(engine.args.windows(2).any(|w| w == ["--level", "10"]));
        assert!(engine.untimed);
        let grhino = Config::load(&root.join("engines-grhino.toml")).unwrap();
        assert_eq!(grhino.play.variant, VariantName::Othello);
        assert_eq!(grhino.time_control(), TimeControl::MoveTime(450));
        let engine = grhino.engine("grhino").unwrap();
        assert!(engine.protocol == Protocol::Gtp && engine.untimed);
        assert_eq!(engine.args, ["-l", "5"]);
    }
}
