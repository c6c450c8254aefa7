//! Short real matches between two ryoshi processes through `ryoshi match`: the results file, the
//! game records (each replays legally through the referee and ends the way the result says) and
//! the summary arithmetic (recomputed from the results file).

mod common;

use ryoshi::games::record::{GameRecord, Recordable};
use ryoshi::games::rules::Rules;
use ryoshi::matches::referee::GameReferee;
use ryoshi::matches::results::parse_record;
use ryoshi::matches::stats::Tally;
use ryoshi::matches::{GameView, Referee, Side, Verdict};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

type GoReferee = GameReferee<ryoshi::go::rules::Record>;
type OthelloReferee = GameReferee<ryoshi::othello::Position>;
type QuantumReferee = GameReferee<ryoshi::quantum::Record>;

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
    own_record: &dyn Fn(&Value),
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
        let moves = recorded_moves(r);
        engine_moves += moves.len();
        for mv in opening.iter().chain(&moves) {
            assert!(
                rf.game_end().is_none(),
                "move after the end in game {}",
                i + 1
            );
            assert_eq!(rf.play(mv).ok().as_deref(), Some(*mv), "game {}", i + 1);
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
        own_record(r);

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
    // Each game's text record and its record in its game's format, and the run's collection.
    assert_eq!(
        std::fs::read_dir(real.dir.join("records")).unwrap().count(),
        2 * games + 1
    );
}

/// The game's record in its own format (`extension`), beside the text record: read back through
/// the game's record module, it replays every ply to the results' final position and names the
/// players, the date and why the game ended.
fn check_own_record<R: Recordable>(r: &Value, extension: &str) -> GameRecord<R> {
    let text_path = r["record"].as_str().unwrap();
    let path = text_path.replace(".txt", &format!(".{extension}"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let game = R::read_record(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let end = game.replay().unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        end.to_text(),
        r["final_position"].as_str().unwrap(),
        "{text}"
    );
    assert_eq!(
        game.moves.len() as u64,
        r["plies"].as_u64().unwrap(),
        "{text}"
    );
    let players = [r["first"].as_str(), r["second"].as_str()];
    let tags = &game.tags;
    assert_eq!(
        [tags.players[0].as_deref(), tags.players[1].as_deref()],
        players
    );
    let date = tags.date.as_deref().expect("a date");
    assert!(date.len() == 10 && date.starts_with("20"), "{date}");
    assert!(tags.result.is_some(), "{text}");
    game
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
    let kifu = |r: &Value| {
        let game = check_own_record::<ryoshi::quantum::Record>(r, "kifu");
        // The kifu says the result as a score line and why the game ended.
        let (result, reason) = (r["result"].as_str().unwrap(), r["reason"].as_str());
        let score = match result {
            "first" => "1-0",
            "second" => "0-1",
            _ => "1/2-1/2",
        };
        assert_eq!(game.tags.result.as_deref(), Some(score));
        assert_eq!(game.tags.reason.as_deref(), reason);
    };
    check(
        &real,
        2,
        "search",
        "possibilityist",
        max_plies,
        &|| Box::new(QuantumReferee::new()),
        &kifu,
    );
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
    let ggf = |r: &Value| {
        let game = check_own_record::<ryoshi::othello::Position>(r, "ggf");
        // GGF's result is black's disc lead, which decides the game.
        let lead: f64 = game.tags.result.as_deref().unwrap().parse().unwrap();
        let want = match r["result"].as_str().unwrap() {
            "first" => std::cmp::Ordering::Greater,
            "second" => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Equal,
        };
        assert_eq!(lead.total_cmp(&0.0), want, "{r}");
        let end = game.replay().unwrap();
        let discs = |c: char| end.to_text().chars().filter(|&x| x == c).count() as f64;
        // The empty squares go to the winner, as the WOF counts them.
        let diff = discs('X') - discs('O');
        assert_eq!(lead, diff + diff.signum() * discs('-'), "{r}");
    };
    check(
        &real,
        4,
        "level3",
        "level1",
        512,
        &|| Box::new(OthelloReferee::new()),
        &ggf,
    );
}

/// Go from an empty 7x7 board (the openings file), two ryoshi move choosers with different seeds.
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

/// Go games run to two passes; each replays through the Go referee, and its verdict agrees with
/// an area count made here from the final position.
#[test]
fn go_games_are_refereed_to_two_passes_and_scored_by_area() {
    // A playout limit, not a clock, so that the games are the same on every machine: on a
    // 50 ms clock they were not, and on CI's machine one side resigned a game. At this limit
    // the four games run to two passes wherever they run. (600 until the learned priors of
    // stop 52: with them, a side's reused tree passed the resignation's 2000 visits.)
    const PLAYOUTS: u32 = 400;
    let openings = std::env::temp_dir().join(format!("ryoshi-match-go-{}.txt", std::process::id()));
    std::fs::write(&openings, format!("sfen {EMPTY_7X7}\n")).unwrap();
    let real = run_real(
        "go",
        "go",
        ("s1", "Seed = 1"),
        ("s2", "Seed = 2"),
        &format!(
            "games = 4\nconcurrency = 2\nnodes = {PLAYOUTS}\nopenings = {openings:?}\nmax_plies = 400"
        ),
    );
    let _ = std::fs::remove_file(&openings);
    assert_eq!(real.results.len(), 4, "{}", real.stdout);
    for r in &real.results {
        assert_eq!(r["variant"], "go");
        assert_eq!(r["reason"], "area score", "{r}");
        let moves = recorded_moves(r);
        assert!(moves.len() > 10, "{r}");
        assert_eq!(moves[moves.len() - 2..], ["pass", "pass"]);

        let mut referee = GoReferee::new();
        referee.set_start(Some(EMPTY_7X7)).unwrap();
        for mv in &moves {
            assert!(referee.game_end().is_none(), "a move after the end: {r}");
            assert_eq!(referee.play(mv).ok().as_deref(), Some(*mv));
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

        let record = std::fs::read_to_string(r["record"].as_str().unwrap()).unwrap();
        let (_, record_moves) = parse_record(&record).expect("record parses");
        assert_eq!(record_moves, moves);
        assert!(
            record.contains("First: ") && record.contains(" (black)"),
            "{record}"
        );
        assert!(record.contains("(area score)"), "{record}");

        // The SGF beside it replays to the same board, with the score as its result.
        let sgf = check_own_record::<ryoshi::go::rules::Record>(r, "sgf");
        assert_eq!(sgf.start.to_text(), EMPTY_7X7);
        assert_eq!(sgf.tags.result.as_deref(), r["score"].as_str(), "{r}");
        assert_eq!(sgf.tags.get("KM"), Some("7.5"));
    }
}

/// The engines' moves of one results line, as recorded.
fn recorded_moves(r: &Value) -> Vec<&str> {
    r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect()
}
