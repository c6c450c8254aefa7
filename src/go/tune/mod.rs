//! `ryoshi tune go`: the gammas of the tree's move priors ([`crate::go::search::features`])
//! fitted to strong players' moves by Coulom's minorization–maximization ([`mm`]).
//!
//! The games are results files of `ryoshi match` (JSONL: each line's opening, its moves after
//! the opening and the engines of both colours). Every move after the opening by one of the
//! named engines (`--engine`, repeatable; all moves when none is named) is a competition among
//! the legal moves of its position that fill no own eye, plus a pass. A seeded share of the
//! games is held out: the report gives the mean log-likelihood and the share of moves the
//! model ranks first, on the training and the held-out games, before and after the fit. The
//! gammas are written as Rust source with the command in its header.

pub mod mm;

use crate::go::notation::{parse_position, parse_vertex};
use crate::go::search::fast::{FastBoard, PASS};
use crate::go::search::features::{self, Features, GROUPS, GROUP_NAMES, LEVELS, NONE};
use crate::go::Position;
use crate::matches::opening::Opening;
use crate::rng::mix;
use mm::{Competitions, ABSENT};
use std::fmt::Write as _;

/// Why `tune go` stops: its Display is the message `ryoshi:` prints.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error("{path}: {error}")]
    File { path: String, error: std::io::Error },
    #[error("{path}, line {line}: {what}")]
    Line {
        path: String,
        line: usize,
        what: String,
    },
    #[error("no moves to learn from (check --engine)")]
    NoMoves,
}

crate::games::error_text!(derived: TuneError);

/// Why a results line is not a game to learn from.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("no `{0}`")]
    Missing(&'static str),
    #[error("not a Go opening: {0}")]
    Opening(String),
    #[error("{0}")]
    Position(#[from] crate::go::notation::PositionError),
    #[error("{0}")]
    Size(#[from] crate::go::SizeError),
    #[error("illegal move {0}")]
    Illegal(String),
}

/// `ryoshi tune go`'s arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results files of `ryoshi match` (JSONL) of Go games.
    #[arg(required = true)]
    pub results: Vec<String>,
    /// Learn the moves of this engine (its name in the results; repeatable; default: all).
    #[arg(long)]
    pub engine: Vec<String>,
    /// The generated source file (`src/go/search/gammas.rs` replaces the engine's gammas).
    #[arg(long, default_value = "gammas.rs")]
    pub out: String,
    /// Seed of the choice of held-out games.
    #[arg(long, default_value_t = 46)]
    pub seed: u64,
    /// Percent of the games held out.
    #[arg(long = "validation", value_name = "PERCENT", default_value_t = 10)]
    pub validation_percent: u64,
    /// Rounds of MM (each updates every group once).
    #[arg(long, default_value_t = 30)]
    pub rounds: usize,
}

/// Feature ids of the fit: the canonical 3x3 keys first, then the tactical levels.
const PATTERN_IDS: usize = 1 << 16;

fn ids(f: &Features) -> [u32; 1 + GROUPS] {
    let mut out = [ABSENT; 1 + GROUPS];
    if let Some(key) = f.pattern {
        out[0] = u32::from(key);
    }
    for (g, &level) in f.levels.iter().enumerate() {
        if level != NONE {
            out[1 + g] = (PATTERN_IDS + features::offset(g) + level as usize) as u32;
        }
    }
    out
}

/// The competitions of one game's learned moves, or why the line is not a game.
fn game_competitions(
    value: &serde_json::Value,
    engines: &[String],
    out: &mut Competitions,
) -> Result<(), GameError> {
    let field = |name: &'static str| {
        value
            .get(name)
            .and_then(|v| v.as_str())
            .ok_or(GameError::Missing(name))
    };
    let opening = field("opening")?;
    let names = [field("first")?, field("second")?];
    let moves = value
        .get("moves")
        .and_then(|v| v.as_array())
        .ok_or(GameError::Missing("moves"))?;
    let opening = Opening::parse(opening).map_err(|e| GameError::Opening(e.to_string()))?;
    let start = match &opening.sfen {
        Some(text) => {
            let fields: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            let (board, to_move) = parse_position(&fields)?;
            Position::new(board, to_move)
        }
        // `startpos` is the empty board, whose size the final position's first field gives.
        None => {
            let size = field("final_position")?
                .split_whitespace()
                .next()
                .and_then(|w| w.parse().ok())
                .ok_or(GameError::Missing("final_position"))?;
            Position::empty(size)?
        }
    };
    let size = start.board.size();
    let mut fast = FastBoard::from_game(&start);
    let opening_len = opening.moves.len();
    let all = opening
        .moves
        .iter()
        .map(String::as_str)
        .chain(moves.iter().map_while(|m| m.as_str()));
    let mut cands: Vec<u32> = Vec::with_capacity(1 + GROUPS * 400);
    for (i, word) in all.enumerate() {
        let Ok(vertex) = parse_vertex(word, size) else {
            // `resign` or a word that is no move: the game's moves end here.
            break;
        };
        let mv = vertex.map_or(PASS, |p| p as u16);
        if mv != PASS && !fast.is_legal(mv as usize) {
            return Err(GameError::Illegal(word.to_string()));
        }
        let engine = names[fast.to_move.index()];
        let learn = i >= opening_len && (engines.is_empty() || engines.iter().any(|e| e == engine));
        if learn && !(mv != PASS && fast.is_eye(mv as usize, fast.to_move)) {
            cands.clear();
            let mut winner = 0;
            let color = fast.to_move;
            let mut points: Vec<u16> = fast.empties().to_vec();
            points.sort_unstable();
            for p in points.into_iter().chain([PASS]) {
                if p != PASS && (!fast.is_legal(p as usize) || fast.is_eye(p as usize, color)) {
                    continue;
                }
                if p == mv {
                    winner = cands.len() / (1 + GROUPS);
                }
                cands.extend_from_slice(&ids(&features::of_move(&mut fast, p)));
            }
            out.push(&cands, winner);
        }
        fast.play(mv);
    }
    Ok(())
}

