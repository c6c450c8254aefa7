//! Short real matches between two ryoshi processes through `ryoshi match`: the results file, the
//! game records (each replays legally through the referee and ends the way the result says) and
//! the summary arithmetic (recomputed from the results file).

mod common;

use ryoshi::matches::referee::{OthelloReferee, QuantumReferee};
use ryoshi::matches::results::parse_record;
use ryoshi::matches::stats::Tally;
use ryoshi::matches::{Referee, Side, Verdict};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Reasons a game between two correct engines may end with.
const RULE_ENDINGS: &[&str] = &[
    "king capture",
    "no legal action",
    "repetition",
    "disc count",
    "max plies",
];

struct Real {
    dir: PathBuf,
    stdout: String,
    results: Vec<Value>,
}

fn run_real(name: &str, variant: &str, a: (&str, &str), b: (&str, &str), extra: &str) -> Real {
    let dir = std::env::temp_dir().join(format!("ryoshi-match-real-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let engine = |(name, options): (&str, &str)| {
        format!(
            "[[engine]]\nname = \"{name}\"\ncmd = {:?}\noptions = {{ {options} }}\n\n",
            common::BIN
        )
    };
    let text = format!(
        "{}{}[match]\nvariant = \"{variant}\"\nengines = [\"{}\", \"{}\"]\n{extra}\n",
        engine(a),
        engine(b),
        a.0,
        b.0
    );
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .output()
        .expect("run ryoshi match");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.is_empty(),
        "stderr not quiet (and no progress bar off a terminal): {stderr}"
    );
    let mut results: Vec<Value> = std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    // Games finish in any order when they run in parallel.
    results.sort_by_key(|r| r["game"].as_u64());
    Real {
        dir,
        stdout,
        results,
    }
}

/// Checks every game against the referee and the summary against the results file.
fn check(
    real: &Real,
    games: usize,
    a: &str,
    b: &str,
    max_plies: u64,
    referee: &dyn Fn() -> Box<dyn Referee>,
) {
    assert_eq!(real.results.len(), games, "{}", real.stdout);
    let mut tally = Tally::default();
    let mut engine_moves = 0;
    for (i, r) in real.results.iter().enumerate() {
        assert_eq!(r["game"], i + 1);
        let (first, second) = if i % 2 == 0 { (a, b) } else { (b, a) };
        assert_eq!(
            (r["first"].as_str().unwrap(), r["second"].as_str().unwrap()),
            (first, second)
        );
        assert_eq!(
            r["opening"],
            real.results[i ^ 1]["opening"],
            "openings come in pairs"
        );
        let reason = r["reason"].as_str().unwrap();
        assert!(
            RULE_ENDINGS.contains(&reason),
            "game {} ended by {reason}: {r}",
            i + 1
        );

        // The opening and the moves replay legally, and the end is what the result says.
        let mut rf = referee();
        rf.set_start(None).unwrap();
        let opening: Vec<&str> = r["opening"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .skip(2)
            .collect();
        let moves: Vec<&str> = r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        engine_moves += moves.len();
        for mv in opening.iter().chain(&moves) {
            assert!(
                rf.game_end().is_none(),
                "move after the end in game {}",
                i + 1
            );
            assert_eq!(rf.play(mv).as_deref(), Ok(*mv), "game {}", i + 1);
        }
        assert_eq!(r["plies"], opening.len() + moves.len());
        assert_eq!(r["final_position"], rf.position());
        let verdict = match r["result"].as_str().unwrap() {
            "first" => Verdict::Win(Side::First),
            "second" => Verdict::Win(Side::Second),
            _ => Verdict::Draw,
        };
        if reason == "max plies" {
            assert_eq!(r["plies"], max_plies);
            assert_eq!(verdict, Verdict::Draw);
        } else {
            let end = rf.game_end().expect("the game is over");
            assert_eq!((end.verdict, end.reason.as_str()), (verdict, reason));
        }

        // The record holds the same game.
        let record = std::fs::read_to_string(r["record"].as_str().unwrap()).unwrap();
        let (start, record_moves) = parse_record(&record).expect("record parses");
        assert_eq!(start, "startpos");
        let all: Vec<&str> = opening.iter().chain(&moves).copied().collect();
        assert_eq!(record_moves, all);
        assert!(record.contains(&format!("({reason})")), "{record}");

        let a_first = first == a;
        match verdict {
            Verdict::Draw => tally.draws += 1,
            Verdict::Win(side) if (side == Side::First) == a_first => tally.wins += 1,
            Verdict::Win(_) => tally.losses += 1,
        }
    }
    assert!(engine_moves > 0, "the engines played no move at all");
    // The summary adds up (its formulas are checked against hand values in match_stats.rs).
    assert!(
        real.stdout.contains(&tally.score_line(a, b)),
        "{}",
        real.stdout
    );
    assert!(real.stdout.contains(&tally.elo_line()), "{}", real.stdout);
    assert!(real.stdout.ends_with("Finished match\n"));
    assert_eq!(
        std::fs::read_dir(real.dir.join("records")).unwrap().count(),
        games
    );
}

#[test]
fn quantum_search_against_possibilityist() {
    let max_plies = 120;
    let real = run_real(
        "quantum",
        "quantumshogi",
        ("search", "Strategy = \"search\", USI_Hash = 8, MoveOverhead = 10"),
        ("possibilityist", "Strategy = \"possibilityist\", USI_Hash = 8, MoveOverhead = 10"),
        &format!(
            "games = 2\nconcurrency = 2\nbyoyomi_ms = 30\nmargin_ms = 1000\nopening_plies = 2\nseed = 7\nmax_plies = {max_plies}"
        ),
    );
    check(&real, 2, "search", "possibilityist", max_plies, &|| {
        Box::new(QuantumReferee::new())
    });
}

#[test]
fn othello_levels_against_each_other() {
    let real = run_real(
        "othello",
        "othello",
        ("level3", "Level = 3"),
        ("level1", "Level = 1"),
        "games = 4\nconcurrency = 2\nbyoyomi_ms = 30\nmargin_ms = 1000\nopening_plies = 4\nseed = 3",
    );
    check(&real, 4, "level3", "level1", 512, &|| {
        Box::new(OthelloReferee::new())
    });
}
