//! ryoshi: a USI engine for quantum shogi, with Othello and Go analysis.
//!
//! The modules below stand on the floors of `docs/architecture.md`; the registry at the end of
//! this file stands on all of them.

pub mod bench;
pub mod files;
pub mod games;
pub mod logging;
pub mod matches;
pub(crate) mod memory;
pub mod progress;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod serve;
pub mod session;
pub mod stop;
pub mod text;

/// A registry line's page: its folder's `serve::PAGE`, or none.
macro_rules! page_of {
    ($folder:ident) => {
        None
    };
    ($folder:ident, $serve:ident) => {
        Some(&$folder::$serve::PAGE)
    };
}

/// One line per game: `Variant => folder: RulesType, SessionAdapter;`, beside the folder's plain
/// `pub mod` (a plain declaration, so that rustfmt, clippy and every other tool see the folder).
/// From the line the floor-1 module `registry` lists it (`USI_Variant`, `--variant`, the match
/// runner, the rooms, `--help`, the tests that iterate over the registry), and the session makes
/// its adapter. The rules type is re-exported at the folder's root; the adapter lives in its
/// `session` part and implements `session::variant::Adapter` and `session::Variant`. A game
/// with a page of its own ends its line with `, serve`: its `serve` part's `PAGE`
/// (`serve::pages::Page`); the others get the generic page. Attributes before a line (`#[cfg]`)
/// apply to the game everywhere.
macro_rules! games {
    ($($(#[$attr:meta])* $game:ident => $folder:ident: $rules:ident, $adapter:ident $(, $serve:ident)?;)+) => {
        /// The games of the registry (written by `games::registry::declare!` from the list in
        /// `lib.rs`).
        pub mod registry {
            crate::games::registry::declare! { $($(#[$attr])* $game => crate::$folder::$rules),+ }
        }

        impl session::Registered for registry::Game {
            fn new_variant(self) -> Box<dyn session::variant::Variant> {
                match self {
                    $($(#[$attr])* registry::Game::$game => Box::new($folder::session::$adapter::new())),+
                }
            }

            fn commands(self) -> &'static [&'static str] {
                use session::variant::Adapter;
                match self {
                    $($(#[$attr])* registry::Game::$game => $folder::session::$adapter::COMMANDS),+
                }
            }

            fn options(self) -> &'static [session::options::Spec] {
                use session::variant::Adapter;
                match self {
                    $($(#[$attr])* registry::Game::$game => $folder::session::$adapter::OPTIONS),+
                }
            }

            fn ignored_options(self) -> &'static [&'static str] {
                use session::variant::Adapter;
                match self {
                    $($(#[$attr])* registry::Game::$game => $folder::session::$adapter::IGNORED_OPTIONS),+
                }
            }
        }

        impl serve::pages::Registered for registry::Game {
            fn page(self) -> Option<&'static serve::pages::Page> {
                match self {
                    $($(#[$attr])* registry::Game::$game => page_of!($folder $(, $serve)?)),+
                }
            }
        }
    };
}

// The game folders and their registry lines: a new game adds one of each.
pub mod go;
pub mod othello;
pub mod quantum;
// The toy game of docs/adding-a-game.md, for the browser test of the generic page: never in
// the shipped binary (GUIs show the `USI_Variant` list to users).
#[cfg(feature = "toy")]
pub mod tictactoe;

games! {
    QuantumShogi => quantum: Record, QuantumVariant, serve;
    Othello => othello: Position, OthelloVariant, serve;
    Go => go: Record, GoVariant, serve;
    #[cfg(feature = "toy")]
    TicTacToe => tictactoe: Board, TicTacToeVariant;
}
