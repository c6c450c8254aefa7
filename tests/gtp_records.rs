//! Game records in GTP (protocol/gtp.md, "Records"): `loadsgf <file> [n]` with its history, its
//! komi and GNU Go's meaning of the move number, and `printsgf [file]`, through the real binary.
//! The tests that compare with GNU Go need it, so they are #[ignore]d in the quick run
//! (`.ci/run` installs the Debian package `gnugo`; then a missing GNU Go is a failure).

mod common;

use common::gtp_transcript_with;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A 9x9 game as Sabaki and KGS write it: two handicap stones, a capture by each side
/// (A9 at move 4, J1 at move 9), A9 retaken at move 12, and passes (moves 5, 10, 13, 14).
const GAME: &str = "(;FF[4]GM[1]SZ[9]KM[0.5]HA[2]RU[Chinese]PB[b]PW[w]AB[cc][gg]
;W[aa];B[ba];W[ee];B[ab];W[];B[ii];W[hi];B[dd];W[ih];B[]
;W[ef];B[aa];W[];B[])
";
const MOVES: usize = 14;

/// Moves of one colour in a row (E5 then C7 by black, G3 then C3 by white): the other side
/// passed between them, which the file does not give, so it is no move of its numbering.
const GAPS: &str = "(;FF[4]GM[1]SZ[9]KM[6.5];B[ee];B[cc];W[gg];W[cg];B[gc];B[])";

/// A file in the temporary folder, unique to this test process and `name`.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("ryoshi-gtp-records-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("write the temporary SGF");
    path
}

/// The replies of a GTP transcript (text after `=`/`?`, one entry per command).
fn replies(out: &str) -> Vec<String> {
    out.split("\n\n")
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(String::from)
        .collect()
}

/// The stones of a `showboard` reply: (black, white) vertices, sorted.
fn stones(showboard: &str) -> (Vec<String>, Vec<String>) {
    let letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ".as_bytes();
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for line in showboard.lines() {
        let mut tokens = line.split_whitespace();
        let Some(row) = tokens.next().and_then(|t| t.parse::<usize>().ok()) else {
            continue;
        };
        for (col, cell) in tokens.enumerate() {
            let vertex = format!("{}{row}", letters.get(col).map_or('?', |&c| c as char));
            match cell {
                "X" => black.push(vertex),
                "O" => white.push(vertex),
                _ => {}
            }
        }
    }
    black.sort();
    white.sort();
    (black, white)
}

