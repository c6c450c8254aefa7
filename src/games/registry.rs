//! The list of games: one entry per game, read by the match config and referee.
//! Adding a game: one name in `NAMES` and one arm in `visit`.

use super::rules::Rules;
use super::{go, othello, quantum};

/// Every game's `USI_Variant` name, in the order they are listed to users.
pub const NAMES: &[&str] = &["quantumshogi", "othello", "go"];

/// Code that is generic over a game's rules, run for a game chosen by name at run time.
pub trait Visit {
    type Output;
    fn visit<R: Rules>(self) -> Self::Output;
}

/// Runs `visitor` with the rules of the game called `name`; `None` for an unknown name.
pub fn visit<V: Visit>(name: &str, visitor: V) -> Option<V::Output> {
    match name {
        "quantumshogi" => Some(visitor.visit::<quantum::Record>()),
        "othello" => Some(visitor.visit::<othello::Position>()),
        "go" => Some(visitor.visit::<go::rules::GoGame>()),
        _ => None,
    }
}

/// The names of the first and the second player of the game called `name`.
pub fn players(name: &str) -> Option<[&'static str; 2]> {
    struct Players;
    impl Visit for Players {
        type Output = [&'static str; 2];
        fn visit<R: Rules>(self) -> Self::Output {
            R::PLAYERS
        }
    }
    visit(name, Players)
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
}
