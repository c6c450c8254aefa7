//! The engine's options: their USI declarations and typed values. The options every game
//! shares are declared here ([`SPECS`]); a game's own options are declared in its folder (its
//! adapter's `OPTIONS`, listed through the registry) and read there by name ([`Options::check`],
//! [`Options::spin`], [`Options::combo`], [`Options::halves`]).

use super::Registered;
use crate::registry::Game;

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `USI_Variant`: a game of the registry, the first by default.
    pub variant: Game,
    pub hash_mb: u64,
    pub ponder: bool,
    pub threads: u64,
    pub multipv: u64,
    pub move_overhead_ms: u64,
    pub seed: u64,
    /// The games' own options, by name, in the order the games declare them.
    game: Vec<(&'static str, Value)>,
}

impl Options {
    /// A game option's value: the one set, or the default its game declared.
    fn game_value(&self, name: &str) -> Option<Value> {
        self.game
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, v)| v)
    }

    /// The game option `name` of kind check (false when no game declares one).
    pub fn check(&self, name: &str) -> bool {
        self.game_value(name).is_some_and(check)
    }

    /// The game option `name` of kind spin (0 when no game declares one).
    pub fn spin(&self, name: &str) -> u64 {
        self.game_value(name).map_or(0, spin)
    }

    /// The index of the game option `name`'s value among its `vars` (kind combo).
    pub fn combo(&self, name: &str) -> usize {
        self.game_value(name).map_or(0, combo)
    }

    /// The game option `name` in half points (kind halves).
    pub fn halves(&self, name: &str) -> i32 {
        self.game_value(name).map_or(0, halves)
    }
}

impl Default for Options {
    fn default() -> Self {
        let mut game: Vec<(&'static str, Value)> = Vec::new();
        for spec in game_specs() {
            if !game.iter().any(|(n, _)| *n == spec.name) {
                game.push((spec.name, spec.kind.default_value()));
            }
        }
        Options {
            variant: Game::ALL[0],
            hash_mb: 64,
            ponder: false,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 50,
            seed: 0,
            game,
        }
    }
}

/// An option's USI kind, with its default and bounds.
pub enum Kind {
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
    /// A number in half points (a game's compensation), declared as a USI `string`, as GUIs have
    /// no decimal kind.
    Halves {
        default: i32,
        min: i32,
        max: i32,
    },
}

impl Kind {
    fn default_value(&self) -> Value {
        match self {
            Kind::Check(d) => Value::Check(*d),
            Kind::Spin { default, .. } => Value::Spin(*default),
            Kind::Combo { default, vars } => {
                Value::Combo(vars.iter().position(|v| v == default).unwrap_or(0))
            }
            Kind::Halves { default, .. } => Value::Halves(*default),
        }
    }
}

/// A checked value, as its kind reads it: a combo's is the index of its `var`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Check(bool),
    Spin(u64),
    Combo(usize),
    Halves(i32),
}

/// One engine option, everything about it in one place: the session, `usi`'s reply and the
/// served sessions all read these tables, so no other file spells an option's name.
pub struct Spec {
    name: &'static str,
    kind: Kind,
    /// Stores a checked value (of this option's kind) in [`Options`]; `None` for a game's own
    /// option, whose value is kept by name.
    store: Option<fn(&mut Options, Value)>,
    /// Setting it (re)allocates the search's tables at once (`USI_Hash`, `Threads`).
    reallocates: bool,
    /// The most a served session (`ryoshi serve`) may set, for a spin.
    served_max: Option<u64>,
}

impl Spec {
    /// A game's own option (declared in the game's adapter, `OPTIONS`).
    pub const fn game(name: &'static str, kind: Kind) -> Spec {
        Spec {
            name,
            kind,
            store: None,
            reallocates: false,
            served_max: None,
        }
    }

    /// The option's name as `usi` declares it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Setting it (re)allocates the search's tables at once.
    pub fn reallocates(&self) -> bool {
        self.reallocates
    }

    /// The most a served session may set, for a spin option with such a limit.
    pub fn served_max(&self) -> Option<u64> {
        self.served_max
    }

    /// Whether the option changes anything in `game` (the others ignore it): a shared option
    /// unless the game says it ignores it, a game's own option in the games that declare it.
    pub fn acts_on(&self, game: Game) -> bool {
        if self.store.is_some() {
            !game.ignored_options().contains(&self.name)
        } else {
            game.options().iter().any(|s| s.name == self.name)
        }
    }
}

/// The games' own options, in the registry's order.
fn game_specs() -> impl Iterator<Item = &'static Spec> {
    Game::ALL.iter().flat_map(|g| g.options())
}

