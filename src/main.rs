//! Command line: no arguments = the protocol loop (USI, or NBoard after a first line `nboard N`);
//! subcommands for perft, bench, gtp, nboard, match and serve.

// SAFETY: allowed for the default SIGPIPE action restored at start (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use clap::{Parser, Subcommand};
use ryoshi::protocol::StartSpec;
use ryoshi::registry::NAMES;
use ryoshi::session::options::Options;
use ryoshi::session::variant::SessionError;
use ryoshi::session::{new_variant, run};
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "ryoshi",
    version,
    about = "A USI engine for quantum shogi, with Othello and Go analysis",
    after_help = "Without a command, ryoshi runs the USI engine on stdin/stdout: this is what a \
        GUI starts (try `usi`, `isready`, `position startpos`, `d`, `go movetime 500`; `quit` \
        ends). The protocol is specified in the repository's protocol/ folder."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Append every protocol line in and out, with a UTC timestamp, to FILE (the USI, NBoard
    /// and GTP loops; USI's `setoption name DebugLog value FILE` does the same).
    #[arg(long, global = true, value_name = "FILE")]
    debug_log: Option<String>,
}

#[derive(Subcommand)]
enum Sub {
    /// Count leaf actions to a depth and report the speed.
    Perft {
        depth: u32,
        /// Start position (QSFEN, or the variant's own notation) instead of the start.
        #[arg(long)]
        sfen: Option<String>,
        #[arg(long, default_value = NAMES[0], help = variant_help())]
        variant: String,
    },
    /// Run a benchmark: `bench` alone is the search signature, whose last line
    /// `Nodes searched: N` changes only when the search does; see `bench list`.
    Bench {
        #[command(subcommand)]
        what: Option<BenchWhich>,
    },
    /// Speak GTP v2 (Go) on stdin/stdout.
    Gtp(ryoshi::go::gtp::Args),
    /// Speak the NBoard protocol (Othello GUIs) on stdin/stdout.
    Nboard {
        /// Threads of the exact endgame solves (as USI's Threads)
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
        threads: u64,
    },
    /// Speak KataGo's analysis engine protocol (Go: JSON queries, KaTrain) on stdin/stdout.
    Analysis(ryoshi::go::katago::Args),
    /// Play an engine match from a configuration file, or merge results files.
    Match {
        #[arg(default_value = "engines.toml")]
        config: String,
        /// Set a key of the configuration: `match.games=200`, `engine.NAME.options.Threads=2`
        /// (a TOML value; an empty one removes the key). Repeatable.
        #[arg(long, value_name = "KEY=VALUE", conflicts_with = "merge")]
        set: Vec<String>,
        /// Play only the K-th of N disjoint slices of the games (same seeds and openings).
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Go on where an earlier run of this match stopped: play only the games its results
        /// file does not hold yet, and count those it does in the summary.
        #[arg(long, conflicts_with = "merge")]
        resume: bool,
        /// Write every line to and from every engine to this file, with the time and the game.
        #[arg(long, value_name = "FILE", conflicts_with = "merge")]
        log: Option<std::path::PathBuf>,
        /// Print the summary, Elo and SPRT of the union of these results files instead.
        #[arg(long, num_args = 1.., value_name = "RESULTS", conflicts_with = "shard")]
        merge: Vec<String>,
        /// Submit the match to Slurm as one job array of N shards, wait for it showing the
        /// merged progress, and merge its results (the `[slurm]` table: protocol/match.md).
        #[arg(long, value_name = "N", conflicts_with_all = ["shard", "merge", "log"])]
        slurm: Option<usize>,
        /// With --slurm: print the batch script and submit nothing.
        #[arg(long, requires = "slurm")]
        dry_run: bool,
        /// SPRT of --merge: H0 Elo.
        #[arg(
            long,
            default_value_t = 0.0,
            requires = "merge",
            allow_hyphen_values = true
        )]
        elo0: f64,
        /// SPRT of --merge: H1 Elo.
        #[arg(
            long,
            default_value_t = 10.0,
            requires = "merge",
            allow_hyphen_values = true
        )]
        elo1: f64,
    },
    /// Fit the quantum shogi evaluation to match results (Texel's method) and write the weights;
    /// `tune othello ...` generates Othello self-play and fits its pattern evaluation.
    Tune(TuneArgs),
    /// Generate quantum shogi forced-capture puzzles from seeded self-play, each checked with
    /// df-pn (`puzzles check FILE` re-checks a file).
    Puzzles(ryoshi::quantum::puzzles::generate::Args),
    /// Serve the browser front end (the registry's games) on a local web server.
    #[command(about = serve_about())]
    Serve {
        /// Address to listen on; anything but 127.0.0.1 / localhost is reachable by others.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port to listen on (0: any free port; the URL printed says which).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Engine sessions (browser tabs) open at once.
        #[arg(long, default_value_t = ryoshi::serve::DEFAULT_MAX_SESSIONS)]
        max_sessions: usize,
        /// A host name the server also answers to (repeatable): with a non-loopback --host, the
        /// name people type in the address bar (DNS rebinding defence).
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_hosts: Vec<String>,
        /// Seconds a WebSocket may send nothing (not even a pong to the server's pings).
        #[arg(long, default_value_t = ryoshi::serve::DEFAULT_IDLE_TIMEOUT.as_secs())]
        idle_timeout: u64,
        /// Log one line per HTTP request (time, client address, method, path, status) to
        /// stderr, or appended to FILE when one is given.
        #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
        access_log: Option<String>,
        /// The game database: every room and engine game, kept across restarts (default:
        /// $XDG_DATA_HOME/ryoshi/games.db, else ~/.local/share/ryoshi/games.db).
        #[arg(long, value_name = "PATH")]
        db: Option<std::path::PathBuf>,
        /// A room socket answers `timing` with where its last message's time went (lock waits,
        /// CPU, the rest), for measuring the server under load.
        #[arg(long)]
        debug_timing: bool,
    },
}

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct TuneArgs {
    #[command(subcommand)]
    game: Option<TuneGame>,
    #[command(flatten)]
    quantum: ryoshi::quantum::tune::Args,
}

