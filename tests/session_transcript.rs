//! Transcript tests of the session itself (any variant): handshake, errors, robustness.

mod common;
use common::transcript;

fn lines(out: &str) -> Vec<&str> {
    out.lines().collect()
}

fn errors(out: &str) -> usize {
    out.lines()
        .filter(|l| l.starts_with("info string error: "))
        .count()
}

#[test]
fn handshake_declares_every_option_then_usiok() {
    let out = transcript(b"usi\n");
    let l = lines(&out);
    assert!(l[0].starts_with("id name ryoshi "), "{out}");
    assert!(l[1].starts_with("id author "), "{out}");
    assert_eq!(*l.last().unwrap(), "usiok");
    for name in [
        "USI_Variant",
        "USI_Hash",
        "USI_Ponder",
        "Threads",
        "MultiPV",
        "KakuteiNifu",
        "MoveOverhead",
        "Strategy",
        "Level",
        "GoAnalysis",
    ] {
        assert!(
            l.iter()
                .any(|x| x.starts_with(&format!("option name {name} type "))),
            "{name} missing in {out}"
        );
    }
    assert!(out.contains("option name USI_Variant type combo default quantumshogi var quantumshogi var othello var go"));
}

#[test]
fn isready_and_setoption_work_before_usi() {
    let out = transcript(b"isready\nsetoption name Threads value 1\nisready\n");
    assert_eq!(lines(&out), vec!["readyok", "readyok"]);
}

#[test]
fn an_option_the_game_ignores_says_so() {
    let out = transcript(
        b"setoption name USI_Variant value othello\nsetoption name Threads value 2\n\
          setoption name Level value 2\nsetoption name MultiPV value 3\nisready\n\
          setoption name USI_Variant value quantumshogi\nsetoption name Threads value 2\nisready\n",
    );
    assert_eq!(
        lines(&out),
        // Threads acts on Othello's exact solves.
        vec![
            "info string MultiPV has no effect on othello",
            "readyok",
            "readyok"
        ]
    );
}

#[test]
fn crlf_blank_lines_and_comments_are_fine() {
    let out =
        transcript(b"# a comment\r\n\r\n   \r\nisready\r\n  # indented comment\r\nisready\r\n");
    assert_eq!(lines(&out), vec!["readyok", "readyok"]);
}

#[test]
fn each_bad_line_gets_one_error_and_the_next_command_is_answered() {
    let input = "frobnicate\nisready\nsetoption name NoSuch value 1\nisready\nsetoption name Threads value lots\nisready\n\
                 go movetime\nisready\nposition\nisready\ngo perft\nisready\nusi extra\nisready\n";
    let out = transcript(input.as_bytes());
    let l = lines(&out);
    assert_eq!(l.len(), 14, "{out}");
    for pair in l.chunks(2) {
        assert!(pair[0].starts_with("info string error: "), "{out}");
        assert_eq!(pair[1], "readyok", "{out}");
    }
    assert!(l[0].contains("unknown command 'frobnicate'"));
    assert!(l[2].contains("unknown option 'NoSuch'"));
}

#[test]
fn a_one_megabyte_line_is_one_error() {
    let mut input = vec![b'x'; 1 << 20];
    input.extend_from_slice(b"\nisready\n");
    let out = transcript(&input);
    assert_eq!(errors(&out), 1, "{}", &out[..out.len().min(500)]);
    assert!(
        out.lines().all(|l| l.len() < 200),
        "errors must not echo the whole line"
    );
    assert!(out.ends_with("readyok\n"));
}

#[test]
fn random_bytes_never_crash_the_engine() {
    let mut state = 0x5EED_u64;
    for round in 0..20 {
        let mut input = Vec::new();
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let b = (state >> 24) as u8;
            // Keep 'quit' out of the noise; everything else goes, newlines and NULs included.
            input.push(if b == b'q' { b'Q' } else { b });
        }
        input.extend_from_slice(b"\nisready\n");
        let out = transcript(&input);
        let nonblank = input.split(|&b| b == b'\n').filter(|l| {
            let t = String::from_utf8_lossy(l);
            let t = t.trim();
            !t.is_empty() && !t.starts_with('#')
        });
        assert!(out.ends_with("readyok\n"), "round {round}: {out}");
        assert!(out.is_ascii(), "round {round}");
        // Every non-blank, non-comment noise line is answered by exactly one error line.
        assert_eq!(errors(&out), nonblank.count() - 1, "round {round}: {out}");
    }
}

#[test]
fn unknown_variant_value_is_refused_and_nothing_changes() {
    let out = transcript(b"setoption name USI_Variant value chess\nisready\n");
    assert_eq!(errors(&out), 1);
    assert!(out.contains("bad value for USI_Variant"), "{out}");
}

#[test]
fn quit_exits_without_reading_further() {
    let out = transcript(b"isready\nquit\nisready\n");
    assert_eq!(lines(&out), vec!["readyok"]);
}

#[test]
fn command_line_output_into_a_closed_pipe_ends_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(common::BIN)
        .args(["perft", "2", "--variant", "othello"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ryoshi");
    drop(child.stdout.take()); // the reader goes away before anything is written
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A person who runs `ryoshi` in a terminal is told on stderr what it waits for; a GUI's pipe
/// gets nothing on stderr and nothing extra on stdout.
// SAFETY: allowed for openpty (libc), a real terminal for the engine's stdin. Each unsafe
// block says why it is sound.
#[allow(unsafe_code)]
#[test]
fn a_terminal_is_told_what_the_engine_waits_for_and_a_pipe_is_not() {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::{Child, Command, Stdio};
    let run = |stdin: Stdio, feed: &mut dyn FnMut(&mut Child)| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ryoshi"))
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the engine starts");
        feed(&mut child);
        let mut err = String::new();
        let mut out = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert!(child.wait().unwrap().success());
        (out, err)
    };
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors into the integers it is given.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "no pseudo-terminal");
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut terminal = std::fs::File::from(master);
    let (out, err) = run(Stdio::from(slave), &mut |_| {
        terminal.write_all(b"quit\n").unwrap();
    });
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("ryoshi ") && err.contains("waiting for commands on stdin"),
        "{err}"
    );

    let (out, err) = run(Stdio::piped(), &mut |child| {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"quit\n").unwrap();
    });
    assert!(err.is_empty() && out.is_empty(), "{err}{out}");
}
