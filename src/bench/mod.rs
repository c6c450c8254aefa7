//! `ryoshi bench <what>`: benchmarks of the hot paths, reachable from the binary.
//! Each game's file answers for the names it knows; [`TABLE`] is the one list of them, from
//! which `bench list`, `bench --help` and the unknown-benchmark message are all derived.

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
    /// An argument that does not parse: `bad <what> '<arg>'`.
    #[error("bad {what} '{arg}'")]
    Bad { what: &'static str, arg: String },
    #[error("expected a depth, not '{0}'")]
    NotADepth(String),
    /// `<what> '<arg>' is not a number`.
    #[error("{what} '{arg}' is not a number")]
    NotANumber { what: &'static str, arg: String },
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
        error: crate::games::othello::obf::ObfError,
    },
    #[error("the oracle file is not a list")]
    OracleNotList,
    #[error("missing rows")]
    MissingRows,
    #[error("missing size")]
    MissingSize,
    #[error(transparent)]
    GoPosition(crate::games::go::notation::PositionError),
    #[error("unknown part '{0}' (all, classic, reference, extended)")]
    UnknownPart(String),
    #[error("unknown opponent '{0}' (random or possibilityist)")]
    UnknownOpponent(String),
    #[error("count depth must be 1 to 12")]
    CountDepth,
    #[error(transparent)]
    Count(crate::games::othello::count::CountError),
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
        error: crate::games::quantum::PlayError,
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
    #[error("unknown benchmark '{0}' (try: {names})", names = names().join(", "))]
    UnknownBenchmark(String),
}

crate::games::error_text!(derived: BenchError);

/// An argument that does not parse as `what`.
fn bad(what: &'static str, arg: &str) -> BenchError {
    BenchError::Bad {
        what,
        arg: arg.into(),
    }
}

/// One benchmark: its name, its arguments and what it measures.
pub struct Bench {
    pub name: &'static str,
    pub usage: &'static str,
    pub about: &'static str,
    run: fn(&str, &[String]) -> Option<Result<(), BenchError>>,
}

/// Every benchmark `ryoshi bench <name>` knows.
pub const TABLE: &[Bench] = &[
    Bench {
        name: "hall",
        usage: "[STATES]",
        about: "ns per exact candidate projection (Hall), and the matching oracle",
        run: quantum::run,
    },
    Bench {
        name: "search",
        usage: "[DEPTH]",
        about: "the quantum shogi `bench` searches at another depth",
        run: search::run,
    },
    Bench {
        name: "strength",
        usage: "<random|possibilityist> [GAMES] [MOVETIME_MS]",
        about: "the quantum shogi search against a baseline player, in-process",
        run: strength::run,
    },
    Bench {
        name: "threads",
        usage: "[DEPTH] [RUNS] [THREADS]",
        about: "Lazy SMP time to depth and nodes/s, one thread against THREADS (default 2)",
        run: threads::run,
    },
    Bench {
        name: "timing",
        usage: "[N]",
        about: "go/isready/stop latencies of a child engine, as a GUI sees them",
        run: timing::run,
    },
    Bench {
        name: "othello-perft",
        usage: "[DEPTH] [TABLE_MIB]",
        about: "Othello leaves per second, every leaf visited and with the table",
        run: othello::run,
    },
    Bench {
        name: "othello-count",
        usage: "[DEPTH]",
        about: "Othello move sequences and distinct positions per depth, time and memory",
        run: othello::run,
    },
    Bench {
        name: "othello-solve",
        usage: "[FILE.obf]",
        about: "exact endgame solves (default FFO #40-#44, built in), checked against the file",
        run: othello::run,
    },
    Bench {
        name: "othello-match",
        usage: "[OPENINGS] [MOVETIME_MS]",
        about: "the Othello levels against each other from seeded openings",
        run: othello::run,
    },
    Bench {
        name: "benson",
        usage: "[ORACLE.json] [ROUNDS] [all|classic|reference|extended]",
        about: "us per 19x19 position, Benson classic and extended (default oracle built in)",
        run: go::run,
    },
    Bench {
        name: "go-playouts",
        usage: "[SECONDS] [THREADS]",
        about: "Go playouts/s on empty 9x9 and 19x19 (1 and THREADS threads), search signature",
        run: go::run,
    },
];

/// Runs the named benchmark, printing its figures to stdout.
pub fn run(what: &str, args: &[String]) -> Result<(), String> {
    let result = TABLE
        .iter()
        .find(|b| b.name == what)
        .and_then(|b| (b.run)(what, args))
        .unwrap_or_else(|| Err(BenchError::UnknownBenchmark(what.into())));
    Ok(result?)
}

/// The names of [`TABLE`], in its order.
pub fn names() -> Vec<&'static str> {
    TABLE.iter().map(|b| b.name).collect()
}

/// `bench list` and the tail of `bench --help`: one line per benchmark.
pub fn listing() -> String {
    let width = TABLE.iter().map(|b| b.name.len()).max().unwrap_or(0);
    TABLE
        .iter()
        .map(|b| {
            format!(
                "{:width$}  {}\n{:width$}  usage: bench {} {}",
                b.name, b.about, "", b.name, b.usage
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table and the files agree: every name a file answers for is listed, once.
    #[test]
    fn table_matches_the_files() {
        let files = [
            quantum::NAMES,
            othello::NAMES,
            go::NAMES,
            timing::NAMES,
            search::NAMES,
            strength::NAMES,
            threads::NAMES,
        ]
        .concat();
        let mut listed = names();
        let mut answered = files.clone();
        listed.sort();
        answered.sort();
        assert_eq!(listed, answered);
    }
}
