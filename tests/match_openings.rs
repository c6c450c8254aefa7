//! Openings from game records (`openings_format = "records"`, or a folder): SGF, GGF and
//! transcripts, quantum kifu; the cut at `openings_cut`; a bad record named by its file and
//! line; and a real `ryoshi match` playing each record opening with both colours.

mod common;

use ryoshi::games::record::Recordable;
use ryoshi::matches::opening::Opening;
use ryoshi::matches::{referee_for_config, schedule, Config, MatchError};
use ryoshi::othello::square_name;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ryoshi-openings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A configuration of `variant` whose `[match]` table ends with `extra`.
fn config(dir: &Path, variant: &str, extra: &str) -> Result<Config, MatchError> {
    let text = format!(
        "[[engine]]\nname = \"a\"\ncmd = \"a\"\n\n[[engine]]\nname = \"b\"\ncmd = \"b\"\n\n\
         [match]\nvariant = \"{variant}\"\nengines = [\"a\", \"b\"]\nnodes = 10\n{extra}\n"
    );
    let path = dir.join("engines.toml");
    std::fs::write(&path, text).unwrap();
    Ok(Config::load(&path)?)
}

/// The openings of a match of `variant` reading `openings` (a file or a folder in `dir`).
fn openings(dir: &Path, variant: &str, extra: &str, count: usize) -> Result<Vec<Opening>, String> {
    let config = config(dir, variant, extra).map_err(|e| e.to_string())?;
    let factory = referee_for_config(&config).map_err(|e| e.to_string())?;
    let dealt = schedule::openings(&config, factory.as_ref(), count).map_err(|e| e.to_string())?;
    Ok(dealt.iter().map(|o| Opening::clone(o)).collect())
}

fn opening(sfen: Option<&str>, moves: &[&str]) -> Opening {
    Opening {
        sfen: sfen.map(str::to_string),
        moves: moves.iter().map(|m| m.to_string()).collect(),
    }
}

#[test]
fn go_openings_from_a_folder_of_sgf_files_cut_at_a_ply() {
    let dir = scratch("sgf");
    let book = dir.join("book");
    std::fs::create_dir_all(&book).unwrap();
    // Read in name order; a hidden file is left out. SGF points are column then row, `a` the
    // top row: on 9x9 `ee` is E5, `ec` E7, `cc` C7, `gc` G7.
    std::fs::write(
        book.join("a.sgf"),
        "(;FF[4]GM[1]SZ[9]KM[6.5]PB[x]PW[y];B[ee];W[ec]\n;B[cc];W[gc](;B[aa])(;B[bb]))",
    )
    .unwrap();
    std::fs::write(book.join("b.sgf"), "(;GM[1]SZ[9]AB[aa][bb]PL[W];W[];B[ii])").unwrap();
    std::fs::write(book.join(".hidden.sgf"), "not a record").unwrap();
    let got = openings(
        &dir,
        "go",
        "board_size = 9\nopenings = \"book\"\nopenings_cut = 3",
        3,
    );
    let setup = "9 X......../.X......./........./........./........./........./........./........./......... w";
    assert_eq!(
        got.unwrap(),
        [
            // The match's own start is `startpos` (written out later, for the engines).
            opening(None, &["E5", "E7", "C7"]),
            // Setup stones and white to move are the record's own start; a pass is `pass`.
            opening(Some(setup), &["pass", "J1"]),
            opening(None, &["E5", "E7", "C7"]),
        ]
    );
    // Without a cut the whole main line (variations left out), here five moves.
    let whole = openings(&dir, "go", "board_size = 9\nopenings = \"book\"", 1).unwrap();
    assert_eq!(whole[0].moves, ["E5", "E7", "C7", "G7", "A9"]);
}

#[test]
fn othello_openings_from_transcripts_and_ggf_lines() {
    let dir = scratch("othello");
    let ggf = "(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3//1.5]W[C5/-0.25/2.1]B[E6];)";
    std::fs::write(
        dir.join("book.txt"),
        format!("# one record a line\nf5d6c3d3c4\n\n{ggf}\nF5 F4 E3\n"),
    )
    .unwrap();
    let extra = "openings = \"book.txt\"\nopenings_format = \"records\"\nopenings_cut = 4";
    let got = openings(&dir, "othello", extra, 4).unwrap();
    assert_eq!(
        got,
        [
            opening(None, &["f5", "d6", "c3", "d3"]),
            opening(None, &["f5", "f6", "d3", "c5"]),
            // A record shorter than the cut is taken whole.
            opening(None, &["f5", "f4", "e3"]),
            opening(None, &["f5", "d6", "c3", "d3"]),
        ]
    );
    // The cut of 1 keeps one ply of each.
    let extra = "openings = \"book.txt\"\nopenings_format = \"records\"\nopenings_cut = 1";
    let one = openings(&dir, "othello", extra, 3).unwrap();
    assert!(one.iter().all(|o| o.moves == ["f5"]), "{one:?}");
}

#[test]
fn quantum_openings_from_a_kifu_folder() {
    let dir = scratch("kifu");
    let book = dir.join("kifu");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(
        book.join("game.kifu"),
        "[Game \"quantum shogi\"]\n[Sente \"a\"]\n[Gote \"b\"]\n\n1. 7g7f {7f:KRGSLP}\n2. 3c3d\n3. 2g2f\n*\n",
    )
    .unwrap();
    let got = openings(
        &dir,
        "quantumshogi",
        "openings = \"kifu\"\nopenings_cut = 2",
        1,
    );
    assert_eq!(got.unwrap(), [opening(None, &["7g7f", "3c3d"])]);
}

