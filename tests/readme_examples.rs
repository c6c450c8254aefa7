//! The README's examples, run as written: every command line of its "Examples" section goes
//! through the real binary (the `printf` payload as stdin, the arguments after `--`, a final
//! `| tail -1` applied), and the output must show what the example's sentence promises. A new
//! example without a check here fails the test, so README and checks stay in step.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The indented command lines of the README's `## Examples` section.
fn example_lines(readme: &str) -> Vec<String> {
    readme
        .lines()
        .skip_while(|l| *l != "## Examples")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("    "))
        .map(str::to_string)
        .collect()
}

/// `printf`'s escapes as the examples use them.
fn unescape(text: &str) -> String {
    text.replace("\\n", "\n")
}

/// One `... | cargo run --release -q [-- ARGS] [| tail -1]` line, run; its stdout.
fn run_example(line: &str) -> String {
    let (input, rest) = match line.strip_prefix("printf '") {
        Some(rest) => {
            let end = rest.find('\'').expect("closing quote");
            let tail = rest[end + 1..].trim_start();
            let tail = tail.strip_prefix('|').expect("printf ... |").trim_start();
            (unescape(&rest[..end]), tail)
        }
        None => (String::new(), line),
    };
    let mut stages = rest.split('|').map(str::trim);
    let cargo = stages.next().unwrap();
    let args: Vec<&str> = match cargo.strip_prefix("cargo run --release -q") {
        Some(a) => a
            .trim()
            .strip_prefix("--")
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default(),
        None => panic!("not a cargo run line: {line}"),
    };
    let mut child = Command::new(common::BIN)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ryoshi");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{line}: {:?}", out.status);
    let stdout = String::from_utf8(out.stdout).unwrap();
    match stages.next() {
        None => stdout,
        Some("tail -1") => format!("{}\n", stdout.lines().last().unwrap_or("")),
        Some(other) => panic!("unknown stage '{other}' in {line}"),
    }
}

fn has_line(out: &str, pred: impl Fn(&str) -> bool, what: &str) {
    assert!(out.lines().any(pred), "{what} missing:\n{out}");
}

/// The six lines after the board's `sfen` line, then the next six: `benson`, `benson classic`.
fn benson_blocks(out: &str) -> (Vec<&str>, Vec<&str>) {
    let lines: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("sfen "))
        .collect();
    (lines[1..7].to_vec(), lines[7..13].to_vec())
}

fn check(line: &str, out: &str) {
    if line.contains("moves 7g7f 3c3d\\nd\\nmoves\\ngo movetime 500") {
        // The board, the legal actions, a search.
        has_line(out, |l| l == "usiok", "usiok");
        has_line(
            out,
            |l| l.starts_with("sfen ") && l.ends_with(" b - 3"),
            "the board's sfen",
        );
        has_line(
            out,
            |l| l.split(' ').any(|a| a == "2g2f") && l.split(' ').count() > 20,
            "the legal actions",
        );
        has_line(out, |l| l.starts_with("bestmove "), "bestmove");
    } else if line.contains("'go perft 2\\n'") {
        assert_eq!(out, "Nodes searched: 30992\n");
    } else if line.ends_with("-- perft 4") {
        has_line(out, |l| l == "Nodes searched: 923370014", "the count");
    } else if line.contains("Q[RSL]") {
        // Candidate sets and `~` pieces on the board and in hand, and drops by hand token.
        has_line(
            out,
            |l| l.starts_with('g') && l.contains("Q[RSL]"),
            "Q[RSL]",
        );
        has_line(
            out,
            |l| l == "hand b: 18Q P~ Q[GS]~",
            "the ~ pieces in hand",
        );
        let moves = out.lines().find(|l| l.contains("*")).expect("moves");
        for drop in ["P~*5e", "Q[GS]~*5e", "Q*5e"] {
            assert!(moves.split(' ').any(|m| m == drop), "{drop}: {moves}");
        }
    } else if line.contains("go mate 1000") {
        let answer = out
            .lines()
            .find(|l| l.starts_with("checkmate "))
            .unwrap_or_else(|| panic!("no checkmate line:\n{out}"));
        let plies: Vec<&str> = answer.split_whitespace().skip(1).collect();
        assert_eq!(plies.len(), 3, "a three-ply win: {answer}");
        assert!(plies[0].starts_with("G*"), "a gold drop first: {answer}");
    } else if line.contains("Strategy value possibilityist") {
        has_line(out, |l| l.starts_with("bestmove "), "bestmove");
    } else if line.contains("hint 3\\nflips c3\\ncount 6") {
        has_line(out, |l| l.starts_with("black X 3 white O 3"), "the board");
        let hints = out.lines().filter(|l| l.starts_with("hint ")).count();
        assert_eq!(hints, 3, "{out}");
        has_line(
            out,
            |l| l.starts_with("hint ") && l.contains(" reason "),
            "a reason",
        );
        has_line(out, |l| l == "flips c3 d4", "the turned discs");
        has_line(
            out,
            |l| l.starts_with("count 6 paths ") && l.contains(" positions "),
            "sequences and distinct positions",
        );
    } else if line.contains("\\nsolve\\n") {
        // FFO #40: A2, +38.
        has_line(
            out,
            |l| l.starts_with("solve a2 score 38 "),
            "the FFO #40 solve",
        );
    } else if line.contains("benson\\nbenson classic") {
        let (extended, classic) = benson_blocks(out);
        assert!(extended.contains(&"dead w B4"), "{out}");
        assert!(classic.contains(&"dead w"), "{out}");
        assert_ne!(extended, classic);
        assert_eq!(extended[0], classic[0], "both prove black alive");
    } else if line.ends_with("-- nboard") {
        has_line(out, |l| l == "pong 1", "pong");
        has_line(
            out,
            |l| l.starts_with("search ") && l.contains(" 4 "),
            "a depth-4 hint",
        );
        has_line(out, |l| l.starts_with("=== ") && l.len() > 4, "the move");
    } else if line.contains("fixed_handicap 2") {
        has_line(out, |l| l == "=2 G7 C3", "the standard two-stone handicap");
        has_line(out, |l| l.starts_with("=3 ") && l.len() > 3, "genmove");
        has_line(
            out,
            |l| l.starts_with("=4 B+") || l.starts_with("=4 W+") || l == "=4 0",
            "an area score",
        );
    } else if line.contains("genmove_analyze") {
        has_line(out, |l| l == "=2", "the analysis starts");
        has_line(
            out,
            |l| l.starts_with("info move ") && l.contains(" winrate ") && l.contains(" pv "),
            "an analysis line",
        );
        has_line(
            out,
            |l| l.starts_with("play ") && l.len() > 5,
            "the move played",
        );
    } else if line.ends_with("-- analysis") {
        has_line(
            out,
            |l| {
                l.starts_with("{\"id\":\"q\",\"isDuringSearch\":false,")
                    && l.contains("\"moveInfos\":[{")
                    && l.contains("\"currentPlayer\":\"W\"")
            },
            "the analysis of the position",
        );
    } else if line.ends_with("-- gtp") {
        has_line(out, |l| l.starts_with("=3 ") && l.len() > 3, "genmove");
        has_line(out, |l| l.starts_with("=4 "), "unconditional_status");
        has_line(out, |l| l.starts_with(" 5  . . . . X"), "showboard");
    } else {
        panic!("README example without a check in tests/readme_examples.rs: {line}");
    }
}