/// Every option, in the order `usi` declares them: the shared ones, then each game's own (a
/// name two games declare is declared once, by the first).
fn all_specs() -> impl Iterator<Item = &'static Spec> {
    SPECS.iter().chain(
        game_specs()
            .enumerate()
            .filter(|&(i, spec)| game_specs().take(i).all(|s| s.name != spec.name))
            .map(|(_, spec)| spec),
    )
}

/// The option called `name` (without regard to case, as `setoption` matches it).
pub fn find(name: &str) -> Option<&'static Spec> {
    all_specs().find(|s| s.name.eq_ignore_ascii_case(name))
}

const VARIANTS: &[&str] = crate::registry::NAMES;

/// The value of a check, spin or combo; the table's kinds and stores agree (a test sets every
/// option once), so another kind never reaches a store.
fn check(v: Value) -> bool {
    matches!(v, Value::Check(true))
}
fn spin(v: Value) -> u64 {
    match v {
        Value::Spin(n) => n,
        _ => 0,
    }
}
fn halves(v: Value) -> i32 {
    match v {
        Value::Halves(n) => n,
        _ => 0,
    }
}
fn combo(v: Value) -> usize {
    match v {
        Value::Combo(i) => i,
        _ => 0,
    }
}

/// Declared at `usi`, in this order. Defaults match `Options::default()` (a test checks it).
const SPECS: &[Spec] = &[
    Spec {
        name: "USI_Variant",
        kind: Kind::Combo {
            default: VARIANTS[0],
            vars: VARIANTS,
        },
        store: Some(|o, v| o.variant = Game::ALL[combo(v)]),
        reallocates: false,
        served_max: None,
    },
    Spec {
        name: "USI_Hash",
        kind: Kind::Spin {
            default: 64,
            min: 1,
            max: 65536,
        },
        store: Some(|o, v| o.hash_mb = spin(v)),
        reallocates: true,
        // A served session starts at 16 MiB (a person's opponent, many tabs at once).
        served_max: Some(64),
    },
    Spec {
        name: "USI_Ponder",
        kind: Kind::Check(false),
        store: Some(|o, v| o.ponder = check(v)),
        reallocates: false,
        served_max: None,
    },
    Spec {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
        store: Some(|o, v| o.threads = spin(v)),
        reallocates: true,
        // Many tabs share the machine's cores.
        served_max: Some(1),
    },
    Spec {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 500,
        },
        store: Some(|o, v| o.multipv = spin(v)),
        reallocates: false,
        served_max: None,
    },
    Spec {
        name: "MoveOverhead",
        kind: Kind::Spin {
            default: 50,
            min: 0,
            max: 10_000,
        },
        store: Some(|o, v| o.move_overhead_ms = spin(v)),
        reallocates: false,
        served_max: None,
    },
    Spec {
        name: "Seed",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: u32::MAX as u64,
        },
        store: Some(|o, v| o.seed = spin(v)),
        reallocates: false,
        served_max: None,
    },
];

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OptionError(pub String);

/// The debug log's option (`setoption name DebugLog value <file>`): a USI string, the file
/// that every line in and out is appended to, with a timestamp (`<empty>` closes it). It is an
/// action on the process rather than a value the search reads, so it is not in [`Options`]: the
/// session opens the file ([`crate::logging::debug_to`]); `usi` declares it after [`SPECS`].
pub const DEBUG_LOG: &str = "DebugLog";

impl Options {
    /// The `option name ...` lines of the `usi` reply.
    pub fn declarations() -> Vec<String> {
        let debug_log = format!("option name {DEBUG_LOG} type string default <empty>");
        SPECS
            .iter()
            .map(declaration)
            .chain(std::iter::once(debug_log))
            .chain(all_specs().skip(SPECS.len()).map(declaration))
            .collect()
    }
}

/// The `option name ...` line of `spec`.
fn declaration(spec: &Spec) -> String {
    match &spec.kind {
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
        Kind::Halves { default, .. } => format!(
            "option name {} type string default {}",
            spec.name,
            f64::from(*default) / 2.0
        ),
    }
}

