//! The floors of `docs/architecture.md` hold: no module of `src/` uses a module on a higher
//! floor, every top-level module has a floor, and a game's folder (one per line of the registry
//! in `registry.rs`) has its parts on their floors: its `search` on the search floor, its
//! `session` on the session floor, the rest (its rules) on the rules floor. Nothing but the
//! crate's root names a game's session part, no cycle of imports leaves a folder, and every
//! module is a file these scans read. Generic code names no game, uses no game's words, and
//! no string of the server or the session starts with a game's command or name.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `floor N: a b c` lines of docs/architecture.md: module name to floor.
fn floors() -> BTreeMap<String, u32> {
    let doc = fs::read_to_string(Path::new(ROOT).join("docs/architecture.md")).expect("the doc");
    let mut floors = BTreeMap::new();
    for line in doc.lines() {
        let Some(rest) = line.trim().strip_prefix("floor ") else {
            continue;
        };
        let (n, names) = rest.split_once(':').expect("floor N: names");
        let n: u32 = n.trim().parse().expect("a floor number");
        for name in names.split_whitespace() {
            assert!(
                floors.insert(name.to_string(), n).is_none(),
                "{name} is placed twice"
            );
        }
    }
    assert!(floors.len() >= 10, "the floor table is missing: {floors:?}");
    floors
}

/// The registry's lines (`Variant => folder: Rules, Adapter;`) in `registry.rs`, split at `=>`.
fn registry_lines() -> Vec<(String, String)> {
    let registry =
        fs::read_to_string(Path::new(ROOT).join("src/registry.rs")).expect("registry.rs");
    let list = registry
        .split_once("$then! {")
        .expect("the list in registry.rs")
        .1;
    list.lines()
        .map(str::trim)
        .take_while(|l| *l != "}")
        .filter(|l| !l.starts_with("//"))
        .filter_map(|l| l.split_once("=>"))
        .map(|(variant, rest)| (variant.trim().to_string(), rest.to_string()))
        .collect()
}

/// The game folders: the `folder` of each registry line.
fn game_folders() -> Vec<String> {
    registry_lines()
        .iter()
        .filter_map(|(_, rest)| rest.split_once(':'))
        .map(|(folder, _)| folder.trim().to_string())
        .collect()
}

/// The floor of a game folder's part: a part named after a floor's module (`search`,
/// `session`, `gtp`, `tune`, `bench`, ...) stands on that floor, every other one (its rules) on
/// the rules floor.
fn part_floor(floors: &BTreeMap<String, u32>, part: &str) -> u32 {
    floors
        .get(part)
        .copied()
        .filter(|_| part != "registry")
        .unwrap_or(floors["games"])
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to and the module below it (`None` for lib.rs
/// and main.rs; the inner part is `""` for a module's own `mod.rs` or file).
fn top_module(src: &Path, file: &Path) -> Option<(String, String)> {
    let rel = file.strip_prefix(src).expect("under src");
    let names: Vec<&str> = rel
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    let stem = |name: &str| name.strip_suffix(".rs").unwrap_or(name).to_string();
    match names.as_slice() {
        [file] => {
            let stem = stem(file);
            (stem != "lib" && stem != "main").then_some((stem, String::new()))
        }
        [dir, inner, ..] => {
            let inner = stem(inner);
            let inner = if inner == "mod" { String::new() } else { inner };
            Some((dir.to_string(), inner))
        }
        [] => None,
    }
}

/// Every `crate::<module>` path in a text, with its line number and what follows the module.
fn crate_paths(text: &str) -> Vec<(usize, String, String)> {
    let mut paths = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue; // `my_crate::` or `a::crate::`, not a path from our root
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue; // a macro's `crate::$folder`: the registry's, which the scans know
            }
            let after = rest[name.len()..]
                .strip_prefix("::")
                .map(|t| {
                    t.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect()
                })
                .unwrap_or_default();
            paths.push((n + 1, name, after));
        }
    }
    paths
}

