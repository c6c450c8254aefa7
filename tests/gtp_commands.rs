//! Transcript tests of the GTP commands for Go tools: handicap placement, time controls,
//! final_score / final_status_list with the engine's dead-stone judgement, kgs-genmove_cleanup,
//! the default komi; all through the real binary (see protocol/gtp.md).

mod common;

use ryoshi::go::search::policy;
use ryoshi::go::{Color, Position};
use ryoshi::rng::SplitMix64;

/// The replies of a script, each without its trailing empty line.
fn replies(script: &str) -> Vec<String> {
    let out = common::gtp_transcript(script);
    assert!(out.ends_with("\n\n"), "every reply ends with an empty line");
    out.split("\n\n")
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect()
}

/// `boardsize 5` and black stones making two big eyes around a white stone at C3 (one
/// liberty, D3):
/// ```text
/// 5 . X . X .
/// 4 X X X X X
/// 3 . X O . X
/// 2 X X X X X
/// 1 . X . X .
/// ```
fn dead_stone_position() -> String {
    let mut s = String::from("boardsize 5\nclear_board\n");
    for v in [
        "B5", "D5", "A4", "B4", "C4", "D4", "E4", "B3", "E3", "A2", "B2", "C2", "D2", "E2", "B1",
        "D1",
    ] {
        s.push_str(&format!("play b {v}\n"));
    }
    s.push_str("play w C3\n");
    s
}

#[test]
fn every_new_command_is_listed_and_known() {
    let names = [
        "final_score",
        "final_status_list",
        "time_settings",
        "time_left",
        "kgs-time_settings",
        "kgs-genmove_cleanup",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
    ];
    let mut script = String::from("list_commands\n");
    for n in names {
        script.push_str(&format!("known_command {n}\n"));
    }
    script.push_str("known_command kgs-game_over\n");
    let r = replies(&script);
    let listed: Vec<&str> = r[0].trim_start_matches("= ").lines().collect();
    for n in names {
        assert!(listed.contains(&n), "list_commands lacks {n}");
    }
    assert!(r[1..=names.len()].iter().all(|x| x == "= true"), "{r:?}");
    assert_eq!(r[names.len() + 1], "= false");
}

#[test]
fn default_komi_is_seven_and_a_half() {
    let r = replies(
        "boardsize 9\nshowboard\nfinal_score\nkomi 0\nfinal_score\nkomi -3.5\nfinal_score\n",
    );
    assert!(r[1].ends_with("black to move, komi 7.5"), "{}", r[1]);
    // An empty board is nobody's area: the score is the komi.
    assert_eq!(r[2], "= W+7.5");
    assert_eq!(r[4], "= 0");
    assert_eq!(r[6], "= B+3.5");
}

#[test]
fn fixed_handicap_follows_the_specification() {
    let r = replies(
        "1 boardsize 19\n2 fixed_handicap 9\n3 fixed_handicap 2\n4 clear_board\n\
         5 fixed_handicap 1\n6 fixed_handicap 10\n7 fixed_handicap two\n8 fixed_handicap\n\
         9 fixed_handicap 3\n10 showboard\n11 undo\n12 clear_board\n12 fixed_handicap 4\n\
         13 boardsize 13\n14 fixed_handicap 5\n15 boardsize 9\n16 fixed_handicap 6\n\
         17 boardsize 6\n18 fixed_handicap 2\n19 boardsize 8\n20 fixed_handicap 5\n\
         21 fixed_handicap 4\n",
    );
    assert_eq!(r[1], "=2 D16 K16 Q16 D10 K10 Q10 D4 K4 Q4");
    assert_eq!(r[2], "?3 board not empty");
    assert_eq!(r[4], "?5 invalid number of stones");
    assert_eq!(r[5], "?6 invalid number of stones");
    assert_eq!(r[6], "?7 handicap not an integer");
    assert_eq!(r[7], "?8 fixed_handicap expects 1 argument(s)");
    assert_eq!(r[8], "=9 D16 Q16 D4");
    assert!(r[9].ends_with("white to move, komi 7.5"), "{}", r[9]);
    assert_eq!(r[10], "?11 cannot undo", "handicap stones are not moves");
    assert_eq!(r[12], "=12 D16 Q16 D4 Q4");
    assert_eq!(r[14], "=14 D10 K10 G7 D4 K4");
    assert_eq!(r[16], "=16 C7 G7 C5 G5 C3 G3");
    assert_eq!(r[18], "?18 invalid number of stones");
    assert_eq!(r[20], "?20 invalid number of stones");
    assert_eq!(r[21], "=21 C6 F6 C3 F3");
}

