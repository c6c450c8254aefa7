//! Sabaki's engine layer against `ryoshi gtp`: the exact command sequence Sabaki's
//! ControllerStateTracker sends to sync a handicap game with time settings (replayed through the
//! real binary, no node needed), and the live run through the npm package `@sabaki/gtp`
//! (tests/sabaki/sync.js).

mod common;

use ryoshi::go::notation::{parse_vertex, LETTERS};
use std::path::Path;
use std::process::Command;

/// One command of the transcript and what its reply must be.
enum Want {
    /// `=` with exactly this text.
    Is(&'static str),
    /// `=` with these among its lines (`list_commands`).
    Lines(&'static [&'static str]),
    /// `=` with a vertex (not `pass`), remembered for the next board check.
    Vertex,
    /// `=` with a showboard whose rows, top first, are these, plus (when the flag is set) a
    /// black stone on the last generated vertex.
    Board(&'static [&'static str], bool),
}

use Want::{Board, Is, Lines, Vertex};

/// The commands Sabaki sends (recorded from tests/sabaki/sync.js; `showboard` checks added).
const SABAKI: &[(&str, Want)] = &[
    ("name", Is("ryoshi")),
    ("version", Is(env!("CARGO_PKG_VERSION"))),
    ("protocol_version", Is("2")),
    (
        "list_commands",
        Lines(&[
            "set_free_handicap",
            "fixed_handicap",
            "place_free_handicap",
            "time_settings",
            "undo",
            "genmove",
        ]),
    ),
    ("komi 0.5", Is("")),
    ("boardsize 9", Is("")),
    ("time_settings 300 30 5", Is("")),
    ("clear_board", Is("")),
    ("set_free_handicap C3 G7", Is("")),
    ("play W E5", Is("")),
    ("play B D6", Is("")),
    ("play W F4", Is("")),
    ("genmove B", Vertex),
    ("play W E3", Is("")),
    (
        "showboard",
        Board(
            &[
                ".........",
                ".........",
                "......X..",
                "...X.....",
                "....O....",
                ".....O...",
                "..X.O....",
                ".........",
                ".........",
            ],
            true,
        ),
    ),
    ("undo", Is("")),
    ("undo", Is("")),
    (
        "showboard",
        Board(
            &[
                ".........",
                ".........",
                "......X..",
                "...X.....",
                "....O....",
                ".....O...",
                "..X......",
                ".........",
                ".........",
            ],
            false,
        ),
    ),
    ("clear_board", Is("")),
    ("set_free_handicap C3 G7", Is("")),
    ("komi 7.5", Is("")),
    ("time_settings 60 10 1", Is("")),
    ("clear_board", Is("")),
    ("set_free_handicap C7 G7 G3", Is("")),
    ("play W E5", Is("")),
    ("genmove B", Vertex),
    ("clear_board", Is("")),
    ("fixed_handicap 4", Is("C7 G7 C3 G3")),
    ("play W E5", Is("")),
    ("clear_board", Is("")),
    ("place_free_handicap 3", Is("C7 G7 C3")),
    ("play W E5", Is("")),
    ("final_score", Is("W+8.5")),
    ("quit", Is("")),
];

#[test]
fn sabaki_sync_sequence_transcript() {
    let script: String = SABAKI.iter().map(|(c, _)| format!("{c}\n")).collect();
    let out = common::gtp_transcript(&script);
    let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies.len(), SABAKI.len(), "one reply per command:\n{out}");
    let mut generated = String::new();
    for ((command, want), reply) in SABAKI.iter().zip(&replies) {
        let text = reply
            .strip_prefix('=')
            .unwrap_or_else(|| panic!("'{command}' failed: {reply}"));
        let text = text.strip_prefix(' ').unwrap_or(text);
        match want {
            Is(expected) => assert_eq!(text, *expected, "reply to '{command}'"),
            Lines(names) => {
                for name in *names {
                    assert!(text.lines().any(|l| l == *name), "{command} lacks {name}");
                }
            }
            Vertex => {
                let parsed = parse_vertex(text, 9);
                assert!(matches!(parsed, Ok(Some(_))), "'{command}' -> '{text}'");
                generated = text.to_string();
            }
            Board(rows, with_generated) => {
                let shown: Vec<String> = text
                    .lines()
                    .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                    .map(|l| l.split_whitespace().skip(1).take(9).collect::<String>())
                    .collect();
                let mut expected: Vec<Vec<u8>> =
                    rows.iter().map(|r| r.as_bytes().to_vec()).collect();
                if *with_generated {
                    let col = LETTERS
                        .iter()
                        .position(|&l| l == generated.as_bytes()[0])
                        .expect("column");
                    let row = 9 - generated[1..].parse::<usize>().expect("row");
                    assert_eq!(expected[row][col], b'.', "{generated} was empty");
                    expected[row][col] = b'X';
                }
                let expected: Vec<String> = expected
                    .into_iter()
                    .map(|r| String::from_utf8(r).expect("ASCII"))
                    .collect();
                assert_eq!(shown, expected, "board after '{command}'");
            }
        }
    }
}

#[test]
#[ignore = "needs node and npm: npm ci --prefix tests/sabaki"]
fn sabaki_gtp_package_syncs_a_handicap_game_with_time_settings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sabaki");
    assert!(
        dir.join("node_modules/@sabaki/gtp").exists(),
        "@sabaki/gtp is not installed: run npm ci --prefix tests/sabaki"
    );
    let out = Command::new("node")
        .arg(dir.join("sync.js"))
        .arg(common::BIN)
        .output()
        .expect("run node (install Node.js)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "sync.js failed:\n{stdout}");
    assert!(
        stdout
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("sabaki sync ok"),
        "{stdout}"
    );
}

#[test]
#[ignore = "needs node and npm: npm ci --prefix tests/sabaki"]
fn sabaki_offers_analysis_and_reads_the_stream() {
    // tests/sabaki/analyze.js: Sabaki's choice of analysis command from list_commands (its
    // own `analyze`, the first of its list), analyze, kata-analyze and lz-analyze streamed and
    // stopped by the next command, the ownership, and genmove_analyze recorded by Sabaki's
    // ControllerStateTracker.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sabaki");
    assert!(
        dir.join("node_modules/@sabaki/gtp").exists(),
        "@sabaki/gtp is not installed: run npm ci --prefix tests/sabaki"
    );
    let out = Command::new("node")
        .arg(dir.join("analyze.js"))
        .arg(common::BIN)
        .output()
        .expect("run node (install Node.js)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "analyze.js failed:\n{stdout}");
    assert!(
        stdout
            .lines()
            .next()
            .unwrap_or("")
            .contains("with 'analyze'"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().last(), Some("sabaki analyze ok"), "{stdout}");
}
