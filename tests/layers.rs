//! The floors of `docs/architecture.md` hold: no module of `src/` uses a module on a higher
//! floor, every top-level module has a floor, and no module outside `session/` names one of the
//! session's per-game adapters.

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

/// The top-level module a file of `src/` belongs to (`None` for lib.rs and main.rs).
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts = rel.components();
    let first = parts.next()?.as_os_str().to_str()?.to_string();
    if parts.next().is_some() {
        return Some(first);
    }
    let stem = first.strip_suffix(".rs")?;
    (stem != "lib" && stem != "main").then(|| stem.to_string())
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
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let adapters: Vec<String> = ["quantum", "othello", "go"]
        .iter()
        .filter(|g| src.join("session").join(format!("{g}.rs")).exists())
        .map(|g| g.to_string())
        .collect();
    assert!(
        !adapters.is_empty(),
        "the session adapters moved: update this test"
    );
    let mut climbs = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Some(module) = top_module(&src, file) else {
            continue;
        };
        let Some(&floor) = floors.get(&module) else {
            panic!("src/{module} has no floor in docs/architecture.md");
        };
        let text = fs::read_to_string(file).expect("readable source");
        for (line, used, inner) in crate_paths(&text) {
            checked += 1;
            let Some(&used_floor) = floors.get(&used) else {
                panic!("{}:{line}: crate::{used} has no floor", file.display());
            };
            if used_floor > floor {
                climbs.push(format!(
                    "{}:{line}: {module} (floor {floor}) uses crate::{used} (floor {used_floor})",
                    file.display()
                ));
            }
            if used == "session" && module != "session" && adapters.contains(&inner) {
                climbs.push(format!(
                    "{}:{line}: {module} names the session adapter session::{inner}",
                    file.display()
                ));
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
}
