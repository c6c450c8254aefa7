//! The games, one line each, and what the rules floor makes of them: the [`Game`] enum, its
//! names and players (the rules' own constants), [`Visit`] and the lookups by name, which the
//! `USI_Variant` option, the session, the match config and referee, `main.rs` and the rooms
//! read. It compiles only each game's rules type, so every floor above this one may use it.
//! The crate's root (`lib.rs`), above every floor, makes each game's session adapter and page
//! from the same list ([`each_game!`]). Everything else about a game comes from its [`Rules`]
//! (name, players, notation).

use crate::games::rules::Rules;

/// Code that is generic over a game's rules, run for a game chosen at run time.
pub trait Visit {
    type Output;
    fn visit<R: Rules>(self) -> Self::Output;
}

/// The registry: one line per game, `Variant => folder: RulesType, SessionAdapter;`, handed to
/// the macro `$then`. The rules type is re-exported at the folder's root (`lib.rs` declares the
/// folder with a plain `pub mod`, so that rustfmt, clippy and every other tool see it); the
/// adapter lives in its `session` part and implements `session::variant::Adapter` and
/// `session::Variant`. A game with a page of its own ends its line with `, serve`: its `serve`
/// part's `PAGE` (`serve::pages::Page`); the others get the generic page. Attributes before a
/// line (`#[cfg]`) apply to the game everywhere.
macro_rules! each_game {
    ($then:ident) => {
        $then! {
            QuantumShogi => quantum: Record, QuantumVariant, serve;
            Othello => othello: Position, OthelloVariant, serve;
            Go => go: Record, GoVariant, serve;
            // The toy game of docs/adding-a-game.md, for the browser test of the generic page:
            // never in the shipped binary (GUIs show the `USI_Variant` list to users).
            #[cfg(feature = "toy")]
            TicTacToe => tictactoe: Board, TicTacToeVariant;
        }
    };
}
pub(crate) use each_game;

/// Declares `Game` from the registry's lines: its list, its name and players (the rules' own
/// constants), [`Game::visit`], and the lookups by name. A `match` on `Game` elsewhere fails to
/// compile until it handles a new game.
macro_rules! declare {
    ($($(#[$attr:meta])* $game:ident => $folder:ident: $rules:ident, $adapter:ident $(, $serve:ident)?;)+) => {
        /// A game of the registry, by its `USI_Variant` name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Game {
            $($(#[$attr])* $game),+
        }

        impl Game {
            /// Every game, in the order they are listed to users (the first is the default).
            pub const ALL: &'static [Game] = &[$($(#[$attr])* Game::$game),+];

            /// The `USI_Variant` name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::NAME),+
                }
            }

            /// What people call the game (`Quantum shogi`): the rules' [`Rules::TITLE`].
            pub const fn title(self) -> &'static str {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::TITLE),+
                }
            }

            /// What the first and the second player are called (`black`/`white`, ...).
            pub const fn players(self) -> [&'static str; 2] {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::PLAYERS),+
                }
            }

            /// The name of the game's record format (`SGF`, `GGF`, `kifu`: the rules'
            /// [`Rules::record_format`]), for the server's downloads; `None` for a game without
            /// one.
            pub fn record_format(self) -> Option<&'static str> {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::record_format().map(|f| f.name)),+
                }
            }

            /// The game's end-of-game agreement (the rules' [`Rules::end_agreement`]): rooms
            /// run it once the game's moves stop play.
            pub fn end_agreement(self) -> Option<&'static dyn crate::games::end::EndAgreement> {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::end_agreement()),+
                }
            }

            /// Whether a room's players may agree a draw (the rules'
            /// [`Rules::DRAW_BY_AGREEMENT`]).
            pub const fn draw_by_agreement(self) -> bool {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::DRAW_BY_AGREEMENT),+
                }
            }

            /// What a match may set of this game, and whether GTP carries it (the rules'
            /// [`Rules::MATCH`]).
            pub const fn settings(self) -> crate::games::rules::MatchSettings {
                match self {
                    $($(#[$attr])* Game::$game => <crate::$folder::$rules as Rules>::MATCH),+
                }
            }

            /// Runs `visitor` with this game's rules.
            pub fn visit<V: Visit>(self, visitor: V) -> V::Output {
                match self {
                    $($(#[$attr])* Game::$game => visitor.visit::<crate::$folder::$rules>()),+
                }
            }

            /// The game called `name`, if the registry has one.
            pub fn named(name: &str) -> Option<Game> {
                Game::ALL.iter().copied().find(|g| g.as_str() == name)
            }
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

        /// Runs `visitor` with the rules of the game called `name`; `None` for an unknown name.
        pub fn visit<V: Visit>(name: &str, visitor: V) -> Option<V::Output> {
            Game::named(name).map(|game| game.visit(visitor))
        }

        /// The names of the first and the second player of the game called `name`.
        pub fn players(name: &str) -> Option<[&'static str; 2]> {
            Game::named(name).map(Game::players)
        }
    };
}
each_game!(declare);

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