#[test]
fn no_module_uses_a_higher_floor() {
    let floors = floors();
    let games = game_folders();
    assert!(
        games.len() >= 3 && games.iter().all(|g| !floors.contains_key(g)),
        "the registry's game folders are {games:?}: none may also be a floor"
    );
    let floor_of = |module: &str, inner: &str| -> Option<u32> {
        if games.iter().any(|g| g == module) {
            Some(part_floor(&floors, inner))
        } else {
            floors.get(module).copied()
        }
    };
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut climbs = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Some((module, inner)) = top_module(&src, file) else {
            continue;
        };
        let Some(floor) = floor_of(&module, &inner) else {
            panic!("src/{module} has no floor in docs/architecture.md");
        };
        let text = fs::read_to_string(file).expect("readable source");
        for (line, used, used_inner) in crate_paths(&text) {
            checked += 1;
            let Some(used_floor) = floor_of(&used, &used_inner) else {
                panic!("{}:{line}: crate::{used} has no floor", file.display());
            };
            if used_floor > floor {
                climbs.push(format!(
                    "{}:{line}: {module} (floor {floor}) uses crate::{used}::{used_inner} (floor {used_floor})",
                    file.display()
                ));
            }
            if games.contains(&used) && used_inner == "session" {
                climbs.push(format!(
                    "{}:{line}: {module} names the session part of {used}: only the crate's root does",
                    file.display()
                ));
            }
        }
        // A game's rules reach its other parts through `super::`, which has no `crate::`.
        if games.contains(&module) && part_floor(&floors, &inner) == floors["games"] {
            for (n, l) in text.lines().enumerate() {
                let code = l.split("//").next().unwrap_or("");
                if code.contains("super::search") || code.contains("super::session") {
                    climbs.push(format!(
                        "{}:{}: the rules of {module} use a part above them",
                        file.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} crate:: paths found: the scan is broken"
    );
    assert!(
        climbs.is_empty(),
        "imports that climb:\n{}",
        climbs.join("\n")
    );
}

#[test]
fn the_scan_sees_a_climb() {
    // The scanner itself: a search file naming the match runner is a climb, a comment is not.
    let paths = crate_paths("use crate::matches::merge::read; // crate::serve\nx::crate::y");
    assert_eq!(paths, vec![(1, "matches".into(), "merge".into())]);
    let floors = floors();
    assert!(floors["matches"] > floors["search"]);
    assert!(floors["protocol"] < floors["games"]);
    // A game's search part is on the search floor, and may not use the session floor.
    assert_eq!(part_floor(&floors, "search"), floors["search"]);
    assert!(part_floor(&floors, "board") < part_floor(&floors, "session"));
    assert!(game_folders().contains(&"othello".to_string()));
}

/// Every module is a file of its own, so that the scans read it: the crate's root declares its
/// modules (`pub mod x;`) and holds no module's body, as it once held the registry's (whose
/// `crate::` paths no scan read while the session imported it).
#[test]
fn the_root_holds_no_module_body() {
    let lib = fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).expect("lib.rs");
    let bodies: Vec<&str> = lib
        .lines()
        .filter(|l| {
            let words: Vec<&str> = l
                .split("//")
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            words
                .iter()
                .position(|w| *w == "mod")
                .is_some_and(|at| !words.get(at + 1).is_some_and(|name| name.ends_with(';')))
        })
        .collect();
    assert!(bodies.is_empty(), "modules written in lib.rs: {bodies:?}");
    assert!(lib.contains("pub mod registry;"), "the registry is a file");
}

/// One node of the import graph: a top-level module, or one part of a game folder (`go` and
/// its floor's part name, or `rules`).
type Node = (String, String);

/// The import graph of `src/` (lib.rs and main.rs, above every floor, left out): each module,
/// or part of a game folder, to the ones it names, with where.
fn import_graph() -> BTreeMap<Node, BTreeMap<Node, String>> {
    let floors = floors();
    let games = game_folders();
    let node = |module: &str, inner: &str| -> Node {
        if games.iter().any(|g| g == module) {
            let part = if part_floor(&floors, inner) == floors["games"] {
                "rules"
            } else {
                inner
            };
            (module.to_string(), part.to_string())
        } else {
            (module.to_string(), String::new())
        }
    };
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut graph: BTreeMap<Node, BTreeMap<Node, String>> = BTreeMap::new();
    for file in &files {
        let Some((module, inner)) = top_module(&src, file) else {
            continue;
        };
        let from = node(&module, &inner);
        let text = fs::read_to_string(file).expect("readable source");
        let uses = graph.entry(from.clone()).or_default();
        for (line, used, used_inner) in crate_paths(&text) {
            let to = node(&used, &used_inner);
            if to != from {
                uses.entry(to)
                    .or_insert_with(|| format!("{}:{line}", file.display()));
            }
        }
    }
    // The registry names each game's rules through its list (`crate::$folder::$rules`).
    let registry = graph.entry(node("registry", "")).or_default();
    for game in &games {
        registry.insert(node(game, ""), "src/registry.rs: the list".into());
    }
    graph
}

/// The nodes `from` reaches through the graph.
fn reached(graph: &BTreeMap<Node, BTreeMap<Node, String>>, from: &Node) -> Vec<Node> {
    let mut seen = vec![from.clone()];
    let mut next = 0;
    while next < seen.len() {
        for to in graph
            .get(&seen[next])
            .into_iter()
            .flat_map(|uses| uses.keys())
        {
            if !seen.contains(to) {
                seen.push(to.clone());
            }
        }
        next += 1;
    }
    seen
}

#[test]
fn no_cycle_of_imports_leaves_a_folder() {
    // Within a floor imports may go sideways, and a folder's parts may use each other (Go's
    // GTP and KataGo front ends do); but a cycle between two modules, or between a module and
    // a game's part, means that neither can be read, tested or removed without the other: the
    // session and a registry that made the sessions' adapters, a generic search whose tests
    // ran a game's search.
    let graph = import_graph();
    assert!(graph.len() > 20, "the graph is missing: {:?}", graph.keys());
    let mut loops = Vec::new();
    for (from, uses) in &graph {
        for (to, place) in uses {
            if from.0 != to.0 && reached(&graph, to).contains(from) {
                loops.push(format!(
                    "{place}: {from:?} uses {to:?}, which comes back to it"
                ));
            }
        }
    }
    assert!(
        loops.is_empty(),
        "imports in a cycle across folders:\n{}",
        loops.join("\n")
    );
}

/// The variant names of the registry's lines.
fn game_variants() -> Vec<String> {
    registry_lines()
        .into_iter()
        .map(|(variant, _)| variant)
        .collect()
}

/// The places in `text` (code before its tests, comments left out) that name one of `games`'
/// folders (`crate::go`) or `variants` (`Game::Go`, `VariantName::Othello`).
fn game_names(text: &str, games: &[String], variants: &[String]) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut found: Vec<(usize, String)> = crate_paths(code)
        .into_iter()
        .filter(|(_, used, _)| games.contains(used))
        .map(|(line, used, _)| (line, format!("crate::{used}")))
        .collect();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        for variant in variants {
            for owner in ["Game::", "VariantName::"] {
                let name = format!("{owner}{variant}");
                let named = line.match_indices(&name).any(|(at, _)| {
                    let after = line[at + name.len()..].chars().next();
                    !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if named {
                    found.push((n + 1, name));
                }
            }
        }
    }
    found
}

#[test]
fn no_generic_code_names_a_game() {
    // Everything that knows one game lives in its folder: outside the game folders, only
    // main.rs (the command line), the registry and the crate's root may name a game; tests may.
    let games = game_folders();
    let variants = game_variants();
    assert!(variants.len() == games.len() && variants.contains(&"Go".to_string()));
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut named = Vec::new();
    for file in &files {
        let Some((module, _)) = top_module(&src, file) else {
            continue; // lib.rs and main.rs
        };
        if games.contains(&module) {
            continue;
        }
        let text = fs::read_to_string(file).expect("readable source");
        let found = game_names(&text, &games, &variants);
        for (line, name) in found {
            named.push(format!("{}:{line}: {name}", file.display()));
        }
    }
    assert!(
        named.is_empty(),
        "generic code that names a game:\n{}",
        named.join("\n")
    );
}

#[test]
fn the_game_name_scan_sees_a_game() {
    let games = vec!["go".to_string()];
    let variants = vec!["Go".to_string()];
    let text = "use crate::go::Board; // crate::go\nif v == Game::Go {}\nGame::Gopher;\n\
                #[cfg(test)]\nmod tests { use crate::go; }";
    let found = game_names(text, &games, &variants);
    assert_eq!(
        found,
        vec![(1, "crate::go".to_string()), (2, "Game::Go".to_string())]
    );
}

/// Each game's concept words (lower case; `_` in the code reads as a space, so `dead_stones`
/// is `dead stones`). Generic code says what a game does in words every game shares (move,
/// position, proposal, verdict), so a change to one game's concepts stays in its folder. Left
/// out on purpose: `pass` (Othello's automatic pass too, and the protocols' move), `group` and
/// `chain` (Rust's and English's own), `drop` (Rust's `drop`), `candidate` (a search's
/// candidate moves); the game names themselves (`go` is USI's search command) are
/// [`no_generic_code_names_a_game`]'s.
const GAME_WORDS: &[(&str, &[&str])] = &[
    (
        "go",
        &[
            "go's",
            "dead stone",
            "dead stones",
            "komi",
            "stone",
            "stones",
            "vertex",
            "vertices",
            "territory",
            "scoring",
            "ko",
            "seki",
            "atari",
            "liberty",
            "liberties",
        ],
    ),
    (
        "othello",
        &["othello's", "disc", "discs", "flip", "flips", "flipped"],
    ),
    (
        "quantum shogi",
        &[
            "shogi's",
            "hand piece",
            "hand pieces",
            "piece drop",
            "piece drops",
            "promote",
            "promotes",
            "promoted",
            "promotion",
            "promotions",
            "sente",
            "gote",
            "candidate set",
            "candidate sets",
        ],
    ),
];

/// The game words of `line` (comments included), each with the game it belongs to.
fn game_words(line: &str) -> Vec<(&'static str, &'static str)> {
    let text = line.to_lowercase().replace('_', " ");
    let mut found = Vec::new();
    for &(game, words) in GAME_WORDS {
        for &word in words {
            let alone = text.match_indices(word).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + word.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
            });
            if alone {
                found.push((game, word));
            }
        }
    }
    found
}