#[derive(Subcommand)]
enum TuneGame {
    /// Othello's pattern evaluation: `generate` self-play positions, then `fit` the weights.
    #[command(subcommand)]
    Othello(ryoshi::othello::tune::Command),
    /// Go's move priors: Bradley–Terry gammas fitted to games by minorization–maximization.
    Go(ryoshi::go::tune::Args),
}

/// Why a command of the command line fails: `main` prints it after `ryoshi: `, and only there
/// does it become text.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// `--debug-log` (exit code 2, as for clap's own argument errors).
    #[error("--debug-log: cannot open '{path}': {error}")]
    DebugLog { path: String, error: io::Error },
    #[error("--access-log: {0}")]
    AccessLog(io::Error),
    #[error(transparent)]
    Gtp(#[from] ryoshi::go::gtp::OutputError),
    #[error(transparent)]
    Match(#[from] ryoshi::matches::MatchError),
    #[error("--elo0 must be below --elo1")]
    EloOrder,
    #[error(transparent)]
    GoTune(#[from] ryoshi::go::tune::TuneError),
    #[error(transparent)]
    OthelloTune(#[from] ryoshi::othello::tune::TuneError),
    #[error(transparent)]
    QuantumTune(#[from] ryoshi::quantum::tune::TuneError),
    #[error(transparent)]
    Serve(#[from] ryoshi::serve::ServeError),
    #[error(transparent)]
    Puzzles(#[from] ryoshi::quantum::puzzles::generate::PuzzlesError),
    /// `--variant` refused.
    #[error(transparent)]
    Variant(#[from] ryoshi::session::options::OptionError),
    /// The game refused the position or the perft depth.
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("perft stopped")]
    PerftStopped,
    #[error(transparent)]
    QuantumBench(#[from] ryoshi::quantum::bench::BenchError),
    #[error(transparent)]
    OthelloBench(#[from] ryoshi::othello::bench::BenchError),
    #[error(transparent)]
    GoBench(#[from] ryoshi::go::bench::BenchError),
    #[error(transparent)]
    Bench(#[from] ryoshi::bench::BenchError),
}

/// `quantumshogi (default), othello or go`: the registry's games, the default first.
fn variant_help() -> String {
    let (first, others) = NAMES.split_first().unwrap_or((&"", &[]));
    match others.split_last() {
        None => format!("{first} (default)"),
        Some((last, [])) => format!("{first} (default) or {last}"),
        Some((last, middle)) => format!("{first} (default), {} or {last}", middle.join(", ")),
    }
}

/// `serve`'s line in `--help`: the browser front end of every game of the registry.
fn serve_about() -> String {
    let titles: Vec<&str> = ryoshi::registry::Game::ALL
        .iter()
        .map(|g| g.title())
        .collect();
    format!(
        "Serve the browser front end ({}) on a local web server",
        ryoshi::text::listed(&titles, "and")
    )
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(
        cli.command,
        Some(Sub::Perft { .. }) | Some(Sub::Bench { .. })
    ) {
        quiet_broken_pipe();
    }
    let result = match &cli.debug_log {
        Some(path) => ryoshi::logging::debug_to(path).map_err(|error| CliError::DebugLog {
            path: path.clone(),
            error,
        }),
        None => Ok(()),
    }
    .and_then(|()| run_command(cli.command));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ryoshi: {error}");
            ExitCode::from(match error {
                CliError::DebugLog { .. } => 2,
                _ => 1,
            })
        }
    }
}

/// The subcommand (none: the protocol loop).
fn run_command(command: Option<Sub>) -> Result<(), CliError> {
    match command {
        None => {
            protocol_loop();
            Ok(())
        }
        Some(Sub::Perft {
            depth,
            sfen,
            variant,
        }) => perft(depth, sfen, &variant),
        Some(Sub::Bench { what }) => bench(what),
        Some(Sub::Gtp(args)) => Ok(ryoshi::go::gtp::run_with(
            args,
            BufReader::new(io::stdin()),
            io::stdout(),
        )?),
        Some(Sub::Nboard { threads }) => {
            ryoshi::othello::nboard::run_with(
                BufReader::new(io::stdin()),
                io::stdout(),
                threads as usize,
            );
            Ok(())
        }
        Some(Sub::Analysis(args)) => {
            // A closed stdout ends the engine quietly, as it ends GTP's loop.
            let _ = ryoshi::go::katago::run(args, BufReader::new(io::stdin()), io::stdout());
            Ok(())
        }
        Some(Sub::Match {
            config,
            set,
            shard,
            resume,
            log,
            merge,
            slurm,
            dry_run,
            elo0,
            elo1,
        }) => {
            if let Some(tasks) = slurm {
                let args = ryoshi::matches::slurm::Args {
                    config: std::path::Path::new(&config),
                    set: &set,
                    tasks,
                    dry_run,
                    resume,
                };
                Ok(ryoshi::matches::slurm::run_cli(&args, &mut io::stdout())?)
            } else if merge.is_empty() {
                Ok(ryoshi::matches::run_cli(
                    &config,
                    &set,
                    shard.as_deref(),
                    resume,
                    log.as_deref(),
                )?)
            } else {
                merge_results(&merge, elo0, elo1)
            }
        }
        Some(Sub::Tune(args)) => match &args.game {
            Some(TuneGame::Othello(command)) => Ok(ryoshi::othello::tune::run_cli(command)?),
            Some(TuneGame::Go(args)) => Ok(ryoshi::go::tune::run_cli(args)?),
            None => Ok(ryoshi::quantum::tune::run_cli(&args.quantum)?),
        },
        Some(Sub::Puzzles(args)) => Ok(ryoshi::quantum::puzzles::generate::run_cli(&args)?),
        Some(Sub::Serve {
            host,
            port,
            max_sessions,
            allow_hosts,
            idle_timeout,
            access_log,
            db,
            debug_timing,
        }) => match access_log.map(|p| ryoshi::logging::access_to((p != "-").then_some(&p))) {
            Some(Err(e)) => Err(CliError::AccessLog(e)),
            _ => Ok(ryoshi::serve::run(&ryoshi::serve::Config {
                host,
                port,
                max_sessions,
                allow_hosts,
                idle_timeout: std::time::Duration::from_secs(idle_timeout.max(1)),
                db,
                debug_timing,
            })?),
        },
    }
}

/// Said on stderr when the protocol loop reads a terminal.
const TERMINAL_HINT: &str = concat!(
    "ryoshi ",
    env!("CARGO_PKG_VERSION"),
    ": a USI engine, waiting for commands on stdin (try usi, isready, position startpos, d, \
     go movetime 500; quit ends). `ryoshi --help` lists the other modes."
);

/// No subcommand: the USI loop, unless the first line is `nboard N`, which an Othello GUI
/// sends to an engine configured as plain `ryoshi`; then the NBoard loop (that line included).
fn protocol_loop() {
    // A person who started the engine by hand learns what it waits for; a GUI or a pipe (no
    // terminal) gets nothing extra, and stdout stays the protocol's alone.
    if io::stdin().is_terminal() {
        eprintln!("{TERMINAL_HINT}");
    }
    let mut first = Vec::new();
    // Bounded: only the first 4 KiB decide; the chosen loop reads them again, then the rest.
    let _ = io::stdin().lock().take(4096).read_until(b'\n', &mut first);
    let is_nboard = first
        .split(|b| b.is_ascii_whitespace())
        .find(|w| !w.is_empty())
        .is_some_and(|w| w == b"nboard");
    let input = BufReader::new(io::Cursor::new(first).chain(io::stdin()));
    if is_nboard {
        ryoshi::othello::nboard::run(input, io::stdout());
    } else {
        run(input, io::stdout());
    }
}

fn merge_results(paths: &[String], elo0: f64, elo1: f64) -> Result<(), CliError> {
    if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
        return Err(CliError::EloOrder);
    }
    let sprt = ryoshi::matches::config::SprtConfig {
        elo0,
        elo1,
        alpha: 0.05,
        beta: 0.05,
    };
    ryoshi::matches::merge::run(paths, sprt, &mut io::stdout())?;
    Ok(())
}

fn perft(depth: u32, sfen: Option<String>, variant: &str) -> Result<(), CliError> {
    let mut options = Options::default();
    options.set("USI_Variant", Some(variant))?;
    let mut game = new_variant(options.variant);
    let start = match sfen {
        Some(text) => StartSpec::Sfen(text.split_whitespace().map(str::to_string).collect()),
        None => StartSpec::Startpos,
    };
    game.set_position(&start, &[], &options)?;
    let t0 = Instant::now();
    let job = game.perft(depth, &options, &mut |line: &str| eprintln!("{line}"))?;
    let spinner = ryoshi::progress::spinner(format!("perft {depth}"));
    let divide = job(Default::default()).ok_or(CliError::PerftStopped)?;
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let seconds = t0.elapsed().as_secs_f64();
    let total: u64 = divide.iter().map(|(_, n)| n).sum();
    println!("Nodes searched: {total}");
    println!(
        "time {:.3} s, {:.0} leaves/s",
        seconds,
        total as f64 / seconds.max(1e-9)
    );
    Ok(())
}

/// Every benchmark `ryoshi bench <what>` knows: each game's, in the registry's order, then
/// those that know no game.
#[derive(Subcommand)]
enum BenchWhich {
    #[command(flatten)]
    Quantum(ryoshi::quantum::bench::Which),
    #[command(flatten)]
    Othello(ryoshi::othello::bench::Which),
    #[command(flatten)]
    Go(ryoshi::go::bench::Which),
    #[command(flatten)]
    Generic(ryoshi::bench::Which),
    /// every benchmark, what it measures and its arguments
    List,
}

fn bench(what: Option<BenchWhich>) -> Result<(), CliError> {
    match what {
        None => {
            let options = Options::default();
            let mut game = new_variant(options.variant);
            Ok(game.bench(&options, &mut |line: &str| println!("{line}"))?)
        }
        Some(BenchWhich::Quantum(which)) => Ok(which.run()?),
        Some(BenchWhich::Othello(which)) => Ok(which.run()?),
        Some(BenchWhich::Go(which)) => Ok(which.run()?),
        Some(BenchWhich::Generic(which)) => Ok(which.run()?),
        Some(BenchWhich::List) => {
            println!("{}", ryoshi::bench::listing::<BenchWhich>());
            Ok(())
        }
    }
}

/// Reports and benchmarks print with `println!`, which panics on a closed pipe (`| head`); a
/// command-line tool should simply end there, as with the default SIGPIPE action.
fn quiet_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own checks of the arguments (names, defaults, positional order).
    #[test]
    fn bench_arguments_are_well_formed() {
        BenchWhich::augment_subcommands(clap::Command::new("bench")).debug_assert();
    }

    /// Every benchmark is listed with its usage, the benchmarks in their order.
    #[test]
    fn bench_listing_names_every_benchmark() {
        let names = ryoshi::bench::names::<BenchWhich>();
        assert_eq!(names.len(), 14);
        assert_eq!(names[0], "hall");
        assert!(names.contains(&"go-judge".to_string()));
        assert!(names.contains(&"othello-solve".to_string()));
        assert!(names.contains(&"othello-swing".to_string()));
        assert!(names.contains(&"timing".to_string()));
        let listing = ryoshi::bench::listing::<BenchWhich>();
        for name in &names {
            assert!(
                listing.contains(&format!("usage: bench {name}")),
                "{listing}"
            );
        }
    }
}
