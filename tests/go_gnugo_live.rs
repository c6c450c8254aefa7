//! Random positions against a live GNU Go (`gnugo --mode gtp`): the extended analysis must
//! answer `unconditional_status` exactly as GNU Go does on every point. Needs GNU Go, so it is
//! #[ignore]d in the quick run; the full run (README, `.ci/run`, which installs the Debian package
//! `gnugo`) includes it, and then a missing GNU Go is a failure.

#[path = "support/go_positions.rs"]
mod go_positions;

use go_positions::random_game;
use ryoshi::go::analysis::extended;
use ryoshi::go::notation::{format_move, format_vertex};
use ryoshi::go::Color;
use ryoshi::rng::SplitMix64 as Rng;
use std::io::Write;
use std::process::{Command, Stdio};

fn gnugo() -> Option<String> {
    for path in ["/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"] {
        if std::path::Path::new(path).exists() {
            return Some(path.to_string());
        }
    }
    None
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn extended_matches_live_gnugo_on_random_positions() {
    let gnugo = gnugo().expect("this test needs GNU Go: apt-get install gnugo");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut script = String::new();
    let mut expected_ids = Vec::new();
    let mut id = 0u64;
    let mut decided = 0;
    // RYOSHI_GNUGO_POSITIONS raises the count for a longer local run.
    let count: usize = std::env::var("RYOSHI_GNUGO_POSITIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    for k in 0..count {
        let size = [7, 9, 13, 19][k % 4];
        let len = size * size * (1 + k % 3) / 2 + 40;
        let (game, moves) = random_game(size, len, &mut rng);
        script.push_str(&format!("boardsize {size}\nclear_board\n"));
        for (color, mv) in &moves {
            let c = if *color == Color::Black {
                "black"
            } else {
                "white"
            };
            script.push_str(&format!("play {c} {}\n", format_move(&game.board, *mv)));
        }
        let a = extended(&game.board, game.ko);
        for p in game.board.points() {
            id += 1;
            script.push_str(&format!(
                "{id} unconditional_status {}\n",
                format_vertex(&game.board, p)
            ));
            let name = a.status[p].gtp_name();
            decided += (name != "undecided") as usize;
            expected_ids.push((id, k, format_vertex(&game.board, p), name));
        }
    }
    script.push_str("quit\n");
    let mut child = Command::new(gnugo)
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gnugo");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
    let out = child.wait_with_output().expect("gnugo output");
    writer.join().unwrap().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut answers = std::collections::HashMap::new();
    for block in text.split("\n\n") {
        let block = block.trim();
        if let Some(rest) = block.strip_prefix('=') {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty() {
                answers.insert(
                    digits.parse::<u64>().unwrap(),
                    rest[digits.len()..].trim().to_string(),
                );
            }
        }
    }
    let mut mismatches = Vec::new();
    for (id, k, vertex, mine) in &expected_ids {
        let theirs = answers.get(id).map(String::as_str).unwrap_or("<none>");
        if theirs != *mine {
            mismatches.push(format!(
                "position {k} {vertex}: gnugo {theirs}, ryoshi {mine}"
            ));
        }
    }
    println!(
        "live GNU Go: {} of {} points agree ({decided} decided)",
        expected_ids.len() - mismatches.len(),
        expected_ids.len()
    );
    assert!(decided > 1000, "the positions exercise the analysis");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(40)].join("\n")
    );
}