/// `ryoshi tune go`: read the games, fit, write the gammas; the report on stdout.
pub fn run_cli(args: &Args) -> Result<(), TuneError> {
    let width = 1 + GROUPS;
    let mut train = Competitions::new(width);
    let mut held = Competitions::new(width);
    let mut games = [0usize; 2];
    for path in &args.results {
        let text = std::fs::read_to_string(path).map_err(|error| TuneError::File {
            path: path.clone(),
            error,
        })?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |what: String| TuneError::Line {
                path: path.clone(),
                line: n + 1,
                what,
            };
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            // The split by the game's file and line, so adding files keeps the old split.
            let key = path
                .bytes()
                .fold(mix(args.seed ^ n as u64), |h, b| mix(h ^ u64::from(b)));
            let out = key % 100 < args.validation_percent;
            let set = if out { &mut held } else { &mut train };
            game_competitions(&value, &args.engine, set).map_err(|e| bad(e.to_string()))?;
            games[usize::from(out)] += 1;
        }
    }
    if train.is_empty() {
        return Err(TuneError::NoMoves);
    }
    let mut group = vec![0usize; PATTERN_IDS];
    for (g, &levels) in LEVELS.iter().enumerate() {
        group.extend(std::iter::repeat_n(1 + g, levels));
    }
    let ones = vec![1.0; group.len()];
    let report = |name: &str, gammas: &[f64]| {
        let (ll_t, top_t) = train.evaluate(gammas);
        let (ll_h, top_h) = held.evaluate(gammas);
        println!(
            "{name}: log-likelihood {ll_t:.4} / {ll_h:.4}, top-1 {:.1}% / {:.1}% (training / held out)",
            100.0 * top_t,
            100.0 * top_h
        );
    };
    println!(
        "{} + {} games, {} + {} moves (training + held out)",
        games[0],
        games[1],
        train.len(),
        held.len()
    );
    report("uniform", &ones);
    let gammas = mm::fit(&train, &group, 1 + GROUPS, args.rounds, &mut |r, ll| {
        eprintln!("round {r}: training log-likelihood {ll:.5}");
    });
    report("fitted", &gammas);
    let mut command = format!(
        "ryoshi tune go {} --out {}",
        args.results.join(" "),
        args.out
    );
    for e in &args.engine {
        command += &format!(" --engine {e}");
    }
    command += &format!(
        " --seed {} --validation {} --rounds {}",
        args.seed, args.validation_percent, args.rounds
    );
    let text = source(&command, &gammas, &train);
    std::fs::write(&args.out, text).map_err(|error| TuneError::File {
        path: args.out.clone(),
        error,
    })?;
    Ok(())
}

