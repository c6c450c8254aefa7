//! GTP engines in `ryoshi match`: a fake GTP engine (a Python script playing Nim) that crashes,
//! hangs, plays illegal moves, resigns, errs or refuses the opponent's moves loses each game with
//! the right reason and is restarted when it must be; the GTP exchange is what gogui-twogtp
//! sends; `ryoshi gtp` plays 9×9 Go against ryoshi over USI with the referee's score checked by
//! `final_score`; GNU Go and GRhino play through the runner when they are installed.

mod common;
mod match_support;

use match_support::*;
use ryoshi::matches::referee::GameReferee;
use ryoshi::matches::Referee;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

type GoReferee = GameReferee<ryoshi::go::rules::Record>;
type OthelloReferee = GameReferee<ryoshi::othello::Position>;

/// A match in a fresh scratch folder between engines given as `[[engine]]` text.
fn gtp_match(tag: &str, engines: impl Fn(&Path) -> String, names: &[&str], extra: &str) -> Run {
    let dir = scratch(tag);
    let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    let text = format!(
        "{}[match]\nvariant = \"othello\"\nengines = [{}]\n{extra}\n",
        engines(&dir),
        names.join(", ")
    );
    run(&dir, &text)
}

/// A match of the fake GTP engine in `mode` against the perfect fake USI engine `good`.
fn against_good(tag: &str, mode: &str, n: u32, extra: &str) -> Run {
    gtp_match(
        tag,
        |dir| fake(dir, "good", "good", 0) + &fake_gtp(dir, "gtp", mode, n),
        &["good", "gtp"],
        extra,
    )
}

/// Checks that every game was lost by `loser` for `reason`.
fn all_lost(run: &Run, loser: &str, reason: &str, games: usize) {
    assert_eq!(run.results.len(), games, "{}", run.output);
    for r in &run.results {
        let winner = if r["first"] == loser {
            "second"
        } else {
            "first"
        };
        assert_eq!(r["result"], winner, "{r}");
        assert_eq!(r["reason"], reason, "{r}");
    }
    assert!(run.output.contains("Finished match"), "{}", run.output);
}

#[test]
fn a_gtp_engine_plays_perfect_nim_and_receives_the_gtp_exchange() {
    let run = gtp_match(
        "gtp-good",
        |dir| fake(dir, "usi", "good", 0) + &fake_gtp(dir, "gtp", "good", 0),
        &["usi", "gtp"],
        "games = 4\nbyoyomi_ms = 2000\nopening_plies = 1\nseed = 3",
    );
    assert_eq!(run.results.len(), 4);
    for r in &run.results {
        // Perfect Nim by both: who moves after the one-ply opening (second) wins unless 4 | pile.
        let taken: u32 = r["opening"].as_str().unwrap()[15..].trim().parse().unwrap();
        let want = if (21 - taken).is_multiple_of(4) {
            "first"
        } else {
            "second"
        };
        assert_eq!(r["result"], want, "{r}");
        assert_eq!(r["reason"], "last token", "{r}");
        assert!(r.get("score").is_none(), "Nim has no score");
    }
    assert_eq!(
        starts(&run.dir, "gtp"),
        1,
        "one process for the whole match"
    );
    let mut got = received(&run.dir, "gtp");
    // The match ends with a bare `quit`, as for USI engines.
    assert_eq!(got.pop().as_deref(), Some("quit"));
    let ids: Vec<u64> = got
        .iter()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "every command has the next id: {got:?}"
    );
    let commands: Vec<String> = got
        .iter()
        .map(|l| l.split_once(' ').unwrap().1.to_string())
        .collect();
    // Once: list_commands. Per game: clear_board and time_settings (Othello has no boardsize or
    // komi), the opening's move, then the other side's moves and time_left before each genmove.
    assert_eq!(commands[0], "list_commands");
    assert_eq!(commands[1..3], ["clear_board", "time_settings 0 2 1"]);
    assert!(commands[3].starts_with("play black "), "{commands:?}");
    // Game 1: the GTP engine is second (white): after the opening it moves at once.
    assert_eq!(commands[4..6], ["time_left white 2 1", "genmove white"]);
    assert!(commands[6].starts_with("play black "), "{commands:?}");
    assert_eq!(
        commands.iter().filter(|c| *c == "clear_board").count(),
        4,
        "one clear_board per game"
    );
    // Told only the opponent's moves: no `play` of its own colour after the opening.
    let mut own = "";
    let mut in_opening = true;
    for c in &commands[1..] {
        match c.as_str() {
            "clear_board" => in_opening = true,
            "genmove white" | "genmove black" => {
                in_opening = false;
                own = &c["genmove ".len()..];
            }
            _ if !in_opening && c.starts_with("play ") => {
                assert!(!c.starts_with(&format!("play {own} ")), "{commands:?}")
            }
            _ => {}
        }
    }
}

