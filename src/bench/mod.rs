//! `ryoshi bench <what>`: benchmarks of the hot paths, reachable from the binary.
//! [`Which`] is the one list of them, each with its own typed arguments (clap): `bench list`,
//! `bench --help`, `bench <what> --help` and the unknown-benchmark message all come from it.

pub mod go;
pub mod othello;
pub mod quantum;
pub mod search;
pub mod strength;
pub mod threads;
pub mod timing;

/// Why a benchmark cannot run or its check failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
    /// A data file (named `name`) that is not JSON.
    #[error("{name}: {error}")]
    Json {
        name: String,
        error: serde_json::Error,
    },
    #[error("{path}: {error}")]
    Obf {
        path: String,
        error: crate::othello::obf::ObfError,
    },
    #[error("the oracle file is not a list")]
    OracleNotList,
    #[error("missing rows")]
    MissingRows,
    #[error("missing size")]
    MissingSize,
    #[error(transparent)]
    GoPosition(crate::go::notation::PositionError),
    #[error(transparent)]
    Count(crate::othello::count::CountError),
    /// The perft table gave `hashed` leaves where the plain count gave `leaves`.
    #[error("the table changed the count: {hashed} != {leaves}")]
    TableChanged { hashed: u64, leaves: u64 },
    /// The fast and the oracle projections differ on a state (its debug text).
    #[error("fast and oracle projections differ on {0}")]
    ProjectionsDiffer(String),
    #[error("game {game}: a player resigned in a position with legal actions")]
    Resigned { game: u64 },
    #[error("game {game}: {action}: {error}")]
    Illegal {
        game: u64,
        action: String,
        error: crate::quantum::PlayError,
    },
    /// Talking to the child engine failed.
    #[error(transparent)]
    Io(std::io::Error),
    #[error("cannot start the engine: {0}")]
    StartEngine(std::io::Error),
    /// The child engine has no `stdin` or `stdout` pipe.
    #[error("no {0}")]
    NoPipe(&'static str),
    /// No line starting with the prefix within 30 s.
    #[error("no '{0}' within 30 s")]
    NoLine(String),
}

crate::games::error_text!(derived: BenchError);

/// Every benchmark `ryoshi bench <what>` knows, with its arguments. The doc comment of each
/// is its line in `bench list` and `bench --help`.
#[derive(clap::Subcommand)]
pub enum Which {
    /// ns per exact candidate projection (Hall), and the matching oracle
    Hall(quantum::HallArgs),
    /// the quantum shogi `bench` searches at another depth
    Search(search::Args),
    /// the quantum shogi search against a baseline player, in-process
    Strength(strength::Args),
    /// Lazy SMP time to depth and nodes/s, one thread against THREADS (default 2)
    Threads(threads::Args),
    /// go/isready/stop latencies of a child engine, as a GUI sees them
    Timing(timing::Args),
    /// Othello leaves per second, every leaf visited and with the table
    OthelloPerft(othello::PerftArgs),
    /// Othello move sequences and distinct positions per depth, time and memory
    OthelloCount(othello::CountArgs),
    /// exact endgame solves (default FFO #40-#44, built in), checked against the file
    OthelloSolve(othello::SolveArgs),
    /// the Othello levels against each other from seeded openings
    OthelloMatch(othello::MatchArgs),
    /// Othello evaluations per second, the hand-set one against the patterns
    OthelloEval(othello::EvalArgs),
    /// us per 19x19 position, Benson classic and extended (default oracle built in)
    Benson(go::BensonArgs),
    /// Go playouts/s on empty 9x9 and 19x19 (1 and THREADS threads), search signature
    GoPlayouts(go::PlayoutsArgs),
    /// every benchmark, what it measures and its arguments
    List,
}

impl Which {
    /// Runs the benchmark, printing its figures to stdout.
    pub fn run(self) -> Result<(), String> {
        let result = match self {
            Which::Hall(args) => quantum::hall_bench(args),
            Which::Search(args) => search::run(args),
            Which::Strength(args) => strength::strength(args),
            Which::Threads(args) => threads::threads(args),
            Which::Timing(args) => timing::timing(args),
            Which::OthelloPerft(args) => othello::perft_bench(args),
            Which::OthelloCount(args) => othello::count_bench(args),
            Which::OthelloSolve(args) => othello::solve_bench(args),
            Which::OthelloMatch(args) => othello::match_bench(args),
            Which::OthelloEval(args) => othello::eval_bench(args),
            Which::Benson(args) => go::benson(args),
            Which::GoPlayouts(args) => go::go_playouts(args),
            Which::List => {
                println!("{}", listing());
                Ok(())
            }
        };
        Ok(result?)
    }
}

/// The benchmarks' subcommands (`list` left out).
fn benchmarks() -> Vec<clap::Command> {
    use clap::Subcommand;
    Which::augment_subcommands(clap::Command::new("bench"))
        .get_subcommands()
        .filter(|c| c.get_name() != "list")
        .cloned()
        .collect()
}

/// The benchmark names, in the order of [`Which`].
pub fn names() -> Vec<String> {
    benchmarks()
        .iter()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// `bench list`: one line per benchmark, and its usage.
pub fn listing() -> String {
    let mut benchmarks = benchmarks();
    let width = benchmarks
        .iter()
        .map(|c| c.get_name().len())
        .max()
        .unwrap_or(0);
    benchmarks
        .iter_mut()
        .map(|c| {
            let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
            let usage = c.render_usage().to_string();
            let usage = usage.trim_start_matches("Usage: ");
            format!(
                "{:width$}  {about}\n{:width$}  usage: bench {usage}",
                c.get_name(),
                ""
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own checks of the arguments (names, defaults, positional order).
    #[test]
    fn arguments_are_well_formed() {
        use clap::Subcommand;
        Which::augment_subcommands(clap::Command::new("bench")).debug_assert();
    }

    /// Every benchmark is listed with its usage, the benchmarks in their order.
    #[test]
    fn listing_names_every_benchmark() {
        let names = names();
        assert_eq!(names.len(), 12);
        assert_eq!(names[0], "hall");
        assert!(names.contains(&"othello-solve".to_string()));
        assert!(names.contains(&"othello-eval".to_string()));
        let listing = listing();
        for name in &names {
            assert!(
                listing.contains(&format!("usage: bench {name}")),
                "{listing}"
            );
        }
    }
}
