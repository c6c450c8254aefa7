//! Reading results files back (`--resume`, `--merge`, the count at the start): a FIFO is
//! refused instead of blocking, a line cut inside a UTF-8 character is set aside like any cut
//! line, memory follows the games rather than the file, and resuming is linear in the kept
//! games.

mod match_support;

use match_support::*;
use ryoshi::matches::game::Fixture;
use ryoshi::matches::opening::Opening;
use ryoshi::matches::{resume, schedule, Config};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with `args` in `dir`; its output, or `None` if it was still running after
/// `limit` (it is then killed).
fn ryoshi_within(dir: &Path, args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ryoshi"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ryoshi starts");
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if child.try_wait().expect("wait").is_some() {
            return Some(child.wait_with_output().expect("output"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// A results line of game `game` of a two-engine match of `variant` (a, b) from the start
/// position, with `extra` fields (`"detail":"..."`) and `plies` moves.
fn line(game: u64, variant: &str, plies: usize, detail: &str) -> String {
    let (first, second) = if game % 2 == 1 {
        ("a", "b")
    } else {
        ("b", "a")
    };
    let moves = vec!["\"f5\""; plies].join(",");
    let ms = vec!["1"; plies].join(",");
    format!(
        "{{\"game\":{game},\"variant\":\"{variant}\",\"first\":\"{first}\",\"second\":\"{second}\",\
         \"result\":\"{}\",\"reason\":\"disc count\",\"detail\":\"{detail}\",\"plies\":{plies},\
         \"opening\":\"startpos\",\"opening_index\":{},\"opening_plies\":0,\"moves\":[{moves}],\
         \"move_ms\":[{ms}],\"time_ms\":[0,0],\"final_position\":\"x\",\"record\":null}}\n",
        ["first", "second", "draw"][game as usize % 3],
        (game - 1) / 2
    )
}

/// The stdout of a run that must have succeeded (its stderr shown when it did not).
fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[test]
fn a_fifo_is_refused_as_a_results_file_and_by_merge() {
    // A FIFO nobody writes made `--merge` and `--resume` wait for ever, and the results file
    // was opened for appending, which waits for a reader.
    let dir = scratch("results-fifo");
    let fifo = dir.join("results.jsonl");
    mkfifo(&fifo);
    let config = format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 2\nnodes = 1\n",
        fake(&dir, "a", "good", 0),
        fake(&dir, "b", "good", 0)
    );
    std::fs::write(dir.join("engines.toml"), config).unwrap();
    let limit = Duration::from_secs(20);
    for args in [
        &["match", "--merge", "results.jsonl"][..],
        &["match", "engines.toml", "--resume"],
        &["match", "engines.toml"],
    ] {
        let out = ryoshi_within(&dir, args, limit)
            .unwrap_or_else(|| panic!("`{}` blocked on the FIFO", args.join(" ")));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("Finished game"),
            "{args:?}"
        );
    }
}

#[test]
fn a_line_cut_inside_a_character_is_set_aside_by_merge() {
    // The file was unreadable ("stream did not contain valid UTF-8"); now the cut line is set
    // aside and the other games count.
    let dir = scratch("results-utf8");
    let whole = line(3, "othello", 2, "déjà vu");
    let at = whole.find('é').unwrap() + 1; // inside the two bytes of `é`
    let mut bytes = (line(1, "othello", 2, "") + &line(2, "othello", 2, "")).into_bytes();
    bytes.extend_from_slice(&whole.as_bytes()[..at]);
    bytes.push(b'\n');
    bytes.extend_from_slice(line(4, "othello", 2, "").as_bytes());
    std::fs::write(dir.join("r.jsonl"), &bytes).unwrap();
    let out = ryoshi_within(
        &dir,
        &["match", "--merge", "r.jsonl"],
        Duration::from_secs(20),
    )
    .expect("merge ends");
    let stdout = succeeded(&out);
    assert!(
        stdout.contains("Set aside (cut off by a killed run?): r.jsonl: line 3: not UTF-8"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Merged 3 games from 1 files (0 duplicates skipped)"),
        "{stdout}"
    );
}

#[test]
fn merging_holds_the_games_not_the_file() {
    // 5,000 games of 1,500 plies (54 MB): the whole file and a JSON tree per line took 767 MB;
    // what is kept of a game is a few fields (9 MB in all). Under a 100 MB address space the
    // old reader aborts on an allocation.
    let dir = scratch("results-memory");
    let big = dir.join("big.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
    for game in 1..=5000 {
        file.write_all(line(game, "othello", 1500, "").as_bytes())
            .unwrap();
    }
    file.flush().unwrap();
    drop(file);
    assert!(std::fs::metadata(&big).unwrap().len() > 50 << 20);
    let out = Command::new("sh")
        .args(["-c", "ulimit -v 100000 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_ryoshi"))
        .args(["match", "--merge", big.to_str().unwrap()])
        .output()
        .expect("sh runs");
    let stdout = succeeded(&out);
    assert!(
        stdout.contains("Merged 5000 games from 1 files"),
        "{stdout}"
    );
}

/// The schedule of a two-engine Othello match of `games` games from the start position.
fn two_engine_schedule(games: usize) -> Vec<Fixture> {
    let text = format!(
        "[[engine]]\nname = \"a\"\ncmd = \"x\"\n\n[[engine]]\nname = \"b\"\ncmd = \"x\"\n\n\
         [match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = {games}\nnodes = 1\n"
    );
    let config = Config::read(&text, Path::new("")).unwrap();
    let openings = schedule::deal(vec![Opening::startpos()], games.div_ceil(2));
    schedule(&config, &openings)
}

/// What `--resume` keeps of the results file at `path` for the match of
/// [`two_engine_schedule`] (`jobs`): engines a and b, Othello, `nodes = 1`.
fn kept_by_two_engine_match(
    path: &Path,
    jobs: &[Fixture],
) -> Result<(Vec<resume::Kept>, String), resume::ResumeError> {
    let names = ["a".to_string(), "b".to_string()];
    let of = resume::Match {
        jobs,
        names: &names,
        variant: "othello",
        conditions: &serde_json::json!({"nodes": 1, "max_plies": 512}),
    };
    resume::kept(path, &of)
}

#[test]
fn resuming_is_linear_in_the_kept_games() {
    // Each kept game searched the schedule: 100,000 kept games took 10.8 s (16.8 s here),
    // 200,000 took 51.5 s. Indexed by game number they take well under a second.
    let n = 100_000;
    let jobs = two_engine_schedule(n);
    let dir = scratch("results-resume-time");
    let path = dir.join("results.jsonl");
    let text: String = (1..=n as u64).map(|g| line(g, "othello", 0, "")).collect();
    std::fs::write(&path, text).unwrap();
    let start = Instant::now();
    let (kept, notes) = kept_by_two_engine_match(&path, &jobs).expect("this match's games");
    let took = start.elapsed();
    eprintln!("{n} kept games in {took:?}");
    assert_eq!((kept.len(), notes.as_str()), (n, ""));
    assert!(kept.iter().all(|k| jobs[k.job].game as u64 == k.row.game));
    assert!(took < Duration::from_secs(4), "{n} kept games: {took:?}");
}

#[test]
fn resuming_another_variants_results_is_refused() {
    // A Go run's games were counted toward an Othello run: only the engines and the opening
    // were compared.
    let jobs = two_engine_schedule(4);
    let dir = scratch("results-variant");
    let path = dir.join("results.jsonl");
    std::fs::write(&path, line(1, "othello", 0, "") + &line(2, "go", 0, "")).unwrap();
    let error = kept_by_two_engine_match(&path, &jobs)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        error.contains("game 2 was a go game, this match plays othello"),
        "{error}"
    );
}
