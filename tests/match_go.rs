//! `ryoshi match` referees Go: two ryoshi processes (the move chooser, different seeds) play
//! from a 7x7 opening until two passes; every game replays through the Go referee, and its
//! verdict is checked against an area count made here from the final position.

mod common;

use ryoshi::matches::referee::GoReferee;
use ryoshi::matches::results::parse_record;
use ryoshi::matches::Referee;
use serde_json::Value;
use std::process::Command;

const EMPTY_7X7: &str = "7 ......./......./......./......./......./......./....... b";

/// Black's area minus white's (stones plus empty regions that touch one colour only).
fn area_difference(position: &str) -> i64 {
    let rows: Vec<&[u8]> = position
        .split(' ')
        .nth(1)
        .unwrap()
        .split('/')
        .map(str::as_bytes)
        .collect();
    let n = rows.len();
    let at = |r: usize, c: usize| rows[r][c];
    let mut seen = vec![vec![false; n]; n];
    let mut diff = 0i64;
    for r in 0..n {
        for c in 0..n {
            match at(r, c) {
                b'X' => diff += 1,
                b'O' => diff -= 1,
                _ if seen[r][c] => {}
                _ => {
                    let (mut region, mut black, mut white) = (0i64, false, false);
                    let mut stack = vec![(r, c)];
                    seen[r][c] = true;
                    while let Some((r, c)) = stack.pop() {
                        region += 1;
                        let mut next = Vec::new();
                        if r > 0 {
                            next.push((r - 1, c));
                        }
                        if r + 1 < n {
                            next.push((r + 1, c));
                        }
                        if c > 0 {
                            next.push((r, c - 1));
                        }
                        if c + 1 < n {
                            next.push((r, c + 1));
                        }
                        for (nr, nc) in next {
                            match at(nr, nc) {
                                b'X' => black = true,
                                b'O' => white = true,
                                _ if !seen[nr][nc] => {
                                    seen[nr][nc] = true;
                                    stack.push((nr, nc));
                                }
                                _ => {}
                            }
                        }
                    }
                    if black && !white {
                        diff += region;
                    } else if white && !black {
                        diff -= region;
                    }
                }
            }
        }
    }
    diff
}

#[test]
fn go_games_are_refereed_to_two_passes_and_scored_by_area() {
    let dir = std::env::temp_dir().join(format!("ryoshi-match-go-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openings.txt"), format!("sfen {EMPTY_7X7}\n")).unwrap();
    let engine = |name: &str, seed: u32| {
        format!(
            "[[engine]]\nname = \"{name}\"\ncmd = {:?}\noptions = {{ Seed = {seed} }}\n\n",
            common::BIN
        )
    };
    let text = format!(
        "{}{}[match]\nvariant = \"go\"\nengines = [\"s1\", \"s2\"]\ngames = 4\nconcurrency = 2\n\
         byoyomi_ms = 50\nmargin_ms = 1000\nopenings = \"openings.txt\"\nmax_plies = 400\n",
        engine("s1", 1),
        engine("s2", 2)
    );
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .output()
        .expect("run ryoshi match");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<Value> = std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(results.len(), 4, "{stdout}");
    for r in &results {
        assert_eq!(r["variant"], "go");
        assert_eq!(r["reason"], "area score", "{r}");
        let moves: Vec<&str> = r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert!(moves.len() > 10, "{r}");
        assert_eq!(moves[moves.len() - 2..], ["pass", "pass"]);

        let mut referee = GoReferee::new();
        referee.set_start(Some(EMPTY_7X7)).unwrap();
        for mv in &moves {
            assert!(referee.game_end().is_none(), "a move after the end: {r}");
            assert_eq!(referee.play(mv).as_deref(), Ok(*mv));
        }
        let final_position = r["final_position"].as_str().unwrap();
        assert_eq!(referee.position(), final_position);
        let end = referee.game_end().expect("over after two passes");
        assert_eq!(end.verdict.as_str(), r["result"].as_str().unwrap());
        // Komi 7.5: black wins with an area lead of 8 or more.
        let want = if area_difference(final_position) >= 8 {
            "first"
        } else {
            "second"
        };
        assert_eq!(r["result"], want, "{final_position}");

        let record = std::fs::read_to_string(dir.join(r["record"].as_str().unwrap())).unwrap();
        let (_, record_moves) = parse_record(&record).expect("record parses");
        assert_eq!(record_moves, moves);
        assert!(
            record.contains("First: ") && record.contains(" (black)"),
            "{record}"
        );
        assert!(record.contains("(area score)"), "{record}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
