//! `MultiPV` through the real binary: N lines per depth as Stockfish and YaneuraOu report them,
//! and `MultiPV 1` exactly as before (no `multipv` field).

mod common;
use common::transcript;

/// The info lines with the fields that vary from run to run (time, nps) removed.
fn stable(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            let mut words: Vec<&str> = Vec::new();
            let mut it = l.split_whitespace();
            while let Some(w) = it.next() {
                if w == "time" || w == "nps" {
                    it.next();
                } else {
                    words.push(w);
                }
            }
            words.join(" ")
        })
        .collect()
}

fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let mut it = line.split_whitespace();
    it.find(|w| *w == name)?;
    it.next()
}

#[test]
fn multipv_1_is_the_default_output() {
    let go = "position startpos moves 7g7f 3c3d\ngo depth 2\n";
    let plain = transcript(go.as_bytes());
    let one = transcript(format!("setoption name MultiPV value 1\n{go}").as_bytes());
    assert_eq!(stable(&plain), stable(&one));
    assert!(!plain.contains("multipv"), "{plain}");
}

#[test]
fn multipv_3_reports_three_ranked_lines_per_depth() {
    let out = transcript(
        b"setoption name MultiPV value 3\nposition startpos moves 7g7f 3c3d\ngo depth 2\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    let (last, rest) = lines.split_last().unwrap();
    let best = last
        .strip_prefix("bestmove ")
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    for depth in ["1", "2"] {
        let at: Vec<&&str> = rest
            .iter()
            .filter(|l| field(l, "depth") == Some(depth))
            .take(3)
            .collect();
        let ks: Vec<&str> = at.iter().map(|l| field(l, "multipv").unwrap()).collect();
        assert_eq!(ks, ["1", "2", "3"], "{out}");
        let scores: Vec<i32> = at
            .iter()
            .map(|l| field(l, "cp").unwrap().parse().unwrap())
            .collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{out}");
        let firsts: std::collections::BTreeSet<&str> =
            at.iter().map(|l| field(l, "pv").unwrap()).collect();
        assert_eq!(firsts.len(), 3, "{out}");
    }
    // The line before bestmove is the first line, starting with the best move.
    let before = rest.last().unwrap();
    assert_eq!(field(before, "multipv"), Some("1"), "{out}");
    assert_eq!(field(before, "pv"), Some(best), "{out}");
}

#[test]
fn multipv_beyond_the_legal_moves_reports_each_move_once() {
    // Sente's king alone against gote's: few legal actions.
    let out = transcript(
        b"setoption name MultiPV value 500\nposition sfen 4k4/9/9/9/9/9/9/9/4K4 b 19Q19q 1\ngo depth 1\nmoves\n",
    );
    let moves = out.lines().last().unwrap().split_whitespace().count();
    let depth1 = out
        .lines()
        .filter(|l| field(l, "depth") == Some("1") && l.contains("multipv"))
        .count();
    // One line per legal action, plus the final line before bestmove.
    assert_eq!(depth1, moves + 1, "{out}");
}
