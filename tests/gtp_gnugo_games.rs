//! Full 9x9 games of `ryoshi gtp` against GNU Go (`gnugo --mode gtp`, Chinese rules) through a
//! small referee: genmove alternates between the engines, each move is played on the other,
//! until two passes in a row (or a move cap); then both engines' `final_score` must name the
//! same winner. Also GNU Go as the oracle of `fixed_handicap`.

#[path = "support/gtp_process.rs"]
mod gtp_process;

use gtp_process::GtpProcess;
use ryoshi::rng::SplitMix64;

const NEEDS: &str = "needs gnugo: apt-get install gnugo";

fn gnugo_path() -> String {
    for path in ["/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"] {
        if std::path::Path::new(path).exists() {
            return path.to_string();
        }
    }
    panic!("GNU Go is not installed ({NEEDS})");
}

fn gnugo() -> GtpProcess {
    GtpProcess::start(
        "gnugo",
        &gnugo_path(),
        &[
            "--mode",
            "gtp",
            "--level",
            "1",
            "--chinese-rules",
            "--never-resign",
        ],
    )
}

fn ryoshi() -> GtpProcess {
    // Played to the end as GNU Go is (--never-resign), on a playout budget so that the games
    // are quick and repeat.
    GtpProcess::start(
        "ryoshi",
        env!("CARGO_BIN_EXE_ryoshi"),
        &["gtp", "--no-resign", "--playouts", "1000"],
    )
}

/// `B+3.5` -> 3.5, `W+0.5` -> -0.5, `0` -> 0 (GNU Go writes `B+3.0`).
fn parse_score(text: &str) -> f64 {
    let t = text.trim();
    if t == "0" {
        return 0.0;
    }
    let (sign, rest) = match t.split_at_checked(2) {
        Some(("B+", r)) => (1.0, r),
        Some(("W+", r)) => (-1.0, r),
        _ => panic!("not a score: '{t}'"),
    };
    sign * rest
        .parse::<f64>()
        .unwrap_or_else(|_| panic!("not a score: '{t}'"))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    Ryoshi,
    Gnugo,
}

/// One refereed game: who plays black and white, GNU Go's random seed (also the seed of the
/// referee's two opening moves), fixed handicap stones for black (0 = none), and whether two
/// passes are followed by a KGS cleanup phase (`kgs-genmove_cleanup` for both until two more
/// passes, as KGS runs it when the players disagree about dead stones).
struct Setup {
    players: [Who; 2],
    seed: u64,
    handicap: usize,
    cleanup: bool,
}

struct Outcome {
    moves: usize,
    ryoshi_score: String,
    gnugo_score: String,
    /// Whether `final_status_list alive`, `dead` and `seki` are identical on both engines.
    same_status_lists: bool,
}

