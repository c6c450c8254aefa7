//! `GoAnalysis` under `USI_Variant go`: every report of `go` is followed by
//! `info string analysis <the line kata-analyze ownership true prints>`, which the Go page's live
//! analysis reads (candidate moves with visits and win rates, the ownership per point).

mod common;

fn session(lines: &[&str]) -> Vec<String> {
    let mut input = String::from("setoption name USI_Variant value go\n");
    for l in lines {
        input.push_str(l);
        input.push('\n');
    }
    // No `quit`: it would stop the search at once; at the end of the input the session lets
    // the search finish, answers it and exits.
    common::transcript(input.as_bytes())
        .lines()
        .map(str::to_string)
        .collect()
}

struct Candidate {
    vertex: String,
    visits: u64,
    winrate: f64,
    order: usize,
}

/// The candidates and the ownership of one analysis line.
fn parse(line: &str) -> (Vec<Candidate>, Vec<f64>) {
    let rest = line
        .strip_prefix("info string analysis ")
        .expect("an analysis line");
    let (moves, ownership) = rest.split_once(" ownership ").expect("ownership");
    let ownership = ownership
        .split(' ')
        .map(|v| v.parse::<f64>().expect("a number"))
        .collect();
    let mut out = Vec::new();
    for item in moves.split("info move ").filter(|s| !s.trim().is_empty()) {
        let w: Vec<&str> = item.split_whitespace().collect();
        let field = |name: &str| -> &str {
            let at = w
                .iter()
                .position(|x| *x == name)
                .unwrap_or_else(|| panic!("{name} in {item}"));
            w[at + 1]
        };
        out.push(Candidate {
            vertex: w[0].to_string(),
            visits: field("visits").parse().expect("visits"),
            winrate: field("winrate").parse().expect("winrate"),
            order: field("order").parse().expect("order"),
        });
    }
    (out, ownership)
}

// Each half has two eyes on its edge row: both are alive whoever moves, not a capturing race
// over the shared middle row that a few hundred playouts can read either way.
const HALVES: &str = "sfen 9 X.XXXXX.X/XXXXXXXXX/XXXXXXXXX/XXXXXXXXX/........./OOOOOOOOO/OOOOOOOOO/OOOOOOOOO/O.OOOOO.O b";

#[test]
fn reports_candidates_and_ownership() {
    let out = session(&[
        "setoption name GoAnalysis value true",
        "setoption name Seed value 3",
        "position sfen 9 ........./........./........./........./........./........./........./........./......... b",
        "moves",
        "go nodes 400",
    ]);
    let legal: Vec<&str> = out[0].split(' ').collect();
    let lines: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("info string analysis "))
        .collect();
    assert!(!lines.is_empty(), "{out:#?}");
    let (moves, ownership) = parse(lines.last().unwrap());
    assert_eq!(ownership.len(), 81);
    assert!(ownership.iter().all(|o| (-1.0..=1.0).contains(o)));
    assert!(moves.len() > 3, "{}", lines.last().unwrap());
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m.order, i);
        assert!(
            m.vertex == "pass" || legal.contains(&m.vertex.as_str()),
            "{}",
            m.vertex
        );
        assert!((0.0..=1.0).contains(&m.winrate));
        if i > 0 {
            assert!(m.visits <= moves[i - 1].visits, "most visited first");
        }
    }
    // The move played is the most visited one, the first of the analysis.
    let best = out.last().unwrap().split(' ').nth(1).unwrap();
    assert_eq!(best, moves[0].vertex);
}

#[test]
fn ownership_is_top_row_first_and_the_side_to_moves() {
    for (side, sign) in [("b", 1.0), ("w", -1.0)] {
        let position = format!("position {}", &HALVES[..HALVES.len() - 1]) + side;
        let out = session(&[
            "setoption name GoAnalysis value true",
            &position,
            "go nodes 300",
        ]);
        let line = out
            .iter()
            .rfind(|l| l.starts_with("info string analysis "))
            .expect("analysis");
        let (_, own) = parse(line);
        // Black holds the top four rows, white the bottom four.
        assert!(
            sign * own[0] > 0.5 && sign * own[80] < -0.5,
            "{side}: {} {}",
            own[0],
            own[80]
        );
    }
}

#[test]
fn off_by_default_and_ignored_elsewhere() {
    let out = session(&["position startpos", "go nodes 200"]);
    assert!(out.iter().all(|l| !l.contains("analysis")), "{out:#?}");
    let out = common::transcript(
        b"setoption name USI_Variant value othello\nsetoption name GoAnalysis value true\nquit\n",
    );
    assert!(
        out.contains("info string GoAnalysis has no effect on othello"),
        "{out}"
    );
}
