//! The record commands through the real binary's stdin (issue 42): `record`, `loadrecord`,
//! `loadrecordtext` and `undo` for the three games, Go's `loadsgf`/`loadsgftext` aliases, and
//! bad input (one error line each, the game untouched, no crash, no hang).

mod common;

use common::transcript;

fn sfens(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("sfen ")).collect()
}

fn errors(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.starts_with("info string error: "))
        .collect()
}

#[test]
fn go_record_load_and_undo() {
    let out = transcript(
        b"setoption name USI_Variant value go\n\
          position sfen 5 ...../...../...../...../..... b moves C3 D3 pass C4\n\
          record\n\
          loadrecordtext (;GM[1]FF[4]SZ[5]KM[0.5]PB[x]PW[y]HA[2]AB[bb][dd];W[cc];B[cb];W[];B[])\n\
          d\n\
          record\n\
          undo\n\
          undo\n\
          d\n\
          undo\n\
          undo\n\
          d\n\
          undo\n\
          loadsgftext (;SZ[5];B[aa];W[aa])\n\
          d\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.contains(&"(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[5]KM[7.5]"),
        "{out}"
    );
    assert!(lines.contains(&";B[cc];W[dc];B[];W[cb])"), "{out}");
    assert!(
        lines
            // Ended by two passes: the area count with the file's komi, 3 - 1 - 0.5.
            .contains(&"(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[5]KM[0.5]HA[2]PB[x]PW[y]RE[B+1.5]AB[bb][dd]PL[W]"),
        "{out}"
    );
    assert!(lines.contains(&";W[cc];B[cb];W[];B[])"), "{out}");
    assert_eq!(
        sfens(&out),
        [
            // Loaded: the handicap stones, W[cc], B[cb] and two passes.
            "sfen 5 ...../.XX../..O../...X./..... w",
            // Two undos take back the passes...
            "sfen 5 ...../.XX../..O../...X./..... w",
            // ...two more the stones, down to the start: the handicap, white to move.
            "sfen 5 ...../.X.../...../...X./..... w",
            "sfen 5 ...../.X.../...../...X./..... w",
        ],
        "{out}"
    );
    // The fifth undo finds nothing (handicap stones are the start); the bad SGF leaves the game.
    let errs = errors(&out);
    assert_eq!(errs.len(), 2, "{out}");
    assert_eq!(errs[0], "info string error: nothing to undo");
    assert_eq!(
        errs[1],
        "info string error: illegal move W[aa] (A5) at ply 2: the point is occupied"
    );
}

#[test]
fn othello_record_load_and_undo() {
    let out = transcript(
        b"setoption name USI_Variant value othello\n\
          position startpos moves f5 d6 c3\n\
          record\n\
          record transcript\n\
          loadrecordtext (;GM[Othello]PC[NBoard]PB[a]PW[b]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.5]W[F6];)\n\
          record\n\
          d\n\
          undo\n\
          d\n\
          loadrecordtext F5D6C3D3\n\
          record transcript\n\
          undo\n\
          record transcript\n\
          loadrecordtext f5 d6 zz\n\
          record transcript\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"(;GM[Othello]PC[ryoshi]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[C3];)"), "{out}");
    assert!(lines.contains(&"f5d6c3"), "{out}");
    // The move's eval and time, as loaded.
    assert!(lines.contains(&"(;GM[Othello]PC[NBoard]PB[a]PW[b]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.5]W[F6];)"), "{out}");
    assert!(lines.contains(&"f5d6c3d3"), "{out}");
    assert_eq!(
        lines.iter().filter(|l| **l == "f5d6c3").count(),
        3,
        "undo, then the bad transcript left the game: {out}"
    );
    let s = sfens(&out);
    assert_eq!(s.len(), 2);
    assert_ne!(s[0], s[1]);
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{out}");
    assert!(
        errs[0].starts_with("info string error: transcript syntax error at line 1, column 7"),
        "{out}"
    );
}

#[test]
fn undo_forgets_a_loaded_result_and_the_notes_of_moves_taken_back() {
    // Go: two passes ended the game; one undo reopens it (no RE, no result from the count).
    let out = transcript(
        b"setoption name USI_Variant value go\n\
          loadrecordtext (;SZ[5];B[cc];W[];B[])\n\
          undo\n\
          record\n\
          loadrecordtext (;SZ[5]RE[B+R];B[cc];W[dd])\n\
          record\n\
          undo\n\
          record\n",
    );
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("(;")).collect();
    assert_eq!(
        heads,
        [
            "(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[5]KM[7.5]",
            "(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[5]KM[7.5]RE[B+R]",
            "(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[5]KM[7.5]",
        ],
        "{out}"
    );
    // Othello: the notes of the moves left stay, the result goes.
    let out = transcript(
        b"setoption name USI_Variant value othello\n\
          loadrecordtext (;GM[Othello]RE[+2.00]TY[8]B[F5//1.52]W[F6/-2.00/3.1]B[D3];)\n\
          record\n\
          undo\n\
          record\n",
    );
    let games: Vec<&str> = out.lines().filter(|l| l.starts_with("(;")).collect();
    assert_eq!(games.len(), 2, "{out}");
    assert!(games[0].contains("RE[+2.00]"), "{out}");
    assert!(
        games[0].ends_with("B[F5//1.52]W[F6/-2.00/3.1]B[D3];)"),
        "{out}"
    );
    assert!(!games[1].contains("RE["), "{out}");
    assert!(games[1].ends_with("B[F5//1.52]W[F6/-2.00/3.1];)"), "{out}");
    // Quantum shogi: the kifu's result goes with the last move.
    let out = transcript(
        b"loadrecordtext [Game \"quantum shogi\"] [Result \"0-1\"] [Reason \"resign\"] 1. 7g7f 0-1\n\
          undo\n\
          record\n",
    );
    assert!(!out.contains("Result") && !out.contains("resign"), "{out}");
    assert!(out.ends_with("\n*\n"), "{out}");
}

#[test]
fn a_transcript_is_written_only_from_the_standard_start() {
    let out = transcript(
        b"setoption name USI_Variant value othello\n\
          position sfen ---------------------------OX------XOX-------O------------------ b moves d3\n\
          record transcript\n\
          record ggf\n",
    );
    let errs = errors(&out);
    assert_eq!(
        errs,
        ["info string error: record transcript: the game does not start from the standard position (use record ggf)"],
        "{out}"
    );
    assert!(out.contains("B[D3];)"), "{out}");
}

#[test]
fn quantum_record_load_and_undo() {
    let out = transcript(
        b"position startpos moves 7g7f 3c3d\n\
          record\n\
          loadrecordtext [Game \"quantum shogi\"] [Sente \"a\"] [Gote \"b\"] 1. 7g7f {7f:KRGSLP} 2. 3c3d 3. 8h2b+ *\n\
          d\n\
          record\n\
          undo\n\
          undo\n\
          undo\n\
          undo\n\
          d\n\
          loadrecordtext [Game \"quantum shogi\"] 1. 7g7f 2. 3c3d 3. 2b8h\n\
          d\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"[Game \"quantum shogi\"]"), "{out}");
    assert!(lines.contains(&"1. 7g7f {7f:KRGSLP}"), "{out}");
    assert!(lines.contains(&"[Sente \"a\"]"), "{out}");
    assert!(lines.iter().any(|l| l.starts_with("3. 8h2b+ {")), "{out}");
    let s = sfens(&out);
    assert_eq!(s.len(), 3, "{out}");
    assert_eq!(
        s[1],
        "sfen qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1"
    );
    assert_eq!(s[2], s[1], "the bad kifu left the game: {out}");
    let errs = errors(&out);
    assert_eq!(errs.len(), 2, "{out}");
    assert_eq!(errs[0], "info string error: undo: no action to take back");
    assert!(errs[1].contains("at ply 3"), "{out}");
}

#[test]
fn record_files_are_loaded_and_bad_ones_refused_with_one_line() {
    let dir = std::env::temp_dir().join(format!("ryoshi-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.sgf");
    std::fs::write(&good, "(;GM[1]SZ[9]\n;B[ee]\n;W[cc])\n").unwrap();
    let deep = dir.join("deep.sgf");
    std::fs::write(
        &deep,
        format!("{}{}", "(;".repeat(100_000), ")".repeat(100_000)),
    )
    .unwrap();
    let big = dir.join("big.sgf");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(1 << 30).unwrap();
    let kifu = dir.join("game.kifu");
    std::fs::write(&kifu, "[Game \"quantum shogi\"]\n\n1. 7g7f\n2. 3c3d\n*\n").unwrap();
    let input = format!(
        "setoption name USI_Variant value go\n\
         loadrecord {good}\nd\n\
         loadrecord {deep}\nd\n\
         loadrecord {big}\nd\n\
         loadrecord {dir}\nd\n\
         loadsgf {good}\nundo\nd\n\
         loadrecordtext (;SZ[9]XX[unclosed\nd\n\
         setoption name USI_Variant value quantumshogi\n\
         loadrecord {kifu}\nd\n",
        good = good.display(),
        deep = deep.display(),
        big = big.display(),
        dir = dir.display(),
        kifu = kifu.display(),
    );
    let started = std::time::Instant::now();
    let out = transcript(input.as_bytes());
    assert!(
        started.elapsed().as_secs() < 30,
        "took {:?}",
        started.elapsed()
    );
    let s = sfens(&out);
    let loaded = "sfen 9 ........./........./..O....../........./....X..../........./........./........./......... b";
    assert_eq!(s[..4], [loaded; 4], "{out}");
    assert_eq!(
        s[4],
        "sfen 9 ........./........./........./........./....X..../........./........./........./......... w"
    );
    assert_eq!(s[5], s[4], "{out}");
    assert!(s[6].contains("/2Q[KRGSLP]6/"), "{out}");
    assert!(s[6].ends_with(" b - 3"), "{out}");
    let errs = errors(&out);
    assert_eq!(errs.len(), 4, "{out}");
    assert!(
        errs[0].contains("nested deeper than 1000 at byte 2000"),
        "{out}"
    );
    assert!(errs[1].ends_with("is larger than 16 MiB"), "{out}");
    assert!(errs[2].ends_with("is a directory"), "{out}");
    assert!(errs[3].contains("no closing ']'"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 42's measure: a 16 MiB SGF cost 1.69 GB of history (a whole board per move). The file
/// here, just under the cap, holds some 4.2 million moves (passes, 4 bytes each); loading it must
/// peak under 80 bytes a move, all told (the engine, the text, the main line's moves and the
/// replayed history of 12 bytes a move).
#[test]
fn a_16_mib_sgf_loads_in_memory_in_proportion() {
    use std::io::{BufRead, Write};
    let dir = std::env::temp_dir().join(format!("ryoshi-records-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("long.sgf");
    let mut text = String::from("(;GM[1]SZ[19]");
    let pairs = ((16 << 20) - 64) / 8;
    text.reserve(pairs * 8 + 2);
    for _ in 0..pairs {
        text.push_str(";B[];W[]");
    }
    text.push(')');
    std::fs::write(&path, &text).unwrap();
    let moves = pairs * 2;
    drop(text);
    let mut child = std::process::Command::new(common::BIN)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "setoption name USI_Variant value go\nloadrecord {}\nundo\nisready",
        path.display()
    )
    .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 || line.trim() == "readyok" {
            break;
        }
        seen.push_str(&line);
    }
    assert!(!seen.contains("error"), "{seen}");
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()));
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
    if let Ok(status) = status {
        let kib: usize = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .expect("VmHWM in /proc status");
        println!("peak {kib} KiB for {moves} moves");
        assert!(
            kib * 1024 < 80 * moves,
            "peak {kib} KiB for {moves} moves ({} bytes a move)",
            kib * 1024 / moves
        );
    }
}

/// A bad record's text and a part of the error it must get.
type BadRecord = (String, &'static str);

/// Each bad record, in each game: exactly one error line naming what and where, and the game
/// as it was (its `d` and its `record`).
#[test]
fn every_bad_record_gets_one_error_and_leaves_the_game() {
    let deep = format!("{}{}", "(;".repeat(100_000), ")".repeat(100_000));
    let games: [(&str, &str, Vec<BadRecord>); 3] = [
        (
            "go",
            "position sfen 5 ...../...../...../...../..... b moves C3 D3",
            vec![
                ("(;SZ[5];B[cc]".into(), "(byte 13)"),
                ("(;SZ[5]KM[lots])".into(), "KM[lots]: komi is not a number"),
                ("(;SZ[5]PL[X])".into(), "PL[X]: not B or W"),
                ("(;SZ[5];B[cc];W[cc])".into(), "at ply 2"),
                ("(;SZ[5];B[zz])".into(), "at ply 1"),
                (deep.clone(), "nested deeper than 1000 at byte 2000"),
            ],
        ),
        (
            "othello",
            "position startpos moves f5 d6",
            vec![
                ("(;GM[Othello]B[F5]W[F6]B[F5];)".into(), "at ply 3"),
                ("(;GM[Go];)".into(), "GM[Go]: not an Othello game"),
                ("(;GM[Othello]TY[10];)".into(), "TY[10]"),
                ("(;GM[Othello]B[F5]".into(), "ends before ';)'"),
                ("f5d6c3c3".into(), "at ply 4"),
                ("f5 d6 !".into(), "(byte 6)"),
            ],
        ),
        (
            "quantumshogi",
            "position startpos moves 7g7f",
            vec![
                ("1. 7g7f".into(), "starts with [Game"),
                (
                    "[Game \"quantum shogi\"] [Result \"2-0\"]".into(),
                    "Result[2-0]",
                ),
                (
                    "[Game \"quantum shogi\"] 1. 7g7f 2. 7g7f".into(),
                    "at ply 2",
                ),
                (
                    "[Game \"quantum shogi\"] 2. 7g7f".into(),
                    "expected move number 1.",
                ),
                (
                    "[Game \"quantum shogi\" 1. 7g7f".into(),
                    "starts with [Game",
                ),
            ],
        ),
    ];
    for (game, position, bad) in games {
        let mut input = format!("setoption name USI_Variant value {game}\n{position}\nd\nrecord\n");
        for (text, _) in &bad {
            input += &format!("loadrecordtext {text}\nd\nrecord\n");
        }
        let out = transcript(input.as_bytes());
        let errs = errors(&out);
        assert_eq!(errs.len(), bad.len(), "{game}: {errs:#?}");
        for (e, (text, want)) in errs.iter().zip(&bad) {
            assert!(e.contains(want), "{game}: {text:.60}: {e}");
        }
        let s = sfens(&out);
        assert!(s.iter().all(|x| *x == s[0]), "{game}: {s:#?}");
        // The record printed after each error is the one before.
        let mut records: Vec<Vec<&str>> = vec![Vec::new()];
        for line in out.lines() {
            if line.starts_with("info string error: ") {
                records.push(Vec::new());
            } else if let Some(last) = records.last_mut() {
                last.push(line);
            }
        }
        let records: Vec<Vec<&str>> = records
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .skip_while(|l| !l.starts_with("sfen "))
                    .skip(1)
                    .collect()
            })
            .collect();
        assert!(!records[0].is_empty(), "{game}: {out}");
        assert!(
            records.iter().all(|r| *r == records[0]),
            "{game}: {records:#?}"
        );
    }
}

/// A finished game's record carries its result: Go's area count after two passes, quantum
/// shogi's result and reason.
#[test]
fn finished_games_record_their_result() {
    let out = transcript(
        b"setoption name USI_Variant value go\n\
          position sfen 3 .../.../... b moves B2 pass pass\n\
          record\n",
    );
    assert!(
        out.lines()
            .any(|l| l == "(;FF[4]GM[1]CA[UTF-8]AP[ryoshi]SZ[3]KM[7.5]RE[B+1.5]"),
        "{out}"
    );
    // Loaded under Chinese rules with a dead white stone left at A1 (black's area): the count
    // of every stone alive said W+0.5 where `score` says B+8.5; no result is written then,
    // while the same game without RU keeps the referee's count.
    let game = "SZ[3]KM[0.5];B[bb];W[ac];B[];W[])";
    let out = transcript(
        format!(
            "setoption name USI_Variant value go
             loadrecordtext (;GM[1]RU[Chinese]{game}
record
             loadrecordtext (;GM[1]{game}
record
"
        )
        .as_bytes(),
    );
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("(;FF[4]")).collect();
    assert_eq!(heads.len(), 2, "{out}");
    assert!(!heads[0].contains("RE["), "{out}");
    assert!(heads[1].contains("RE["), "{out}");
    // Quantum shogi: a loaded kifu that ended by resignation keeps its result and reason.
    let out = transcript(
        b"loadrecordtext [Game \"quantum shogi\"] [Result \"0-1\"] [Reason \"resign\"] 1. 7g7f *\nrecord\n",
    );
    assert!(out.lines().any(|l| l == "[Result \"0-1\"]"), "{out}");
    assert!(out.lines().any(|l| l == "[Reason \"resign\"]"), "{out}");
    assert_eq!(out.lines().last(), Some("0-1"), "{out}");
}

#[test]
fn a_record_file_with_bytes_that_are_not_utf8_loads() {
    // A Latin-1 comment and player name (an old SGF, CA[ISO-8859-1]) refused the whole file,
    // where GNU Go loads it and loadrecordtext takes the same bytes lossily.
    let dir = std::env::temp_dir().join(format!("ryoshi-latin1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.sgf");
    std::fs::write(
        &path,
        b"(;GM[1]FF[4]CA[ISO-8859-1]SZ[9]PB[Jos\xe9]C[\xe9t\xe9];B[ee];W[cc])",
    )
    .unwrap();
    let out = transcript(
        format!(
            "setoption name USI_Variant value go\nloadrecord {}\nd\nrecord\n",
            path.display()
        )
        .as_bytes(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(errors(&out).is_empty(), "{out}");
    assert!(
        sfens(&out)[0].ends_with("....X..../........./........./........./......... b"),
        "{out}"
    );
    assert!(out.contains("PB[Jos\u{fffd}]"), "{out}");
}

#[test]
fn a_side_to_move_after_the_first_move_must_agree_with_the_moves() {
    // `PL[B]` after black's move was ignored without a word (white still moved next).
    let out = transcript(
        b"setoption name USI_Variant value go\n\
          loadrecordtext (;GM[1]SZ[9];B[aa];PL[B])\nd\n\
          loadrecordtext (;GM[1]SZ[9];B[aa];PL[W])\nd\n",
    );
    let errs = errors(&out);
    assert_eq!(
        errs,
        ["info string error: PL[B]: the side to move after move 1 is not supported"],
        "{out}"
    );
    let s = sfens(&out);
    assert!(s[0].ends_with(" b"), "the game before is kept: {out}");
    assert!(
        s[1].starts_with("sfen 9 X........") && s[1].ends_with(" w"),
        "{out}"
    );
}

#[test]
fn an_othello_property_error_names_the_property_once() {
    let out = transcript(
        b"setoption name USI_Variant value othello\n\
          loadrecordtext (;GM[Othello]TY[10];)\n\
          loadrecordtext (;GM[Othello]BO[8 ----];)\n",
    );
    assert_eq!(
        errors(&out),
        [
            "info string error: TY[10]: only 8x8 Othello is supported",
            "info string error: BO[...]: the board has 4 squares, not 64"
        ],
        "{out}"
    );
}