fn play_game(setup: &Setup) -> Outcome {
    let mut r = ryoshi();
    let mut g = gnugo();
    for e in [&mut r, &mut g] {
        e.ok("boardsize 9");
        e.ok("clear_board");
        e.ok("komi 7.5");
    }
    g.ok(&format!("set_random_seed {}", setup.seed));
    let mut to_move = 0; // 0 black, 1 white
    if setup.handicap > 0 {
        let command = format!("fixed_handicap {}", setup.handicap);
        let mine = r.ok(&command);
        assert_eq!(mine, g.ok(&command), "{command} differs");
        to_move = 1;
    } else {
        // Two seeded opening moves so that the games differ.
        let mut rng = SplitMix64::new(setup.seed);
        for color in ["black", "white"] {
            loop {
                let col = b"CDEFG"[rng.index(5)] as char;
                let row = 3 + rng.index(5);
                let mv = format!("play {color} {col}{row}");
                if r.send(&mv).ok {
                    g.ok(&mv);
                    break;
                }
            }
        }
    }
    let colors = ["black", "white"];
    let mut passes = 0;
    let mut moves = 0;
    let mut genmove = "genmove";
    // A cap so that a game of endless captures still ends (9x9 games are far shorter).
    while moves < 300 {
        if passes == 2 {
            if !setup.cleanup || genmove != "genmove" {
                break;
            }
            genmove = "kgs-genmove_cleanup";
            passes = 0;
        }
        // The mover generates the move; the other engine is told it.
        let (mover, other) = match setup.players[to_move] {
            Who::Ryoshi => (&mut r, &mut g),
            Who::Gnugo => (&mut g, &mut r),
        };
        let mv = mover.ok(&format!("{genmove} {}", colors[to_move]));
        assert!(
            !mv.eq_ignore_ascii_case("resign"),
            "{} resigned",
            mover.name
        );
        other.ok(&format!("play {} {mv}", colors[to_move]));
        passes = if mv.eq_ignore_ascii_case("pass") {
            passes + 1
        } else {
            0
        };
        moves += 1;
        to_move = 1 - to_move;
    }
    assert!(passes == 2, "no two passes within {moves} moves");
    if std::env::var_os("RYOSHI_REFEREE_VERBOSE").is_some() {
        println!("{}", r.ok("showboard"));
    }
    let same_status_lists = ["alive", "dead", "seki"].iter().all(|status| {
        let command = format!("final_status_list {status}");
        r.ok(&command) == g.ok(&command)
    });
    Outcome {
        moves,
        ryoshi_score: r.ok("final_score"),
        gnugo_score: g.ok("final_score"),
        same_status_lists,
    }
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn full_games_against_gnugo_agree_on_the_winner() {
    use Who::{Gnugo, Ryoshi};
    let game = |players, seed, handicap, cleanup| Setup {
        players,
        seed,
        handicap,
        cleanup,
    };
    let games = [
        game([Ryoshi, Gnugo], 11, 0, false),
        game([Gnugo, Ryoshi], 12, 0, false),
        game([Ryoshi, Gnugo], 13, 0, true),
        game([Gnugo, Ryoshi], 14, 3, false),
        game([Ryoshi, Gnugo], 15, 9, true),
        // Positions closer to even, so that both colours win some: each engine against itself
        // (the other engine follows with `play`).
        game([Gnugo, Gnugo], 21, 0, false),
        game([Gnugo, Gnugo], 22, 0, true),
        game([Gnugo, Gnugo], 23, 2, false),
        game([Ryoshi, Ryoshi], 24, 0, false),
        game([Ryoshi, Ryoshi], 25, 0, true),
    ];
    let mut report = Vec::new();
    let (mut agree, mut identical, mut black_wins, mut same_lists) = (0, 0, 0, 0);
    for setup in &games {
        let o = play_game(setup);
        let (mine, theirs) = (parse_score(&o.ryoshi_score), parse_score(&o.gnugo_score));
        let line = format!(
            "{:?} seed {} handicap {} cleanup {}: {} moves, ryoshi says {}, gnugo says {}, \
             status lists {}",
            setup.players,
            setup.seed,
            setup.handicap,
            setup.cleanup,
            o.moves,
            o.ryoshi_score,
            o.gnugo_score,
            if o.same_status_lists {
                "identical"
            } else {
                "differ"
            }
        );
        println!("{line}");
        assert!(mine != 0.0 && theirs != 0.0, "komi 7.5 leaves no draw");
        agree += (mine.signum() == theirs.signum()) as usize;
        identical += (mine == theirs) as usize;
        same_lists += o.same_status_lists as usize;
        black_wins += (theirs > 0.0) as usize;
        report.push(line);
    }
    let report = report.join("\n");
    println!(
        "{agree}/{} winners agree, {identical} identical scores, {same_lists} identical \
         final_status_list answers, black won {black_wins}",
        games.len()
    );
    assert_eq!(agree, games.len(), "winners differ:\n{report}");
    // The judgements are close, not only the signs.
    assert!(identical * 3 >= games.len() * 2, "scores differ:\n{report}");
    assert!(
        same_lists * 3 >= games.len() * 2,
        "status lists differ:\n{report}"
    );
    assert!(
        black_wins > 0 && black_wins < games.len(),
        "both colours win some games:\n{report}"
    );
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn seki_position_is_judged_as_gnugo_judges_it() {
    // The seki of tests/gtp_commands.rs: walls A-B (black) and F-G (white) around two chains
    // sharing their last liberties D6 and D3.
    let rows = [
        ".XOOXO.", "XXO.XOO", ".XOXXO.", "XXOOXOO", ".XO.XO.", "XXOXXOO", ".XOOXO.",
    ];
    let mut r = ryoshi();
    let mut g = gnugo();
    for e in [&mut r, &mut g] {
        e.ok("boardsize 7");
        e.ok("clear_board");
        e.ok("komi 7.5");
        for (i, row) in rows.iter().enumerate() {
            for (col, c) in row.bytes().enumerate() {
                let vertex = format!("{}{}", b"ABCDEFG"[col] as char, 7 - i);
                match c {
                    b'X' => e.ok(&format!("play b {vertex}")),
                    b'O' => e.ok(&format!("play w {vertex}")),
                    _ => String::new(),
                };
            }
        }
    }
    for command in [
        "final_status_list seki",
        "final_status_list dead",
        "final_status_list alive",
        "final_score",
    ] {
        let mine = r.ok(command);
        assert_eq!(mine, g.ok(command), "{command}");
        assert!(!mine.is_empty() || command.ends_with("dead"), "{command}");
    }
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn fixed_handicap_matches_gnugo_on_every_size_and_count() {
    let mut r = ryoshi();
    let mut g = gnugo();
    let mut compared = 0;
    // GNU Go's sizes (it refuses boards above 19x19).
    for size in 2..=19 {
        for count in 0..=10 {
            let mut replies = Vec::new();
            for e in [&mut r, &mut g] {
                e.ok(&format!("boardsize {size}"));
                e.ok("clear_board");
                replies.push(e.send(&format!("fixed_handicap {count}")));
            }
            assert_eq!(
                replies[0].ok, replies[1].ok,
                "{size}x{size}, {count} stones: ryoshi {:?}, gnugo {:?}",
                replies[0], replies[1]
            );
            if replies[0].ok {
                assert_eq!(replies[0].text, replies[1].text, "{size}x{size}, {count}");
                compared += 1;
            }
        }
    }
    // 7x7 and the 6 even sizes from 8 up: 3 counts each; the 6 odd sizes from 9 up: 8 each.
    assert_eq!(compared, 7 * 3 + 6 * 8);
}
