//! `ryoshi bench search [DEPTH] [nopruning]`: the quantum shogi search signature (as the `bench`
//! command) at another depth, or with null move and late-move reductions off.

pub const NAMES: &[&str] = &["search"];

pub fn run(what: &str, args: &[String]) -> Option<Result<(), super::BenchError>> {
    (what == "search").then(|| {
        let mut depth = crate::search::quantum::BENCH_DEPTH;
        let mut pruning = true;
        for a in args {
            match a.as_str() {
                "nopruning" => pruning = false,
                _ => depth = a.parse().map_err(|_| super::bad("depth", a))?,
            }
        }
        let (lines, _) = crate::search::quantum::job::bench(depth, pruning);
        for line in lines {
            println!("{line}");
        }
        Ok(())
    })
}
