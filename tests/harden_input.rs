//! Issue 10, rows 6 to 11: line caps, token rules, quoted text, huge numbers, GTP ids. Each
//! through the real binary.

mod common;
use common::{gtp_transcript, transcript, Engine, BIN};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

const CAP: usize = 4 << 20;

fn errors(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.starts_with("info string error:"))
        .collect()
}

#[test]
fn a_line_over_4_mib_fails_and_is_not_executed() {
    // Row 6: `isready` + 5 MiB of spaces was cut and then answered.
    let mut input = b"isready".to_vec();
    input.extend(std::iter::repeat_n(b' ', 5 << 20));
    input.extend_from_slice(b"\nisready\n");
    let out = transcript(&input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info string error: line longer than 4194304 bytes"));
    assert_eq!(lines[1], "readyok");

    // A position whose last move lies past the cap is not applied at all (no silent drop).
    let mut input = b"position startpos moves 7g7f 3c3d".to_vec();
    input.extend(std::iter::repeat_n(b' ', CAP));
    input.extend_from_slice(b" 2g2f\nd\n");
    let out = transcript(&input);
    assert_eq!(errors(&out).len(), 1, "{out}");
    let sfen = out.lines().last().expect("d answered");
    let start = transcript(b"d\n");
    assert_eq!(Some(sfen), start.lines().last(), "position unchanged");

    // Exactly at the cap is still a line.
    let mut input = b"isready".to_vec();
    input.extend(std::iter::repeat_n(b' ', CAP - 7));
    input.extend_from_slice(b"\n");
    assert_eq!(transcript(&input), "readyok\n");
}

#[test]
fn glued_tokens_are_errors() {
    // Row 8: `1nodes` read as `1` then `nodes`; `1infinite` started an infinite search.
    let out = transcript(b"go btime 1nodes 500\ngo depth 1infinite\ngo perft 1x\nisready\n");
    assert_eq!(errors(&out).len(), 3, "{out}");
    assert!(!out.contains("bestmove"), "{out}");
    assert!(out.ends_with("readyok\n"));
}

#[test]
fn only_spaces_and_tabs_separate_tokens() {
    // Vertical tab, form feed, NBSP and U+3000 are neither trimmed nor separators.
    for sep in ["\x0b", "\x0c", "\u{a0}", "\u{3000}"] {
        let mid = format!("go{sep}depth 1\n");
        let end = format!("isready{sep}\n");
        let start = format!("{sep}isready\n");
        for line in [mid, end, start] {
            let out = transcript(line.as_bytes());
            assert_eq!(errors(&out).len(), 1, "{line:?}: {out}");
            assert!(out.is_ascii());
        }
    }
    assert_eq!(transcript(b" \t isready \t\r\n"), "readyok\n");
    let out = transcript(b"go\tdepth\t1\n");
    assert!(out.contains("bestmove"), "{out}");
}

#[test]
fn quoted_text_is_ascii_and_short() {
    // Row 7: raw UTF-8, control characters shown as spaces, 80-100 characters quoted.
    let long = "x".repeat(100);
    let sgf = format!("(;{})", "Q".repeat(3000));
    let input = format!(
        "go sideways\u{3042}\ngo a\x01b\ngo {long}\nposition sfen {long}\u{3042} b - 1\n\
         setoption name USI_Variant value go\nloadsgf /nonexistent/{long}\u{3042}\x02\n\
         position sfen {sgf}\n"
    );
    let out = transcript(input.as_bytes());
    let errs = errors(&out);
    assert_eq!(errs.len(), 6, "{out}");
    for e in &errs {
        assert!(
            e.bytes().all(|b| (b' '..=b'~').contains(&b)),
            "not printable ASCII: {e}"
        );
        // No quoted span and no word longer than 40 characters (plus the `...`).
        for span in e.split('\'').skip(1).step_by(2) {
            assert!(span.len() <= 43, "{e}");
        }
        for word in e.split([' ', '\'']) {
            assert!(word.len() <= 43, "{e}");
        }
    }
    assert!(errs[0].contains("'sideways?'"), "{}", errs[0]);
    assert!(errs[1].contains("'a?b'"), "{}", errs[1]);
    assert!(
        errs[2].contains(&format!("'{}...'", "x".repeat(40))),
        "{}",
        errs[2]
    );
}

#[test]
fn huge_clock_values_saturate() {
    // Row 9: the time manager wrapped around and answered in 31 ms.
    let mut engine = Engine::start();
    engine.send("go btime 18446744073709551615 wtime 1 byoyomi 1");
    let until = std::time::Instant::now() + Duration::from_millis(600);
    while let Some(line) =
        engine.next_line(until.saturating_duration_since(std::time::Instant::now()))
    {
        assert!(!line.starts_with("bestmove"), "answered early: {line}");
    }
    engine.send("stop");
    let lines = engine.read_until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
    assert!(lines.iter().all(|l| !l.contains("error")), "{lines:?}");
    // The bounded ones still work on huge numbers.
    let out = transcript(
        b"go binc 18446744073709551615 btime 100 movetime 18446744073709551615 depth 1\n",
    );
    assert!(out.contains("bestmove"), "{out}");
}

#[test]
fn gtp_ids_are_echoed_as_given() {
    // Row 10: `18446744073709551616` came back as `18446744073709551615`.
    let out =
        gtp_transcript("18446744073709551616 name\n007 version\n99999999999999999999999 foo\n");
    let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies[0], "=18446744073709551616 ryoshi");
    assert!(replies[1].starts_with("=007 "), "{}", replies[1]);
    assert_eq!(replies[2], "?99999999999999999999999 unknown command");
}