#[test]
fn two_gtp_engines_play_each_other() {
    let run = gtp_match(
        "gtp-two",
        |dir| fake_gtp(dir, "a", "good", 0) + &fake_gtp(dir, "b", "stale", 0),
        &["a", "b"],
        "games = 2\nmovetime_ms = 2000",
    );
    // From 21 tokens the first player wins perfect Nim, whichever engine it is: the stray
    // answers of `stale` are skipped, not taken for its moves.
    for r in &run.results {
        assert_eq!(r["result"], "first", "{r}");
        assert_eq!(r["reason"], "last token", "{r}");
    }
    assert!(
        run.output.contains("Score of a vs b: 1 - 1 - 0"),
        "{}",
        run.output
    );
}

#[test]
fn a_crash_loses_and_restarts() {
    let run = against_good("gtp-crash", "crash", 2, "games = 2\nbyoyomi_ms = 2000");
    all_lost(&run, "gtp", "crash", 2);
    assert!(
        run.results[0]["detail"]
            .as_str()
            .unwrap()
            .contains("exit status: 3"),
        "{}",
        run.results[0]
    );
    assert_eq!(starts(&run.dir, "gtp"), 2);
}

#[test]
fn a_hang_is_a_time_forfeit_or_a_timeout() {
    let t0 = Instant::now();
    let run = against_good(
        "gtp-hang",
        "hang",
        2,
        "games = 2\nbyoyomi_ms = 1000\nmargin_ms = 300",
    );
    all_lost(&run, "gtp", "time forfeit", 2);
    assert_eq!(starts(&run.dir, "gtp"), 2);
    assert!(t0.elapsed() < Duration::from_secs(30));
    let run = against_good(
        "gtp-hang-nodes",
        "hang",
        1,
        "games = 2\nnodes = 100\ntimeout_ms = 2000",
    );
    all_lost(&run, "gtp", "timeout", 2);
}

#[test]
fn an_untimed_engine_gets_no_clock_and_times_out() {
    let run = gtp_match(
        "gtp-untimed",
        |dir| {
            fake(dir, "good", "good", 0)
                + &fake_gtp(dir, "gtp", "hang", 3).replace("stderr", "untimed = true\nstderr")
        },
        &["good", "gtp"],
        "games = 2\nbyoyomi_ms = 200\ntimeout_ms = 2000",
    );
    // Its first two moves are not flag falls (it answers at once, but it has no clock anyway);
    // its third never comes: a timeout, not a time forfeit.
    assert_eq!(run.results[0]["reason"], "timeout", "{}", run.results[0]);
    assert_eq!(run.results[0]["result"], "first");
    let got = received(&run.dir, "gtp");
    assert!(!got.iter().any(|l| l.contains("time_")), "{got:?}");
}

#[test]
fn an_illegal_move_loses() {
    let run = against_good("gtp-illegal", "illegal", 1, "games = 2\nbyoyomi_ms = 2000");
    all_lost(&run, "gtp", "illegal move", 2);
    let detail = run.results[0]["detail"].as_str().unwrap();
    assert!(detail.starts_with("`7`: cannot take 7"), "{detail}");
    assert_eq!(
        starts(&run.dir, "gtp"),
        1,
        "an illegal move needs no restart"
    );
}

