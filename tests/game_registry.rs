//! The engine's `USI_Variant` option offers the registry's games, in the registry's order (the
//! option reads `registry::NAMES`; this checks what a GUI is sent).

mod common;

use ryoshi::games::registry::NAMES;

#[test]
fn usi_variant_lists_the_registry() {
    let out = common::transcript(b"usi\nquit\n");
    let line = out
        .lines()
        .find(|l| l.starts_with("option name USI_Variant "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains(&format!(" default {} ", NAMES[0])), "{line}");
    let vars: Vec<&str> = line.split(" var ").skip(1).collect();
    assert_eq!(vars, NAMES);
}
