//! `ryoshi bench search [DEPTH] [nopruning]`: the quantum shogi search signature (as the `bench`
//! command) at another depth, or with null move and late-move reductions off.

#[derive(clap::Args)]
pub struct Args {
    /// Search depth
    #[arg(default_value_t = crate::quantum::search::BENCH_DEPTH)]
    depth: u32,
    /// `nopruning`: null move and late-move reductions off
    #[arg(value_enum, value_name = "nopruning")]
    pruning: Option<Pruning>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Pruning {
    Nopruning,
}

pub fn run(args: Args) -> Result<(), super::BenchError> {
    let pruning = args.pruning.is_none();
    let (lines, _) = crate::quantum::search::job::bench(args.depth, pruning);
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
