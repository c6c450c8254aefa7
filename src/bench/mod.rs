//! `ryoshi bench <what>`: benchmarks of the hot paths, reachable from the binary. Each game's
//! benchmarks stand in its folder, beside what they measure (`src/<game>/bench`); this module
//! holds those that know no game (`timing`) and the listing. The command line gathers them all
//! into one clap list, so `bench list`, `bench --help`, `bench <what> --help` and the
//! unknown-benchmark message all come from it.

pub mod timing;

/// Why a benchmark that knows no game cannot run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
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

/// The benchmarks that know no game. The doc comment of each is its line in `bench list`.
#[derive(clap::Subcommand)]
pub enum Which {
    /// go/isready/stop latencies of a child engine, as a GUI sees them
    Timing(timing::Args),
}

impl Which {
    /// Runs the benchmark, printing its figures to stdout.
    pub fn run(self) -> Result<(), BenchError> {
        match self {
            Which::Timing(args) => timing::timing(args),
        }
    }
}

/// The benchmarks' subcommands of the list `W` (`list` left out).
fn benchmarks<W: clap::Subcommand>() -> Vec<clap::Command> {
    W::augment_subcommands(clap::Command::new("bench"))
        .get_subcommands()
        .filter(|c| c.get_name() != "list")
        .cloned()
        .collect()
}

/// The benchmark names, in the order of the list `W`.
pub fn names<W: clap::Subcommand>() -> Vec<String> {
    benchmarks::<W>()
        .iter()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// `bench list`: one line per benchmark of the list `W`, and its usage.
pub fn listing<W: clap::Subcommand>() -> String {
    let mut benchmarks = benchmarks::<W>();
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
