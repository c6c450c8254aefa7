//! Transcript tests: the real binary over stdin/stdout in quantum shogi mode.

mod common;

use common::transcript;

const START: &str = "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1";

fn lines(out: &str) -> Vec<&str> {
    out.lines().collect()
}

fn errors(out: &str) -> usize {
    out.lines()
        .filter(|l| l.starts_with("info string error:"))
        .count()
}

fn sfen_line(out: &str) -> String {
    out.lines()
        .rfind(|l| l.starts_with("sfen "))
        .expect("a sfen line")
        .to_string()
}

#[test]
fn handshake() {
    let out = transcript(b"usi\nisready\nquit\n");
    let l = lines(&out);
    assert!(l[0].starts_with("id name ryoshi"));
    assert!(l.contains(&"usiok"));
    assert!(l.contains(&"option name KakuteiNifu type check default true"));
    assert!(l
        .iter()
        .any(|x| x.starts_with("option name USI_Variant type combo default quantumshogi")));
    assert_eq!(l.last(), Some(&"readyok"));
    assert_eq!(errors(&out), 0);
}

#[test]
fn isready_before_usi() {
    let out = transcript(b"isready\nusi\n");
    assert_eq!(lines(&out)[0], "readyok");
    assert_eq!(lines(&out).last(), Some(&"usiok"));
}

#[test]
fn crlf_comments_and_display() {
    let out = transcript(b"# a comment\r\nposition startpos moves 7g7f\r\nd\r\n");
    assert_eq!(errors(&out), 0, "{out}");
    assert_eq!(
        sfen_line(&out),
        "sfen qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/2Q[KRGSLP]6/QQ1QQQQQQ/1Q5Q1/QQQQQQQQQ w - 2"
    );
    // The display ends with the sfen line.
    assert!(lines(&out).last().expect("output").starts_with("sfen "));
}

#[test]
fn unknown_command_gets_one_error_and_the_next_is_answered() {
    let out = transcript(b"frobnicate now\nisready\n");
    assert_eq!(errors(&out), 1, "{out}");
    assert_eq!(lines(&out).last(), Some(&"readyok"));
}

#[test]
fn malformed_qsfen_leaves_the_position() {
    let out = transcript(
        b"position startpos moves 7g7f\nposition sfen qqq/zz b - 1\nd\nposition sfen 9/9/9/9/9/9/9/9/9 b - 1\nd\n",
    );
    assert_eq!(errors(&out), 2, "{out}");
    assert!(out.contains("malformed QSFEN"), "{out}");
    assert!(sfen_line(&out).ends_with(" w - 2"), "{out}");
}

#[test]
fn inconsistent_qsfen_is_rejected() {
    // Three certain golds of sente's origin.
    let out = transcript(b"position sfen 4k4/9/9/9/9/9/9/9/4K4 b 3G16Q19q 1\nd\n");
    assert_eq!(errors(&out), 1, "{out}");
    assert!(out.contains("consistent"), "{out}");
    assert_eq!(sfen_line(&out), format!("sfen {START}"));
}

#[test]
fn illegal_move_in_the_list_is_named_and_changes_nothing() {
    let out = transcript(
        b"position startpos moves 7g7f\nposition startpos moves 7g7f 3c3d 7f7f 8c8d\nd\n",
    );
    let errs: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string error:"))
        .collect();
    assert_eq!(errs.len(), 1, "{out}");
    assert!(
        errs[0].contains("7f7f") && errs[0].contains("move 3"),
        "{}",
        errs[0]
    );
    assert!(sfen_line(&out).ends_with(" w - 2"), "{out}");
}

#[test]
fn a_one_megabyte_line() {
    let mut input = b"position startpos moves".to_vec();
    while input.len() < 1 << 20 {
        input.extend_from_slice(b" 7g7f");
    }
    input.extend_from_slice(b"\nisready\nd\n");
    let out = transcript(&input);
    assert_eq!(errors(&out), 1, "{}", &out[..out.len().min(500)]);
    assert!(out.contains("readyok"));
    assert_eq!(sfen_line(&out), format!("sfen {START}"));
}

#[test]
fn random_bytes_never_crash() {
    let mut state = 0x1234_5678_9ABC_DEF0u64;
    let mut input = Vec::new();
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        input.push((state >> 24) as u8);
    }
    input.extend_from_slice(b"\nisready\n");
    let out = transcript(&input);
    assert_eq!(lines(&out).last(), Some(&"readyok"));
    for l in lines(&out) {
        assert!(l == "readyok" || l.starts_with("info string error:"), "{l}");
    }
}

#[test]
fn perft_divide_through_the_binary() {
    let out = transcript(b"position startpos\ngo perft 2\n");
    let l = lines(&out);
    assert_eq!(l.len(), 178, "{out}");
    assert_eq!(l[177], "Nodes searched: 30992");
    let sum: u64 = l[..177]
        .iter()
        .map(|x| {
            let (mv, n) = x.split_once(": ").expect("move: count");
            assert!(!mv.is_empty());
            n.parse::<u64>().expect("count")
        })
        .sum();
    assert_eq!(sum, 30_992);
    // Each divide line equals the number of actions listed after that move.
    let after = transcript(b"position startpos moves 7g7f\nmoves\n");
    let n = after.split_whitespace().count();
    assert!(l.contains(&format!("7g7f: {n}").as_str()), "{out}");
}