#[test]
fn white_gets_a_point_per_handicap_stone_while_they_are_on_the_record() {
    let r = replies(
        "boardsize 9\nfixed_handicap 3\nfinal_score\nclear_board\nplay b pass\nfinal_score\n\
         clear_board\nset_free_handicap A1 B1\nplay w pass\nfinal_score\nclear_board\n\
         final_score\n",
    );
    // 3 black stones own the whole board: 81 - 7.5 - 3.
    assert_eq!(r[2], "= B+70.5");
    assert_eq!(r[5], "= W+7.5", "the empty board of a new game: komi alone");
    // A1 B1 own the whole empty board: 81 - 7.5 - 2.
    assert_eq!(r[9], "= B+71.5");
    assert_eq!(r[11], "= W+7.5");
}

#[test]
fn free_handicap_commands() {
    let r = replies(
        "boardsize 9\nset_free_handicap A1\nset_free_handicap A1 A1\nset_free_handicap A1 pass\n\
         set_free_handicap A1 Z9\nset_free_handicap A1 B2 C3\nshowboard\nset_free_handicap D4 E5\n\
         clear_board\nplace_free_handicap 81\nplace_free_handicap 1\nplace_free_handicap 12\n\
         clear_board\nplace_free_handicap 80\n",
    );
    assert_eq!(r[1], "? bad vertex list");
    assert_eq!(r[2], "? bad vertex list");
    assert_eq!(r[3], "? bad vertex list");
    assert_eq!(r[4], "? bad vertex list");
    assert_eq!(r[5], "=");
    assert!(r[6].contains(" 3  . . X . . . . . . 3"), "{}", r[6]);
    assert!(r[6].contains(" 1  X . . . . . . . . 1"), "{}", r[6]);
    assert!(r[6].ends_with("white to move, komi 7.5"));
    assert_eq!(r[7], "? board not empty");
    assert_eq!(r[8], "=");
    assert_eq!(r[9], "? invalid number of stones");
    assert_eq!(r[10], "? invalid number of stones");
    let placed: Vec<&str> = r[11].trim_start_matches("= ").split(' ').collect();
    assert_eq!(placed.len(), 12, "{}", r[11]);
    let mut unique = placed.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 12, "distinct vertices: {}", r[11]);
    // Asked for nearly the whole board, the engine places fewer, as GTP allows.
    let many = r[13].trim_start_matches("= ").split(' ').count();
    assert!((9..80).contains(&many), "{}", r[13]);
}

#[test]
fn time_commands() {
    let r = replies(
        "time_settings 300 30 5\ntime_settings 300 30\ntime_settings -1 0 0\n\
         time_settings 1.5 0 x\ntime_settings 0 1 0\nkgs-time_settings none\n\
         kgs-time_settings absolute 60\nkgs-time_settings byoyomi 600 30 5\n\
         kgs-time_settings canadian 600 300 25\nkgs-time_settings canadian 600 300\n\
         kgs-time_settings fischer 600 10\nkgs-time_settings\ntime_left b 25 0\n\
         time_left white 12.5 3\ntime_left x 1 1\ntime_left b -1 0\ntime_left b 1\n",
    );
    let ok = [0, 4, 5, 6, 7, 8, 12, 13];
    for (i, reply) in r.iter().enumerate() {
        assert_eq!(reply == "=", ok.contains(&i), "reply {i}: {reply}");
    }
    assert_eq!(r[1], "? time_settings expects 3 argument(s)");
    assert_eq!(r[2], "? '-1' is not a non-negative number");
    assert_eq!(r[3], "? 'x' is not a non-negative integer");
    assert!(r[9].starts_with("? kgs-time_settings expects none, absolute"));
    assert_eq!(r[14], "? invalid color");
    assert_eq!(r[16], "? time_left expects 3 argument(s)");
}

#[test]
fn genmove_in_time_trouble_still_plays() {
    // 10 ms left: the budget is the minimum, and a move (not a pass) comes back. An absurdly
    // large clock is no limit (and no crash).
    let r = replies(
        "boardsize 19\nkgs-time_settings absolute 1\ntime_left b 0 0\ngenmove b\n\
         time_settings 0 1 1\ngenmove w\ntime_settings 1e300 0 0\ngenmove b\n\
         time_left w 1e300 1\ngenmove w\n",
    );
    for i in [3, 5, 7, 9] {
        let v = r[i].trim_start_matches("= ");
        assert!(
            ryoshi::go::notation::parse_vertex(v, 19).is_ok_and(|m| m.is_some()),
            "{}",
            r[i]
        );
    }
}

