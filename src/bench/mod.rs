//! `ryoshi bench <what>`: benchmarks of the hot paths, reachable from the binary.
//! Each game's file answers for the names it knows.

pub mod go;
pub mod othello;
pub mod quantum;
pub mod timing;

/// Runs the named benchmark, printing its figures to stdout.
pub fn run(what: &str, args: &[String]) -> Result<(), String> {
    quantum::run(what, args)
        .or_else(|| othello::run(what, args))
        .or_else(|| go::run(what, args))
        .or_else(|| timing::run(what, args))
        .unwrap_or_else(|| {
            Err(format!(
                "unknown benchmark '{what}' (try: {})",
                names().join(", ")
            ))
        })
}

pub fn names() -> Vec<&'static str> {
    [quantum::NAMES, othello::NAMES, go::NAMES, timing::NAMES].concat()
}