#[test]
fn no_generic_code_uses_a_games_words() {
    // Outside the game folders, main.rs (the command line's help) and the unit tests. What a
    // generic floor must say of one game (a match's `komi`) the game declares in its folder.
    let games = game_folders();
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut used = Vec::new();
    let mut scanned = 0;
    for file in &files {
        let rel = file
            .strip_prefix(ROOT)
            .expect("under the root")
            .to_string_lossy();
        let in_game = top_module(&src, file).is_some_and(|(module, _)| games.contains(&module));
        if in_game || rel == "src/main.rs" {
            continue;
        }
        let text = fs::read_to_string(file).expect("readable source");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            scanned += 1;
            let words = game_words(line);
            if !words.is_empty() {
                used.push(format!("{rel}:{}: {words:?}", n + 1));
            }
        }
    }
    assert!(
        scanned > 5_000,
        "only {scanned} lines of generic code read: the scan is broken"
    );
    assert!(
        used.is_empty(),
        "generic code that uses a game's words (say it in every game's words, or move it to \
         the game's folder):\n{}",
        used.join("\n")
    );
}

#[test]
fn the_word_scan_sees_a_games_words() {
    assert_eq!(
        game_words("let dead_stones = 3; // komi"),
        [("go", "dead stones"), ("go", "komi"), ("go", "stones")]
    );
    assert_eq!(
        game_words("Go's scoring"),
        [("go", "go's"), ("go", "scoring")]
    );
    assert_eq!(
        game_words("/// flips a disc"),
        [("othello", "disc"), ("othello", "flips")]
    );
    assert_eq!(game_words("sente"), [("quantum shogi", "sente")]);
    assert_eq!(
        game_words("/// byo-yomi of one stone; its liberties"),
        [("go", "stone"), ("go", "liberties")]
    );
    // Words inside others, and the shared ones, are not a game's.
    for line in [
        "token kokoro",
        "stoned",
        "discord",
        "drop(room); pass; go",
        "promoter",
    ] {
        assert!(game_words(line).is_empty(), "{line}");
    }
}