#[test]
fn loadsgf_keeps_history_move_number_and_komi() {
    let path = temp_file("history.sgf", GAME);
    let file = path.display();
    let mut script = String::new();
    // Every move number against the whole game taken back move by move.
    for n in 1..=MOVES + 1 {
        script.push_str(&format!("loadsgf {file} {n}\nshowboard\n"));
    }
    script.push_str(&format!("loadsgf {file}\nshowboard\n"));
    for _ in 0..MOVES {
        script.push_str("undo\nshowboard\n");
    }
    script.push_str("undo\nkomi 6.5\nshowboard\nprintsgf\nquit\n");
    let out = gtp_transcript_with(&[], &script);
    let r = replies(&out);
    let by_number: Vec<&String> = (0..=MOVES).map(|i| &r[2 * i + 1]).collect();
    let base = 2 * (MOVES + 1);
    assert_eq!(r[base], "= white", "{out}");
    let mut undone = vec![&r[base + 1]];
    for k in 0..MOVES {
        assert_eq!(r[base + 2 + 2 * k], "=", "undo {k}: {out}");
        undone.push(&r[base + 3 + 2 * k]);
    }
    undone.reverse();
    for (n, (a, b)) in by_number.iter().zip(&undone).enumerate() {
        assert_eq!(a, b, "loadsgf {} differs from undo", n + 1);
        assert!(a.contains("komi 0.5"), "the file's komi: {a}");
    }
    // The start is the setup: no move to take back.
    let tail = &r[base + 2 + 2 * MOVES..];
    assert_eq!(tail[0], "? cannot undo");
    assert_eq!(tail[1], "=");
    assert!(
        tail[2].contains("komi 6.5"),
        "komi overrides the file's: {}",
        tail[2]
    );
    assert!(
        tail[3].starts_with("= (;FF[4]GM[1]") && tail[3].contains("KM[6.5]HA[2]AB[cc][gg]PL[W]"),
        "{}",
        tail[3]
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn printsgf_writes_the_file_and_sbkv() {
    let path = std::env::temp_dir().join(format!("ryoshi-gtp-printsgf-{}.sgf", std::process::id()));
    let file = path.display();
    let out = gtp_transcript_with(
        &["--playouts", "64", "--seed", "3"],
        &format!(
            "boardsize 9\nkomi 6.5\nplay B E5\ngenmove W\nplay B pass\n\
             printsgf {file}\nprintsgf\nprintsgf a b\nprintsgf /nonexistent/dir/x.sgf\nquit\n"
        ),
    );
    let r = replies(&out);
    assert_eq!(r[5], "=", "{out}");
    let written = std::fs::read_to_string(&path).expect("printsgf wrote the file");
    let printed = r[6].strip_prefix("= ").expect("printsgf's SGF");
    assert_eq!(written.trim_end(), printed);
    assert!(
        printed.starts_with("(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[9]KM[6.5]"),
        "{printed}"
    );
    // The engine's move carries black's win rate in percent (two decimals), the others none.
    let nodes: Vec<&str> = printed.split(';').skip(2).collect();
    assert_eq!(nodes.len(), 3, "{printed}");
    assert!(
        nodes[0].starts_with("B[ee]") && !nodes[0].contains("SBKV"),
        "{printed}"
    );
    let sbkv = nodes[1]
        .split("SBKV[")
        .nth(1)
        .and_then(|v| v.split(']').next())
        .expect("SBKV on the engine's move");
    let w: f64 = sbkv.parse().expect("a number");
    assert!((0.0..=100.0).contains(&w) && sbkv.split('.').nth(1).map(str::len) == Some(2));
    assert!(
        nodes[2].starts_with("B[]") && !nodes[2].contains("SBKV"),
        "{printed}"
    );
    assert!(r[7].starts_with("? printsgf expects"), "{}", r[7]);
    assert!(
        r[8].starts_with("? cannot write '/nonexistent/dir/x.sgf'"),
        "{}",
        r[8]
    );
    let _ = std::fs::remove_file(path);
}

fn gnugo() -> String {
    for path in ["/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"] {
        if std::path::Path::new(path).exists() {
            return path.to_string();
        }
    }
    panic!("this test needs GNU Go: apt-get install gnugo");
}

/// GNU Go's replies to `script`.
fn gnugo_replies(script: &str) -> Vec<String> {
    let mut child = Command::new(gnugo())
        .args(["--mode", "gtp", "--chinese-rules"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gnugo");
    let mut stdin = child.stdin.take().expect("stdin");
    let script = script.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
    let out = child.wait_with_output().expect("gnugo output");
    writer.join().expect("writer").expect("script written");
    replies(&String::from_utf8_lossy(&out.stdout))
}

/// `= A9 B9` as a sorted list.
fn listed(reply: &str) -> Vec<String> {
    let mut v: Vec<String> = reply
        .trim_start_matches('=')
        .split_whitespace()
        .map(String::from)
        .collect();
    v.sort();
    v
}

#[test]
fn loadsgf_numbers_the_moves_the_file_gives() {
    let path = temp_file("gaps.sgf", GAPS);
    let file = path.display();
    let out = gtp_transcript_with(
        &[],
        &format!("loadsgf {file} 3\nshowboard\nloadsgf {file} 5\nshowboard\nquit\n"),
    );
    let r = replies(&out);
    // Before move 3 (W G3): black's two stones, white to move.
    assert_eq!(r[0], "= white", "{out}");
    assert_eq!(stones(&r[1]), (vec!["C7".into(), "E5".into()], vec![]));
    // Before move 5 (B G7): white's two stones too, black to move.
    assert_eq!(r[2], "= black", "{out}");
    let white = vec!["C3".to_string(), "G3".to_string()];
    assert_eq!(stones(&r[3]), (vec!["C7".into(), "E5".into()], white));
    // Below 1 is before move 1 too; past the end, the whole game.
    for (n, to_move, black) in [
        ("0", "black", 0),
        ("-1", "black", 0),
        ("99999999999999999999", "white", 3),
    ] {
        let out = gtp_transcript_with(&[], &format!("loadsgf {file} {n}\nshowboard\nquit\n"));
        let r = replies(&out);
        assert_eq!(r[0], format!("= {to_move}"), "{n}: {out}");
        assert_eq!(stones(&r[1]).0.len(), black, "{n}: {out}");
    }
    let _ = std::fs::remove_file(path);
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn loadsgf_move_numbers_reach_gnugos_boards() {
    same_boards_as_gnugo(
        "gnugo.sgf",
        GAME,
        &[1, 2, 4, 5, 6, 9, 10, 12, 13, 14, 15, 40],
    );
    same_boards_as_gnugo("gnugo-gaps.sgf", GAPS, &[1, 2, 3, 4, 5, 6, 7]);
}

/// `loadsgf <record> <n>` for each of `numbers` gives GNU Go's colour to move, stones and komi.
fn same_boards_as_gnugo(name: &str, record: &str, numbers: &[usize]) {
    let path = temp_file(name, record);
    let file = path.display();
    let mut ours = String::new();
    let mut theirs = String::new();
    for n in numbers {
        ours.push_str(&format!("loadsgf {file} {n}\nshowboard\n"));
        theirs.push_str(&format!(
            "loadsgf {file} {n}\nlist_stones black\nlist_stones white\nget_komi\n"
        ));
    }
    ours.push_str("quit\n");
    theirs.push_str("quit\n");
    let r = replies(&gtp_transcript_with(&[], &ours));
    let g = gnugo_replies(&theirs);
    for (i, n) in numbers.iter().enumerate() {
        assert_eq!(r[2 * i], g[4 * i], "the colour to move at {name} {n}");
        let (black, white) = stones(&r[2 * i + 1]);
        assert_eq!(black, listed(&g[4 * i + 1]), "black at loadsgf {n}");
        assert_eq!(white, listed(&g[4 * i + 2]), "white at loadsgf {n}");
        let komi = g[4 * i + 3].trim_start_matches('=').trim();
        assert!(
            r[2 * i + 1].contains(&format!("komi {komi}")),
            "komi {komi} at {n}"
        );
    }
    let _ = std::fs::remove_file(path);
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn gnugo_loads_ryoshis_printsgf_to_the_same_board() {
    let mut script = String::from("boardsize 9\nkomi 5.5\nfixed_handicap 3\n");
    for _ in 0..30 {
        script.push_str("genmove W\ngenmove B\n");
    }
    let path = std::env::temp_dir().join(format!("ryoshi-gtp-to-gnugo-{}.sgf", std::process::id()));
    let file = path.display();
    script.push_str(&format!("play W pass\nshowboard\nprintsgf {file}\nquit\n"));
    let r = replies(&gtp_transcript_with(
        &["--playouts", "100", "--seed", "7", "--no-resign"],
        &script,
    ));
    let board = &r[r.len() - 3];
    let (black, white) = stones(board);
    assert!(
        black.len() + white.len() > 20,
        "a game with stones: {board}"
    );
    let g = gnugo_replies(&format!(
        "loadsgf {file}\nlist_stones black\nlist_stones white\nget_komi\nquit\n"
    ));
    assert_eq!(g[0], "= black", "{g:?}");
    assert_eq!(listed(&g[1]), black);
    assert_eq!(listed(&g[2]), white);
    assert_eq!(g[3].trim_start_matches('=').trim(), "5.5");
    let _ = std::fs::remove_file(path);
}

#[test]
#[ignore = "needs node and npm: npm ci --prefix tests/sabaki"]
fn sabakis_parser_reads_printsgf_with_its_win_rates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sabaki");
    assert!(
        dir.join("node_modules/@sabaki/sgf").exists(),
        "run: npm ci --prefix tests/sabaki"
    );
    let r = replies(&gtp_transcript_with(
        &["--playouts", "64", "--seed", "5", "--no-resign"],
        "boardsize 9\nkomi 7\nfixed_handicap 2\ngenmove W\nplay B E5\ngenmove W\n\
         genmove B\nplay W pass\nprintsgf\nquit\n",
    ));
    let text = r[8].strip_prefix("= ").expect("printsgf's SGF");
    let mut child = Command::new("node")
        .arg(dir.join("sgf.js"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (install Node.js)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write the SGF");
    let out = child.wait_with_output().expect("node's output");
    assert!(out.status.success(), "sgf.js failed on {text}");
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(got["komi"], "7", "{got}");
    assert_eq!(got["ab"].as_array().map(Vec::len), Some(2), "{got}");
    let moves = got["moves"].as_array().expect("moves");
    let colours: Vec<&str> = moves.iter().filter_map(|m| m[0].as_str()).collect();
    assert_eq!(colours, ["W", "B", "W", "B", "W"], "{got}");
    // Sabaki reads a win rate in percent on each of the engine's three moves, none on play's.
    let sbkv = got["sbkv"].as_array().expect("sbkv");
    for (i, v) in sbkv.iter().enumerate() {
        let engine = [0, 2, 3].contains(&i);
        match v.as_f64() {
            Some(w) => assert!(engine && (0.0..=100.0).contains(&w), "move {i}: {got}"),
            None => assert!(!engine, "move {i} has no SBKV: {got}"),
        }
    }
}