#[test]
fn every_readme_example_shows_what_it_promises() {
    let lines = example_lines(&readme());
    let runs: Vec<&String> = lines.iter().filter(|l| l.contains("cargo run")).collect();
    assert!(runs.len() >= 9, "{lines:#?}");
    for line in runs {
        let out = run_example(line);
        check(line, &out);
    }
}

/// The match example: `engines.toml` as shipped (two games instead of eight), from its own
/// folder, prints where it writes and a result.
#[test]
fn the_match_example_runs_and_says_where_it_writes() {
    let readme = readme();
    let line = "cargo build --release && target/release/ryoshi match engines.toml";
    assert!(example_lines(&readme).iter().any(|l| l == line));
    let config =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml"))
            .unwrap();
    assert!(config.contains("cmd = \"target/release/ryoshi\"") && config.contains("games = 8"));
    let config = config
        .replace("target/release/ryoshi", common::BIN)
        .replace("games = 8", "games = 2");
    let dir = std::env::temp_dir().join(format!("ryoshi-readme-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("engines.toml"), config).unwrap();
    let out = Command::new(common::BIN)
        .args(["match", "engines.toml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{stdout}");
    let dir = std::path::absolute(&dir).unwrap();
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "Results: {}/results.jsonl (appended; 0 earlier results kept)",
                dir.display()
            )
            .as_str()
        )
    );
    let records = lines.next().unwrap();
    assert!(
        records.starts_with(&format!("Records: {}/records/", dir.display())),
        "{records}"
    );
    assert!(
        stdout.contains("Score of search vs possibilityist: "),
        "{stdout}"
    );
    assert!(stdout.ends_with("Finished match\n"), "{stdout}");
}

/// CI runs the README's full test command, exactly; the quick one is the second set-up line.
#[test]
fn ci_runs_the_readme_full_test_command() {
    let readme = readme();
    let indented: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .collect();
    assert!(
        indented[0].starts_with("cargo run --release "),
        "{indented:?}"
    );
    assert!(
        indented[1].starts_with("cargo test --release "),
        "{indented:?}"
    );
    let full = indented[2];
    assert!(
        full.starts_with("cargo test --release -- --include-ignored"),
        "{full}"
    );
    let ci =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap();
    let commands: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("cargo test"))
        // The toy game's own tests build it under its feature (docs/adding-a-game.md), apart
        // from the product's test command.
        .filter(|l| !l.contains("--features toy"))
        .collect();
    assert_eq!(
        commands,
        vec![full],
        ".ci/run must run the README's full command"
    );
}

#[test]
fn the_serve_example_prints_its_url_and_serves_the_page() {
    use std::io::{BufRead, BufReader, Read};
    let readme = readme();
    assert!(
        readme.lines().any(
            |l| l.trim_start().starts_with("cargo run --release -- serve ")
                && l.contains("http://127.0.0.1:8080/")
        ),
        "README shows the serve command and its URL"
    );
    // The same command on a free port (8080 may be taken where the tests run), its game
    // database in a folder of its own (never the user's).
    let data = std::env::temp_dir().join(format!("ryoshi-readme-serve-{}", std::process::id()));
    let mut child = Command::new(common::BIN)
        .args(["serve", "--port", "0"])
        .env("XDG_DATA_HOME", &data)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ryoshi serve");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("ryoshi serve: http://127.0.0.1:")
        .unwrap_or_else(|| panic!("URL line: {first}"));
    let port: u16 = url.trim_end_matches('/').parse().expect("port");
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut page = String::new();
    stream.read_to_string(&mut page).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&data);
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("<html") || page.contains("<!DOCTYPE") || page.contains("<!doctype"),
        "{page}"
    );
}
