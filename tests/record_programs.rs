//! Go records against the other programs' own code (issue 42):
//! - GNU Go (`gnugo --mode gtp`, `loadsgf` + `list_stones`) loads ryoshi's SGF and reaches the
//!   same board;
//! - ryoshi loads SGF as KGS (CGoban) and Sabaki write it, with handicap stones, captures and
//!   passes, reaches GNU Go's board on the same file, and `undo` steps back through it as GNU Go's
//!   `loadsgf FILE N` (the position before move N) does;
//! - GNU Go's own `printsgf` (setup stones only) loads into ryoshi;
//! - Sabaki's SGF parser (`@sabaki/sgf`, tests/sabaki/sgf.js) reads ryoshi's SGF.
//!
//! The games are random (seeded) games of ryoshi's rules, long enough to capture and pass.

mod common;

use ryoshi::games::record::{GameRecord, Recordable, Tags};
use ryoshi::games::rules::Rules;
use ryoshi::go::notation::LETTERS;
use ryoshi::go::{Color, Position, Record};
use ryoshi::rng::SplitMix64;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn gnugo() -> String {
    for path in ["/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"] {
        if Path::new(path).exists() {
            return path.to_string();
        }
    }
    panic!("this test needs GNU Go: apt-get install gnugo")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ryoshi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A random game (seeded) of `plies` moves on `size`, from `handicap` black stones (white to
/// move) when given: passes one move in twelve.
fn random_game(
    size: usize,
    seed: u64,
    plies: usize,
    handicap: &[(usize, usize)],
) -> GameRecord<Record> {
    let mut start = Position::empty(size).unwrap();
    for &(row, col) in handicap {
        let p = start.board.point(row, col);
        start.board.set(p, Color::Black.cell());
    }
    if !handicap.is_empty() {
        start.to_move = Color::White;
    }
    let mut rng = SplitMix64::new(seed);
    let mut game = Record::new(start.clone());
    let mut record = GameRecord::new(Record::new(start));
    for _ in 0..plies {
        let legal = game.legal_moves();
        let mv = if legal.is_empty() || rng.index(12) == 0 {
            None
        } else {
            legal[rng.index(legal.len())]
        };
        game.play(mv).unwrap();
        record.moves.push(mv);
        if game.outcome().is_some() {
            break;
        }
    }
    record
}

/// The stones of a position text (`9 ..X/... b`): black's and white's vertices.
fn stones_of(sfen: &str) -> [BTreeSet<String>; 2] {
    let mut fields = sfen.split_whitespace();
    let size: usize = fields.next().unwrap().parse().unwrap();
    let rows = fields.next().unwrap();
    let mut out = [BTreeSet::new(), BTreeSet::new()];
    for (r, row) in rows.split('/').enumerate() {
        for (c, cell) in row.chars().enumerate() {
            let vertex = format!("{}{}", LETTERS[c] as char, size - r);
            match cell {
                'X' => out[0].insert(vertex),
                'O' => out[1].insert(vertex),
                _ => false,
            };
        }
    }
    out
}

/// GNU Go's stones after each `loadsgf` command of `loads` (`FILE` or `FILE N`).
fn gnugo_boards(loads: &[String]) -> Vec<[BTreeSet<String>; 2]> {
    let mut script = String::new();
    for load in loads {
        script += &format!("loadsgf {load}\nlist_stones black\nlist_stones white\n");
    }
    script += "quit\n";
    let mut child = Command::new(gnugo())
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start gnugo");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.trim().is_empty()).collect();
    assert!(
        replies.iter().all(|r| r.starts_with('=')),
        "GNU Go refused a command:\n{out}"
    );
    let set = |r: &str| -> BTreeSet<String> {
        r.trim_start_matches('=')
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    replies
        .chunks(3)
        .take(loads.len())
        .map(|c| [set(c[1]), set(c[2])])
        .collect()
}

/// ryoshi's position texts: after loading `path`, then after each `undo` until the start.
fn ryoshi_undo_boards(path: &Path, undos: usize) -> Vec<String> {
    let mut input = format!(
        "setoption name USI_Variant value go\nloadrecord {}\nd\n",
        path.display()
    );
    for _ in 0..undos {
        input += "undo\nd\n";
    }
    let out = common::transcript(input.as_bytes());
    assert!(!out.contains("info string error"), "{out}");
    out.lines()
        .filter_map(|l| l.strip_prefix("sfen "))
        .map(str::to_string)
        .collect()
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn gnugo_loads_ryoshis_sgf_to_the_same_board() {
    let dir = temp_dir("sgf-gnugo");
    let mut loads = Vec::new();
    let mut want = Vec::new();
    for (i, (size, handicap)) in [
        (9, vec![]),
        (9, vec![(2, 6), (6, 2)]),
        (13, vec![(3, 3), (9, 9), (3, 9)]),
        (19, vec![(3, 15), (15, 3)]),
        (19, vec![]),
        (5, vec![]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut record = random_game(size, 100 + i as u64, 3 * size * size, &handicap);
        record.tags.set("KM", "6.5");
        if !handicap.is_empty() {
            record.tags.set("HA", handicap.len().to_string());
        }
        let path = dir.join(format!("game-{i}.sgf"));
        std::fs::write(&path, Record::write_record(&record)).unwrap();
        want.push(stones_of(&record.replay().unwrap().to_text()));
        loads.push(path.display().to_string());
    }
    let got = gnugo_boards(&loads);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "game {i}: {}", loads[i]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An SGF as CGoban 3 (KGS) writes it: its root properties, the handicap as `HA` and `AB`, one
/// node per line, passes as `tt`.
fn kgs_style(record: &GameRecord<Record>) -> String {
    let size = record.start.game.board.size();
    let mut s = format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[CGoban:3]ST[2]\nRU[Japanese]SZ[{size}]HA[{}]KM[0.50]TM[300]OT[5x30 byo-yomi]\nPW[white]PB[black]WR[2k]BR[4k]DT[2026-12-04]PC[The KGS Go Server at http://www.gokgs.com/]",
        record.start.game.board.cells().iter().filter(|&&c| c == Color::Black.cell()).count()
    );
    let point = |p: usize| {
        let (r, c) = record.start.game.board.row_col(p);
        format!("{}{}", (b'a' + c as u8) as char, (b'a' + r as u8) as char)
    };
    let board = &record.start.game.board;
    let black: Vec<usize> = board
        .points()
        .filter(|&p| board.get(p) == Color::Black.cell())
        .collect();
    if !black.is_empty() {
        s += "AB";
        for p in black {
            s += &format!("[{}]", point(p));
        }
    }
    s += "\n";
    let mut colour = record.start.game.to_move;
    for mv in &record.moves {
        let c = if colour == Color::Black { 'B' } else { 'W' };
        s += &format!(
            ";{c}[{}]C[a comment \\] with a bracket]\n",
            mv.map_or("tt".into(), point)
        );
        colour = colour.other();
    }
    s + ")\n"
}

/// An SGF as Sabaki writes it: the setup in the root, one node per line, passes as `[]`.
fn sabaki_style(record: &GameRecord<Record>) -> String {
    let size = record.start.game.board.size();
    let board = &record.start.game.board;
    let point = |p: usize| {
        let (r, c) = board.row_col(p);
        format!("{}{}", (b'a' + c as u8) as char, (b'a' + r as u8) as char)
    };
    let black: Vec<usize> = board
        .points()
        .filter(|&p| board.get(p) == Color::Black.cell())
        .collect();
    let mut s = format!(
        "(;GM[1]FF[4]CA[UTF-8]AP[Sabaki:0.52.2]KM[6.5]SZ[{size}]DT[2026-12-04]HA[{}]",
        black.len()
    );
    if !black.is_empty() {
        s += "AB";
        for &p in &black {
            s += &format!("[{}]", point(p));
        }
    }
    let mut colour = record.start.game.to_move;
    for mv in &record.moves {
        let c = if colour == Color::Black { 'B' } else { 'W' };
        s += &format!("\n;{c}[{}]", mv.map_or(String::new(), point));
        colour = colour.other();
    }
    // Two variations at the end: the main line takes the first (a pass), skips the second.
    let c = if colour == Color::Black { 'B' } else { 'W' };
    s + &format!("\n(;{c}[])(;{c}[aa]))\n")
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn ryoshi_loads_kgs_and_sabaki_sgf_to_gnugos_board_and_undoes_through_it() {
    let dir = temp_dir("sgf-kgs");
    for (i, style) in [kgs_style as fn(&GameRecord<Record>) -> String, sabaki_style]
        .into_iter()
        .enumerate()
    {
        // The first seed (from 200) whose game passes and captures.
        let count = |g: &Record| {
            g.game
                .board
                .cells()
                .iter()
                .filter(|&&c| c == Color::Black.cell() || c == Color::White.cell())
                .count()
        };
        let captures = |record: &GameRecord<Record>| {
            let mut game = record.start.clone();
            let mut captured = false;
            for &mv in &record.moves {
                let before = count(&game);
                game.play(mv).unwrap();
                captured |= mv.is_some() && count(&game) <= before;
            }
            captured
        };
        let record = (200..)
            .map(|seed| random_game(19, seed, 400, &[(3, 15), (15, 3)]))
            .find(|r| r.moves.contains(&None) && captures(r))
            .unwrap();
        // The Sabaki-style file's main line ends with one more pass.
        let moves = record.moves.len() + i;
        let text = style(&record);
        let path = dir.join(format!("style-{i}.sgf"));
        std::fs::write(&path, &text).unwrap();
        let ours = ryoshi_undo_boards(&path, moves);
        assert_eq!(ours.len(), moves + 1);
        // GNU Go: the whole file, then the position before each move N (N = moves .. 1).
        let mut loads = vec![path.display().to_string()];
        for n in (1..=moves).rev() {
            loads.push(format!("{} {n}", path.display()));
        }
        let theirs = gnugo_boards(&loads);
        for (k, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(&stones_of(o), t, "style {i}: after {k} undos");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn gnugo_printsgf_loads_into_ryoshi() {
    let dir = temp_dir("sgf-printsgf");
    let path = dir.join("gnugo.sgf");
    let script = format!(
        "boardsize 9\nkomi 5.5\nfixed_handicap 2\nplay W E5\nplay B D5\nplay W D4\nplay B C4\nplay W E4\nplay B D3\nplay W pass\nplay B E3\nprintsgf {}\nlist_stones black\nlist_stones white\nquit\n",
        path.display()
    );
    let mut child = Command::new(gnugo())
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start gnugo");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.trim().is_empty()).collect();
    assert!(replies.iter().all(|r| r.starts_with('=')), "{out}");
    let set = |r: &str| -> BTreeSet<String> {
        r.trim_start_matches('=')
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let n = replies.len();
    let theirs = [set(replies[n - 3]), set(replies[n - 2])];
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("AB["), "setup stones: {text}");
    let ours = ryoshi_undo_boards(&path, 0);
    assert_eq!(stones_of(&ours[0]), theirs, "{text}");
    // The side to move: white, after black's last move.
    assert!(ours[0].ends_with(" w"), "{text}\n{}", ours[0]);
    let record = Record::read_record(&text).unwrap();
    assert_eq!(record.tags.get("KM"), Some("5.5"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs node and npm: npm ci --prefix tests/sabaki"]
fn sabaki_sgf_parser_reads_ryoshis_sgf() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sabaki");
    assert!(
        dir.join("node_modules/@sabaki/sgf").exists(),
        "@sabaki/sgf is not installed: run npm ci --prefix tests/sabaki"
    );
    for (i, (size, handicap)) in [
        (9, vec![]),
        (19, vec![(3, 15), (15, 3)]),
        (25, vec![(0, 25 - 1)]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut record = random_game(size, 300 + i as u64, 2 * size * size, &handicap);
        record.tags = Tags {
            players: [Some("b]lack \\ x".into()), Some("white".into())],
            ..Tags::default()
        };
        record.tags.set("KM", "7.5");
        let text = Record::write_record(&record);
        let mut child = Command::new("node")
            .arg(dir.join("sgf.js"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run node (install Node.js)");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "sgf.js failed on {text}");
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got["size"], size.to_string());
        assert_eq!(got["komi"], "7.5");
        assert_eq!(got["black"], "b]lack \\ x");
        let board = &record.start.game.board;
        let xy = |p: usize| {
            let (r, c) = board.row_col(p);
            serde_json::json!([c, r])
        };
        let ab: Vec<_> = board
            .points()
            .filter(|&p| board.get(p) == Color::Black.cell())
            .map(xy)
            .collect();
        assert_eq!(got["ab"], serde_json::Value::from(ab));
        let mut colour = record.start.game.to_move;
        let mut moves = Vec::new();
        for mv in &record.moves {
            let c = if colour == Color::Black { "B" } else { "W" };
            moves.push(match mv {
                Some(p) => {
                    let (r, col) = board.row_col(*p);
                    serde_json::json!([c, col, r])
                }
                None => serde_json::json!([c, -1, -1]),
            });
            colour = colour.other();
        }
        assert_eq!(got["moves"], serde_json::Value::from(moves), "size {size}");
    }
}
