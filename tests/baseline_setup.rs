//! The strength yardstick of docs/testing-changes.md: `engines-baseline.toml` holds the issue's
//! target settings, and `scripts/baseline` refuses bad revisions before building anything.

use ryoshi::matches::config::{EngineConfig, TimeControl};
use ryoshi::matches::Config;
use std::path::Path;
use std::process::Command;

/// One of the match configurations at the repository's root, loaded as `ryoshi match` does.
fn root_config(file: &str) -> Config {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Config::load(&root.join(file)).expect("loads")
}

/// The engines of the match, in the match's order.
fn engines(config: &Config) -> Vec<&EngineConfig> {
    let names = &config.play.engines;
    names
        .iter()
        .map(|name| config.engine(name).unwrap())
        .collect()
}

/// The `Threads` option each engine of the match is given, in the match's order.
fn threads(config: &Config) -> Vec<Option<String>> {
    engines(config)
        .iter()
        .map(|engine| engine.options.get("Threads").map(|v| v.to_string()))
        .collect()
}

/// Every engine of the match runs the working tree's release build.
fn assert_release_builds(config: &Config) {
    for engine in engines(config) {
        assert!(
            engine.cmd.ends_with("target/release/ryoshi"),
            "{}",
            engine.cmd
        );
    }
}

#[test]
fn engines_baseline_toml_has_the_target_settings() {
    let config = root_config("engines-baseline.toml");
    let m = &config.play;
    assert_eq!(m.variant.as_str(), "quantumshogi");
    assert!(m.games >= 400, "{} games", m.games);
    assert_eq!(m.concurrency, 2);
    assert!(matches!(config.time_control(), TimeControl::MoveTime(450)));
    assert_eq!((m.opening_plies, m.opening_plies_max), (Some(2), Some(4)));
    assert!(
        m.sprt.is_none(),
        "an SPRT could end the match before 400 games"
    );
    assert_eq!(m.engines, ["head", "df7e0e3"]);
    assert_eq!(threads(&config), [Some("1".into()), Some("1".into())]);
    assert!(config
        .engine("df7e0e3")
        .unwrap()
        .cmd
        .ends_with("target/baseline/df7e0e3/ryoshi"));
}

#[test]
fn baseline_script_rejects_unknown_revisions_and_missing_arguments() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/baseline");
    let out = Command::new("bash").arg(&script).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
    let out = Command::new("bash")
        .arg(&script)
        .arg("no-such-revision-xyz")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown revision"));
}

#[test]
fn engines_smp_toml_pits_two_threads_against_one() {
    let config = root_config("engines-smp.toml");
    let m = &config.play;
    assert_eq!(m.variant.as_str(), "quantumshogi");
    // One game at a time: the two-thread engine needs both cores while it thinks.
    assert_eq!(m.concurrency, 1);
    assert!(matches!(config.time_control(), TimeControl::MoveTime(450)));
    assert_eq!(m.games % 2, 0, "each opening with both colours");
    assert_release_builds(&config);
    assert_eq!(threads(&config), [Some("2".into()), Some("1".into())]);
}

#[test]
fn engines_clock_toml_is_the_sudden_death_clock_test() {
    let config = root_config("engines-clock.toml");
    let m = &config.play;
    assert_eq!(m.variant.as_str(), "quantumshogi");
    assert_eq!(m.games, 100);
    assert_eq!(m.margin_ms, 0, "the flag falls at the clock, with no grace");
    assert!(matches!(
        config.time_control(),
        TimeControl::Clock {
            main_ms: 60_000,
            inc_ms: 0,
            byoyomi_ms: 0
        }
    ));
    assert_release_builds(&config);
    assert_eq!(threads(&config), [Some("1".into()), Some("1".into())]);
}
