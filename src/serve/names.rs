//! Players' names, as lichess and OGS show them: each seat of a room names itself
//! (`name <text>`), an engine page names both sides (`name <side> <text>`: the player's name and
//! the engine's, `ryoshi <version>`). They are kept with the game, shown in the room's state and
//! in `/games`, and written into its record (SGF and GGF `PB`/`PW`, the kifu's `Sente`/`Gote`).

/// Longest name, in characters.
pub const MAX_NAME: usize = 40;

/// Both sides' names, the first player's first; None where nobody gave one.
pub type Names = [Option<String>; 2];

/// Why a name is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a name may not hold control characters")]
    Control,
    /// Its length in characters.
    #[error("a name has at most {MAX_NAME} characters, not {0}")]
    TooLong(usize),
}

/// A name as given: trimmed; empty is no name (the name is taken back). Refused, with the
/// reason, when it is longer than [`MAX_NAME`] or holds a control character (a line break, a tab,
/// an escape: a record's or a page's line must stay one line).
pub fn check(text: &str) -> Result<Option<String>, NameError> {
    let name = text.trim();
    if name.chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    let length = name.chars().count();
    if length > MAX_NAME {
        return Err(NameError::TooLong(length));
    }
    Ok((!name.is_empty()).then(|| name.to_string()))
}

/// The sides as `/games` says them: `Alice (black) and white`; the bare sides without names.
pub fn sides(players: [&str; 2], names: &Names) -> String {
    let side = |i: usize| match &names[i] {
        Some(name) => format!("{name} ({})", players[i]),
        None => players[i].to_string(),
    };
    format!("{} and {}", side(0), side(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_bounded_and_one_line() {
        assert_eq!(check("  Alice "), Ok(Some("Alice".into())));
        assert_eq!(check("   "), Ok(None));
        assert_eq!(check(&"é".repeat(MAX_NAME)), Ok(Some("é".repeat(MAX_NAME))));
        assert!(check(&"x".repeat(MAX_NAME + 1)).is_err());
        for bad in ["a\nb", "a\u{1b}[31m", "a\tb", "a\u{0}"] {
            assert!(check(bad).is_err(), "{bad:?}");
        }
        let none: Names = [None, None];
        assert_eq!(sides(["black", "white"], &none), "black and white");
        let one: Names = [None, Some("B]o\\b".into())];
        assert_eq!(sides(["sente", "gote"], &one), "sente and B]o\\b (gote)");
    }
}