#[test]
fn resign_and_genmove_errors_lose() {
    let run = against_good("gtp-resign", "resign", 1, "games = 2\nbyoyomi_ms = 2000");
    // It resigns at its first genmove of the match only.
    assert_eq!(run.results[0]["reason"], "resign", "{}", run.results[0]);
    assert_eq!(run.results[0]["result"], "first");
    assert_eq!(run.results[0]["detail"], "genmove resign");
    assert_eq!(run.results[1]["reason"], "last token");
    let run = against_good("gtp-error", "error", 1, "games = 2\nbyoyomi_ms = 2000");
    assert_eq!(run.results[0]["reason"], "illegal move");
    assert_eq!(
        run.results[0]["detail"],
        "`genmove white`: ? cannot generate"
    );
}

#[test]
fn refusing_a_legal_move_loses() {
    let run = against_good("gtp-refuse", "refuse", 1, "games = 2\nbyoyomi_ms = 2000");
    all_lost(&run, "gtp", "refused move", 2);
    // Game 2: the GTP engine is black and refuses white's first move.
    let detail = run.results[1]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("`play white ") && detail.ends_with("`: ? illegal move"),
        "{detail}"
    );
}

/// A GTP engine that never answers `list_commands` stops the match before its first game.
#[test]
fn a_silent_engine_stops_the_match_at_the_start() {
    let dir = scratch("gtp-mute");
    let text = format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"good\", \"gtp\"]\n\
         games = 2\nbyoyomi_ms = 500\ntimeout_ms = 1000\n",
        fake(&dir, "good", "good", 0),
        fake_gtp(&dir, "gtp", "mute", 0)
    );
    let (result, output) = try_run(&dir, &text);
    let err = result.expect_err("the match must not run").to_string();
    assert!(err.starts_with("engine `gtp` (cmd `python3 "), "{err}");
    assert!(err.contains("timeout: no `list_commands` in time"), "{err}");
    assert!(!output.contains("Finished"), "{output}");
    assert_eq!(starts(&dir, "gtp"), 1);
}

#[test]
fn optional_commands_go_only_to_engines_that_list_them() {
    let run = against_good("gtp-plain", "nocommands", 0, "games = 2\nbyoyomi_ms = 2000");
    assert_eq!(run.results.len(), 2);
    let got = received(&run.dir, "gtp");
    assert!(!got.iter().any(|l| l.contains("time_")), "{got:?}");
    assert!(got.iter().any(|l| l.ends_with("genmove black")), "{got:?}");
}

/// `genmove = "kgs-genmove_cleanup"` asks for every move with KGS's cleanup command (for engines
/// that pass with dead stones on the board under `genmove`, while the Go referee counts them).
#[test]
fn the_cleanup_command_asks_for_the_moves_when_configured() {
    let cleanup = |mode| {
        move |dir: &Path| {
            fake(dir, "good", "good", 0)
                + &fake_gtp(dir, "gtp", mode, 0)
                    .replace("stderr", "genmove = \"kgs-genmove_cleanup\"\nstderr")
        }
    };
    let run = gtp_match(
        "gtp-cleanup",
        cleanup("good"),
        &["good", "gtp"],
        "games = 2\nbyoyomi_ms = 2000",
    );
    assert_eq!(run.results.len(), 2, "{}", run.output);
    let got = received(&run.dir, "gtp");
    assert!(
        got.iter().any(|l| l.ends_with("kgs-genmove_cleanup black")),
        "{got:?}"
    );
    assert!(!got.iter().any(|l| l.contains(" genmove ")), "{got:?}");

    // An engine that does not list the command is refused at its start, not mid-game.
    let dir = scratch("gtp-cleanup-unlisted");
    let text = format!(
        "{}[match]\nvariant = \"othello\"\nengines = [\"good\", \"gtp\"]\n\
         games = 2\nbyoyomi_ms = 500\ntimeout_ms = 2000\n",
        cleanup("nocommands")(&dir)
    );
    let (result, _) = try_run(&dir, &text);
    let err = result.expect_err("the match must not run").to_string();
    assert!(
        err.contains("`kgs-genmove_cleanup` (its `genmove` setting) is not in its `list_commands`"),
        "{err}"
    );
}

