//! Players' names, as lichess and OGS show them: each seat of a room names itself
//! (`name <text>`), an engine page names both sides (`name <side> <text>`: the player's name and
//! the engine's, `ryoshi <version>`). They are kept with the game, shown in the room's state and
//! in `/games`, and written into its record (as each record format names its players).

/// Longest name, in characters.
pub const MAX_NAME: usize = 40;

/// Both sides' names, the first player's first; None where nobody gave one.
pub type Names = [Option<String>; 2];

/// Why a name is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a name may not hold control characters")]
    Control,
    /// The first one, shown as its code point.
    #[error(
        "a name may not hold format characters (bidi controls, invisible characters): U+{0:04X}"
    )]
    Format(u32),
    /// Its length in characters.
    #[error("a name has at most {MAX_NAME} characters, not {0}")]
    TooLong(usize),
}

/// A name as given: trimmed; empty is no name (the name is taken back). Refused, with the
/// reason, when it is longer than [`MAX_NAME`], holds a control character (a line break, a tab,
/// an escape: a record's or a page's line must stay one line) or a format character (a bidi
/// control such as U+202E would turn the text shown beside the name around; an invisible one
/// makes two names look alike).
pub fn check(text: &str) -> Result<Option<String>, NameError> {
    let name = text.trim();
    if name.chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    if let Some(c) = name.chars().find(|&c| is_format(c)) {
        return Err(NameError::Format(c.into()));
    }
    let length = name.chars().count();
    if length > MAX_NAME {
        return Err(NameError::TooLong(length));
    }
    Ok((!name.is_empty()).then(|| name.to_string()))
}

/// Unicode's format characters (general category Cf, Unicode 15.1: bidi embeddings, overrides
/// and isolates, zero-width spaces and joiners, the byte order mark, tags ...) and the line and
/// paragraph separators, which `char::is_control` does not cover.
fn is_format(c: char) -> bool {
    matches!(
        u32::from(c),
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
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
        // The attack's name: its text, shown beside the name, would read backwards.
        assert_eq!(check("Ann\u{202E}sniw"), Err(NameError::Format(0x202E)));
        for bad in [
            "a\u{200B}b",
            "\u{2066}x",
            "a\u{FEFF}",
            "a\u{2028}b",
            "a\u{E0041}",
        ] {
            assert!(matches!(check(bad), Err(NameError::Format(_))), "{bad:?}");
        }
        // Letters of every script, combining marks and emoji stay.
        for good in ["Zoë", "عمر", "山田", "a\u{301}", "🙂"] {
            assert_eq!(check(good), Ok(Some(good.to_string())), "{good:?}");
        }
        let none: Names = [None, None];
        assert_eq!(sides(["black", "white"], &none), "black and white");
        let one: Names = [None, Some("B]o\\b".into())];
        assert_eq!(sides(["sente", "gote"], &one), "sente and B]o\\b (gote)");
    }
}
