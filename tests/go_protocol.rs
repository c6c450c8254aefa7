//! Go through the real binary: the USI-side commands, bad input, and GTP play-through.

mod common;

fn session(lines: &[&str]) -> Vec<String> {
    let mut input = String::from("setoption name USI_Variant value go\n");
    for l in lines {
        input.push_str(l);
        input.push('\n');
    }
    input.push_str("quit\n");
    common::transcript(input.as_bytes())
        .lines()
        .map(str::to_string)
        .collect()
}

fn sfen_lines(out: &[String]) -> Vec<String> {
    out.iter()
        .filter(|l| l.starts_with("sfen "))
        .cloned()
        .collect()
}

fn temp_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("ryoshi-go-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn position_moves_display_and_legal_points() {
    let out = session(&["position startpos moves D4 Q16 pass", "d", "moves"]);
    let sfen = sfen_lines(&out);
    assert_eq!(sfen.len(), 1);
    let rows: Vec<&str> = sfen[0].split(' ').nth(2).unwrap().split('/').collect();
    assert_eq!(rows.len(), 19);
    assert_eq!(
        &rows[15][3..4],
        "X",
        "D4 is row 4 from the bottom, column D"
    );
    assert_eq!(&rows[3][15..16], "O", "Q16 skips the letter I");
    assert!(
        sfen[0].ends_with(" w"),
        "after a pass white is to move: {}",
        sfen[0]
    );
    let moves = out.last().unwrap();
    assert_eq!(moves.split(' ').count(), 361 - 2);
    assert!(!moves.split(' ').any(|m| m == "D4" || m == "Q16"));
}

#[test]
fn position_sfen_round_trips_through_d() {
    let sfen = "5 .X.OX/XXXXX/...../..O../..... w";
    let out = session(&[&format!("position sfen {sfen}"), "d"]);
    assert_eq!(out.last().unwrap(), &format!("sfen {sfen}"));
}

#[test]
fn benson_prints_six_sorted_lines() {
    let out = session(&[
        "position sfen 5 .X.OX/XXXXX/...../...../..... b",
        "benson",
        "benson classic",
    ]);
    let want = [
        "alive b A4 B4 B5 C4 D4 E4 E5",
        "alive w",
        "dead b",
        "dead w D5",
        "territory b A5 C5",
        "territory w",
    ];
    assert_eq!(out.len(), 12, "{out:#?}");
    assert_eq!(out[..6], want);
    assert_eq!(out[6..], want);
}

#[test]
fn loadsgf_then_benson_matches_the_oracle_file() {
    let path = common::data_path("go/gnugo-unconditional/unconditional1.sgf");
    let out = session(&[&format!("loadsgf {}", path.display()), "benson", "d"]);
    assert!(out[0].starts_with("alive b "), "{}", out[0]);
    assert!(out[3].starts_with("dead w "), "{}", out[3]);
    assert_eq!(
        out[3].split(' ').count() - 2,
        34,
        "GNU Go finds 34 dead white stones"
    );
    assert!(out.last().unwrap().starts_with("sfen 19 "));
}

#[test]
fn bad_input_gets_one_error_and_changes_nothing() {
    let bad_sgf = temp_file("bad.sgf", "(;SZ[9]AB[aa][bb](;B[cc]");
    let bad_point = temp_file("badpoint.sgf", "(;SZ[9]AB[zz])");
    let start = "position sfen 3 X../.O./... b";
    let cases = [
        "position sfen 3 X.Q/.../... b",
        "position sfen 3 ../.../... b",
        "position sfen 3 .../... b",
        "position sfen 1 . b",
        "position sfen 26 . b",
        "position sfen nine ... b",
        "position sfen 3 .../.../... x",
        "position sfen 3 XO./O../... b",
        "position sfen 3 .../.../... b moves Z9",
        "position sfen 3 .../.../... b moves I2",
        "position sfen 3 .../.../... b moves A0",
        "position sfen 3 .../.../... b moves A1 A1",
        "position startpos moves D4 D4",
        &format!("loadsgf {bad_sgf}"),
        &format!("loadsgf {bad_point}"),
        "loadsgf /nonexistent/ryoshi.sgf",
        "go perft 0",
        "count 2",
    ];
    let mut lines = vec![start, "d"];
    for c in &cases {
        lines.push(c);
        lines.push("d");
    }
    let out = session(&lines);
    let errors: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert_eq!(
        errors.len(),
        cases.len(),
        "one error per bad line: {errors:#?}"
    );
    let sfens = sfen_lines(&out);
    assert_eq!(sfens.len(), cases.len() + 1);
    assert!(
        sfens.iter().all(|s| s == "sfen 3 X../.O./... b"),
        "state unchanged: {sfens:#?}"
    );
    let sgf_error = errors
        .iter()
        .find(|e| e.contains("SGF syntax error"))
        .expect("SGF error");
    assert!(sgf_error.contains("line 1"), "{sgf_error}");
}

