//! The 105-position safety oracle: Fuego's `go_safe benson`, GNU Go's `unconditional_status`.

mod common;

use ryoshi::go::analysis::{classic, extended, Analysis};
use ryoshi::go::notation::{format_vertex, parse_position};
use ryoshi::go::{Board, Color};
use serde_json::Value;
use std::collections::BTreeSet;

fn positions() -> Vec<(String, Board, Value)> {
    let text = common::read_data_text("go/safety-oracle-105.json");
    let data: Value = serde_json::from_str(&text).expect("oracle JSON");
    let list = data.as_array().expect("a list");
    assert_eq!(list.len(), 105);
    list.iter()
        .map(|x| {
            let rows: Vec<&str> = x["rows_top_to_bottom"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            let size = x["size"].as_u64().unwrap();
            let fields = vec![size.to_string(), rows.join("/"), "b".to_string()];
            let (board, _) = parse_position(&fields).expect("oracle position");
            (x["source"].as_str().unwrap().to_string(), board, x.clone())
        })
        .collect()
}

fn set(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The points an analysis proves safe for `color`.
fn safe_for(a: &Analysis, board: &Board, color: Color) -> BTreeSet<String> {
    board
        .points()
        .filter(|&p| a.owner(board, p) == Some(color))
        .map(|p| format_vertex(board, p))
        .collect()
}

/// GNU Go's answer as per-colour safe sets.
fn gnugo_safe(board: &Board, g: &Value, color: Color) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let stone = |v: &str| {
        board
            .points()
            .find(|&p| format_vertex(board, p) == v)
            .map(|p| board.get(p))
            .unwrap()
    };
    for v in set(&g["alive"]) {
        if stone(&v) == color.cell() {
            out.insert(v);
        }
    }
    for v in set(&g["dead"]) {
        if stone(&v) == color.other().cell() {
            out.insert(v);
        }
    }
    let key = match color {
        Color::Black => "black_territory",
        Color::White => "white_territory",
    };
    out.extend(set(&g[key]));
    out
}

#[test]
fn classic_matches_fuego_benson_on_all_105() {
    let mut agree = 0;
    let mut failures = Vec::new();
    for (source, board, x) in positions() {
        let a = classic(&board);
        let ok = [Color::Black, Color::White].iter().all(|&c| {
            let key = if c == Color::Black { "black" } else { "white" };
            safe_for(&a, &board, c) == set(&x["fuego_benson"][key])
        });
        if ok {
            agree += 1;
        } else {
            failures.push(source);
        }
    }
    println!("benson classic agrees with Fuego on {agree}/105");
    assert!(failures.is_empty(), "disagreements: {failures:#?}");
}

#[test]
fn extended_is_within_gnugo_and_covers_classic() {
    let mut reached = 0usize;
    let mut total = 0usize;
    let mut exact = 0usize;
    for (source, board, x) in positions() {
        let c = classic(&board);
        let e = extended(&board, None);
        let mut same = true;
        for color in [Color::Black, Color::White] {
            let mine = safe_for(&e, &board, color);
            let gnu = gnugo_safe(&board, &x["gnugo_unconditional"], color);
            let extra: Vec<_> = mine.difference(&gnu).collect();
            assert!(
                extra.is_empty(),
                "{source}: {color:?} points GNU Go does not give: {extra:?}"
            );
            let lost: Vec<_> = safe_for(&c, &board, color)
                .difference(&mine)
                .cloned()
                .collect();
            assert!(
                lost.is_empty(),
                "{source}: classic points missing: {lost:?}"
            );
            reached += mine.len();
            total += gnu.len();
            same &= mine == gnu;
        }
        exact += same as usize;
    }
    println!("benson reaches {reached}/{total} of GNU Go's points; identical on {exact}/105");
    assert_eq!(reached, total);
}