#[test]
fn a_bad_record_names_its_file_its_line_and_what_failed() {
    let dir = scratch("bad");
    std::fs::write(dir.join("book.txt"), "f5d6\n# fine so far\nf5d6a1\n").unwrap();
    let extra = "openings = \"book.txt\"\nopenings_format = \"records\"";
    let err = openings(&dir, "othello", extra, 2).unwrap_err();
    let file = dir.join("book.txt").display().to_string();
    assert!(err.starts_with(&format!("{file}: line 3: ")), "{err}");
    assert!(err.contains("illegal move a1 at ply 3"), "{err}");

    // In a folder, the file; a syntax error says where.
    let book = dir.join("sgf");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(book.join("1.sgf"), "(;SZ[9];B[ee])").unwrap();
    std::fs::write(book.join("2.sgf"), "(;SZ[9];B[ee]\n;W[ee])").unwrap();
    std::fs::write(book.join("3.sgf"), "(;SZ[9];B[ee]W").unwrap();
    let err = openings(&dir, "go", "openings = \"sgf\"", 1).unwrap_err();
    let file = book.join("2.sgf").display().to_string();
    assert!(err.starts_with(&format!("{file}: ")), "{err}");
    assert!(err.contains("at ply 2"), "{err}");
    std::fs::remove_file(book.join("2.sgf")).unwrap();
    let err = openings(&dir, "go", "openings = \"sgf\"", 1).unwrap_err();
    assert!(err.contains("3.sgf: SGF syntax error at line 1"), "{err}");

    // A whole game as the opening leaves nothing to play: refused, as a position line is.
    std::fs::write(
        dir.join("over.txt"),
        "(;GM[Othello]TY[8]BO[8 XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO *];)\n",
    )
    .unwrap();
    let extra = "openings = \"over.txt\"\nopenings_format = \"records\"";
    let err = openings(&dir, "othello", extra, 1).unwrap_err();
    assert!(err.contains("line 1: the game is over"), "{err}");

    // The keys without `openings`, or a cut of position lines, are configuration errors.
    let refused = |extra: &str| config(&dir, "othello", extra).unwrap_err().to_string();
    assert!(refused("openings_cut = 2").contains("`openings_cut` needs `openings`"));
    assert!(refused("openings_format = \"records\"").contains("needs `openings`"));
    assert!(refused("openings = \"book.txt\"\nopenings_cut = 2")
        .contains("is for openings from records"));
}

#[test]
fn an_openings_file_that_is_no_regular_file_is_refused_without_blocking() {
    // A FIFO blocked the runner for ever, and `/dev/zero` was read until memory ran out.
    let dir = scratch("fifo");
    let status = Command::new("mkfifo")
        .arg(dir.join("book.txt"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let t0 = std::time::Instant::now();
    for extra in [
        "openings = \"book.txt\"",
        "openings = \"book.txt\"\nopenings_format = \"records\"",
        "openings = \"/dev/zero\"",
    ] {
        let err = openings(&dir, "othello", extra, 2).unwrap_err();
        assert!(err.starts_with("openings: '"), "{err}");
        assert!(err.ends_with("' is not a regular file"), "{err}");
    }
    std::fs::write(dir.join("big.txt"), "f5d6\n".repeat(4 << 20)).unwrap();
    let err = openings(&dir, "othello", "openings = \"big.txt\"", 2).unwrap_err();
    assert!(err.ends_with("big.txt' is larger than 16 MiB"), "{err}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(30));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A real match from a file of transcripts: each record's opening is played twice, colours
/// swapped, and the games' own records start with it.
#[test]
fn a_match_plays_each_record_opening_with_both_colours() {
    let dir = scratch("real");
    std::fs::write(dir.join("book.txt"), "f5d6c3d3c4f4\nf5f6e6f4e3c5\n").unwrap();
    let engine = |name: &str| {
        format!(
            "[[engine]]\nname = \"{name}\"\ncmd = {:?}\noptions = {{ Level = 1 }}\n\n",
            common::BIN
        )
    };
    let text = format!(
        "{}{}[match]\nvariant = \"othello\"\nengines = [\"a\", \"b\"]\ngames = 4\nbyoyomi_ms = 30\n\
         margin_ms = 1000\nopenings = \"book.txt\"\nopenings_format = \"records\"\nopenings_cut = 4\n",
        engine("a"),
        engine("b")
    );
    std::fs::write(dir.join("engines.toml"), text).unwrap();
    let out = Command::new(common::BIN)
        .arg("match")
        .arg(dir.join("engines.toml"))
        .output()
        .expect("run ryoshi match");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut results: Vec<Value> = std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    results.sort_by_key(|r| r["game"].as_u64());
    let want = [
        "startpos moves f5 d6 c3 d3",
        "startpos moves f5 d6 c3 d3",
        "startpos moves f5 f6 e6 f4",
        "startpos moves f5 f6 e6 f4",
    ];
    let got: Vec<&str> = results
        .iter()
        .map(|r| r["opening"].as_str().unwrap())
        .collect();
    assert_eq!(got, want);
    for pair in results.chunks(2) {
        assert_eq!(pair[0]["first"], pair[1]["second"]);
        assert_eq!(pair[0]["second"], pair[1]["first"]);
    }
    for r in &results {
        let ggf = r["record"].as_str().unwrap().replace(".txt", ".ggf");
        let ggf = std::fs::read_to_string(ggf).unwrap();
        let game = <ryoshi::othello::Position as Recordable>::read_record(&ggf).unwrap();
        let placed: Vec<String> = game
            .moves
            .iter()
            .take(4)
            .map(|&m| square_name(m).to_string())
            .collect();
        let opening = r["opening"].as_str().unwrap();
        let moves: Vec<&str> = opening.split(' ').skip(2).collect();
        assert_eq!(
            placed, moves,
            "the game's GGF starts with its opening: {ggf}"
        );
    }
}
