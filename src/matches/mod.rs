//! The match runner: engines.toml, engine processes, referee, results, statistics.
//!
//! `ryoshi match [CONFIG]` plays games between engine processes over USI, checks every move with
//! ryoshi's own rules (a [`Referee`] per variant), and keeps going whatever an engine does: an
//! illegal or garbled move, a flag fall, a crash, a hang or a closed pipe loses that game and the
//! engine is restarted for the next one. Each finished game is appended to the results file and
//! written as a game record at once; the summary follows cutechess-cli. See `protocol/match.md`.

pub mod adjudicate;
pub(crate) mod clock;
pub mod collection;
pub mod config;
pub mod engine;
pub mod error;
pub mod game;
mod game_keys;
pub mod gtp;
pub mod iolog;
pub mod joint;
pub mod merge;
pub mod opening;
pub mod overrides;
pub mod record;
pub mod referee;
pub mod results;
pub mod resume;
mod run;
pub mod schedule;
pub(crate) mod signal;
pub mod slurm;
pub mod stats;
pub mod summary;

pub use config::Config;
pub use error::MatchError;
pub use referee::{GameEnd, GameView, Reason, Referee, RefereeFactory, Side, Verdict};
pub use schedule::{pairs, schedule};
pub use summary::{standings, summary_text, PairScore, Summary};

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// `ryoshi match CONFIG [--set KEY=VALUE ...] [--shard K/N] [--resume] [--log FILE]`.
pub fn run_cli(
    config: &str,
    set: &[String],
    shard: Option<&str>,
    resume: bool,
    log: Option<&Path>,
) -> Result<(), MatchError> {
    let overrides = set
        .iter()
        .map(|text| config::Override::parse(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(config::ConfigError::Override)?;
    let mut config = Config::load_with(Path::new(config), &overrides)?;
    config.play.log = log.map(Path::to_path_buf);
    config.play.shard = shard.map(config::Shard::parse).transpose()?;
    config.play.resume = resume;
    // On a terminal the progress bar shows the score; elsewhere (nohup, CI, a batch job) the
    // report lines do.
    config.play.reports = !std::io::stdout().is_terminal();
    if let Some(shard) = config.play.shard {
        config.play.results = shard.results_path(&config.play.results);
    }
    let factory = referee_for_config(&config)?;
    signal::install();
    signal::ignore_sigpipe();
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted: &signal::interrupted,
        progress: std::io::stderr().is_terminal(),
    };
    let mut stdout = std::io::stdout();
    run_match(&config, factory, &hooks, &mut stdout).map(|_| ())
}

/// The rules for a variant, as a referee factory.
pub fn referee_for(variant: config::VariantName) -> Arc<RefereeFactory> {
    referee::factory(variant)
}

/// The rules of a configured match (its board size, the game's own options), as a referee
/// factory.
pub fn referee_for_config(config: &Config) -> Result<Arc<RefereeFactory>, MatchError> {
    referee::factory_for(
        config.play.variant,
        config.board_size(),
        config.option_values(),
    )
    .map_err(MatchError::Start)
}

/// How the runner is watched and stopped from outside.
pub struct Hooks<'a> {
    /// Set to stop handing out games and to abandon the ones in progress.
    pub stop: Arc<AtomicBool>,
    /// Polled while games run; true = the user interrupted (Ctrl-C).
    pub interrupted: &'a (dyn Fn() -> bool + Sync),
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// Plays the match; returns the summary, which is also printed to `out`.
///
/// Before the first game every engine is started once: one that cannot start or finish its
/// handshake stops the match with [`MatchError::EngineStart`], before anything is written.
pub fn run_match(
    config: &Config,
    factory: Arc<RefereeFactory>,
    hooks: &Hooks,
    out: &mut dyn Write,
) -> Result<Summary, MatchError> {
    let mut plan = schedule::Plan::make(config, factory.as_ref())?;
    let log = match &config.play.log {
        Some(path) => Some(iolog::IoLog::open(path).map_err(|error| MatchError::Log {
            path: path.clone(),
            error,
        })?),
        None => None,
    };
    let ctx = Arc::new(game::Context {
        config: Arc::new(config.clone()),
        factory,
        stop: hooks.stop.clone(),
        log,
    });
    let mut runner = run::Runner::new(config, &plan, hooks, out);
    let jobs = runner.left_to_play(std::mem::take(&mut plan.to_play));
    let slots = if jobs.is_empty() {
        Vec::new()
    } else {
        run::start_engines(&ctx)?
    };
    runner.open(&plan, jobs.len())?;
    runner.play(&ctx, jobs, slots);
    runner.finish()
}
