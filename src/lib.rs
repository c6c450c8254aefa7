//! ryoshi: a USI engine for quantum shogi, with Othello and Go analysis.
//!
//! The modules below stand on the floors of `docs/architecture.md`; what this file writes at
//! its end from the registry's list (each game's session adapter and page) stands on all of them.

pub mod bench;
pub mod files;
pub mod games;
pub mod logging;
pub mod matches;
pub(crate) mod memory;
pub mod progress;
pub mod protocol;
pub mod registry;
pub mod rng;
pub mod search;
pub mod serve;
pub mod session;
pub mod stop;
pub mod text;

// The game folders: a new game adds one here and its line to the registry (`registry.rs`).
pub mod go;
pub mod othello;
pub mod quantum;
#[cfg(feature = "toy")]
pub mod tictactoe;

/// A registry line's page: its folder's `serve::PAGE`, or none.
macro_rules! page_of {
    ($folder:ident) => {
        None
    };
    ($folder:ident, $serve:ident) => {
        Some(&$folder::$serve::PAGE)
    };
}

/// What the floors above the rules take from the registry's lines: the session part's adapter
/// of each game (`session::Registered`) and its page (`serve::pages::Registered`). Written here,
/// above every floor, so that the registry itself stays on the rules floor.
macro_rules! parts {
    ($($(#[$attr:meta])* $game:ident => $folder:ident: $rules:ident, $adapter:ident $(, $serve:ident)?;)+) => {
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

            fn record_text_aliases(self) -> &'static [&'static str] {
                use session::variant::Adapter;
                match self {
                    $($(#[$attr])* registry::Game::$game => $folder::session::$adapter::RECORD_TEXT_ALIASES),+
                }
            }

            fn served_refusal(self, name: &str, args: &str) -> Option<String> {
                use session::variant::Adapter;
                match self {
                    $($(#[$attr])* registry::Game::$game => $folder::session::$adapter::served_refusal(name, args)),+
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

registry::each_game!(parts);