#[test]
fn moves_lists_every_legal_action_on_one_line() {
    let out = transcript(b"moves\n");
    let l = lines(&out);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].split_whitespace().count(), 177);
    assert!(l[0].split_whitespace().any(|m| m == "7g3c+"));
}

#[test]
fn no_legal_action_gives_an_empty_moves_line() {
    let out = transcript(
        b"position sfen KRBGGSSG~G~/PPPPPPPPP/9/9/4k4/9/9/9/9 b 4q[NL]~17q 1\nmoves\ngo perft 1\n",
    );
    assert_eq!(errors(&out), 0, "{out}");
    assert_eq!(lines(&out), vec!["", "Nodes searched: 0"]);
}

#[test]
fn kakutei_nifu_option() {
    let position = b"position sfen 4k4/9/9/9/9/9/4P4/9/4K4 b P17Q19q 1\n";
    let mut on = position.to_vec();
    on.extend_from_slice(b"moves\n");
    let mut off = b"setoption name KakuteiNifu value false\n".to_vec();
    off.extend_from_slice(position);
    off.extend_from_slice(b"moves\n");
    let has = |out: &str| out.split_whitespace().any(|m| m == "P*5e");
    assert!(!has(&transcript(&on)));
    assert!(has(&transcript(&off)));
}

#[test]
fn drop_notation_round_trips_through_the_session() {
    let out = transcript(
        b"position startpos moves 7g7f 3c3d 8h2b+ 3a2b\nmoves\nposition startpos moves 7g7f 3c3d 8h2b+ 3a2b Q~*5e\nd\n",
    );
    // After the exchange sente holds a never-restricted piece of gote's origin: `Q~`.
    let moves = out.lines().next().expect("moves line");
    assert!(moves.split_whitespace().any(|m| m == "Q~*5e"), "{moves}");
    assert_eq!(errors(&out), 0, "{out}");
    // A captured piece is never the king, so on the board a bare `Q~` means every type but K.
    assert!(sfen_line(&out).contains("4Q~4"), "{out}");
}

#[test]
fn after_a_king_capture_the_game_is_over() {
    let setup = "position sfen 3q[KG]q[KG]4/9/9/9/4R4/9/9/9/4K4 b 18Q18q 1 moves 5e5a Q*9e 5a6a";
    let out = transcript(format!("{setup}\nd\nmoves\n{setup} 9e9f\n").as_bytes());
    assert!(out.contains("winner: b (king capture)"), "{out}");
    let l = lines(&out);
    let sfen_at = l.iter().position(|x| x.starts_with("sfen ")).expect("sfen");
    // `moves` prints an empty line once the game is over; playing on is an error.
    assert_eq!(l[sfen_at + 1], "");
    assert_eq!(errors(&out), 1, "{out}");
    assert!(
        out.contains("illegal move 9e9f (move 4 of the list)"),
        "{out}"
    );
}

fn run_cli(args: &[&str]) -> String {
    let out = std::process::Command::new(common::BIN)
        .args(args)
        .output()
        .expect("run ryoshi");
    assert!(out.status.success(), "{args:?}: {:?}", out.status);
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn command_line_perft_and_bench_hall() {
    let out = run_cli(&["perft", "2"]);
    assert_eq!(out.lines().next(), Some("Nodes searched: 30992"), "{out}");
    assert!(out.contains("leaves/s"), "{out}");
    let out = run_cli(&[
        "perft",
        "1",
        "--sfen",
        "KRBGGSSG~G~/PPPPPPPPP/9/9/4k4/9/9/9/9 b 4q[NL]~17q 1",
    ]);
    assert_eq!(out.lines().next(), Some("Nodes searched: 0"), "{out}");
    let out = run_cli(&["bench", "hall", "64"]);
    assert!(out.starts_with("hall: 64 states"), "{out}");
    assert!(out.contains("ratio"), "{out}");
}

#[test]
fn a_game_drawn_by_repetition_has_no_moves_and_no_bestmove() {
    // A lance shuffled back and forth on each side: the start occurs a fourth time after 16
    // actions. `position` refused a 17th, yet `moves` listed 177 and `go` played one.
    let cycle = ["1i1h", "1a1b", "1h1i", "1b1a"].repeat(4).join(" ");
    let out = transcript(
        format!("position startpos moves {cycle}\nmoves\ngo depth 2\nposition startpos moves {cycle} 1i1h\n")
            .as_bytes(),
    );
    let l = lines(&out);
    assert_eq!(l[0], "", "{out}");
    assert!(l.contains(&"bestmove resign"), "{out}");
    assert!(
        out.contains("the game is over (fourfold repetition, a draw)"),
        "{out}"
    );
    // One action short of it, the game goes on.
    let short = ["1i1h", "1a1b", "1h1i", "1b1a"].repeat(4)[..15].join(" ");
    let out = transcript(format!("position startpos moves {short}\nmoves\n").as_bytes());
    assert!(
        out.lines().next().unwrap().split(' ').count() > 100,
        "{out}"
    );
}
