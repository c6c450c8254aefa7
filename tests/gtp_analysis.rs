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

/// The `rootInfo` visits of a kata-analyze line.
fn root_visits(line: &str) -> u64 {
    let root = line.split(" rootInfo ").nth(1).expect("a rootInfo section");
    let t: Vec<&str> = root.split_whitespace().collect();
    t[t.iter().position(|&x| x == "visits").unwrap() + 1]
        .parse()
        .unwrap()
}

#[test]
fn avoid_and_allow_send_the_visits_elsewhere() {
    let mut engine = Engine::start_with(&["gtp", "--threads", "1", "--seed", "1"]);
    let limit = Duration::from_secs(20);
    engine.send("boardsize 9");
    let _ = engine.read_until(limit, str::is_empty);
    let (_, line) = stream(&mut engine, "kata-analyze B 20 rootInfo true");
    let favourites: Vec<String> = moves(&line).into_iter().take(3).map(|m| m.0).collect();
    assert_eq!(favourites.len(), 3, "{line}");
    // Avoided: not searched at all, so every playout of the root went through another move.
    let (first, line) = stream(
        &mut engine,
        &format!(
            "kata-analyze B 20 rootInfo true avoid b {} 1",
            favourites.join(",")
        ),
    );
    assert_eq!(first, "=");
    let listed = moves(&line);
    assert!(
        listed.iter().all(|(m, _, _)| !favourites.contains(m)),
        "{line}"
    );
    let sum: u64 = listed.iter().map(|m| m.2).sum();
    assert!(sum + 1 >= root_visits(&line) && sum > 100, "{sum}: {line}");
    // Allowed: the root's playouts all went to the allowed moves.
    let (_, line) = stream(
        &mut engine,
        "kata-analyze B 20 rootInfo true allow b C3,G7 1",
    );
    let listed = moves(&line);
    assert!(
        listed.iter().all(|(m, _, _)| m == "C3" || m == "G7"),
        "{line}"
    );
    let sum: u64 = listed.iter().map(|m| m.2).sum();
    assert!(sum + 1 >= root_visits(&line) && sum > 100, "{sum}: {line}");
    // Only until the depth given: white's replies below are free (pv longer than the ban).
    let best = line.split("info move ").nth(1).unwrap();
    let best = best.split(" rootInfo ").next().unwrap();
    let pv: Vec<&str> = best
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert!(pv.len() > 1, "{line}");
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn kata_get_rules_and_kata_set_rules_with_katago_s_names() {
    let out = common::gtp_transcript(
        "kata-get-rules\nkata-set-rules chinese\nkata-set-rules japanese\n\
         kata-set-rules {\"ko\":\"SIMPLE\",\"scoring\":\"AREA\",\"suicide\":false,\"tax\":\"NONE\",\"whiteHandicapBonus\":\"N\"}\n\
         kata-set-rules chess\nkata-set-rules\nknown_command kata-set-rules\n",
    );
    let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(
        replies[0],
        "= {\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"SIMPLE\",\"scoring\":\"AREA\",\
         \"suicide\":false,\"tax\":\"NONE\",\"whiteHandicapBonus\":\"N\"}"
    );
    assert_eq!(replies[1], "=");
    assert!(
        replies[2].starts_with("? rules not supported: scoring TERRITORY")
            && replies[2].contains("whiteHandicapBonus 0"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3], "=");
    assert!(
        replies[4].starts_with("? Could not parse rules: "),
        "{}",
        replies[4]
    );
    assert!(
        replies[5].starts_with("? Could not parse rules: "),
        "{}",
        replies[5]
    );
    assert_eq!(replies[6], "= true");
}
