//! The shape the crate keeps (issues 45 and 71): no function over 100 lines (a few named
//! exceptions, each with its reason), no `mod.rs` over 400 lines anywhere, and errors typed
//! (`Result<_, String>` only in main.rs, which prints them). Test modules are not counted.
//! One module style: a module with submodules is a folder with a `mod.rs`, never `foo.rs`
//! beside `foo/`.

use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The functions allowed over [`MAX_FUNCTION`]: (file, function, why). A function made by a
/// macro has an empty name here.
const LONG_FUNCTIONS: [(&str, &str, &str); 2] = [
    (
        "src/go/unconditional_reference.rs",
        "unconditional_life",
        "the reference oracle: GNU Go's procedure in one plain sequence, to read beside it",
    ),
    (
        "src/go/benson_reference.rs",
        "safe_points",
        "the reference oracle: Benson's definition step by step, to read beside it",
    ),
];
const MAX_FUNCTION: usize = 100;
const MAX_MOD_RS: usize = 400;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The Rust files under these folders of the crate, in path order.
fn source_files(dirs: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(&Path::new(ROOT).join(dir), &mut files);
    }
    files.sort();
    files
}

/// A file's text up to its test module.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("readable source");
    match text.find("\n#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// Each function with a body, as (name, first line, lines). rustfmt puts a body's closing
/// brace alone at the indentation of its `fn` line, which is what ends one here.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some(at) = trimmed.find("fn ") else {
            continue;
        };
        let head = &trimmed[..at];
        let is_fn = head
            .split_whitespace()
            .all(|w| w.starts_with("pub") || matches!(w, "const" | "async" | "unsafe"));
        if !is_fn || trimmed.ends_with(';') {
            continue;
        }
        let name: String = trimmed[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = (i + 1..lines.len()).find(|&j| lines[j] == close) {
            found.push((name, i + 1, end - i + 1));
        }
    }
    found
}

#[test]
fn no_function_is_over_a_screen() {
    let files = source_files(&["src"]);
    assert!(files.len() > 100, "the crate's files: {}", files.len());
    let root = Path::new(ROOT);
    let long: Vec<String> = files
        .iter()
        .flat_map(|file| {
            let from_root = file.strip_prefix(root).expect("under the crate");
            let from_root = from_root.to_string_lossy().into_owned();
            functions(&code(file))
                .into_iter()
                .filter(|(_, _, lines)| *lines > MAX_FUNCTION)
                .filter(move |(name, _, _)| {
                    !LONG_FUNCTIONS
                        .iter()
                        .any(|&(f, n, _)| f == from_root && n == name)
                })
                .map(move |(name, at, lines)| {
                    format!("{}:{at}: {name}, {lines} lines", file.display())
                })
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_FUNCTION} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_mod_rs_is_over_its_bound() {
    let files = source_files(&["src"]);
    let long: Vec<String> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "mod.rs"))
        .map(|f| (f, code(f).lines().count()))
        .filter(|(_, lines)| *lines > MAX_MOD_RS)
        .map(|(f, lines)| format!("{}: {lines} lines", f.display()))
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_MOD_RS} lines:\n{}",
        long.join("\n")
    );
}

/// Every `foo.rs` under `dir` that sits beside a folder `foo`, as the folder's path from
/// `root`.
fn beside_folders(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            if path.with_extension("rs").is_file() {
                let from_root = path.strip_prefix(root).expect("under the root");
                out.push(from_root.display().to_string());
            }
            beside_folders(root, &path, out);
        }
    }
}

#[test]
fn one_module_style_mod_rs_in_a_folder() {
    let mut mixed = Vec::new();
    beside_folders(Path::new(ROOT), &Path::new(ROOT).join("src"), &mut mixed);
    mixed.sort();
    assert!(
        mixed.is_empty(),
        "foo.rs beside foo/ (make it foo/mod.rs): {mixed:?}"
    );
}

#[test]
fn the_style_scan_sees_a_file_beside_its_folder() {
    let root = std::env::temp_dir().join(format!("ryoshi-shape-{}", std::process::id()));
    fs::create_dir_all(root.join("src/a/b")).expect("a temporary folder");
    fs::create_dir_all(root.join("src/c")).expect("a temporary folder");
    for file in ["src/a.rs", "src/a/b.rs", "src/c/mod.rs"] {
        fs::write(root.join(file), "").expect("a temporary file");
    }
    let mut mixed = Vec::new();
    beside_folders(&root, &root.join("src"), &mut mixed);
    mixed.sort();
    fs::remove_dir_all(&root).expect("the temporary folder removed");
    assert_eq!(mixed, vec!["src/a".to_string(), "src/a/b".to_string()]);
}

#[test]
fn errors_are_typed_outside_main() {
    let files = source_files(&["src"]);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("src/main.rs")) {
        for (n, line) in code(file).lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            if line.contains("Result<") && line.contains(", String>") {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "untyped errors:\n{}", found.join("\n"));
}

#[test]
fn the_scan_sees_a_long_function() {
    let body = "    x += 1;\n".repeat(MAX_FUNCTION);
    let text = format!(
        "pub(crate) fn long(x: &mut u32) {{\n{body}}}\n\nimpl A {{\n    fn short(&self) -> u32 {{\n        1\n    }}\n\n    fn decl(&self);\n}}\n"
    );
    let found = functions(&text);
    assert_eq!(
        found,
        vec![
            ("long".to_string(), 1, MAX_FUNCTION + 2),
            ("short".to_string(), MAX_FUNCTION + 5, 3)
        ]
    );
}

/// The `allow(unsafe_code)` lines of a text that no `// SAFETY:` comment in the three lines
/// above explains, as 1-based line numbers.
fn unexplained_unsafe_allowances(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len())
        .filter(|&i| {
            lines[i].trim_start().starts_with('#') && lines[i].contains("allow(unsafe_code)")
        })
        .filter(|&i| {
            !lines[i.saturating_sub(3)..i]
                .iter()
                .any(|l| l.trim_start().starts_with("// SAFETY:"))
        })
        .map(|i| i + 1)
        .collect()
}

/// Cargo.toml denies `unsafe_code` (the compiler enforces it); where a module or a test allows
/// it, a SAFETY comment next to the allowance says what for.
#[test]
fn unsafe_code_is_denied_except_where_a_safety_comment_allows_it() {
    let manifest = fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).expect("Cargo.toml");
    let rust_lints = manifest
        .split("[lints.rust]")
        .nth(1)
        .and_then(|t| t.split("\n[").next())
        .expect("a [lints.rust] table");
    assert!(
        rust_lints.contains("unsafe_code = \"deny\""),
        "{rust_lints}"
    );
    let mut allowances = 0;
    let mut found = Vec::new();
    for file in source_files(&["src", "tests"]) {
        let text = fs::read_to_string(&file).expect("a readable file");
        allowances += text
            .lines()
            .filter(|l| l.trim_start().starts_with('#') && l.contains("allow(unsafe_code)"))
            .count();
        for line in unexplained_unsafe_allowances(&text) {
            found.push(format!("{}:{line}", file.display()));
        }
    }
    assert!(found.is_empty(), "no SAFETY comment:\n{}", found.join("\n"));
    assert!(allowances > 0, "the scan found no allowance at all");
    let bare = "//! A module.\n\n// Fast.\n#![allow(unsafe_code)]\n";
    assert_eq!(unexplained_unsafe_allowances(bare), vec![4]);
}
