//! `ryoshi bench search [depth]`: the quantum shogi search signature (as the `bench` command).

pub const NAMES: &[&str] = &["search"];

pub fn run(what: &str, args: &[String]) -> Option<Result<(), String>> {
    (what == "search").then(|| {
        let depth = match args.first() {
            Some(a) => a.parse().map_err(|_| format!("bad depth '{a}'"))?,
            None => crate::search::quantum::BENCH_DEPTH,
        };
        let (lines, _) = crate::search::quantum::bench(16, depth);
        for line in lines {
            println!("{line}");
        }
        Ok(())
    })
}
