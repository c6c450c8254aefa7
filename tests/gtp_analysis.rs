//! The analysis commands as Sabaki, Lizzie and KataGo's clients send them, through the real
//! binary (protocol/gtp.md, "Analysis win rates"): a decimal interval and `rootInfo`, Leela
//! Zero's `avoid`, and `analyze` in Leela Zero's form with win rates a client can take at face
//! value.

mod common;

use common::Engine;
use std::time::Duration;

/// Sends `command`, reads its first line and (if accepted) two analysis lines, stops the
/// stream with `name`, and returns the first line and the last analysis line.
fn stream(engine: &mut Engine, command: &str) -> (String, String) {
    let limit = Duration::from_secs(20);
    engine.send(command);
    let first = engine.next_line(limit).expect("the reply's first line");
    if !first.starts_with('=') {
        let _ = engine.next_line(limit);
        return (first, String::new());
    }
    let mut last = String::new();
    for _ in 0..2 {
        last = engine.next_line(limit).expect("an analysis line");
    }
    engine.send("name");
    let rest = engine.read_until(limit, |l| l == "= ryoshi");
    assert_eq!(
        rest.last().map(String::as_str),
        Some("= ryoshi"),
        "{rest:?}"
    );
    let _ = engine.next_line(limit);
    (first, last)
}

/// `info move <v> <key> <value>...` segments: (move, winrate text, visits).
fn moves(line: &str) -> Vec<(String, String, u64)> {
    line.split("info move ")
        .skip(1)
        .map(|seg| {
            let t: Vec<&str> = seg.split_whitespace().collect();
            let get = |k: &str| {
                t.iter()
                    .position(|&x| x == k)
                    .and_then(|i| t.get(i + 1))
                    .map_or(String::new(), |s| s.to_string())
            };
            (
                t[0].to_string(),
                get("winrate"),
                get("visits").parse().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn katago_and_leela_zero_arguments_through_the_binary() {
    let mut engine = Engine::start_with(&["gtp", "--threads", "1", "--seed", "1"]);
    engine.send("boardsize 9");
    assert_eq!(
        engine.next_line(Duration::from_secs(5)).as_deref(),
        Some("=")
    );
    let _ = engine.next_line(Duration::from_secs(5));

    // KataGo: a decimal interval and rootInfo.
    let (first, line) = stream(&mut engine, "kata-analyze B 25.5 rootInfo true");
    assert_eq!(first, "=");
    let root = line.split(" rootInfo ").nth(1).expect("a rootInfo section");
    assert!(
        root.starts_with("visits ") && root.contains(" winrate 0.") && root.contains(" scoreLead "),
        "{root}"
    );
    assert!(root.ends_with("currentPlayer B"), "{root}");

    // Lizzie's avoid: accepted, and the avoided moves are not listed.
    let (first, line) = stream(&mut engine, "lz-analyze 10 avoid b D4,E5 1");
    assert_eq!(first, "=");
    let listed = moves(&line);
    assert!(!listed.is_empty(), "{line}");
    assert!(
        listed.iter().all(|(m, _, _)| m != "D4" && m != "E5"),
        "{line}"
    );

    // Sabaki's `analyze`: Leela Zero's form (integers in 1/10000), most visited first, and the
    // highest win rate listed is the best move's.
    let (first, line) = stream(&mut engine, "analyze B 50");
    assert_eq!(first, "=");
    let listed = moves(&line);
    let rates: Vec<i64> = listed
        .iter()
        .map(|(_, w, _)| {
            w.parse()
                .unwrap_or_else(|_| panic!("an integer win rate: {line}"))
        })
        .collect();
    assert!(rates.iter().all(|w| (0..=10000).contains(w)), "{line}");
    assert_eq!(rates.iter().max(), rates.first(), "{line}");
    assert!(listed.windows(2).all(|p| p[0].2 >= p[1].2), "{line}");

    // Refused with the one error line, and the session goes on.
    let (first, _) = stream(&mut engine, "kata-analyze B 10 rootInfo maybe");
    assert!(
        first.starts_with("? expected [color] [interval]"),
        "{first}"
    );
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn a_report_with_nothing_to_list_is_not_an_empty_line() {
    let mut engine = Engine::start_with(&["gtp", "--threads", "1", "--seed", "1"]);
    let limit = Duration::from_secs(20);
    engine.send("boardsize 9");
    let _ = engine.read_until(limit, str::is_empty);
    // Lizzie's area analysis with a corner allowed that the search rarely visits: reports
    // before it is visited have nothing to list.
    engine.send("lz-analyze b 10 allow b A1 1");
    assert_eq!(engine.next_line(limit).as_deref(), Some("="));
    std::thread::sleep(Duration::from_millis(700));
    engine.send("name");
    let lines = engine.read_until(limit, |l| l == "= ryoshi");
    let empty = lines.iter().filter(|l| l.is_empty()).count();
    assert_eq!(empty, 1, "one empty line, the reply's end: {lines:?}");
    for line in lines.iter().filter(|l| l.starts_with("info ")) {
        assert!(moves(line).iter().all(|(mv, _, _)| mv == "A1"), "{line}");
    }
}
