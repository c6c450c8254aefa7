//! Match runner test support: a Nim referee (take 1-3 from a pile, who takes the last wins, `0`
//! passes), the fake engine script, and a helper that runs a match in a scratch folder.
#![allow(dead_code)]

use ryoshi::matches::referee::{MoveError, RefereeError};
use ryoshi::matches::{
    self, Config, GameEnd, GameView, Hooks, Reason, Referee, RefereeFactory, Side, Summary, Verdict,
};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Nim with a pile of 21 (or the pile given as `<n> <b|w>`).
pub struct Nim {
    pile: u32,
    to_move: Side,
}

impl Nim {
    pub fn new() -> Nim {
        Nim {
            pile: 21,
            to_move: Side::First,
        }
    }
}

/// Why Nim refuses a position or a move.
#[derive(Debug, thiserror::Error)]
pub enum NimError {
    #[error("bad position `{0}`")]
    Position(String),
    #[error("bad pile `{0}`")]
    Pile(String),
    #[error("bad side `{0}`")]
    Side(String),
    #[error("not a number: `{0}`")]
    NotANumber(String),
    #[error("cannot take {take} from {pile}")]
    TooMany { take: u32, pile: u32 },
}

impl Referee for Nim {
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), RefereeError> {
        let bad = |e: NimError| RefereeError::Position(Box::new(e));
        let (pile, to_move) = match sfen {
            None => (21, Side::First),
            Some(text) => {
                let words: Vec<&str> = text.split_whitespace().collect();
                let [pile, side] = words.as_slice() else {
                    return Err(bad(NimError::Position(text.into())));
                };
                let pile = pile
                    .parse()
                    .map_err(|_| bad(NimError::Pile(pile.to_string())))?;
                let side = match *side {
                    "b" => Side::First,
                    "w" => Side::Second,
                    _ => return Err(bad(NimError::Side(side.to_string()))),
                };
                (pile, side)
            }
        };
        self.pile = pile;
        self.to_move = to_move;
        Ok(())
    }
}

impl GameView for Nim {
    fn undo(&mut self) -> bool {
        false
    }

    fn diagram(&self) -> Vec<String> {
        Vec::new()
    }

    fn play(&mut self, mv: &str) -> Result<String, MoveError> {
        let bad = |e: NimError| MoveError::Rules(Box::new(e));
        let take: u32 = mv
            .parse()
            .map_err(|_| bad(NimError::NotANumber(mv.into())))?;
        if take > 3 || take > self.pile {
            return Err(bad(NimError::TooMany {
                take,
                pile: self.pile,
            }));
        }
        self.pile -= take;
        self.to_move = self.to_move.other();
        Ok(take.to_string())
    }

    fn side_to_move(&self) -> Side {
        self.to_move
    }

    fn legal_moves(&self) -> Vec<String> {
        (0..=self.pile.min(3)).map(|t| t.to_string()).collect()
    }

    fn game_end(&self) -> Option<GameEnd> {
        (self.pile == 0).then(|| GameEnd {
            verdict: Verdict::Win(self.to_move.other()),
            reason: Reason::Rule("last token"),
        })
    }

    fn position(&self) -> String {
        let side = if self.to_move == Side::First {
            "b"
        } else {
            "w"
        };
        format!("{} {side}", self.pile)
    }
}

pub fn nim_factory() -> Arc<RefereeFactory> {
    Arc::new(|| Box::new(Nim::new()) as Box<dyn Referee>)
}

pub fn fake_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/match_support/fake_engine.py")
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ryoshi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// An `[[engine]]` entry running the fake engine; its process starts are logged to
/// `<dir>/<name>.starts`.
pub fn fake(dir: &Path, name: &str, mode: &str, n: u32) -> String {
    format!(
        "[[engine]]\nname = \"{name}\"\ncmd = \"python3\"\nargs = [{:?}, \"{mode}\", \"{n}\", {:?}]\n\n",
        fake_script().display().to_string(),
        dir.join(format!("{name}.starts")).display().to_string()
    )
}

/// An `[[engine]]` entry running the fake GTP engine (fake_gtp.py), its input logged to
/// `<dir>/<name>.log` and its process starts to `<dir>/<name>.starts`.
pub fn fake_gtp(dir: &Path, name: &str, mode: &str, n: u32) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/match_support/fake_gtp.py");
    format!(
        "[[engine]]\nname = \"{name}\"\nprotocol = \"gtp\"\ncmd = \"python3\"\nargs = [{:?}, \"{mode}\", \"{n}\", {:?}]\nstderr = \"{name}.log\"\n\n",
        script.display().to_string(),
        dir.join(format!("{name}.starts")).display().to_string()
    )
}

/// The lines `name` received, from its log (`<< line`).
pub fn received(dir: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(format!("{name}.log")))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("<< "))
        .map(str::to_string)
        .collect()
}

pub fn starts(dir: &Path, name: &str) -> usize {
    std::fs::read_to_string(dir.join(format!("{name}.starts")))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

pub struct Run {
    pub summary: Summary,
    pub output: String,
    pub results: Vec<serde_json::Value>,
    pub dir: PathBuf,
}

/// Runs a match over the Nim referee with `text` as engines.toml inside `dir`.
pub fn run_in(dir: &Path, text: &str, interrupted: &(dyn Fn() -> bool + Sync)) -> Run {
    run_with(dir, text, interrupted, false)
}

/// `run_in`, with the progress bar code path on (it draws nothing off a terminal).
pub fn run_with(
    dir: &Path,
    text: &str,
    interrupted: &(dyn Fn() -> bool + Sync),
    progress: bool,
) -> Run {
    std::fs::write(dir.join("engines.toml"), text).expect("write config");
    let config = Config::load(&dir.join("engines.toml")).expect("config");
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted,
        progress,
    };
    let mut out = Vec::new();
    let summary = matches::run_match(&config, nim_factory(), &hooks, &mut out).expect("match runs");
    let results = read_results(&dir.join("results.jsonl"));
    Run {
        summary,
        output: String::from_utf8(out).expect("utf-8 output"),
        results,
        dir: dir.to_path_buf(),
    }
}

/// Runs a match over the Nim referee that may fail: its result and its output.
pub fn try_run(dir: &Path, text: &str) -> (Result<Summary, matches::MatchError>, String) {
    std::fs::write(dir.join("engines.toml"), text).expect("write config");
    let config = Config::load(&dir.join("engines.toml")).expect("config");
    let hooks = Hooks {
        stop: Arc::new(AtomicBool::new(false)),
        interrupted: &|| false,
        progress: false,
    };
    let mut out = Vec::new();
    let result = matches::run_match(&config, nim_factory(), &hooks, &mut out);
    (result, String::from_utf8(out).expect("utf-8 output"))
}

pub fn run(dir: &Path, text: &str) -> Run {
    run_in(dir, text, &|| false)
}

/// Every line of the results file, each parsed as JSON (a truncated line fails the test).
pub fn read_results(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "last line unfinished"
    );
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

/// The text records in a records folder (each game also has one in its game's format).
pub fn text_records(dir: impl AsRef<std::path::Path>) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "txt"))
        })
        .count()
}