#[test]
fn go_answers_a_legal_move_and_passes_when_done() {
    let out = session(&[
        "position sfen 5 .X.X./XXXXX/OOOOO/O.O.O/OOOOO b",
        "go depth 1",
    ]);
    assert_eq!(
        out.last().unwrap(),
        "bestmove pass",
        "nothing left to play: {out:#?}"
    );
    let out = session(&["position startpos", "go movetime 100"]);
    let best = out
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .to_string();
    let legal = session(&["position startpos", "moves"]);
    assert!(legal[0].split(' ').any(|m| m == best));
}

/// As the alpha-beta games: `Threads 256` under a memory limit starts the workers that fit,
/// says so once, and still plays a legal move (it aborted the process when a spawn failed).
#[cfg(target_os = "linux")]
#[test]
fn workers_the_system_refuses_are_reported_and_the_search_goes_on() {
    let out = common::transcript_within(
        1_000_000,
        b"setoption name USI_Variant value go\nsetoption name Threads value 256\n\
          position startpos\ngo nodes 2000\nmoves\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    let notes: Vec<&&str> = lines.iter().filter(|l| l.contains("threads")).collect();
    assert_eq!(notes.len(), 1, "{out}");
    assert!(
        notes[0].starts_with("info string Threads: only ")
            && notes[0].ends_with(" of 256 threads could be started"),
        "{out}"
    );
    let best = lines
        .iter()
        .rfind(|l| l.starts_with("bestmove "))
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or_else(|| panic!("no bestmove: {out}"));
    assert!(lines.last().unwrap().split(' ').any(|m| m == best), "{out}");
}

#[test]
fn gtp_basics_and_errors() {
    let bad_sgf = temp_file("gtp-bad.sgf", "(;SZ[5]AB[aa]");
    let script = format!(
        "1 protocol_version\n2 name\n3 known_command genmove\n4 known_command fly\n\
         5 boardsize 30\n6 boardsize 5\n7 play b C3\n8 play w C3\n9 play w Z1\n10 play x C2\n\
         11 loadsgf {bad_sgf}\n12 unconditional_status J9\n13 frobnicate\n14 undo\n15 undo\n\
         16 komi 6.5\n17 komi six\n# a comment\n\n18 quit\n19 name\n"
    );
    let out = common::gtp_transcript(&script);
    let want = "=1 2\n\n=2 ryoshi\n\n=3 true\n\n=4 false\n\n?5 unacceptable size\n\n=6\n\n=7\n\n\
                ?8 illegal move\n\n?9 invalid coordinate\n\n?10 invalid color\n\n";
    assert!(out.starts_with(want), "{out}");
    assert!(out.contains("?11 cannot open or parse"), "{out}");
    assert!(out.contains("?12 invalid coordinate\n\n?13 unknown command\n\n=14\n\n?15 cannot undo\n\n=16\n\n?17 komi not a float\n\n=18\n\n"));
    assert!(out.ends_with("=18\n\n"), "nothing after quit: {out}");
}

#[test]
fn gtp_genmove_plays_a_game_through() {
    // Both sides generate moves on 7x7 until two passes; every move must be legal (replayed in
    // the library) and no move may fill the mover's own eye.
    let mut script = String::from("boardsize 7\nclear_board\n");
    for i in 0..120 {
        script.push_str(&format!(
            "{} genmove {}\n",
            i + 1,
            if i % 2 == 0 { "b" } else { "w" }
        ));
    }
    // A small seeded search per move, and no resigning: the game is played to its end.
    let out = common::gtp_transcript_with(&["--playouts", "300", "--no-resign"], &script);
    let mut game = ryoshi::go::Position::empty(7).unwrap();
    let mut passes = 0;
    let mut played = 0;
    for block in out.split("\n\n").skip(2).filter(|b| !b.is_empty()) {
        let mv = block.split(' ').nth(1).expect("a move").trim();
        let p = ryoshi::go::notation::parse_vertex(mv, 7).unwrap();
        if let Some(p) = p {
            assert!(
                !ryoshi::go::eye::is_own_eye(&game.board, p, game.to_move),
                "{mv} fills an eye"
            );
            passes = 0;
            played += 1;
        } else {
            passes += 1;
        }
        game.play(p).unwrap_or_else(|e| panic!("{mv}: {e}"));
        if passes >= 2 {
            break;
        }
    }
    assert!(passes >= 2, "the game ends with two passes");
    assert!(played > 20, "a real game was played ({played} moves)");
}