impl Options {
    /// Applies `setoption`. Names are matched without regard to case, as most engines do.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        let spec = find(name).ok_or_else(|| {
            OptionError(format!("unknown option '{}'", crate::text::printable(name)))
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
        let checked = match &spec.kind {
            Kind::Check(_) => match value.to_ascii_lowercase().as_str() {
                "true" => Value::Check(true),
                "false" => Value::Check(false),
                _ => return Err(bad()),
            },
            Kind::Spin { min, max, .. } => {
                let v: u64 = value.parse().map_err(|_| bad())?;
                if v < *min || v > *max {
                    return Err(OptionError(format!(
                        "{} must be between {} and {}",
                        spec.name, min, max
                    )));
                }
                Value::Spin(v)
            }
            Kind::Combo { vars, .. } => Value::Combo(
                vars.iter()
                    .position(|v| v.eq_ignore_ascii_case(value))
                    .ok_or_else(bad)?,
            ),
            Kind::Halves { min, max, .. } => {
                let points: f64 = value.trim().parse().map_err(|_| bad())?;
                let halves = points * 2.0;
                if !halves.is_finite() || halves.fract() != 0.0 {
                    return Err(OptionError(format!(
                        "{} must be a whole or half number of points",
                        spec.name
                    )));
                }
                if halves < f64::from(*min) || halves > f64::from(*max) {
                    return Err(OptionError(format!(
                        "{} must be between {} and {}",
                        spec.name,
                        f64::from(*min) / 2.0,
                        f64::from(*max) / 2.0
                    )));
                }
                Value::Halves(halves as i32)
            }
        };
        match spec.store {
            Some(store) => store(self, checked),
            None => {
                if let Some(slot) = self.game.iter_mut().find(|(n, _)| *n == spec.name) {
                    slot.1 = checked;
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
        for spec in all_specs() {
            let value = match &spec.kind {
                Kind::Check(d) => d.to_string(),
                Kind::Spin { default, .. } => default.to_string(),
                Kind::Combo { default, .. } => default.to_string(),
                Kind::Halves { default, .. } => (f64::from(*default) / 2.0).to_string(),
            };
            from_specs.set(spec.name, Some(&value)).unwrap();
        }
        assert_eq!(from_specs, Options::default());
        for (i, v) in Game::ALL.iter().enumerate() {
            assert_eq!(VARIANTS[i], v.as_str());
        }
    }

    #[test]
    fn every_option_stores_a_value_of_its_kind() {
        for spec in all_specs() {
            let other = match &spec.kind {
                Kind::Check(d) => (!d).to_string(),
                Kind::Spin { default, min, max } => {
                    if default < max { default + 1 } else { *min }.to_string()
                }
                Kind::Combo { default, vars } => {
                    vars.iter().find(|v| *v != default).unwrap().to_string()
                }
                Kind::Halves { default, .. } => (f64::from(default + 1) / 2.0).to_string(),
            };
            let mut o = Options::default();
            o.set(spec.name, Some(&other)).unwrap();
            assert_ne!(o, Options::default(), "{} stored nothing", spec.name);
            o.set(&spec.name.to_ascii_lowercase(), Some(&other))
                .unwrap();
            let lower = spec.name.to_ascii_lowercase();
            assert_eq!(find(&lower).map(Spec::name), Some(spec.name));
        }
    }

    #[test]
    fn each_option_knows_the_games_it_acts_on() {
        let threads = find("threads").unwrap();
        assert!(threads.acts_on(Game::Go) && threads.acts_on(Game::Othello));
        assert!(threads.reallocates() && threads.served_max() == Some(1));
        let multipv = find("MultiPV").unwrap();
        assert!(multipv.acts_on(Game::QuantumShogi) && !multipv.acts_on(Game::Othello));
        let level = find("Level").unwrap();
        assert!(level.acts_on(Game::Othello) && !level.acts_on(Game::QuantumShogi));
        assert!(Game::ALL
            .iter()
            .all(|&g| find("USI_Variant").unwrap().acts_on(g)));
        assert!(find("MultiPV").unwrap().served_max().is_none());
        let komi = find("komi").unwrap();
        assert!(komi.acts_on(Game::Go) && !komi.acts_on(Game::Othello));
    }

    #[test]
    fn a_game_option_is_read_by_name() {
        let mut o = Options::default();
        assert_eq!(o.halves("Komi"), 15);
        o.set("komi", Some("6.5")).unwrap();
        assert_eq!(o.halves("Komi"), 13);
        assert!(o.check("KakuteiNifu"));
        o.set("Strategy", Some("random")).unwrap();
        assert_eq!(o.combo("Strategy"), 2);
        assert_eq!(o.spin("NoSuchOption"), 0);
    }

    #[test]
    fn two_games_declaring_one_name_agree_on_its_kind() {
        let specs: Vec<&Spec> = game_specs().collect();
        for a in &specs {
            assert!(
                SPECS.iter().all(|s| s.name != a.name),
                "{} is shared",
                a.name
            );
            for b in specs.iter().filter(|b| b.name == a.name) {
                assert_eq!(
                    std::mem::discriminant(&a.kind),
                    std::mem::discriminant(&b.kind)
                );
            }
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
        assert_eq!(o.variant, Game::Othello);
    }
}
