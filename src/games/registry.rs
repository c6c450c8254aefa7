//! The list of games: one line per game in `games!` below, read by the engine's `USI_Variant`
//! option and its session (`session::new_variant`), the match config and referee, `main.rs` and
//! the bench. Everything else about a game comes from its [`Rules`] (name, players, notation).

use super::rules::Rules;
use super::{go, othello, quantum};

/// Code that is generic over a game's rules, run for a game chosen at run time.
pub trait Visit {
    type Output;
    fn visit<R: Rules>(self) -> Self::Output;
}

/// Declares [`Game`] from one `Variant => RulesType` line per game: its list, its name and
/// players (the rules' own constants), and [`Game::visit`]. A `match` on `Game` elsewhere
/// (the session's adapters) fails to compile until it handles a new game.
macro_rules! games {
    ($($game:ident => $rules:ty),+ $(,)?) => {
        /// A game of the registry, by its `USI_Variant` name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Game {
            $($game),+
        }

        impl Game {
            /// Every game, in the order they are listed to users (the first is the default).
            pub const ALL: &'static [Game] = &[$(Game::$game),+];

            /// The `USI_Variant` name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Game::$game => <$rules as Rules>::NAME),+
                }
            }

            /// What the first and the second player are called (`sente`/`gote`, `black`/`white`).
            pub const fn players(self) -> [&'static str; 2] {
                match self {
                    $(Game::$game => <$rules as Rules>::PLAYERS),+
                }
            }

            /// Runs `visitor` with this game's rules.
            pub fn visit<V: Visit>(self, visitor: V) -> V::Output {
                match self {
                    $(Game::$game => visitor.visit::<$rules>()),+
                }
            }
        }
    };
}

games! {
    QuantumShogi => quantum::Record,
    Othello => othello::Position,
    Go => go::rules::GoGame,
}

/// Every game's `USI_Variant` name, in the order of [`Game::ALL`].
pub const NAMES: &[&str] = &{
    let mut names = [""; Game::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Game::ALL[i].as_str();
        i += 1;
    }
    names
};

impl Game {
    /// The game called `name`, if the registry has one.
    pub fn named(name: &str) -> Option<Game> {
        Game::ALL.iter().copied().find(|g| g.as_str() == name)
    }
}

/// Runs `visitor` with the rules of the game called `name`; `None` for an unknown name.
pub fn visit<V: Visit>(name: &str, visitor: V) -> Option<V::Output> {
    Game::named(name).map(|game| game.visit(visitor))
}

/// The names of the first and the second player of the game called `name`.
pub fn players(name: &str) -> Option<[&'static str; 2]> {
    Game::named(name).map(Game::players)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Name;
    impl Visit for Name {
        type Output = &'static str;
        fn visit<R: Rules>(self) -> &'static str {
            R::NAME
        }
    }

    #[test]
    fn every_name_finds_the_rules_of_that_name() {
        for &name in NAMES {
            assert_eq!(visit(name, Name), Some(name));
        }
        assert_eq!(visit("chess", Name), None);
        assert_eq!(players("go"), Some(["black", "white"]));
    }

    #[test]
    fn names_are_distinct_so_each_finds_its_game() {
        for &game in Game::ALL {
            assert_eq!(Game::named(game.as_str()), Some(game));
        }
        assert_eq!(NAMES.len(), Game::ALL.len());
    }
}
