//! The game registry and the engine's `USI_Variant` list name the same games, in the same
//! order, until the session reads the registry itself (issue 11).

mod common;

use ryoshi::games::registry::NAMES;
use ryoshi::session::options::VariantName;

#[test]
fn usi_variant_lists_the_registry() {
    let session: Vec<&str> = VariantName::ALL.iter().map(|v| v.as_str()).collect();
    assert_eq!(session, NAMES);
    let out = common::transcript(b"usi\nquit\n");
    let line = out
        .lines()
        .find(|l| l.starts_with("option name USI_Variant "))
        .unwrap_or_else(|| panic!("{out}"));
    let vars: Vec<&str> = line.split(" var ").skip(1).collect();
    assert_eq!(vars, NAMES);
}
