//! The FFO endgame tests: `solve` must find every exact best score, and `hint` must rank moves by
//! their exact scores once it solves them. Positions whose solve takes seconds are #[ignore]d in
//! the quick run; the full run (README) includes them.

mod common;

use common::{read_data_text, transcript};
use ryoshi::othello::obf::{parse_file, ObfEntry};
use ryoshi::othello::search::solve::Solver;
use ryoshi::othello::square_name;

fn load(name: &str) -> Vec<ObfEntry> {
    let text = read_data_text(&format!("othello/{name}"));
    parse_file(&text).unwrap()
}

/// Solves each entry and checks the score and that the move is one of the best in the file.
/// `first` is the FFO number of the file's first line; `keep` picks the lines to solve.
fn check(entries: &[ObfEntry], label: &str, first: usize, keep: impl Fn(&ObfEntry) -> bool) {
    check_threads(entries, label, first, 1, keep);
}

/// As [`check`], each solve on `threads` threads.
fn check_threads(
    entries: &[ObfEntry],
    label: &str,
    first: usize,
    threads: usize,
    keep: impl Fn(&ObfEntry) -> bool,
) {
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| keep(e)) {
        let mut solver = Solver::new(20).with_threads(threads);
        let r = solver.solve(&e.position.board);
        let best = e.best_score().unwrap();
        assert_eq!(r.score, best, "{label} #{}", first + i);
        let sq = r.best.expect("a move");
        let listed = e.scores.iter().find(|&&(m, _)| m == sq);
        assert_eq!(
            listed.map(|&(_, s)| s),
            Some(best),
            "{label} #{}: {} is not a best move",
            first + i,
            square_name(sq)
        );
    }
}

#[test]
fn ffo_1_to_19() {
    check(&load("fforum-1-19.obf"), "fforum", 1, |_| true);
}

/// The positions of fforum-20-39 with at most 21 empties (well under a second each).
#[test]
fn ffo_20_to_39_up_to_21_empties() {
    let entries = load("fforum-20-39.obf");
    let fast = |e: &ObfEntry| e.position.board.empties().count_ones() <= 21;
    assert!(entries.iter().filter(|e| fast(e)).count() >= 16);
    check(&entries, "fforum", 20, fast);
}

/// Two threads share out the moves of nodes from 12 empties (young brothers wait): the same
/// exact scores, and a best move among the file's.
#[test]
fn ffo_1_to_39_up_to_21_empties_with_two_threads() {
    let fast = |e: &ObfEntry| e.position.board.empties().count_ones() <= 21;
    check_threads(&load("fforum-1-19.obf"), "fforum", 1, 2, fast);
    check_threads(&load("fforum-20-39.obf"), "fforum", 20, 2, fast);
}

#[test]
#[ignore = "the timed benchmark set on two threads; see `ryoshi bench othello-solve --threads 2`"]
fn ffo_40_to_49_with_two_threads() {
    check_threads(&load("fforum-40-44.obf"), "fforum", 40, 2, |_| true);
    check_threads(&load("fforum-45-49.obf"), "fforum", 45, 2, |_| true);
}

#[test]
fn solve_with_two_threads_through_the_binary() {
    // FFO #20-#23 (20-22 empties): `Threads` reaches Othello's `solve`.
    let entries = load("fforum-20-39.obf");
    for e in entries.iter().take(4) {
        let sfen = e.position.to_text();
        let out = transcript(
            format!(
                "setoption name USI_Variant value othello\nsetoption name Threads value 2\n\
                 position sfen {sfen}\nsolve\n"
            )
            .as_bytes(),
        );
        let best = e.best_score().unwrap();
        let solve: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
        assert_eq!(solve[2..4], ["score", &best.to_string()], "{out}");
    }
}

#[test]
#[ignore = "about 15 s: adds the 22-26 empties positions"]
fn ffo_20_to_39_all() {
    check(&load("fforum-20-39.obf"), "fforum", 20, |_| true);
}

#[test]
#[ignore = "the timed benchmark set; see `ryoshi bench othello-solve`"]
fn ffo_40_to_44() {
    check(&load("fforum-40-44.obf"), "fforum", 40, |_| true);
}

#[test]
#[ignore = "minutes: the slower set, `ryoshi bench othello-solve tests/data/othello/fforum-45-49.obf`"]
fn ffo_45_to_49() {
    check(&load("fforum-45-49.obf"), "fforum", 45, |_| true);
}

