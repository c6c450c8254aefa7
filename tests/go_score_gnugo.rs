//! The end-of-game judgement (`final_score`, `final_status_list dead`) against GNU Go's own
//! scoring on 54 finished 9×9 games between ryoshi and GNU Go (tests/data/go/gnugo-aftermath/,
//! with GNU Go's `--score aftermath` results recorded in `aftermath.tsv`; provenance in
//! tests/data/README.md), on six 19×19 games (judge-19/) and on a seki and its look-alike
//! (seki/). Most of the games end with dead stones on the board, so the referee's count (every
//! stone alive) is not the score. A live check that GNU Go still gives the
//! recorded answers needs GNU Go and is #[ignore]d.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

const DIR: &str = "go/gnugo-aftermath";

/// One recorded game: its file, komi, GNU Go's aftermath score and dead stones.
struct Case {
    file: String,
    komi: String,
    score: String,
    dead: BTreeSet<String>,
}

fn cases() -> Vec<Case> {
    cases_in(DIR)
}

fn cases_in(dir: &str) -> Vec<Case> {
    let text = common::read_data_text(&format!("{dir}/aftermath.tsv"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "{line}");
            Case {
                file: f[0].into(),
                komi: f[1].into(),
                score: f[2].into(),
                dead: f[3]
                    .split_whitespace()
                    .filter(|v| *v != "-")
                    .map(String::from)
                    .collect(),
            }
        })
        .collect()
}

/// The answers of `ryoshi gtp` to `komi`, `loadsgf`, `final_score` and `final_status_list
/// dead` for each case: (score, dead stones).
fn ryoshi_judges(cases: &[Case]) -> Vec<(String, BTreeSet<String>)> {
    ryoshi_judges_in(DIR, cases)
}

fn ryoshi_judges_in(dir: &str, cases: &[Case]) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    // A few games per process, each within the transcript's time limit on a loaded machine.
    for chunk in cases.chunks(6) {
        let mut script = String::new();
        for c in chunk {
            let path = common::data_path(&format!("{dir}/{}", c.file));
            script += &format!(
                "komi {}\nloadsgf {}\nfinal_score\nfinal_status_list dead\n",
                c.komi,
                path.display()
            );
        }
        let transcript = common::gtp_transcript(&script);
        let answers: Vec<&str> = transcript
            .split("\n\n")
            .filter(|a| !a.trim().is_empty())
            .collect();
        assert_eq!(answers.len(), 4 * chunk.len(), "{transcript}");
        for k in 0..chunk.len() {
            let a = &answers[4 * k..4 * k + 4];
            assert!(a.iter().all(|x| x.starts_with('=')), "{a:?}");
            let score = a[2][1..].trim().to_string();
            let dead = a[3][1..].split_whitespace().map(String::from).collect();
            out.push((score, dead));
        }
    }
    out
}