/// Each game's own command names (its adapter's `COMMANDS`) and its `USI_Variant` name (its
/// rules' `NAME`), read from the game's folder, with the game's folder.
fn game_command_words() -> Vec<(String, String)> {
    let src = Path::new(ROOT).join("src");
    let mut words = Vec::new();
    for game in game_folders() {
        let mut files = Vec::new();
        rust_files(&src.join(&game), &mut files);
        for file in files {
            let text = fs::read_to_string(&file).expect("readable source");
            for (start, end) in [
                ("const COMMANDS: &'static [&'static str] =", "];"),
                ("const NAME: &'static str =", ";"),
            ] {
                for (at, _) in text.match_indices(start) {
                    let rest = &text[at + start.len()..];
                    let list = &rest[..rest.find(end).expect("the list's end")];
                    for literal in string_literals(list) {
                        words.push((literal.1, game.clone()));
                    }
                }
            }
        }
    }
    words
}

/// The string literals of `code` (comments, char literals and raw strings' `#`s understood),
/// each with its line; a literal followed by one `:` (a JSON key, `"score": ...`) is left out.
fn string_literals(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        match chars[i] {
            '\n' => line += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            // A char literal ('"', '\'', 'x'); a lifetime has no closing quote.
            '\'' => {
                let len = if chars.get(i + 1) == Some(&'\\') {
                    4
                } else {
                    3
                };
                if chars.get(i + len - 1) == Some(&'\'') {
                    i += len;
                    continue;
                }
            }
            '"' => {
                let hashes = chars[..i].iter().rev().take_while(|&&c| c == '#').count();
                let raw = i > hashes && chars[i - hashes - 1] == 'r';
                let at = line;
                let mut text = String::new();
                i += 1;
                while i < chars.len() {
                    let c = chars[i];
                    if c == '\n' {
                        line += 1;
                    }
                    if c == '\\' && !raw {
                        text.push(c);
                        text.extend(chars.get(i + 1));
                        i += 2;
                        continue;
                    }
                    if c == '"' && chars[i + 1..].iter().take(hashes).all(|&h| h == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    text.push(c);
                    i += 1;
                }
                let next: String = chars[i.min(chars.len())..]
                    .iter()
                    .skip_while(|c| c.is_whitespace())
                    .take(2)
                    .collect();
                let json_key = next.starts_with(':') && !next.starts_with("::");
                if !json_key {
                    found.push((at, text));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The places in `code` (before its tests) where a string literal is, or begins with, one of
/// `words` and a space (a command line, or a message about the command), with the word's game;
/// a word the protocol itself reads as a command (USI's `go`) is the protocol's, not a game's.
fn game_command_literals(code: &str, words: &[(String, String)]) -> Vec<(usize, String)> {
    let code = code.split("#[cfg(test)]").next().unwrap_or("");
    let mut found = Vec::new();
    for (line, literal) in string_literals(code) {
        // A command's word starts its line; `" score {}"` is a later field of one.
        let first = literal.split(char::is_whitespace).next().unwrap_or("");
        let protocols = matches!(
            ryoshi::protocol::parse_line(first),
            Ok(Some(command)) if !matches!(command, ryoshi::protocol::Command::Extension { .. })
        );
        for (word, game) in words {
            if first == word && !protocols {
                found.push((line, format!("{literal:?} ({game}'s {word})")));
            }
        }
    }
    found
}

#[test]
fn the_server_and_the_session_name_no_games_command() {
    // What a game refuses, caps or aliases in a served session is its adapter's to say
    // (`served_refusal`, `RECORD_TEXT_ALIASES`), so no string of the generic floors that run
    // the games' commands starts with one of them or with a game's name.
    let words = game_command_words();
    for (word, game) in [
        ("loadsgf", "go"),
        ("count", "othello"),
        ("othello", "othello"),
    ] {
        assert!(
            words.contains(&(word.to_string(), game.to_string())),
            "{word} not read from {game}'s folder: {words:?}"
        );
    }
    let src = Path::new(ROOT).join("src");
    let mut named = Vec::new();
    for module in ["serve", "session"] {
        let mut files = Vec::new();
        rust_files(&src.join(module), &mut files);
        files.sort();
        for file in files {
            let text = fs::read_to_string(&file).expect("readable source");
            for (line, what) in game_command_literals(&text, &words) {
                named.push(format!("{}:{line}: {what}", file.display()));
            }
        }
    }
    assert!(
        named.is_empty(),
        "generic strings that name a game's command or the game (the game's adapter says \
         it):\n{}",
        named.join("\n")
    );
}

#[test]
fn the_literal_scan_sees_a_games_command() {
    let words = [
        ("loadsgf".to_string(), "go".to_string()),
        ("count".to_string(), "othello".to_string()),
        ("go".to_string(), "go".to_string()),
    ];
    let code = "let q = '\"'; // \"count 9\"\nif name == \"loadsgf\" {}\n\
                json!({\"count\": 1, \"go perft\": \"go perft 3\"});\n\
                let s = r#\"count \"deep\"\"#; f(\"a count\", \" count\", 'a');\n\
                #[cfg(test)]\nconst T: &str = \"loadsgf\";";
    let found: Vec<usize> = game_command_literals(code, &words)
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    assert_eq!(found, [2, 4]);
}