/// The generated file: the gammas of the patterns the training games showed, and of every
/// tactical level, with the command that made them.
fn source(command: &str, gammas: &[f64], train: &Competitions) -> String {
    let mut seen = vec![false; PATTERN_IDS];
    for &f in train.features.iter().step_by(train.width) {
        if f != ABSENT {
            seen[f as usize] = true;
        }
    }
    let mut s = String::new();
    let _ = writeln!(s, "//! Generated by `{command}`: do not edit.");
    let _ = writeln!(s, "//! Coulom's Bradley–Terry move model (src/go/tune).");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "/// The gamma of each canonical 3x3 key seen in the fit (`features::canonical`); others are 1."
    );
    // The tables keep the generator's layout (rows of six, one row a tactical group, each
    // under its name), which rustfmt would reflow.
    let _ = writeln!(s, "#[rustfmt::skip]");
    let _ = writeln!(s, "pub const PATTERNS: &[(u16, f32)] = &[");
    let keys: Vec<usize> = (0..PATTERN_IDS).filter(|&k| seen[k]).collect();
    for chunk in keys.chunks(6) {
        let row: Vec<String> = chunk
            .iter()
            .map(|&k| format!("({k}, {:.4})", gammas[k]))
            .collect();
        let _ = writeln!(s, "    {},", row.join(", "));
    }
    let _ = writeln!(s, "];");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "/// The gammas of the tactical groups' levels, group after group (`features::LEVELS`)."
    );
    let _ = writeln!(s, "#[rustfmt::skip]");
    let _ = writeln!(
        s,
        "pub const TACTICAL: [f32; super::features::TACTICAL_LEN] = ["
    );
    for (g, &levels) in LEVELS.iter().enumerate() {
        let _ = writeln!(s, "    // {}", GROUP_NAMES[g]);
        let start = PATTERN_IDS + features::offset(g);
        let row: Vec<String> = (start..start + levels)
            .map(|f| format!("{:.4}", gammas[f]))
            .collect();
        let _ = writeln!(s, "    {},", row.join(", "));
    }
    let _ = writeln!(s, "];");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn competitions(line: &str, engines: &[&str]) -> Result<Competitions, GameError> {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let engines: Vec<String> = engines.iter().map(|s| s.to_string()).collect();
        let mut out = Competitions::new(1 + GROUPS);
        game_competitions(&value, &engines, &mut out).map(|_| out)
    }

    #[test]
    fn the_named_engines_moves_after_the_opening_are_learned_among_the_legal_moves() {
        // C3 is the opening (black); then white (b) D4, black (a) B2, white (b) passes.
        let line = r#"{"opening":"sfen 5 ...../...../...../...../..... b moves C3","first":"a","second":"b","moves":["D4","B2","pass","resign"]}"#;
        let a = competitions(line, &["a"]).unwrap();
        assert_eq!(a.len(), 1);
        // B2 among 23 empty points and a pass, the winner by its place in point order.
        assert_eq!(a.starts, vec![0, 24]);
        let b2 = crate::go::Board::new(5).unwrap().point(3, 1);
        let fast = FastBoard::from_game(&Position::empty(5).unwrap());
        let mut points: Vec<u16> = fast.empties().to_vec();
        points.sort_unstable();
        let c3 = crate::go::Board::new(5).unwrap().point(2, 2);
        let d4 = crate::go::Board::new(5).unwrap().point(1, 3);
        let before_taken = [c3, d4].iter().filter(|&&p| p < b2).count();
        let all_before = points.iter().filter(|&&p| (p as usize) < b2).count();
        assert_eq!(a.winners[0] as usize, all_before - before_taken);
        // The pass is the last candidate, with the pass feature only.
        let pass = &a.features[23 * (1 + GROUPS)..];
        assert_eq!(pass[0], ABSENT);
        let all = competitions(line, &[]).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all.winners[2] as usize, all.starts[3] - all.starts[2] - 1);
        // `startpos` takes its size from the final position.
        let line = r#"{"opening":"startpos moves C3","final_position":"5 x","first":"a","second":"b","moves":["D4"]}"#;
        assert_eq!(competitions(line, &["b"]).unwrap().len(), 1);
        // An illegal move is an error, not a crash.
        let line = r#"{"opening":"startpos moves C3","final_position":"5 x","first":"a","second":"b","moves":["C3"]}"#;
        assert!(competitions(line, &[]).is_err());
    }
}
