//! Peak memory while reading a record, through the real binary (issue 70, point 7): for each
//! record reader's worst content found, loading a file raises the process's peak resident set
//! (`VmHWM` in /proc/PID/status) by at most 16 times the file's size.
//!
//! What is asserted, exactly: the engine is started and idle; its peak is reset to its current
//! resident set (`5` written to /proc/PID/clear_refs, so that memory a previous phase touched
//! and gave back, such as the shogi hash before the variant changes, is not counted as room);
//! then after one `loadsgf`/`loadrecord` and its answer, `VmHWM - VmHWM at idle <= 16 x the
//! file's bytes`. Idle is measured after the reset, so the difference is all the load's.
//! The files are a few MiB so that the process's fixed costs are small beside 16x the file
//! (GGF's are at most 64 KiB, where those costs still fit).
//! Before the fix a file of `PB[x]` properties peaked at 33x.

mod common;

use common::Engine;
use std::path::PathBuf;
use std::time::Duration;

/// At most this many times the file's bytes above the idle process.
const RATIO: u64 = 16;

/// How long one command may take (a load of a few MiB takes about a second).
const LIMIT: Duration = Duration::from_secs(120);

/// Sends `line`, then returns the lines up to the one for which `end` holds.
fn ask(engine: &mut Engine, line: &str, end: impl Fn(&str) -> bool) -> String {
    engine.send(line);
    engine.read_until(LIMIT, end).join("\n")
}

/// A GTP command's answer (up to its empty line).
fn gtp(engine: &mut Engine, line: &str) -> String {
    ask(engine, line, |l| l.is_empty())
}

/// A USI command's output, synchronised by `isready`.
fn usi(engine: &mut Engine, line: &str) -> String {
    ask(engine, &format!("{line}\nisready"), |l| l == "readyok")
}

fn status(engine: &Engine, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", engine.id()))
        .expect("read /proc/PID/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/PID/status"))
}

/// Resets the peak to the current resident set and returns it, in bytes.
fn idle(engine: &Engine) -> u64 {
    std::fs::write(format!("/proc/{}/clear_refs", engine.id()), "5")
        .expect("reset the peak resident set (/proc/PID/clear_refs, Linux 4.0)");
    status(engine, "VmHWM:") * 1024
}

fn peak(engine: &Engine) -> u64 {
    status(engine, "VmHWM:") * 1024
}

/// `text` in a file of this test's own.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ryoshi-record-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the record");
    path
}

/// `head`, `unit` repeated to about `bytes`, then `tail`.
fn repeated(head: &str, unit: &str, tail: &str, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + head.len() + tail.len());
    s += head;
    while s.len() + unit.len() <= bytes {
        s += unit;
    }
    s + tail
}

/// Loads `text` with `load` after `setup`, checks the answer with `loaded` and the peak.
fn check(
    args: &[&str],
    setup: &[&str],
    load: &str,
    name: &str,
    text: &str,
    loaded: impl Fn(&str) -> bool,
) {
    let path = file(name, text);
    let mut engine = Engine::start_with(args);
    let command = if args == ["gtp"] { gtp } else { usi };
    for line in setup {
        command(&mut engine, line);
    }
    let idle = idle(&engine);
    let answer = command(&mut engine, &format!("{load} {}", path.display()));
    let peak = peak(&engine);
    std::fs::remove_file(&path).ok();
    assert!(loaded(&answer), "{name}: {answer}");
    let bytes = text.len() as u64;
    let above = peak.saturating_sub(idle);
    eprintln!(
        "{name}: {bytes} bytes, peak {above} bytes above idle ({:.2}x)",
        above as f64 / bytes as f64
    );
    assert!(
        above <= RATIO * bytes,
        "{name}: the load raised the peak by {above} bytes, over {RATIO}x the file's {bytes}"
    );
}

const MIB: usize = 1 << 20;

/// The SGF files' size: the densest moves take 13x, and the process's fixed costs (some 5 MiB)
/// are small beside it.
const SGF: usize = 8 * MIB;

fn gtp_loads(name: &str, text: &str) {
    check(&["gtp"], &[], "loadsgf", name, text, |a| {
        a.starts_with("= ")
    });
}

#[test]
fn an_sgf_of_repeated_properties_is_read_within_16x() {
    // 33x before: each main-line property was collected with its name and values.
    gtp_loads("names.sgf", &repeated("(;SZ[19]", "PB[x]", ")", SGF));
    // Values of one property: kept in the text, not in a list.
    gtp_loads("values.sgf", &repeated("(;SZ[19]AB", "[aa]", ")", SGF));
}

#[test]
fn an_sgf_of_passes_is_read_within_16x() {
    gtp_loads("passes.sgf", &repeated("(;SZ[19]", ";B[];W[]", ")", SGF));
    // The densest moves: each `;B[]` is a pass and the other side's pass read before it.
    gtp_loads("one-colour.sgf", &repeated("(;SZ[19]", ";B[]", ")", SGF));
    // Through the session's `loadrecord` too.
    check(
        &[],
        &["usi", "setoption name USI_Variant value go"],
        "loadrecord",
        "session.sgf",
        &repeated("(;SZ[19]", ";B[]", ")", SGF),
        |a| !a.contains("error"),
    );
}

#[test]
fn two_moves_in_one_node_are_refused() {
    // `B[]B[]`: 3 bytes for two moves would outgrow 16x; SGF gives a node one move.
    check(
        &["gtp"],
        &[],
        "loadsgf",
        "two-a-node.sgf",
        &repeated("(;SZ[19];", "B[]", ")", MIB),
        |a| a.contains("a node holds one move"),
    );
}

#[test]
fn ggf_and_kifu_are_read_within_16x() {
    // GGF files are at most 64 KiB: a root of names, and one of comments.
    for (name, unit) in [("names.ggf", "PB[x]"), ("comments.ggf", "C[x]")] {
        check(
            &[],
            &["usi", "setoption name USI_Variant value othello"],
            "loadrecord",
            name,
            &repeated("(;GM[Othello]TY[8]", unit, "B[F5];)", 64 * 1024 - 16),
            |a| !a.contains("error"),
        );
    }
    // A kifu's one long tag (tags are kept; moves are at most 10,000 plies).
    check(
        &[],
        &["usi"],
        "loadrecord",
        "tag.kif",
        &repeated("[Game \"quantum shogi\"]\n[Note \"", "x", "\"]\n", 4 * MIB),
        |a| !a.contains("error"),
    );
}
