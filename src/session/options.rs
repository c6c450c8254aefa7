//! The engine's options: their USI declarations and typed values.

use std::fmt;

/// The `USI_Variant` values: the games of the registry, the first the default.
pub use crate::games::registry::Game as VariantName;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Search,
    Possibilityist,
    Random,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Search, Strategy::Possibilityist, Strategy::Random];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Search => "search",
            Strategy::Possibilityist => "possibilityist",
            Strategy::Random => "random",
        }
    }
}

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub variant: VariantName,
    pub hash_mb: u64,
    pub ponder: bool,
    pub threads: u64,
    pub multipv: u64,
    pub kakutei_nifu: bool,
    pub move_overhead_ms: u64,
    pub strategy: Strategy,
    pub level: u64,
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            variant: VariantName::ALL[0],
            hash_mb: 64,
            ponder: false,
            threads: 1,
            multipv: 1,
            kakutei_nifu: true,
            move_overhead_ms: 50,
            strategy: Strategy::Search,
            level: 3,
            seed: 0,
        }
    }
}

enum Kind {
    Check(bool),
    Spin {
        default: u64,
        min: u64,
        max: u64,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
}

struct Spec {
    name: &'static str,
    kind: Kind,
}

const VARIANTS: &[&str] = crate::games::registry::NAMES;
const STRATEGIES: &[&str] = &["search", "possibilityist", "random"];

/// Declared at `usi`, in this order. Defaults match `Options::default()` (a test checks it).
const SPECS: &[Spec] = &[
    Spec {
        name: "USI_Variant",
        kind: Kind::Combo {
            default: VARIANTS[0],
            vars: VARIANTS,
        },
    },
    Spec {
        name: "USI_Hash",
        kind: Kind::Spin {
            default: 64,
            min: 1,
            max: 65536,
        },
    },
    Spec {
        name: "USI_Ponder",
        kind: Kind::Check(false),
    },
    Spec {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    Spec {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 500,
        },
    },
    Spec {
        name: "KakuteiNifu",
        kind: Kind::Check(true),
    },
    Spec {
        name: "MoveOverhead",
        kind: Kind::Spin {
            default: 50,
            min: 0,
            max: 10_000,
        },
    },
    Spec {
        name: "Strategy",
        kind: Kind::Combo {
            default: "search",
            vars: STRATEGIES,
        },
    },
    Spec {
        name: "Level",
        kind: Kind::Spin {
            default: 3,
            min: 1,
            max: 3,
        },
    },
    Spec {
        name: "Seed",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: u32::MAX as u64,
        },
    },
];

#[derive(Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Options {
    /// The `option name ...` lines of the `usi` reply.
    pub fn declarations() -> Vec<String> {
        SPECS
            .iter()
            .map(|spec| match &spec.kind {
                Kind::Check(d) => format!("option name {} type check default {}", spec.name, d),
                Kind::Spin { default, min, max } => {
                    format!(
                        "option name {} type spin default {} min {} max {}",
                        spec.name, default, min, max
                    )
                }
                Kind::Combo { default, vars } => {
                    let vars: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
                    format!(
                        "option name {} type combo default {} {}",
                        spec.name,
                        default,
                        vars.join(" ")
                    )
                }
            })
            .collect()
    }

    /// Applies `setoption`. Names are matched without regard to case, as most engines do.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        let spec = SPECS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                OptionError(format!(
                    "unknown option '{}'",
                    crate::text::printable(name)
                ))
            })?;
        let value =
            value.ok_or_else(|| OptionError(format!("option {} needs a value", spec.name)))?;
        let bad = || {
            OptionError(format!(
                "bad value for {}: '{}'",
                spec.name,
                crate::text::printable(value)
            ))
        };
        match &spec.kind {
            Kind::Check(_) => {
                let v = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad()),
                };
                match spec.name {
                    "USI_Ponder" => self.ponder = v,
                    "KakuteiNifu" => self.kakutei_nifu = v,
                    _ => unreachable!("every check option is handled"),
                }
            }
            Kind::Spin { min, max, .. } => {
                let v: u64 = value.parse().map_err(|_| bad())?;
                if v < *min || v > *max {
                    return Err(OptionError(format!(
                        "{} must be between {} and {}",
                        spec.name, min, max
                    )));
                }
                match spec.name {
                    "USI_Hash" => self.hash_mb = v,
                    "Threads" => self.threads = v,
                    "MultiPV" => self.multipv = v,
                    "MoveOverhead" => self.move_overhead_ms = v,
                    "Level" => self.level = v,
                    "Seed" => self.seed = v,
                    _ => unreachable!("every spin option is handled"),
                }
            }
            Kind::Combo { vars, .. } => {
                let index = vars
                    .iter()
                    .position(|v| v.eq_ignore_ascii_case(value))
                    .ok_or_else(bad)?;
                match spec.name {
                    "USI_Variant" => self.variant = VariantName::ALL[index],
                    "Strategy" => self.strategy = Strategy::ALL[index],
                    _ => unreachable!("every combo option is handled"),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_defaults_are_the_real_defaults() {
        let mut from_specs = Options::default();
        for spec in SPECS {
            let value = match &spec.kind {
                Kind::Check(d) => d.to_string(),
                Kind::Spin { default, .. } => default.to_string(),
                Kind::Combo { default, .. } => default.to_string(),
            };
            from_specs.set(spec.name, Some(&value)).unwrap();
        }
        assert_eq!(from_specs, Options::default());
        for (i, v) in VariantName::ALL.iter().enumerate() {
            assert_eq!(VARIANTS[i], v.as_str());
        }
        for (i, s) in Strategy::ALL.iter().enumerate() {
            assert_eq!(STRATEGIES[i], s.as_str());
        }
    }

    #[test]
    fn bad_values_leave_options_unchanged() {
        let mut o = Options::default();
        assert!(o.set("Threads", Some("0")).is_err());
        assert!(o.set("Threads", Some("many")).is_err());
        assert!(o.set("USI_Variant", Some("chess")).is_err());
        assert!(o.set("NoSuchOption", Some("1")).is_err());
        assert!(o.set("KakuteiNifu", None).is_err());
        assert_eq!(o, Options::default());
        o.set("usi_variant", Some("Othello")).unwrap();
        assert_eq!(o.variant, VariantName::Othello);
    }
}