#[test]
fn the_budget_stops_the_candidate_scan() {
    let game = Position::empty(9).unwrap();
    let (all, examined_all) = policy::choose(&game, Color::Black, 0);
    assert!(all.is_some() && examined_all > 40, "{examined_all}");
    // Out of time at once: the first legal candidate only.
    let (first, examined) = policy::choose_within(&game, Color::Black, 0, &mut || false);
    assert_eq!(examined, 1);
    assert!(first.is_some());
    // Time for ten more candidates.
    let mut left = 10;
    let (_, examined) = policy::choose_within(&game, Color::Black, 0, &mut || {
        left -= 1;
        left >= 0
    });
    assert_eq!(examined, 11);
}

#[test]
fn dead_stones_are_judged_counted_and_cleaned_up() {
    let mut script = dead_stone_position();
    script.push_str(
        "final_status_list dead\nfinal_status_list seki\nfinal_status_list alive\n\
         final_status_list territory\nfinal_score\ngenmove b\nkgs-genmove_cleanup b\n\
         final_status_list dead\nfinal_score\nkgs-genmove_cleanup w\nkgs-genmove_cleanup b\n",
    );
    let r = replies(&script);
    let n = r.len();
    let tail = &r[n - 11..];
    assert_eq!(tail[0], "= C3");
    assert_eq!(tail[1], "=");
    assert_eq!(tail[2], "= B5 D5 A4 B4 C4 D4 E4 B3 E3 A2 B2 C2 D2 E2 B1 D1");
    assert_eq!(tail[3], "? invalid status");
    // 25 points of black area minus komi, the dead stone taken off.
    assert_eq!(tail[4], "= B+17.5");
    // Plain genmove leaves settled territory alone; cleanup captures the dead stone.
    assert_eq!(tail[5], "= pass");
    assert_eq!(tail[6], "= D3");
    assert_eq!(tail[7], "=");
    assert_eq!(tail[8], "= B+17.5");
    assert_eq!(tail[9], "= pass");
    assert_eq!(tail[10], "= pass");
}

/// Twenty-four moves of a 9x9 game against Pachi (evidence/issue46-pachi9-58.jsonl.gz, game
/// 1), black to move: white's C7 C6 C5 are in doubt, so the play-on searches behind the judgement
/// decide them, and those are won or lost by the komi.
fn contested_position() -> String {
    let mut s = String::from("boardsize 9\nclear_board\n");
    let moves = "G3 J4 H9 C5 D6 C6 E7 G4 F4 F3 E3 F2 G2 E2 E4 H3 H2 J2 C3 H1 G5 G1 C8 C7";
    for (i, v) in moves.split(' ').enumerate() {
        let colour = if i % 2 == 0 { "b" } else { "w" };
        s.push_str(&format!("play {colour} {v}\n"));
    }
    s
}

#[test]
fn a_new_komi_is_judged_anew() {
    let dead = |komis: &[&str]| -> Vec<String> {
        let mut script = contested_position();
        for k in komis {
            script.push_str(&format!("komi {k}\nfinal_status_list dead\nfinal_score\n"));
        }
        let r = replies(&script);
        r[r.len() - 2 * komis.len()..].to_vec()
    };
    let (at_7, at_40) = (dead(&["7"]), dead(&["40"]));
    assert_ne!(
        at_7[0], at_40[0],
        "the position's judgement depends on the komi"
    );
    assert_eq!(
        dead(&["7", "40"])[2..],
        at_40[..],
        "the judgement under 7 is not kept for 40"
    );
    assert_eq!(dead(&["40", "7"])[2..], at_7[..]);
}

