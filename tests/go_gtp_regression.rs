//! GNU Go's `unconditional.tst` (673 checks on 12 SGF files), run through `ryoshi gtp`.

mod common;

use std::collections::BTreeMap;

/// Runs a GTP script through the real binary and returns the replies by id.
fn run_gtp(script: &str) -> BTreeMap<u64, (bool, String)> {
    let text = common::gtp_transcript(script);
    let mut replies = BTreeMap::new();
    for block in text.split("\n\n").filter(|b| !b.is_empty()) {
        let ok = block.starts_with('=');
        assert!(ok || block.starts_with('?'), "bad reply block {block:?}");
        let body = &block[1..];
        let digits: String = body.chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            assert!(ok, "a command without id failed: {block:?}");
            continue;
        }
        let rest = body[digits.len()..].trim().to_string();
        replies.insert(digits.parse().unwrap(), (ok, rest));
    }
    replies
}

#[test]
fn gnugo_unconditional_suite() {
    let dir = common::data_path("go/gnugo-unconditional");
    let tst = common::read_data_text("go/gnugo-unconditional/unconditional.tst");
    let script = tst.replace("games/unconditional/", &format!("{}/", dir.display()));
    // Expected answers: "#? [answer]" after a numbered command (brackets not always closed).
    let mut expected = Vec::new();
    let mut last_id = None;
    for line in tst.lines() {
        if let Some(pattern) = line.strip_prefix("#?") {
            let p = pattern.trim().trim_start_matches('[').trim_end_matches(']');
            let id = last_id.take().expect("a check follows a numbered command");
            expected.push((id, p.to_string()));
        } else if let Some(first) = line.split_whitespace().next() {
            if let Ok(id) = first.parse::<u64>() {
                last_id = Some(id);
            }
        }
    }
    assert_eq!(expected.len(), 673);
    let replies = run_gtp(&script);
    let mut passed = 0;
    let mut failures = Vec::new();
    for (id, want) in &expected {
        let (ok, got) = replies
            .get(id)
            .cloned()
            .unwrap_or((false, "<no reply>".into()));
        if ok && want.split('|').any(|w| w == got) {
            passed += 1;
        } else {
            failures.push(format!("{id}: expected {want}, got {got}"));
        }
    }
    println!("GNU Go unconditional.tst: {passed}/673 passed");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