/// FFO #50-#59: each line scores every move, and #59 (34 empties, a wipe-out) solves quickly.
#[test]
fn ffo_50_to_59_are_complete_and_59_solves() {
    let mut entries = load("fforum-50-54.obf");
    entries.extend(load("fforum-55-59.obf"));
    assert_eq!(entries.len(), 10);
    for (i, e) in entries.iter().enumerate() {
        let moves = e.position.board.moves().count_ones() as usize;
        assert_eq!(e.scores.len(), moves, "#{} scores every move", 50 + i);
    }
    check(&entries, "fforum", 50, |e| {
        e.position.board.empties().count_ones() == 34
    });
}

#[test]
#[ignore = "by hand: billions of nodes; cargo test --release -- --ignored by_hand_"]
fn by_hand_ffo_50_to_54() {
    check(&load("fforum-50-54.obf"), "fforum", 50, |_| true);
}

#[test]
#[ignore = "by hand: tens of billions of nodes; cargo test --release -- --ignored by_hand_"]
fn by_hand_ffo_55_to_59() {
    check(&load("fforum-55-59.obf"), "fforum", 55, |_| true);
}

#[test]
fn solve_and_hint_through_the_binary() {
    let entries = load("fforum-1-19.obf");
    for e in entries.iter().take(6) {
        let sfen = e.position.to_text();
        let out = transcript(
            format!(
                "setoption name USI_Variant value othello\nposition sfen {sfen}\nsolve\nhint 99\n"
            )
            .as_bytes(),
        );
        let lines: Vec<&str> = out.lines().collect();
        let best = e.best_score().unwrap();
        let solve: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(solve[0], "solve");
        assert_eq!(solve[2..4], ["score", &best.to_string()]);
        assert_eq!(solve[4], "nodes");
        assert_eq!(solve[6], "time");
        // Every move, ranked by its exact score, equal to the file's.
        let hints = &lines[1..];
        assert_eq!(hints.len(), e.scores.len(), "{out}");
        let mut last = i32::MAX;
        for h in hints {
            let f: Vec<&str> = h.split_whitespace().collect();
            assert_eq!(f[0], "hint");
            assert_eq!(f[2], "score");
            let score: i32 = f[3].parse().unwrap();
            assert!(score <= last, "hint order: {out}");
            last = score;
            let listed = e
                .scores
                .iter()
                .find(|&&(m, _)| square_name(m) == f[1])
                .map(|&(_, s)| s);
            assert_eq!(listed, Some(score), "{h}");
            assert_eq!(f[4], "reason");
            assert!(h.contains("forced") || h.contains("loses"), "{h}");
        }
    }
}

#[test]
fn level_3_plays_the_exact_best_move_in_the_endgame() {
    let entries = load("fforum-1-19.obf");
    for e in entries.iter().take(4) {
        let sfen = e.position.to_text();
        let out = transcript(
            format!(
                "setoption name USI_Variant value othello\nsetoption name Level value 3\n\
                 position sfen {sfen}\ngo movetime 3000\n"
            )
            .as_bytes(),
        );
        let best = e.best_score().unwrap();
        assert!(
            out.contains(&format!(" score {best:+}")),
            "no exact solve line: {out}"
        );
        let mv = out
            .lines()
            .last()
            .unwrap()
            .strip_prefix("bestmove ")
            .unwrap();
        let listed = e.scores.iter().find(|&&(m, _)| square_name(m) == mv);
        assert_eq!(listed.map(|&(_, s)| s), Some(best), "{out}");
        let last_info = out.lines().rev().nth(1).unwrap();
        assert!(
            last_info.contains(&format!("score cp {}", best * 100)),
            "{last_info}"
        );
    }
}

#[test]
fn a_proven_result_cut_short_keeps_the_midgame_estimate() {
    // FFO #40 (20 empties, black wins by 36). 300,000 nodes prove the win (the null-window
    // pass) but stop the exact solve: the score was then +1 disc whatever the margin, which
    // NBoard shows and graphs as the move's value.
    let entries = load("fforum-40-44.obf");
    let sfen = entries[0].position.to_text();
    let out = transcript(
        format!(
            "setoption name USI_Variant value othello\nposition sfen {sfen}\ngo nodes 300000\n"
        )
        .as_bytes(),
    );
    let scores: Vec<i64> = out
        .lines()
        .filter(|l| l.starts_with("info depth"))
        .filter_map(|l| {
            l.split(" score cp ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    let (last, midgame) = match scores[..] {
        [.., midgame, last] => (last, midgame),
        _ => panic!("no midgame search before the solve: {out}"),
    };
    assert!(
        !out.contains(" score +36"),
        "the exact solve was not cut: {out}"
    );
    assert_eq!(last, midgame.max(100), "{out}");
    assert!(last > 100, "{out}");
    // Nor does it claim the depth of a solve (20 empties): the margin was not searched there.
    let last_info = out
        .lines()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(!last_info.starts_with("info depth 20 "), "{last_info}");
}
