//! The engine's `USI_Variant` option offers the registry's games, in the registry's order (the
//! option reads `registry::NAMES`; this checks what a GUI is sent).

mod common;

use ryoshi::registry::NAMES;

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

#[test]
fn the_protocol_index_lists_the_registry() {
    // protocol/README.md's table of games: one row per game of the registry, in its order,
    // each linking a page that exists and says how the game ends (its `reason` words).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol");
    let index = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = |title: &str| {
        let text = index.split(title).nth(1).expect("the section");
        text.split("\n## ").next().unwrap().to_string()
    };
    let mut games = section("## Games");
    // The toy game of docs/adding-a-game.md is in the registry only with its feature.
    if cfg!(feature = "toy") {
        games += &section("## The toy game");
    }
    let rows: Vec<(String, String)> = games
        .lines()
        .filter(|l| l.starts_with("| `") && !l.starts_with("| `USI_Variant`"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells[1].trim_matches('`').to_string();
            let page = cells[2]
                .split_once("](")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map(|(page, _)| page.to_string())
                .unwrap_or_else(|| panic!("row {l}: no link to the game's page"));
            (name, page)
        })
        .collect();
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, NAMES, "the index's games against the registry's");
    for (name, page) in &rows {
        let text = std::fs::read_to_string(root.join(page))
            .unwrap_or_else(|e| panic!("{name}: {page}: {e}"));
        assert!(
            text.contains("## End of the game"),
            "{page} does not say how a game of {name} ends"
        );
    }
}
