//! The engine's debug log (USI `setoption name DebugLog value <file>`, the CLI's
//! `--debug-log FILE`) and `ryoshi serve --access-log FILE`, through the real binary.

mod serve_support;

use serve_support::Server;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("ryoshi-log-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// `2026-12-04T19:05:01.123Z <text>`: the text, the timestamp checked.
fn text_of(line: &str) -> &str {
    let (stamp, text) = line.split_once(' ').expect("a timestamp and a text");
    let b = stamp.as_bytes();
    assert!(
        stamp.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z',
        "{line}"
    );
    text
}

fn run(args: &[&str], input: &str) -> (String, String, Option<i32>) {
    let mut child = Command::new(serve_support::BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // An engine that refuses its arguments ends before reading: its closed pipe is no
    // failure here, its exit code and output are what the tests check.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn debug_log_option_records_every_line_in_and_out() {
    let path = temp("usi.log");
    let script = format!(
        "usi\nsetoption name DebugLog value {}\nisready\nsetoption name DebugLog value /nonexistent-dir/x.log\nposition startpos\ngo depth 1\n",
        path.display()
    );
    let (out, _, code) = run(&[], &script);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("option name DebugLog type string default <empty>\n"),
        "{out}"
    );
    // A path that cannot be opened: one error line, the log kept, the engine goes on.
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(
        errors,
        ["info string error: DebugLog: cannot open '/nonexistent-dir/x.log': No such file or directory (os error 2)"],
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("bestmove")), "{out}");
    let log = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let texts: Vec<&str> = log.lines().map(text_of).collect();
    // Everything after the option was set, in order: lines in `< `, lines out `> `.
    let sent: Vec<String> = out
        .lines()
        .skip_while(|l| *l != "readyok")
        .map(|l| format!("> {l}"))
        .collect();
    assert_eq!(texts[0], "< isready", "{log}");
    assert_eq!(texts[1], "> readyok", "{log}");
    let outs: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| t.starts_with("> "))
        .collect();
    assert_eq!(outs, sent, "{log}");
    assert!(texts.contains(&"< go depth 1"), "{log}");
}

#[test]
fn debug_log_closes_on_a_value_with_nothing_after_it() {
    let path = temp("closed.log");
    let script = format!(
        "setoption name DebugLog value {}\nisready\nsetoption name DebugLog value\nisready\n",
        path.display()
    );
    let (out, _, code) = run(&[], &script);
    assert_eq!(code, Some(0));
    assert_eq!(
        out, "readyok\nreadyok\n",
        "no error line for the empty value"
    );
    let log = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let texts: Vec<&str> = log.lines().map(text_of).collect();
    // The closing line is the last one logged: the second `isready` is not.
    assert_eq!(
        texts,
        ["< isready", "> readyok", "< setoption name DebugLog value"],
        "{log}"
    );
}

#[test]
fn debug_log_flag_covers_the_nboard_loop() {
    let path = temp("nboard.log");
    let p = path.display().to_string();
    let (out, _, _) = run(
        &["nboard", "--debug-log", &p],
        "nboard 2\nset depth 2\nping 1\n",
    );
    let log = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let texts: Vec<&str> = log.lines().map(text_of).collect();
    assert_eq!(
        texts,
        [
            "< nboard 2",
            "> set myname ryoshi",
            "< set depth 2",
            "> set myname ryoshi-2",
            "< ping 1",
            "> pong 1"
        ],
        "{out}"
    );
    // A log that cannot be opened is refused before anything starts.
    let (out, err, code) = run(&["--debug-log", "/nonexistent-dir/x.log"], "usi\n");
    assert_eq!(code, Some(2));
    assert!(
        out.is_empty() && err.contains("--debug-log: cannot open"),
        "{err}"
    );
}

#[test]
fn debug_log_flag_covers_the_gtp_loop() {
    // `ryoshi gtp --debug-log FILE` was accepted and left the file empty.
    let path = temp("gtp.log");
    let p = path.display().to_string();
    let (out, _, _) = run(&["gtp", "--debug-log", &p], "1 name\nbogus\n");
    let log = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let texts: Vec<&str> = log.lines().map(text_of).collect();
    assert_eq!(
        texts,
        [
            "< 1 name",
            "> =1 ryoshi",
            "> ",
            "< bogus",
            "> ? unknown command",
            "> "
        ],
        "{out}"
    );
}

#[test]
fn access_log_has_one_line_per_request() {
    let path = temp("access.log");
    let p = path.display().to_string();
    let server = Server::start_with(2, &["--access-log", &p]);
    assert!(server.get("/status", "").starts_with("HTTP/1.1 200"));
    assert!(server.get("/no/such/page", "").starts_with("HTTP/1.1 404"));
    // Upgrades refused by the socket layer are logged with the status they got, not 101.
    let upgrade = |origin: &str, version: u32| {
        format!(
            "Upgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: {version}\r\n\
             Origin: {origin}\r\n"
        )
    };
    let own = format!("http://{}", server.host);
    let answers = [
        server.get("/ws", &upgrade("http://evil.example", 13)),
        server.get("/ws", &upgrade(&own, 8)),
        server.get("/elsewhere", &upgrade(&own, 13)),
    ];
    for (answer, status) in answers.iter().zip(["403", "426", "404"]) {
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}"
        );
    }
    let expected = [
        ("/status", "200"),
        ("/no/such/page", "404"),
        ("/ws", "403"),
        ("/ws", "426"),
        ("/elsewhere", "404"),
    ];
    let deadline = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = std::fs::read_to_string(&path).unwrap_or_default();
        if log.lines().count() >= expected.len() || Instant::now() > deadline {
            break log;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(server);
    let _ = std::fs::remove_file(&path);
    let texts: Vec<Vec<&str>> = log
        .lines()
        .map(|l| text_of(l).split(' ').collect())
        .collect();
    assert_eq!(texts.len(), expected.len(), "{log}");
    for (fields, (path, status)) in texts.iter().zip(expected) {
        assert!(fields[0].starts_with("127.0.0.1:"), "{log}");
        assert_eq!(&fields[1..], ["GET", path, status], "{log}");
    }
}
