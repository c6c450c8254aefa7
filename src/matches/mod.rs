//! The match runner: engines.toml, engine processes, referee, results, statistics.