#[test]
fn configuration_errors_name_the_problem() {
    let dir = scratch("gtp-config");
    let engines = fake(&dir, "a", "good", 0) + &fake_gtp(&dir, "b", "good", 0);
    let cases = [
        (
            "variant = \"quantumshogi\"\nbyoyomi_ms = 100",
            "engine `b` speaks GTP, which carries only `go` and `othello`",
        ),
        (
            "variant = \"othello\"\nbyoyomi_ms = 100\nkomi = 6.5",
            "`komi` is for variant `go` only",
        ),
        (
            "variant = \"go\"\nbyoyomi_ms = 100\nboard_size = 1",
            "`board_size` must be from 2 to 25",
        ),
    ];
    for (settings, want) in cases {
        let text = format!("{engines}[match]\nengines = [\"a\", \"b\"]\n{settings}\n");
        std::fs::write(dir.join("bad.toml"), &text).unwrap();
        let out = Command::new(common::BIN)
            .arg("match")
            .arg(dir.join("bad.toml"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{settings}");
        assert!(err.contains(want), "{settings}: {err}");
    }
    let with_options = engines.replace(
        "protocol = \"gtp\"",
        "protocol = \"gtp\"\noptions = { Level = 3 }",
    );
    let text =
        format!("{with_options}[match]\nvariant = \"go\"\nengines = [\"a\", \"b\"]\nnodes = 5\n");
    std::fs::write(dir.join("bad.toml"), &text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("bad.toml"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("a GTP engine takes no `options`"));
}

/// Runs `ryoshi match` on `text` in a scratch folder, every engine line logged to
/// `engines.log` there; returns the results, sorted by game.
fn run_binary(tag: &str, text: &str) -> (std::path::PathBuf, String, Vec<Value>) {
    let dir = scratch(tag);
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .arg("--log")
        .arg(dir.join("engines.log"))
        .output()
        .expect("run ryoshi match");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut results = read_results(&dir.join("results.jsonl"));
    results.sort_by_key(|r| r["game"].as_u64());
    (dir, stdout, results)
}

/// Replays a finished game from its record through a referee and checks the final position, and
/// for a scored end the score: Go by area with `komi` (every stone alive), Othello by discs.
fn replay_and_score(r: &Value, referee: &mut dyn Referee, komi: f64) {
    let opening = r["opening"].as_str().unwrap();
    let sfen = opening
        .strip_prefix("sfen ")
        .map(|rest| rest.split(" moves").next().unwrap());
    referee.set_start(sfen).unwrap();
    let opening_moves: Vec<&str> = opening
        .split(" moves ")
        .nth(1)
        .map(|m| m.split_whitespace().collect())
        .unwrap_or_default();
    for mv in opening_moves.into_iter().chain(
        r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap()),
    ) {
        referee
            .play(mv)
            .unwrap_or_else(|e| panic!("{mv}: {e} in {r}"));
    }
    assert_eq!(referee.position(), r["final_position"].as_str().unwrap());
    if r["reason"] == "area score" || r["reason"] == "disc count" {
        let board = referee.position();
        let lead = if r["variant"] == "go" {
            go_area(&board) - komi
        } else {
            // Empty squares go to the winner.
            let count = |c: char| board.chars().filter(|&x| x == c).count() as f64;
            let diff = count('X') - count('O');
            match diff.partial_cmp(&0.0).unwrap() {
                std::cmp::Ordering::Greater => diff + count('-'),
                std::cmp::Ordering::Less => diff - count('-'),
                std::cmp::Ordering::Equal => 0.0,
            }
        };
        let want = if lead > 0.0 {
            format!("B+{lead}")
        } else if lead < 0.0 {
            format!("W+{}", -lead)
        } else {
            "0".into()
        };
        assert_eq!(r["score"], want.as_str(), "{r}");
        let first_won = lead > 0.0;
        let result = if lead == 0.0 {
            "draw"
        } else if first_won {
            "first"
        } else {
            "second"
        };
        assert_eq!(r["result"], result, "{r}");
    }
}

/// Tromp-Taylor area of a Go position text (`<size> <rows> <b|w>`): black's stones and empty
/// regions reaching only black, minus white's; an independent flood fill.
fn go_area(position: &str) -> f64 {
    let mut fields = position.split_whitespace();
    let size: usize = fields.next().unwrap().parse().unwrap();
    let cells: Vec<u8> = fields
        .next()
        .unwrap()
        .bytes()
        .filter(|&b| b != b'/')
        .collect();
    assert_eq!(cells.len(), size * size);
    let mut total = 0i64;
    let mut seen = vec![false; cells.len()];
    for start in 0..cells.len() {
        match cells[start] {
            b'X' => total += 1,
            b'O' => total -= 1,
            _ if !seen[start] => {
                let (mut region, mut black, mut white) = (0i64, false, false);
                let mut stack = vec![start];
                seen[start] = true;
                while let Some(p) = stack.pop() {
                    region += 1;
                    let (r, c) = (p / size, p % size);
                    let mut near = Vec::new();
                    if r > 0 {
                        near.push(p - size)
                    }
                    if r + 1 < size {
                        near.push(p + size)
                    }
                    if c > 0 {
                        near.push(p - 1)
                    }
                    if c + 1 < size {
                        near.push(p + 1)
                    }
                    for q in near {
                        match cells[q] {
                            b'X' => black = true,
                            b'O' => white = true,
                            _ if !seen[q] => {
                                seen[q] = true;
                                stack.push(q);
                            }
                            _ => {}
                        }
                    }
                }
                if black && !white {
                    total += region;
                } else if white && !black {
                    total -= region;
                }
            }
            _ => {}
        }
    }
    total as f64
}

#[test]
fn ryoshi_gtp_plays_go_against_ryoshi_usi_on_9x9() {
    let text = format!(
        "[[engine]]\nname = \"gtp\"\nprotocol = \"gtp\"\ncmd = {bin:?}\nargs = [\"gtp\"]\n\n\
         [[engine]]\nname = \"usi\"\ncmd = {bin:?}\n\n\
         [match]\nvariant = \"go\"\nengines = [\"gtp\", \"usi\"]\nboard_size = 9\nkomi = 7\n\
         games = 2\nopening_plies = 2\nseed = 5\nmovetime_ms = 300\nmargin_ms = 2000\nmax_plies = 300\n",
        bin = common::BIN
    );
    let (dir, stdout, results) = run_binary("gtp-ryoshi-go", &text);
    assert_eq!(results.len(), 2, "{stdout}");
    // The game's own `komi` (declared in the Go folder) reaches both engines in their protocol's
    // words: GTP's `komi` before each game, USI's `Komi` option once, and the results hold it.
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    let sent = |engine: &str, line: &str| {
        log.lines()
            .filter(|l| l.contains(&format!(" {engine} > ")) && l.ends_with(line))
            .count()
    };
    assert_eq!(sent("gtp", " komi 7"), 2, "{log}");
    assert_eq!(sent("usi", "setoption name Komi value 7"), 1, "{log}");
    // The summary counts the checks the results hold.
    let checks: Vec<&Value> = results
        .iter()
        .filter_map(|r| r["final_scores"].as_array())
        .flatten()
        .collect();
    let agreed = checks.iter().filter(|c| c["agrees"] == true).count();
    if !checks.is_empty() {
        let line = format!(
            "final_score of gtp: agrees with the referee in {agreed} of {} scored games",
            checks.len()
        );
        assert!(stdout.contains(&line), "{stdout}");
    }
    for r in &results {
        assert!(
            r["opening"].as_str().unwrap().starts_with("sfen 9 "),
            "a 9x9 start is written out for USI engines: {r}"
        );
        assert_eq!(r["conditions"]["komi"], 7.0, "{r}");
        let mut referee = GoReferee::new();
        replay_and_score(r, &mut referee, 7.0);
        check_sgf_record(r, "gtp", "usi", 7.0);
        if r["reason"] == "area score" {
            // `ryoshi gtp` was asked for its own score, and the check is recorded.
            let checks = r["final_scores"].as_array().expect("final_scores");
            assert_eq!(checks.len(), 1, "{r}");
            assert_eq!(checks[0]["engine"], "gtp");
            let said = checks[0]["final_score"].as_str().unwrap();
            assert_eq!(checks[0]["agrees"], said == r["score"], "{r}");
        } else {
            // The Monte Carlo player resigns a lost game, through either protocol.
            assert!(r["reason"] == "max plies" || r["reason"] == "resign", "{r}");
        }
    }
}

/// The SGF record next to a Go game's text record: it replays (ryoshi's SGF reader) to the
/// results' final position, and names the players, the komi, the rules and the result.
fn check_sgf_record(r: &Value, black: &str, white: &str, komi: f64) -> std::path::PathBuf {
    use ryoshi::games::record::Recordable;
    use ryoshi::games::rules::Rules;
    use ryoshi::go::rules::Record;
    let path = std::path::PathBuf::from(r["record"].as_str().unwrap().replace(".txt", ".sgf"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let game = Record::read_record(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let end = game.replay().unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        end.to_text(),
        r["final_position"].as_str().unwrap(),
        "{text}"
    );
    assert_eq!(game.moves.len(), r["plies"].as_u64().unwrap() as usize);
    let (first, second) = (r["first"].as_str().unwrap(), r["second"].as_str().unwrap());
    let (pb, pw) = if first == black {
        (black, white)
    } else {
        (white, black)
    };
    assert_eq!((first, second), (pb, pw), "the first engine plays black");
    for prop in [
        format!("PB[{pb}]"),
        format!("PW[{pw}]"),
        format!("KM[{komi}]"),
        "RU[Chinese]".to_string(),
    ] {
        assert!(text.contains(&prop), "{prop} in {text}");
    }
    let result = match (r["reason"].as_str().unwrap(), r["result"].as_str().unwrap()) {
        ("area score", _) => r["score"].as_str().unwrap().to_string(),
        (_, "draw") => "Void".into(),
        (reason, winner) => {
            let colour = if winner == "first" { "B" } else { "W" };
            let how = match reason {
                "resign" => "R",
                "time forfeit" | "timeout" => "T",
                _ => "F",
            };
            format!("{colour}+{how}")
        }
    };
    assert!(
        text.contains(&format!("RE[{result}]")),
        "RE[{result}] in {text}"
    );
    path
}

/// Where Debian puts a game's program (/usr/games, not always on PATH), else the bare name.
fn program(name: &str) -> String {
    let games = format!("/usr/games/{name}");
    if Path::new(&games).exists() {
        games
    } else {
        name.into()
    }
}

fn installed(name: &str) -> bool {
    Command::new(program(name))
        .arg("--help")
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok()
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn gnugo_plays_9x9_through_the_runner() {
    assert!(installed("gnugo"), "gnugo is not installed");
    // GNU Go 3.8 at level 1 with Chinese rules, capturing every dead stone before it passes so
    // that the referee's area count (every stone alive) is the true score.
    let text = format!(
        "[[engine]]\nname = \"gnugo\"\nprotocol = \"gtp\"\ncmd = {gnugo:?}\n\
         args = [\"--mode\", \"gtp\", \"--level\", \"1\", \"--chinese-rules\", \"--capture-all-dead\"]\n\n\
         [[engine]]\nname = \"ryoshi\"\ncmd = {bin:?}\n\n\
         [match]\nvariant = \"go\"\nengines = [\"gnugo\", \"ryoshi\"]\nboard_size = 9\nkomi = 7\n\
         games = 2\nnodes = 1000\ntimeout_ms = 30000\nmax_plies = 250\n",
        bin = common::BIN,
        gnugo = program("gnugo"),
    );
    let t0 = Instant::now();
    let (_dir, stdout, results) = run_binary("gtp-gnugo", &text);
    assert_eq!(results.len(), 2, "{stdout}");
    for r in &results {
        // Neither engine may fail: the games end by the rules (or a resignation).
        assert!(
            ["area score", "resign", "max plies"].contains(&r["reason"].as_str().unwrap()),
            "{r}"
        );
        assert_eq!(r["conditions"]["komi"], 7.0, "{r}");
        let mut referee = GoReferee::new();
        replay_and_score(r, &mut referee, 7.0);
        // GNU Go reads the SGF record back to the same stones.
        let sgf = check_sgf_record(r, "gnugo", "ryoshi", 7.0);
        let script = format!(
            "loadsgf {}\nlist_stones black\nlist_stones white\nquit\n",
            sgf.display()
        );
        let answers = gtp_session(&program("gnugo"), &["--mode", "gtp"], &script);
        let position = r["final_position"].as_str().unwrap();
        let sorted = |a: &str| {
            let mut v: Vec<&str> = a.split_whitespace().collect();
            v.sort();
            v.join(" ")
        };
        assert_eq!(sorted(&answers[1]), stones_of(position, 'X'), "{position}");
        assert_eq!(sorted(&answers[2]), stones_of(position, 'O'), "{position}");
        if r["reason"] == "area score" {
            let checks = r["final_scores"].as_array().expect("gnugo's final_score");
            assert_eq!(checks[0]["engine"], "gnugo");
            let said = checks[0]["final_score"].as_str().unwrap();
            assert!(
                said.starts_with("B+") || said.starts_with("W+") || said == "0",
                "{said}"
            );
        }
    }
    assert!(t0.elapsed() < Duration::from_secs(300));
}

/// The answers of a GTP session fed `script` at once (one per command, `= ` stripped).
fn gtp_session(program: &str, args: &[&str], script: &str) -> Vec<String> {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split("\n\n")
        .filter(|a| !a.trim().is_empty())
        .map(|a| {
            assert!(a.starts_with('='), "{a}");
            a[1..].trim().to_string()
        })
        .collect()
}

/// The vertices of a position text's `stone` (`X` or `O`), sorted.
fn stones_of(position: &str, stone: char) -> String {
    let mut fields = position.split_whitespace();
    let size: usize = fields.next().unwrap().parse().unwrap();
    let letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mut out = Vec::new();
    for (row, text) in fields.next().unwrap().split('/').enumerate() {
        for (col, c) in text.chars().enumerate() {
            if c == stone {
                out.push(format!("{}{}", &letters[col..col + 1], size - row));
            }
        }
    }
    out.sort();
    out.join(" ")
}

#[test]
#[ignore = "needs grhino: apt-get install grhino"]
fn grhino_plays_othello_through_the_runner() {
    assert!(installed("gtp-rhino"), "gtp-rhino is not installed");
    let text = format!(
        "[[engine]]\nname = \"grhino\"\nprotocol = \"gtp\"\ncmd = {rhino:?}\nargs = [\"-l\", \"1\"]\n\n\
         [[engine]]\nname = \"ryoshi\"\ncmd = {bin:?}\n\n\
         [match]\nvariant = \"othello\"\nengines = [\"grhino\", \"ryoshi\"]\n\
         games = 2\nmovetime_ms = 1000\nmargin_ms = 5000\nopening_plies = 2\nseed = 1\n",
        bin = common::BIN,
        rhino = program("gtp-rhino"),
    );
    let (_dir, stdout, results) = run_binary("gtp-grhino", &text);
    assert_eq!(results.len(), 2, "{stdout}");
    for r in &results {
        assert!(
            ["disc count", "resign"].contains(&r["reason"].as_str().unwrap()),
            "{r}"
        );
        let mut referee = OthelloReferee::new();
        replay_and_score(r, &mut referee, 0.0);
        if r["reason"] == "disc count" {
            let checks = r["final_scores"].as_array().expect("grhino's final_score");
            assert_eq!(checks[0]["engine"], "grhino");
        }
    }
}
