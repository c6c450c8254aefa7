//! `ryoshi analysis`, KataGo's analysis engine protocol, through the real binary: the examples
//! of KataGo's docs/Analysis_Engine.md byte for byte, the errors and warnings, the search
//! keeping off `avoidMoves`, several queries in flight answered as each ends, `terminate`,
//! and the bounded queue (protocol/analysis.md).

mod common;

use common::Engine;
use serde_json::Value;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn start(args: &[&str]) -> Engine {
    let mut all = vec!["analysis", "--seed", "1"];
    all.extend_from_slice(args);
    Engine::start_with(&all)
}

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// Lines until the final answer (`isDuringSearch` false) for `id` at `turn`, parsed.
fn until_final(engine: &mut Engine, id: &str, turn: u64) -> Vec<Value> {
    let lines = engine.read_until(LIMIT, |l| {
        let v = json(l);
        v["id"] == id && v["turnNumber"] == turn && v["isDuringSearch"] == false
    });
    lines.iter().map(|l| json(l)).collect()
}

/// Checks the fields every answer has, and returns its moves' names.
fn check_answer(v: &Value, size: usize) -> Vec<String> {
    let infos = v["moveInfos"].as_array().expect("moveInfos");
    assert!(!infos.is_empty(), "{v}");
    for (order, m) in infos.iter().enumerate() {
        assert_eq!(m["order"], order as u64, "{m}");
        for key in ["winrate", "lcb", "prior"] {
            let x = m[key].as_f64().unwrap_or_else(|| panic!("{key}: {m}"));
            assert!((-1.0..=2.0).contains(&x), "{key}: {m}");
        }
        assert_eq!(m["scoreMean"], m["scoreLead"], "{m}");
        assert_eq!(m["edgeVisits"], m["visits"], "{m}");
        let w = m["winrate"].as_f64().unwrap();
        let u = m["utility"].as_f64().unwrap();
        assert!((u - (2.0 * w - 1.0)).abs() < 1e-9, "{m}");
        assert_eq!(m["pv"][0], m["move"], "{m}");
    }
    let visits: Vec<u64> = infos
        .iter()
        .map(|m| m["visits"].as_u64().unwrap())
        .collect();
    assert!(visits.windows(2).all(|p| p[0] >= p[1]), "{visits:?}");
    let root = &v["rootInfo"];
    assert!(
        root["visits"].as_u64().unwrap() >= visits.iter().sum::<u64>(),
        "{v}"
    );
    assert!(root["winrate"].as_f64().is_some() && root["scoreLead"].as_f64().is_some());
    if let Some(own) = v.get("ownership") {
        assert_eq!(own.as_array().unwrap().len(), size * size);
    }
    if let Some(policy) = v.get("policy") {
        assert_eq!(policy.as_array().unwrap().len(), size * size + 1);
    }
    infos
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_documents_example_query_is_answered_turn_by_turn() {
    let mut engine = start(&["--analysis-threads", "1", "--visits", "200"]);
    // docs/Analysis_Engine.md's example query, as it stands there.
    engine.send(r#"{"id":"foo","initialStones":[["B","Q4"],["B","C4"]],"moves":[["W","P5"],["B","P6"]],"rules":"tromp-taylor","komi":7.5,"boardXSize":19,"boardYSize":19,"analyzeTurns":[0,1,2]}"#);
    // Tromp-Taylor's positional superko and suicide are not ryoshi's: a warning, then the search.
    let warning = json(&engine.next_line(LIMIT).expect("a warning"));
    assert_eq!(warning["id"], "foo");
    assert_eq!(warning["field"], "rules");
    let text = warning["warning"].as_str().unwrap();
    assert!(
        text.contains("ko POSITIONAL") && text.contains("suicide"),
        "{text}"
    );
    let mut turns = Vec::new();
    for _ in 0..3 {
        let v = json(&engine.next_line(LIMIT).expect("an answer"));
        assert_eq!(v["id"], "foo");
        assert_eq!(v["isDuringSearch"], false);
        check_answer(&v, 19);
        turns.push((
            v["turnNumber"].as_u64().unwrap(),
            v["rootInfo"]["currentPlayer"].clone(),
        ));
    }
    // One worker: in the order asked. Two black stones alone are handicap: white starts.
    assert_eq!(turns, [(0, "W".into()), (1, "B".into()), (2, "W".into())]);
    // The document's actions, as they stand there.
    engine.send(r#"{"id":"foo","action":"query_version"}"#);
    let v = json(&engine.next_line(LIMIT).unwrap());
    assert_eq!(
        (&v["id"], &v["action"]),
        (&"foo".into(), &"query_version".into())
    );
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["git_hash"].is_string());
    engine.send(r#"{"id":"foo","action":"clear_cache"}"#);
    assert_eq!(
        json(&engine.next_line(LIMIT).unwrap()),
        json(r#"{"id":"foo","action":"clear_cache"}"#)
    );
    for action in [
        r#"{"id":"bar","action":"terminate","terminateId":"foo"}"#,
        r#"{"id":"bar","action":"terminate","terminateId":"foo","turnNumbers":[1,2]}"#,
        r#"{"id":"bar","action":"terminate_all"}"#,
        r#"{"id":"bar","action":"terminate_all","turnNumbers":[1,2]}"#,
    ] {
        engine.send(action);
        assert_eq!(json(&engine.next_line(LIMIT).unwrap()), json(action));
    }
    engine.close_stdin();
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn errors_and_warnings_as_katago_sends_them_and_the_engine_goes_on() {
    let mut engine = start(&["--analysis-threads", "1", "--visits", "50"]);
    let cases: [(&str, Option<&str>, &str); 10] = [
        (
            "not json",
            None,
            "could not parse input line as json request",
        ),
        ("[1,2]", None, "was not an object"),
        (r#"{"moves":[]}"#, None, "must have a string \"id\" field"),
        (
            r#"{"id":"a","action":"reboot"}"#,
            None,
            "'action' field must be",
        ),
        (
            r#"{"id":"b","action":"terminate"}"#,
            Some("terminateId"),
            "must have a string",
        ),
        (
            r#"{"id":"c","moves":[],"rules":"chinese","boardXSize":19}"#,
            Some("boardYSize"),
            "from 2 to 25",
        ),
        (
            r#"{"id":"d","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":13}"#,
            Some("boardYSize"),
            "square",
        ),
        (
            r#"{"id":"e","moves":[],"rules":"chess","boardXSize":9,"boardYSize":9}"#,
            Some("rules"),
            "Could not parse rules",
        ),
        (
            r#"{"id":"f","moves":[["B","D4"],["W","D4"]],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
            Some("moves"),
            "Illegal move 1: D4",
        ),
        (
            r#"{"id":"g","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"analyzeTurns":[1]}"#,
            Some("analyzeTurns"),
            "Invalid turn number: 1",
        ),
    ];
    for (line, field, text) in cases {
        engine.send(line);
        let v = json(&engine.next_line(LIMIT).expect("one error line"));
        let error = v["error"].as_str().unwrap_or_else(|| panic!("{line}: {v}"));
        assert!(error.contains(text), "{line}: {v}");
        assert_eq!(v.get("field").and_then(Value::as_str), field, "{line}: {v}");
        if field.is_some() {
            assert!(v["id"].is_string(), "{v}");
        }
    }
    // Warnings: KaTrain's Japanese rules and its settings; the query is still answered.
    engine.send(r#"{"id":"w","moves":[["B","E5"]],"rules":"japanese","komi":6.5,"boardXSize":9,"boardYSize":9,"includeMovesOwnership":true,"overrideSettings":{"reportAnalysisWinratesAs":"BLACK","wideRootNoise":0.04,"maxTime":8},"colour":"B"}"#);
    let lines = until_final(&mut engine, "w", 1);
    let fields: Vec<&str> = lines
        .iter()
        .filter(|v| v.get("warning").is_some())
        .map(|v| v["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "rules",
            "includeMovesOwnership",
            "overrideSettings",
            "colour"
        ],
        "{lines:?}"
    );
    check_answer(lines.last().unwrap(), 9);
    engine.close_stdin();
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn avoided_moves_get_no_visits_and_the_others_get_them_all() {
    let mut engine = start(&["--analysis-threads", "1"]);
    let query = |extra: &str| {
        format!(
            r#"{{"id":"q","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":1500,"includePolicy":true,"includeOwnership":true,"includePVVisits":true{extra}}}"#
        )
    };
    engine.send(&query(""));
    let free = until_final(&mut engine, "q", 2).pop().unwrap();
    let names = check_answer(&free, 9);
    let favourites: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
    let banned = serde_json::to_string(&favourites).unwrap();
    engine.send(&query(&format!(
        r#","avoidMoves":[{{"player":"B","moves":{banned},"untilDepth":1}}]"#
    )));
    let avoided = until_final(&mut engine, "q", 2).pop().unwrap();
    let names = check_answer(&avoided, 9);
    assert!(
        names.iter().all(|n| !favourites.contains(&n.as_str())),
        "{favourites:?} {names:?}"
    );
    // Every playout went through a move that is allowed: the root's visits are theirs.
    let sum: u64 = avoided["moveInfos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["visits"].as_u64().unwrap())
        .sum();
    assert_eq!(
        sum,
        avoided["rootInfo"]["visits"].as_u64().unwrap(),
        "{avoided}"
    );
    assert_eq!(sum, 1500);
    // allowMoves: the two moves alone at the root, but both sides free below it.
    engine.send(&query(
        r#","allowMoves":[{"player":"B","moves":["G3","pass"],"untilDepth":1}]"#,
    ));
    let allowed = until_final(&mut engine, "q", 2).pop().unwrap();
    let names = check_answer(&allowed, 9);
    assert!(names.iter().all(|n| n == "G3" || n == "pass"), "{names:?}");
    assert!(
        allowed["moveInfos"][0]["pv"].as_array().unwrap().len() > 1,
        "{allowed}"
    );
    // The policy marks the occupied points illegal; pvVisits follow the pv.
    let policy = free["policy"].as_array().unwrap();
    let e5 = 4 * 9 + 4;
    assert_eq!(policy[e5], -1.0);
    let legal: f64 = policy
        .iter()
        .filter_map(Value::as_f64)
        .filter(|p| *p >= 0.0)
        .sum();
    assert!((legal - 1.0).abs() < 1e-3, "{legal}");
    let first = &free["moveInfos"][0];
    assert_eq!(
        first["pvVisits"].as_array().unwrap().len(),
        first["pv"].as_array().unwrap().len()
    );
    assert_eq!(first["pvVisits"][0], first["visits"]);
    engine.close_stdin();
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn black_s_view_and_the_side_to_move_s_view_agree() {
    // White to move: the same seeded search seen from black and from white.
    let mut engine = start(&["--analysis-threads", "1"]);
    let query = |id: &str, view: &str| {
        format!(
            r#"{{"id":"{id}","moves":[["B","E5"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":400,"includeOwnership":true,"overrideSettings":{{"reportAnalysisWinratesAs":"{view}"}}}}"#
        )
    };
    engine.send(&query("black", "BLACK"));
    engine.send(&query("white", "SIDETOMOVE"));
    let b = until_final(&mut engine, "black", 1).pop().unwrap();
    let w = until_final(&mut engine, "white", 1).pop().unwrap();
    let (rb, rw) = (&b["rootInfo"], &w["rootInfo"]);
    assert_eq!(rb["visits"], rw["visits"]);
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    assert!(
        (f(rb, "winrate") + f(rw, "winrate") - 1.0).abs() < 1e-9,
        "{rb} {rw}"
    );
    assert!(
        (f(rb, "scoreLead") + f(rw, "scoreLead")).abs() < 1e-9,
        "{rb} {rw}"
    );
    let (ob, ow) = (
        b["ownership"].as_array().unwrap(),
        w["ownership"].as_array().unwrap(),
    );
    assert!(ob
        .iter()
        .zip(ow)
        .all(|(x, y)| (x.as_f64().unwrap() + y.as_f64().unwrap()).abs() < 1e-9));
    // E5, black's stone, is black's: positive from black's side.
    assert!(ob[4 * 9 + 4].as_f64().unwrap() > 0.5, "{b}");
    engine.close_stdin();
    assert!(engine.wait_exit(Duration::from_secs(10)));
}

#[test]
fn queries_in_flight_answer_as_each_ends_and_terminate_stops_them() {
    let mut engine = start(&["--analysis-threads", "2", "--max-queued", "2"]);
    let long = |id: &str| {
        format!(
            r#"{{"id":"{id}","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":100000000,"reportDuringSearchEvery":0.05}}"#
        )
    };
    let short = r#"{"id":"short","moves":[["B","D4"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":50}"#;
    engine.send(&long("long"));
    engine.send(short);
    // The short one, sent second, is answered while the long one still searches.
    let mut log = until_final(&mut engine, "short", 1);
    assert!(log
        .iter()
        .all(|v| v["id"] != "long" || v["isDuringSearch"] == true));
    // The long one reports as it searches (every 50 ms).
    let reporting = |v: &Value| v["id"] == "long" && v["isDuringSearch"] == true;
    if !log.iter().any(reporting) {
        let more = engine.read_until(LIMIT, |l| reporting(&json(l)));
        log.extend(more.iter().map(|l| json(l)));
    }
    // Both workers busy, or about to be: at most two wait, the rest is refused.
    for id in ["wait1", "wait2", "wait3", "wait4"] {
        engine.send(&long(id));
    }
    log.extend(
        engine
            .read_until(LIMIT, |l| json(l).get("error").is_some())
            .iter()
            .map(|l| json(l)),
    );
    // terminate_all: waiting ones answer noResults, running ones their partial results; at
    // the end of the input the engine exits once every query has its one final answer.
    engine.send(r#"{"id":"t","action":"terminate_all"}"#);
    engine.close_stdin();
    while let Some(line) = engine.next_line(LIMIT) {
        log.push(json(&line));
    }
    assert!(engine.wait_exit(Duration::from_secs(10)));
    let refused: Vec<&str> = log
        .iter()
        .filter(|v| v.get("error").is_some())
        .map(|v| {
            assert!(
                v["error"].as_str().unwrap().contains("query refused"),
                "{v}"
            );
            v["id"].as_str().unwrap()
        })
        .collect();
    assert!(!refused.is_empty() && refused.len() <= 2, "{refused:?}");
    let finals = |id: &str| -> Vec<&Value> {
        log.iter()
            .filter(|v| {
                v["id"] == id && v["isDuringSearch"] == false && v.get("turnNumber").is_some()
            })
            .collect()
    };
    for id in ["long", "short", "wait1", "wait2", "wait3", "wait4"] {
        let want = usize::from(!refused.contains(&id));
        assert_eq!(finals(id).len(), want, "{id}: {log:#?}");
    }
    check_answer(finals("long")[0], 19);
    assert!(log
        .iter()
        .any(|v| v["id"] == "long" && v["isDuringSearch"] == true));
    assert!(log.iter().any(|v| v["noResults"] == true), "{log:#?}");
    assert!(log.iter().any(|v| v["action"] == "terminate_all"));
}

#[test]
fn hostile_lines_each_get_json_lines_and_the_engine_goes_on() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let base = r#"{"id":"z","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":20,"analyzeTurns":[0,1,2],"avoidMoves":[{"player":"W","moves":["D4"],"untilDepth":2}]}"#;
    let mut lines: Vec<String> = vec![
        "[".repeat(100_000),
        format!("{{\"id\":\"n\",\"rules\":{}}}", "{\"a\":".repeat(5000)),
        r#"{"id":"big","moves":[],"rules":"chinese","boardXSize":1e999,"boardYSize":9}"#.into(),
        r#"{"id":"neg","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":-1}"#.into(),
        r#"{"id":"ko","moves":[],"rules":{"ko":["SIMPLE"]},"boardXSize":9,"boardYSize":9}"#.into(),
        r#"{"id":"t","action":"terminate","terminateId":"z","turnNumbers":[1e300,-5,"x"]}"#.into(),
        "{\"id\":\"\u{0}\u{7f}\u{202e}\",\"moves\":[[\"B\",\"\u{3000}\"]],\"rules\":\"chinese\",\"boardXSize\":9,\"boardYSize\":9}".into(),
    ];
    // Seeded mutations of a good query: a byte dropped, replaced or the line cut short.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    let symbols = b"{}[],:\"x- ";
    for _ in 0..200 {
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..1 + next(3) {
            let at = next(bytes.len());
            match next(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes[at] = symbols[next(symbols.len())],
                _ => bytes.truncate(at.max(1)),
            }
        }
        lines.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    let mut child = Command::new(common::BIN)
        .args(["analysis", "--visits", "20", "--analysis-threads", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start ryoshi");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for line in lines {
            writeln!(stdin, "{line}").expect("the engine reads on");
        }
    });
    let out = child.wait_with_output().expect("the engine ends");
    writer.join().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut answers = 0;
    for line in text.lines() {
        let v = json(line);
        assert!(v.is_object(), "{line}");
        if v.get("moveInfos").is_some() {
            answers += 1;
        }
    }
    // At least the mutations that left the query whole were answered.
    assert!(answers > 0 && text.lines().count() >= 150, "{text}");
}
