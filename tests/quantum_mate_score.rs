//! Forced king captures are reported as `score mate N`: on the positions of the `go mate` tests,
//! the search reports a mate no longer than the df-pn solver's line, by the depth of its length,
//! with a pv that replays to the capture, and the side that is captured sees `mate -N`.

mod common;
use common::transcript;

/// The positions of tests/quantum_mate.rs that have a forced capture.
const MATES: &[&str] = &[
    "position sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1",
    "position sfen 9/kp7/g8/llG6/9/9/PPPPPPPPP/9/LNS1KGSNL b RB15Q~ 1",
];

/// The length in plies of the line `go mate` answers.
fn dfpn_length(position: &str) -> usize {
    let out = transcript(format!("{position}\ngo mate 20000\n").as_bytes());
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("checkmate "))
        .unwrap_or_else(|| panic!("no answer: {out}"));
    assert!(
        !["nomate", "timeout", "notimplemented"].contains(&line),
        "{out}"
    );
    line.split_whitespace().count()
}

/// The last `info depth` line of a `go depth D` search: (score kind, score value, pv).
fn final_info(position: &str, depth: usize) -> (String, String, Vec<String>) {
    let out = transcript(format!("{position}\ngo depth {depth}\n").as_bytes());
    let info = out
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line: {out}"));
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "score").expect("a score");
    let pv = match words.iter().position(|w| *w == "pv") {
        Some(p) => words[p + 1..].iter().map(|w| w.to_string()).collect(),
        None => Vec::new(),
    };
    (words[at + 1].to_string(), words[at + 2].to_string(), pv)
}

/// The first depth whose search reports a mate, with the plies it reports.
fn first_mate(position: &str, max_depth: usize) -> (usize, usize) {
    for depth in 1..=max_depth {
        let (kind, value, _) = final_info(position, depth);
        if kind == "mate" {
            let plies = value.parse().unwrap_or_else(|_| panic!("mate {value}"));
            return (depth, plies);
        }
        assert_eq!(kind, "cp", "{position}: depth {depth}");
    }
    panic!("{position}: no mate reported up to depth {max_depth}");
}

#[test]
fn a_forced_capture_is_reported_as_mate_within_the_solvers_length() {
    for (i, position) in MATES.iter().enumerate() {
        let proved = dfpn_length(position);
        let (depth, plies) = first_mate(position, proved);
        // df-pn tries checks only; a capture that starts with a quiet action can be shorter
        // (the second position: 5 against 7). The search reports one no longer, by the depth of
        // its length (quiescence sees a capture at the last ply one depth earlier), and its pv
        // is that many plies and ends with the king's capture. The exact search's depths are
        // pinned in mate.rs's tests.
        assert!(plies <= proved, "{position}: mate {plies}, df-pn {proved}");
        assert!(
            depth <= plies,
            "{position}: mate {plies} first at depth {depth}"
        );
        // At the depth of its length the pv holds the whole line, the capture included.
        let (kind, value, pv) = final_info(position, plies);
        assert_eq!(
            (kind.as_str(), value),
            ("mate", plies.to_string()),
            "{position}"
        );
        assert_eq!(pv.len(), plies, "{position}: pv {pv:?}");
        let out = transcript(format!("{position} moves {}\nd\n", pv.join(" ")).as_bytes());
        assert!(
            out.contains("winner: b (king capture)"),
            "{position}: {out}"
        );
        if i == 0 {
            // The gold drop: three plies either way.
            assert_eq!((plies, proved), (3, 3));
        }
        // The defender, after the first action, sees its king fall two plies sooner.
        let defended = format!("{position} moves {}", pv[0]);
        let (kind, value, _) = final_info(&defended, plies - 1);
        assert_eq!(
            (kind.as_str(), value),
            ("mate", format!("-{}", plies - 1)),
            "{defended}"
        );
    }
}
