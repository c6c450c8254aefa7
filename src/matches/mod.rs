//! The match runner: engines.toml, engine processes, referee, results, statistics.
//! (Placeholder until the match runner lands.)

/// `ryoshi match CONFIG`.
pub fn run_cli(config: &str) -> Result<(), String> {
    Err(format!("match is not implemented yet ({config})"))
}
