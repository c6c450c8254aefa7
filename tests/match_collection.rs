//! The collection file of a match run (protocol/match.md, "The collection"), through the real
//! binary: short matches between two ryoshi processes at a fixed node count write all their
//! games into one file of the game's format, which `loadrecord FILE game N` (and GTP's `loadsgf
//! FILE game N`) reads back game by game as the per-game records hold them; `--resume` and
//! `--merge` of shards make the same collection as one machine's run; a killed run keeps every
//! game it finished; GNU Go and Sabaki's SGF parser read the Go collection.

mod common;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ryoshi-collection-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A match of two ryoshi processes in `variant` at a fixed node count: deterministic games.
fn config(dir: &Path, variant: &str, games: u32, extra: &str) -> PathBuf {
    let engine = |name: &str| format!("[[engine]]\nname = \"{name}\"\ncmd = {:?}\n\n", common::BIN);
    let text = format!(
        "{}{}[match]\nvariant = \"{variant}\"\nengines = [\"a\", \"b\"]\ngames = {games}\n\
         opening_plies = 2\nseed = 5\n{extra}\n",
        engine("a"),
        engine("b"),
    );
    let path = dir.join("engines.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The per-variant settings that keep a game short.
fn settings(variant: &str) -> &'static str {
    match variant {
        "go" => "concurrency = 2\nboard_size = 5\nnodes = 100\nmax_plies = 80",
        "othello" => "concurrency = 2\nnodes = 200",
        _ => "concurrency = 2\nnodes = 300\nmax_plies = 30",
    }
}

/// `ryoshi match ARGS`: its stdout; the run must succeed.
fn ryoshi_match(args: &[&str]) -> String {
    let out = Command::new(common::BIN)
        .arg("match")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    stdout
}

/// The collection a run or a merge names on stdout (`Collection: <path>[ (N games)]`).
fn collection(stdout: &str) -> PathBuf {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Collection: "))
        .unwrap_or_else(|| panic!("no Collection line:\n{stdout}"));
    PathBuf::from(line.split(" (").next().unwrap())
}

/// The results lines, by game number, the first of each number.
fn results(path: &Path) -> Vec<Value> {
    let mut rows: Vec<Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    rows.sort_by_key(|r| r["game"].as_u64());
    rows.dedup_by_key(|r| r["game"].as_u64());
    rows
}

/// The game's own-format record beside its text record.
fn own_record(row: &Value, extension: &str) -> PathBuf {
    Path::new(row["record"].as_str().unwrap()).with_extension(extension)
}

/// What the session prints for each load of `loads` (`loadrecord` or `loadrecordtext`
/// arguments): `record` after it, or the error line.
fn loaded(variant: &str, loads: &[String]) -> Vec<String> {
    let mut input = format!("setoption name USI_Variant value {variant}\n");
    for load in loads {
        input += &format!("{load}\nrecord\nusinewgame\nisready\n");
    }
    let out = common::transcript(input.as_bytes());
    out.split("readyok\n")
        .take(loads.len())
        .map(str::to_string)
        .collect()
}

/// A collection's text with the dates left out (two runs of one match can straddle midnight).
fn undated(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with("[Date "))
        .map(|l| match (l.find("DT["), l.find("]PB[")) {
            (Some(a), Some(b)) if a < b => format!("{}{}", &l[..a], &l[b + 1..]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_game_of_the_collection_loads_as_its_own_record() {
    for (variant, extension, format) in [
        ("go", "sgf", "SGF"),
        ("othello", "ggf", "GGF"),
        ("quantumshogi", "kifu", "kifu"),
    ] {
        let dir = scratch(variant);
        let toml = config(&dir, variant, 4, settings(variant));
        let stdout = ryoshi_match(&[toml.to_str().unwrap()]);
        let path = collection(&stdout);
        assert!(
            path.starts_with(dir.join("records"))
                && path
                    .to_string_lossy()
                    .ends_with(&format!("-games.{extension}")),
            "{}",
            path.display()
        );
        let rows = results(&dir.join("results.jsonl"));
        assert_eq!(rows.len(), 4);
        let file = path.display();
        let mut loads = Vec::new();
        for row in &rows {
            let game = row["game"].as_u64().unwrap();
            loads.push(format!("loadrecord {file} game {game}"));
            loads.push(format!(
                "loadrecord {}",
                own_record(row, extension).display()
            ));
        }
        // Game 1 without `game N`; game 3 from the text on one line; then past the end.
        let flat = std::fs::read_to_string(&path).unwrap().replace('\n', " ");
        loads.push(format!("loadrecord {file}"));
        loads.push(format!("loadrecordtext {flat} game 3"));
        loads.push(format!("loadrecord {file} game 5"));
        let out = loaded(variant, &loads);
        for (n, pair) in out.chunks(2).take(4).enumerate() {
            assert!(
                !pair[0].contains("error"),
                "{variant} game {}: {}",
                n + 1,
                pair[0]
            );
            assert_eq!(pair[0], pair[1], "{variant} game {}", n + 1);
            // Each game is the results line's game: its players and its last position.
            let row = &rows[n];
            for name in [&row["first"], &row["second"]] {
                assert!(pair[0].contains(name.as_str().unwrap()), "{}", pair[0]);
            }
        }
        assert_eq!(out[8], out[0], "{variant}: no `game N` is game 1");
        assert_eq!(out[9], out[4], "{variant}: loadrecordtext ... game 3");
        // (The error quotes a long path shortened.)
        let error = out[10].lines().next().unwrap();
        assert!(
            error.starts_with("info string error: '/")
                && error.ends_with(&format!("': no game 5: the {format} record holds 4 games")),
            "{error}"
        );
        // The games' last positions, as the session replays them, are the results'.
        let mut input = format!("setoption name USI_Variant value {variant}\n");
        for n in 1..=4 {
            input += &format!("loadrecord {file} game {n}\nd\n");
        }
        let out = common::transcript(input.as_bytes());
        for row in &rows {
            let last = row["final_position"].as_str().unwrap();
            assert!(out.contains(last), "{variant}: {last} not in\n{out}");
        }
        if variant == "go" {
            // GTP's `loadsgf FILE game N` reads the same game as the per-game file.
            let mut script = String::from("boardsize 5\n");
            for row in &rows {
                let game = row["game"].as_u64().unwrap();
                let own = own_record(row, extension);
                script += &format!(
                    "loadsgf {file} game {game}\nshowboard\nloadsgf {}\nshowboard\n",
                    own.display()
                );
            }
            script += &format!("loadsgf {file} 3 game 5\nquit\n");
            let out = common::gtp_transcript(&script);
            let replies: Vec<&str> = out.split("\n\n").collect();
            for game in 0..4 {
                let at = 1 + 4 * game;
                assert!(replies[at].starts_with('='), "{out}");
                assert_eq!(replies[at + 1], replies[at + 3], "game {}", game + 1);
            }
            assert!(
                replies[17].contains("no game 5: the SGF record holds 4 games"),
                "{out}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn resume_and_a_merge_of_shards_give_one_machines_collection() {
    let one = scratch("one");
    let toml = config(&one, "othello", 8, settings("othello"));
    let whole = undated(&collection(&ryoshi_match(&[toml.to_str().unwrap()])));
    assert_eq!(whole.matches(";)").count(), 8, "{whole}");

    // Half the games, then the rest with --resume: the second run collects all eight.
    let resumed = scratch("resumed");
    let toml = config(&resumed, "othello", 4, settings("othello"));
    let toml = toml.to_str().unwrap();
    ryoshi_match(&[toml]);
    let stdout = ryoshi_match(&[toml, "--set", "match.games=8", "--resume"]);
    assert!(stdout.contains("Resuming: 4 of the 8 games"), "{stdout}");
    assert_eq!(undated(&collection(&stdout)), whole);

    // Two shards, the first run twice: the merge counts each game once, in game order.
    let shards = scratch("shards");
    let toml = config(&shards, "othello", 8, settings("othello"));
    let toml = toml.to_str().unwrap();
    for shard in ["1/2", "2/2", "1/2"] {
        let stdout = ryoshi_match(&[toml, "--shard", shard]);
        let path = collection(&stdout);
        // Shards may start in the same second: each names its own collection.
        let label = format!("-shard{}of2-games.ggf", &shard[..1]);
        assert!(
            path.to_string_lossy().ends_with(&label),
            "{}",
            path.display()
        );
        let own = std::fs::read_to_string(path).unwrap();
        assert_eq!(own.lines().count(), 4, "{own}");
    }
    let files = ["results-shard1of2.jsonl", "results-shard2of2.jsonl"].map(|f| shards.join(f));
    let stdout = ryoshi_match(&[
        "--merge",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("Merged 8 games from 2 files (4 duplicates skipped)"),
        "{stdout}"
    );
    let merged = collection(&stdout);
    assert!(stdout.contains(&format!("Collection: {} (8 games)", merged.display())));
    assert_eq!(undated(&merged), whole);
    for dir in [one, resumed, shards] {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_killed_run_keeps_the_games_it_finished() {
    let dir = scratch("killed");
    let toml = config(&dir, "othello", 40, "concurrency = 1\nnodes = 2000");
    let mut child = Command::new(common::BIN)
        .arg("match")
        .arg(&toml)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut path = None;
    let mut finished = 0;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(p) = line.strip_prefix("Collection: ") {
            path = Some(PathBuf::from(p));
        }
        if line.starts_with("Finished game") {
            finished += 1;
            if finished == 3 {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let path = path.expect("a Collection line");
    // At least the three games it said were finished, each whole.
    let text = std::fs::read_to_string(&path).unwrap();
    let held = text.lines().count();
    assert!((3..40).contains(&held), "{text}");
    let out = loaded(
        "othello",
        &[format!("loadrecord {} game {}", path.display(), held + 1)],
    );
    let error = out[0].lines().next().unwrap();
    let want = format!("': no game {}: the GGF record holds {held} games", held + 1);
    assert!(error.ends_with(&want), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Go match's collection and its results.
fn go_collection(name: &str) -> (PathBuf, PathBuf, Vec<Value>) {
    let dir = scratch(name);
    let toml = config(&dir, "go", 4, settings("go"));
    let path = collection(&ryoshi_match(&[toml.to_str().unwrap()]));
    let rows = results(&dir.join("results.jsonl"));
    (dir, path, rows)
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn gnu_go_reads_the_sgf_collection() {
    let gnugo = ["/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("this test needs GNU Go: apt-get install gnugo");
    let (dir, path, rows) = go_collection("gnugo");
    let script = format!(
        "loadsgf {}\nlist_stones black\nlist_stones white\nquit\n",
        path.display()
    );
    let input = dir.join("gnugo.gtp");
    std::fs::write(&input, script).unwrap();
    let out = Command::new(gnugo)
        .args(["--mode", "gtp", "--gtp-input"])
        .arg(&input)
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let replies: Vec<&str> = out.split("\n\n").collect();
    assert!(replies[..3].iter().all(|r| r.starts_with('=')), "{out}");
    // GNU Go reads the collection's first game: its last position is game 1's.
    let stones = |r: &str| {
        let mut v: Vec<String> = r[1..].split_whitespace().map(str::to_string).collect();
        v.sort();
        v
    };
    let final_position = rows[0]["final_position"].as_str().unwrap();
    let mut want = [Vec::new(), Vec::new()];
    let rows_text = final_position.split_whitespace().nth(1).unwrap();
    let size = rows_text.split('/').count();
    for (r, row) in rows_text.split('/').enumerate() {
        for (c, cell) in row.chars().enumerate() {
            let vertex = format!(
                "{}{}",
                "ABCDEFGHJKLMNOPQRSTUVWXYZ".as_bytes()[c] as char,
                size - r
            );
            match cell {
                'X' => want[0].push(vertex),
                'O' => want[1].push(vertex),
                _ => {}
            }
        }
    }
    want.iter_mut().for_each(|w| w.sort());
    assert_eq!([stones(replies[1]), stones(replies[2])], want, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs node and npm: npm ci --prefix tests/sabaki"]
fn sabaki_parses_the_sgf_collection_into_its_games() {
    let (dir, path, rows) = go_collection("sabaki");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sabaki/collection.js");
    let out = Command::new("node")
        .arg(script)
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .expect("run node (install Node.js)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(games.len(), rows.len());
    for (game, row) in games.iter().zip(&rows) {
        assert_eq!(game["black"], row["first"], "{game}");
        assert_eq!(game["white"], row["second"], "{game}");
        // Every move of the game, the opening's and the passes included.
        assert_eq!(game["moves"], row["plies"], "{game}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
