//! Quantum shogi's benchmarks (`ryoshi bench hall`, `search`, `strength`, `threads`): the
//! projection, the search and its threads, beside the search they measure.

pub mod hall;
pub mod search;
pub mod strength;
pub mod threads;

/// Why a quantum shogi benchmark cannot run or its check failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
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
}

/// Quantum shogi's benchmarks. The doc comment of each is its line in `bench list`.
#[derive(clap::Subcommand)]
pub enum Which {
    /// ns per exact candidate projection (Hall), and the matching oracle
    Hall(hall::HallArgs),
    /// the quantum shogi `bench` searches at another depth
    Search(search::Args),
    /// the quantum shogi search against a baseline player, in-process
    Strength(strength::Args),
    /// Lazy SMP time to depth and nodes/s, one thread against THREADS (default 2)
    Threads(threads::Args),
}

impl Which {
    /// Runs the benchmark, printing its figures to stdout.
    pub fn run(self) -> Result<(), BenchError> {
        match self {
            Which::Hall(args) => hall::hall_bench(args),
            Which::Search(args) => search::run(args),
            Which::Strength(args) => strength::strength(args),
            Which::Threads(args) => threads::threads(args),
        }
    }
}