#[test]
fn seki_stones_are_listed_as_seki() {
    // Alive walls (black A-B, white F-G, with eyes) around a seki: the white chain of column C
    // with D7 D4 D1, and the black chain of column E with D5 D2, share their only liberties D6
    // and D3; whoever fills one is captured.
    let rows = [
        ".XOOXO.", // 7
        "XXO.XOO", // 6
        ".XOXXO.", // 5
        "XXOOXOO", // 4
        ".XO.XO.", // 3
        "XXOXXOO", // 2
        ".XOOXO.", // 1
    ];
    let mut script = String::from("boardsize 7\nclear_board\n");
    for (i, row) in rows.iter().enumerate() {
        let number = 7 - i;
        for (col, c) in row.bytes().enumerate() {
            let letter = b"ABCDEFG"[col] as char;
            match c {
                b'X' => script.push_str(&format!("play b {letter}{number}\n")),
                b'O' => script.push_str(&format!("play w {letter}{number}\n")),
                _ => {}
            }
        }
    }
    script.push_str(
        "showboard\nfinal_status_list seki\nfinal_status_list dead\nfinal_status_list alive\n\
         final_score\n",
    );
    let r = replies(&script);
    let n = r.len();
    assert!(r[..n - 5].iter().all(|x| x == "="), "setup: {r:?}");
    assert_eq!(
        r[n - 4],
        "= C7 D7 C6 C5 C4 D4 C3 C2 C1 D1\nE7 E6 D5 E5 E4 E3 D2 E2 E1",
        "{}",
        r[n - 5]
    );
    assert_eq!(r[n - 3], "=");
    assert_eq!(r[n - 2].lines().count(), 2, "the two walls: {}", r[n - 2]);
    // Black: the A-B wall with its eyes (14) and its seki chain (9); white: 14 and 10; D6 and
    // D3 are nobody's. 23 - 24 - 7.5.
    assert_eq!(r[n - 1], "= W+8.5");
}

#[test]
fn random_new_commands_get_one_reply_each() {
    let commands = [
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "time_settings",
        "kgs-time_settings",
        "time_left",
        "final_score",
        "final_status_list",
        "kgs-genmove_cleanup",
        "genmove",
        "play",
        "undo",
        "clear_board",
        "boardsize",
    ];
    let args = [
        "b",
        "w",
        "2",
        "9",
        "0",
        "-1",
        "1e400",
        "1e300",
        "nan",
        "A1",
        "T19",
        "pass",
        "dead",
        "alive",
        "seki",
        "none",
        "absolute",
        "byoyomi",
        "canadian",
        "3.5",
        "25",
        "99999999999",
    ];
    let mut rng = SplitMix64::new(0x6770);
    let mut script = String::from("boardsize 7\n");
    let mut count = 1;
    for i in 0..600 {
        let c = commands[rng.index(commands.len())];
        let n = rng.index(5);
        let a: Vec<&str> = (0..n).map(|_| args[rng.index(args.len())]).collect();
        script.push_str(&format!("{i} {c} {}\n", a.join(" ")));
        count += 1;
    }
    script.push_str("quit\n");
    assert_eq!(replies(&script).len(), count + 1);
}

#[test]
fn handicap_stones_are_the_games_start_and_stay() {
    let r = replies(
        "boardsize 9\nfixed_handicap 2\nundo\nplay w E5\nundo\nundo\nshowboard\nclear_board\n\
         play b pass\nfixed_handicap 2\nset_free_handicap A1 B1\nplace_free_handicap 2\nundo\n\
         fixed_handicap 2\nprintsgf\n",
    );
    let stones = r[1].trim_start_matches("= ").to_string();
    assert_eq!(
        r[2], "? cannot undo",
        "as GNU Go: handicap stones are not moves"
    );
    assert_eq!((r[3].as_str(), r[4].as_str()), ("=", "="));
    assert_eq!(r[5], "? cannot undo");
    for vertex in stones.split(' ') {
        let (col, row) = vertex.split_at(1);
        let line = r[6]
            .lines()
            .find(|l| l.split_whitespace().next() == Some(row))
            .unwrap();
        let at = 2 * (col.as_bytes()[0] - b'A') as usize + 4;
        assert_eq!(&line[at..at + 1], "X", "{vertex} stays: {}", r[6]);
    }
    assert!(r[6].ends_with("white to move, komi 7.5"), "{}", r[6]);
    // After a move, a pass too, it is too late for handicap stones: a record would put them
    // before the pass.
    for reply in &r[9..12] {
        assert_eq!(reply, "? board not empty");
    }
    assert_eq!(r[12], "=");
    assert_eq!(r[13], format!("= {stones}"));
    assert!(r[14].contains("HA[2]AB["), "{}", r[14]);
}

#[test]
fn out_of_range_numbers_are_answered_as_gnu_go_does() {
    let r = replies(
        "boardsize -1\nboardsize 99999999999999999999999\nboardsize nine\nboardsize 1\n\
         komi 1e306\nkomi -2e6\nkomi 1e6\nfinal_score\n",
    );
    assert_eq!(r[0], "? unacceptable size");
    assert_eq!(r[1], "? unacceptable size");
    assert_eq!(r[2], "? boardsize not an integer");
    assert_eq!(r[3], "? unacceptable size");
    assert_eq!(r[4], "? komi not a float");
    assert_eq!(r[5], "? komi not a float");
    assert_eq!(r[6], "=");
    assert_eq!(r[7], "= W+1000000");
}