#[test]
fn gtp_lines_have_the_same_cap() {
    // Row 11: a 200 MB line took 404 MB. Now the line fails after 4 MiB are held. The peak is
    // read from /proc while the process still runs (after its answer to the next line).
    let mut child = Command::new(BIN)
        .arg("gtp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        stdin.write_all(b"1 name ")?;
        for _ in 0..64 {
            stdin.write_all(&chunk)?;
        }
        stdin.write_all(b"\n2 name\n")?;
        Ok::<_, std::io::Error>(stdin)
    });
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut text = String::new();
    while !text.ends_with("=2 ryoshi\n\n") {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut stdout, &mut line).expect("read") == 0 {
            break;
        }
        text.push_str(&line);
    }
    assert_eq!(
        text, "?1 line longer than 4194304 bytes; not executed\n\n=2 ryoshi\n\n",
        "the refusal carries the line's id, read from its first bytes"
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()));
    let stdin = writer.join().expect("writer").expect("all written");
    drop(stdin);
    assert!(child.wait().expect("exit").success());
    if let Ok(status) = status {
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .expect("VmHWM in /proc status");
        assert!(kib < 40_000, "peak {kib} KiB for a 64 MiB line");
    }
}

#[test]
fn go_after_a_refused_position_does_not_search_the_one_before() {
    // Each refused way (no `sfen` word, an illegal move, a refusal that waited behind a
    // search) leaves `go` and `go mate` without a position until one is accepted.
    let refused = "go: no position, the last position was refused";
    for bad in [
        "position 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1",
        "position startpos moves 7g7f 7g7f",
    ] {
        let out = transcript(
            format!(
                "position sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1\n{bad}\ngo depth 3\ngo mate 1000\n\
                 go infinite\nposition sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1\ngo depth 3\nquit\n"
            )
            .as_bytes(),
        );
        let lines: Vec<&str> = out.lines().collect();
        let errs = errors(&out);
        assert_eq!(errs.len(), 4, "{bad}: {out}");
        assert!(
            errs[1..].iter().all(|e| e.contains(refused)),
            "{bad}: {out}"
        );
        let answers: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.starts_with("bestmove") || l.starts_with("checkmate"))
            .collect();
        assert_eq!(
            answers[..3],
            ["bestmove resign", "checkmate nomate", "bestmove resign"],
            "{bad}: {out}"
        );
        // Accepted again: searched (the `quit` right behind it may cut it short).
        assert!(
            answers.len() == 4 && answers[3] != "bestmove resign",
            "{bad}: {out}"
        );
    }
    // Refused while a search runs: the error waits its turn, and so does the `go` after it.
    let out =
        transcript(b"position startpos\ngo depth 4\nposition sfen nonsense\ngo depth 1\nquit\n");
    let answers: Vec<&str> = out.lines().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(answers.len(), 2, "{out}");
    assert_ne!(answers[0], "bestmove resign", "{out}");
    assert_eq!(answers[1], "bestmove resign", "{out}");
    assert!(errors(&out)[1].contains(refused), "{out}");
}