#[test]
fn final_score_and_dead_stones_agree_with_gnu_go_aftermath() {
    let cases = cases();
    assert_eq!(cases.len(), 54);
    // The games are realistic endings: GNU Go saw dead stones on the board in most of them.
    assert!(cases.iter().filter(|c| !c.dead.is_empty()).count() >= 40);
    let judged = ryoshi_judges(&cases);
    let mut wrong = Vec::new();
    for (c, (score, dead)) in cases.iter().zip(&judged) {
        if *score != c.score || *dead != c.dead {
            wrong.push(format!(
                "{}: ryoshi {score} dead {dead:?}; GNU Go {} dead {:?}",
                c.file, c.score, c.dead
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The 19×19 games of tests/data/go/judge-19 (one against GNU Go, five self-play games, all
/// ended by two passes with dead stones on the board), against GNU Go's aftermath: the play-on's
/// budget (10 plies on 19×19) keeps the judgement of finished games. `selfplay-15` was misjudged
/// before the budget too (a white group on the lower right that GNU Go's aftermath kills).
#[test]
fn final_score_agrees_with_gnu_go_aftermath_on_19x19() {
    const MISJUDGED: [&str; 1] = ["selfplay-15.sgf"];
    let dir = "go/judge-19";
    let cases = cases_in(dir);
    assert_eq!(cases.len(), 6);
    let judged = ryoshi_judges_in(dir, &cases);
    for (c, (score, dead)) in cases.iter().zip(&judged) {
        let agrees = *score == c.score && *dead == c.dead;
        let known = MISJUDGED.contains(&c.file.as_str());
        assert!(
            agrees != known,
            "{}: ryoshi {score} dead {dead:?}; GNU Go {} dead {:?}{}",
            c.file,
            c.score,
            c.dead,
            if known {
                " (now agrees: take it off MISJUDGED)"
            } else {
                ""
            }
        );
    }
}

/// A seki of two eyeless groups sharing two liberties (tests/data/go/seki/pachi-14), which the
/// playouts and the search's tree break by filling a shared liberty: GNU Go's Jigo with no dead
/// stone, both groups in seki. And its look-alike (pachi-38), where a sacrifice leaves a bent
/// four in the corner: GNU Go's B+10, the white group dead.
#[test]
fn a_seki_and_its_look_alike_are_judged_as_gnu_go_does() {
    let dir = "go/seki";
    let cases = cases_in(dir);
    assert_eq!(cases.len(), 2);
    let judged = ryoshi_judges_in(dir, &cases);
    for (c, got) in cases.iter().zip(&judged) {
        assert_eq!(*got, (c.score.clone(), c.dead.clone()), "{}", c.file);
    }
    assert_eq!(cases[0].file, "pachi-14.sgf");
    let path = common::data_path(&format!("{dir}/{}", cases[0].file));
    let transcript = common::gtp_transcript(&format!(
        "loadsgf {}\nfinal_status_list seki\n",
        path.display()
    ));
    let seki: BTreeSet<&str> = transcript
        .split("\n\n")
        .nth(1)
        .unwrap_or_default()
        .trim_start_matches('=')
        .split_whitespace()
        .collect();
    let want: BTreeSet<&str> = "B9 C9 C8 D8 E8 F8 A7 D7 A6 B6 C6 D6 E6 A5 C5 A4 A8 B8 B7"
        .split(' ')
        .collect();
    assert_eq!(seki, want, "{transcript}");
}

/// Where GNU Go is installed (Debian: /usr/games).
fn gnugo() -> Option<String> {
    ["/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .map(String::from)
}

#[test]
#[ignore = "needs gnugo: apt-get install gnugo"]
fn gnu_go_aftermath_still_gives_the_recorded_scores() {
    let gnugo = gnugo().expect("this test needs GNU Go: apt-get install gnugo");
    // The two games where the ownership alone misjudged a block (game-19: a white group whose
    // second eye the playouts fill; game-27: a black group in a capturing race), a few more, and
    // the seki the playouts broke.
    let picked = cases().into_iter().filter(|c| {
        ["game-19.sgf", "game-27.sgf", "game-01.sgf", "game-40.sgf"].contains(&&*c.file)
    });
    let seki = cases_in("go/seki").into_iter();
    for (dir, c) in picked.map(|c| (DIR, c)).chain(seki.map(|c| ("go/seki", c))) {
        let path = common::data_path(&format!("{dir}/{}", c.file));
        let out = Command::new(&gnugo)
            .args(["--score", "aftermath", "--chinese-rules", "-l"])
            .arg(&path)
            .output()
            .expect("run gnugo");
        let text = String::from_utf8_lossy(&out.stdout);
        // `White wins by 4.0 points`, `Black wins by 2.0 points`, `Jigo`.
        let line = text
            .lines()
            .find(|l| l.contains(" wins by ") || l.trim() == "Jigo")
            .unwrap_or_else(|| panic!("{}: {text}", c.file));
        let score = if line.trim() == "Jigo" {
            "0".to_string()
        } else {
            let words: Vec<&str> = line.split_whitespace().collect();
            let points: f64 = words[3].parse().unwrap();
            let colour = if words[0] == "Black" { "B" } else { "W" };
            format!("{colour}+{points}")
        };
        assert_eq!(score, c.score, "{}: {line}", c.file);
    }
}
