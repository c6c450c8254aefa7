//! Why a match does not run, or stops: one typed error for everything `ryoshi match` refuses or
//! gives up on, each written as the one line `ryoshi: <what>` on stderr.

use super::config::{ConfigError, ShardError};
use super::merge::MergeError;
use super::opening::OpeningError;
use super::results::OutputError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The results file or a game record cannot be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot read {}: {error}", .path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The openings file (or one of the folder's) cannot be read: its path and why.
    #[error("openings: {0}")]
    OpeningsFile(#[from] crate::files::FileError),
    /// An opening of the openings file `path`, or a random one (`path` empty).
    #[error("{}{error}", path_prefix(.path))]
    Opening { path: PathBuf, error: OpeningError },
    /// The referee refuses the match's start position (its words).
    #[error("the start position: {0}")]
    Start(#[from] super::referee::RefereeError),
    /// An opening GTP engines cannot be given (GTP has no command that sets up the game's
    /// position).
    #[error("opening `{0}`: GTP engines start {1} games from the start position only")]
    GtpStart(String, &'static str),
    #[error("--resume: {0}")]
    Resume(#[from] super::resume::ResumeError),
    /// An engine could not start or finish its handshake before the first game.
    #[error("engine `{name}` (cmd `{cmd}`) cannot play: {why}")]
    EngineStart {
        name: String,
        cmd: String,
        why: String,
    },
    /// An engine crashed (or could not start) in `count` games in a row.
    #[error("engine `{name}` (cmd `{cmd}`) failed in {count} games in a row, the match stops (the results so far are kept): {why}")]
    EngineDied {
        name: String,
        cmd: String,
        count: u32,
        why: String,
    },
    /// The system refused every worker thread: no game could be played.
    #[error("cannot start a worker thread: {0}")]
    NoWorker(std::io::Error),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error("--slurm: {0}")]
    Slurm(#[from] super::slurm::SlurmError),
    /// `--log FILE` cannot be opened.
    #[error("--log: cannot open {}: {error}", .path.display())]
    Log {
        path: PathBuf,
        error: std::io::Error,
    },
}

crate::games::error_text!(derived: MatchError);

fn path_prefix(path: &std::path::Path) -> String {
    if path.as_os_str().is_empty() {
        String::new()
    } else {
        format!("{}: ", path.display())
    }
}
