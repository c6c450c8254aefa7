//! Texel tuning of the quantum shogi evaluation from match results.
//!
//! Every position of every game in a results file (`ryoshi match`'s JSONL: opening and moves) is
//! resolved to the leaf of a capture-only search (so the position is quiet), labelled with the
//! game's result from its side to move (win 1, draw ½, loss 0) and reduced to the few numbers the
//! evaluation reads ([`Sample`]). The fit minimises the mean squared error between the result and
//! `1 / (1 + 10^(-K·eval/400))`: first the scale K for the starting weights (the hand-set
//! [`HAND_SET`], or the engine's own with `--start engine`), then the weights by coordinate
//! descent on integers from there (K fixed, the pawn fixed at its value as the unit; `--only`
//! names the parameters that move). Nothing is random but the train/validation split, which
//! hashes each game with the seed; the output is the same on every run and at every commit.

use crate::matches::merge::{read_values, MergeError};
use crate::matches::opening::{Opening, OpeningError};
use crate::quantum::action::ActionError;
use crate::quantum::material::{Values, Weights};
use crate::quantum::types::{is_king_candidate, Color};
use crate::quantum::{origin_of, qsfen, Action, Position, Ruleset, HAND};
use crate::rng::splitmix;
use once_cell::sync::Lazy;
use std::collections::BTreeMap;

/// What the evaluation reads of a position, from the side to move's point of view
/// (index 0 = the side to move, 1 = the opponent), and the result to predict.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// (place · 256 + mask, own pieces minus the opponent's); place 0 = board, 1 = board
    /// promoted, 2 = hand.
    pieces: Vec<(u16, i8)>,
    /// Pieces that may still be the king, per origin side.
    kings: [u8; 2],
    /// Of those on the board, how many the other side reaches.
    exposed: [u8; 2],
    /// Board reach count.
    mobility: [u16; 2],
    /// The game's result for the side to move: 1, ½ or 0.
    pub result: f64,
}

impl Sample {
    /// `pos` as the evaluation sees it; `black_result` is the game's result for sente.
    pub fn new(pos: &Position, black_result: f64) -> Sample {
        Sample::with_reach(pos, &pos.board_reach_both(), black_result)
    }

    /// [`Sample::new`] with both sides' [`Position::board_reach`] at hand.
    fn with_reach(pos: &Position, reach: &[(u128, u32); 2], black_result: f64) -> Sample {
        let us = pos.side_to_move();
        let rel = |side: Color| (side != us) as usize;
        let mut pieces: BTreeMap<u16, i8> = BTreeMap::new();
        let mut kings = [0u8; 2];
        let mut squares = [0u128; 2];
        for (i, p) in pos.pieces().iter().enumerate() {
            let place = if p.square == HAND {
                2
            } else {
                p.promoted as u16
            };
            let sign = if p.owner == us { 1 } else { -1 };
            *pieces.entry(place * 256 + p.mask as u16).or_default() += sign;
            if is_king_candidate(p.mask) {
                let origin = origin_of(i);
                kings[rel(origin)] += 1;
                if p.square != HAND {
                    squares[rel(origin)] |= 1u128 << p.square;
                }
            }
        }
        let mut exposed = [0u8; 2];
        let mut mobility = [0u16; 2];
        for side in Color::BOTH {
            let r = rel(side);
            exposed[r] = (squares[r] & reach[side.opponent().index()].0).count_ones() as u8;
            mobility[r] = reach[side.index()].1 as u16;
        }
        Sample {
            pieces: pieces.into_iter().filter(|&(_, n)| n != 0).collect(),
            kings,
            exposed,
            mobility,
            result: if us == Color::Black {
                black_result
            } else {
                1.0 - black_result
            },
        }
    }

    /// The evaluation of the position with weights `w` (whose tables are `v`): the same
    /// integer arithmetic as [`crate::quantum::search::eval::evaluate`].
    pub(crate) fn evaluate(&self, w: &Weights, v: &Values) -> i32 {
        let mut score = 0;
        for &(index, n) in &self.pieces {
            let (place, mask) = ((index >> 8) as usize, (index & 255) as usize);
            let value = if place == 2 {
                v.hand[mask]
            } else {
                v.board[place][mask]
            };
            score += n as i32 * value;
        }
        for r in 0..2 {
            let k = self.kings[r] as i32;
            let mut t = w.hidden[(k as usize).min(8)];
            if k > 0 {
                t -= self.exposed[r] as i32 * (w.exposed / k);
                t += w.mobility * self.mobility[r] as i32;
            }
            score += if r == 0 { t } else { -t };
        }
        score + w.tempo
    }
}

/// The samples of a data set, split into training and validation games, and what was read.
#[derive(Default)]
pub struct DataSet {
    pub train: Vec<Sample>,
    pub validation: Vec<Sample>,
    /// Results lines read, games kept (distinct, ended by the rules or by the ply limit).
    pub lines: usize,
    pub games: usize,
    /// Positions after the openings; those dropped because the capture search ended the game
    /// (a king was en prise), and because it ran out of plies or nodes.
    pub positions: usize,
    pub decided: usize,
    pub unresolved: usize,
}

/// Nodes and plies the capture search may spend on one position before it is dropped.
const QUIET_NODES: u32 = 20000;
const QUIET_PLIES: u32 = 16;

/// The hand-set tables: the capture search that picks the quiet leaves evaluates with them, so
/// the data set does not depend on the weights file the fit replaces.
static HAND_SET_VALUES: Lazy<Values> = Lazy::new(|| Values::new(&HAND_SET));

/// A capture-only search from `pos` (stand pat allowed) with the hand-set weights, returning
/// the score and the leaf of its principal variation; `None` when the plies or nodes run out.
/// The captures are the engine's quiescence moves (`QGame::quiescence_moves`: every capture
/// but a more valuable piece for a defended lesser one), valued with the hand-set weights.
fn quiet_leaf(
    pos: &Position,
    mut alpha: i32,
    beta: i32,
    plies: u32,
    nodes: &mut u32,
) -> Option<(i32, Position)> {
    *nodes += 1;
    if *nodes > QUIET_NODES {
        return None;
    }
    if pos.winner().is_some() {
        return Some((-100_000, pos.clone()));
    }
    let v = &*HAND_SET_VALUES;
    let reach = pos.board_reach_both();
    let stand = Sample::with_reach(pos, &reach, 0.5).evaluate(&HAND_SET, v);
    let mut best = (stand, pos.clone());
    if stand >= beta {
        return Some(best);
    }
    if plies == 0 {
        return None; // not quiet yet
    }
    alpha = alpha.max(stand);
    let mut moves = Vec::new();
    pos.generate_captures(&mut moves);
    let defended = reach[pos.side_to_move().opponent().index()].0;
    let value = |i: usize| {
        let p = pos.piece(i);
        v.board[p.promoted as usize][p.mask as usize]
    };
    for mv in moves {
        let Action::Move { from, to, .. } = mv else {
            continue;
        };
        let (Some(victim), Some(attacker)) = (pos.piece_at(to), pos.piece_at(from)) else {
            continue;
        };
        if defended & (1u128 << to) != 0
            && !is_king_candidate(pos.piece(victim).mask)
            && value(attacker) > value(victim) + 50
        {
            continue;
        }
        let (score, leaf) = quiet_leaf(&pos.after(mv), -beta, -alpha, plies - 1, nodes)?;
        if -score > best.0 {
            best = (-score, leaf);
            alpha = alpha.max(-score);
            if alpha >= beta {
                break;
            }
        }
    }
    Some(best)
}

/// Why a position gives no sample.
#[derive(Debug, PartialEq, Eq)]
pub enum NotQuiet {
    /// The capture search ends the game.
    Decided,
    /// The capture search ran out of plies or nodes.
    Unresolved,
}

/// The quiet position a capture search from `pos` ends in, if the game goes on there.
pub fn quiet(pos: &Position) -> Result<Position, NotQuiet> {
    let (_, leaf) =
        quiet_leaf(pos, -200_000, 200_000, QUIET_PLIES, &mut 0).ok_or(NotQuiet::Unresolved)?;
    match leaf.winner() {
        None => Ok(leaf),
        Some(_) => Err(NotQuiet::Decided),
    }
}

/// Why tuning stops: its Display is the message `ryoshi:` prints.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A file cannot be read or written.
    #[error("{path}: {error}")]
    File { path: String, error: std::io::Error },
    /// A results file is not one.
    #[error(transparent)]
    Results(#[from] MergeError),
    /// A game of a results file cannot be replayed.
    #[error("{file}: game {game}: {error}")]
    Game {
        file: String,
        game: u64,
        error: GameError,
    },
    #[error("no positions to fit")]
    NoPositions,
    /// A progress bar's template is refused (a bug: they are constants).
    #[error(transparent)]
    Template(#[from] indicatif::style::TemplateError),
}

crate::games::error_text!(derived: TuneError);

/// What is wrong with one game of a results file.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("no string `{0}`")]
    NoField(&'static str),
    #[error(transparent)]
    Opening(#[from] OpeningError),
    #[error("no `moves`")]
    NoMoves,
    /// The opening's position (the reader's message, quoted as the tuner always wrote it).
    #[error("{0:?}")]
    Sfen(String),
    #[error(transparent)]
    Action(#[from] ActionError),
    #[error("inconsistent move {0}")]
    Inconsistent(String),
}

fn field<'a>(v: &'a serde_json::Value, key: &'static str) -> Result<&'a str, GameError> {
    v.get(key)
        .and_then(|x| x.as_str())
        .ok_or(GameError::NoField(key))
}

/// Reads results files (`(name, text)`: one JSON object per line, as `ryoshi match` writes them
/// and `ryoshi match --merge` reads them). Games that ended by an engine's failure (time, crash,
/// illegal move) are skipped, and so is a game whose opening and moves repeat an earlier one
/// (identical engines play each opening's two colours alike). `validation_percent` of the
/// openings, chosen by `seed`, go to the validation set with all their games.
pub fn load(
    files: &[(String, String)],
    seed: u64,
    validation_percent: u64,
    mut progress: impl FnMut(usize),
) -> Result<DataSet, TuneError> {
    let mut data = DataSet::default();
    let mut seen = ahash::AHashSet::new();
    let rules = Ruleset::default();
    for (name, text) in files {
        for (game, v) in read_values(text, name)? {
            data.lines += 1;
            progress(data.lines);
            let v = &v;
            let at = |error: GameError| TuneError::Game {
                file: name.clone(),
                game: game.game,
                error,
            };
            if field(v, "variant").map_err(at)? != "quantumshogi" {
                continue;
            }
            let black_result = match game.result.as_str() {
                "first" => 1.0,
                "second" => 0.0,
                _ => 0.5,
            };
            let reason = field(v, "reason").map_err(at)?;
            if !["king capture", "no legal action", "repetition", "max plies"].contains(&reason) {
                continue;
            }
            let opening = Opening::parse(field(v, "opening").map_err(at)?)
                .map_err(|e| at(GameError::Opening(e)))?;
            let moves: Vec<&str> = v
                .get("moves")
                .and_then(|m| m.as_array())
                .ok_or_else(|| at(GameError::NoMoves))?
                .iter()
                .filter_map(|m| m.as_str())
                .collect();
            // The split hashes the opening alone: the two games of one opening often share
            // their first moves, which must not be seen in training and scored in validation.
            let start = opening.position_command(&[]);
            let hash = {
                let mut h = seed;
                for b in start.bytes() {
                    h = h.rotate_left(8) ^ b as u64;
                    splitmix(&mut h);
                }
                h
            };
            let id = format!("{start} | {}", moves.join(" "));
            if !seen.insert(id) {
                continue;
            }
            let mut pos = match &opening.sfen {
                None => Position::start(),
                Some(text) => qsfen::read(text).map_err(|e| at(GameError::Sfen(e.to_string())))?,
            };
            let all = opening.moves.iter().map(String::as_str).chain(moves);
            let validation = {
                let mut h = hash;
                splitmix(&mut h) % 100 < validation_percent
            };
            data.games += 1;
            for (ply, text) in all.enumerate() {
                if ply >= opening.moves.len() {
                    data.positions += 1;
                    match quiet(&pos) {
                        Ok(leaf) => {
                            let s = Sample::new(&leaf, black_result);
                            if validation {
                                data.validation.push(s);
                            } else {
                                data.train.push(s);
                            }
                        }
                        Err(NotQuiet::Decided) => data.decided += 1,
                        Err(NotQuiet::Unresolved) => data.unresolved += 1,
                    }
                }
                let action = pos
                    .parse_action(text, &rules)
                    .map_err(|e| at(GameError::Action(e)))?;
                if !pos.apply(action) {
                    return Err(at(GameError::Inconsistent(text.to_string())));
                }
            }
        }
    }
    Ok(data)
}

/// The predicted score of an evaluation.
fn sigmoid(k: f64, eval: i32) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval as f64 / 400.0))
}

/// Mean squared error of the predictions with weights `w` and scale `k`.
pub fn loss(samples: &[Sample], w: &Weights, k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let v = Values::new(w);
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let e = s.result - sigmoid(k, s.evaluate(w, &v));
            e * e
        })
        .sum();
    sum / samples.len() as f64
}

/// The scale K that minimises the loss of `w`: a log-spaced scan, then golden-section search.
pub fn fit_k(samples: &[Sample], w: &Weights) -> f64 {
    let v = Values::new(w);
    let evals: Vec<(f64, i32)> = samples
        .iter()
        .map(|s| (s.result, s.evaluate(w, &v)))
        .collect();
    let at = |k: f64| -> f64 {
        evals
            .iter()
            .map(|&(r, e)| (r - sigmoid(k, e)).powi(2))
            .sum()
    };
    let grid: Vec<f64> = (0..=60)
        .map(|i| 0.01 * 10f64.powf(i as f64 / 20.0))
        .collect();
    let best = (0..grid.len())
        .min_by(|&a, &b| at(grid[a]).total_cmp(&at(grid[b])))
        .unwrap_or(0);
    let (mut lo, mut hi) = (grid[best.saturating_sub(1)], grid[(best + 1).min(60)]);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if at(a) < at(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// The tuned parameters, by name, with read and write access.
fn params(w: &mut Weights) -> Vec<(String, &mut i32)> {
    let names = ["K", "R", "B", "G", "S", "N", "L", "P"];
    let mut out: Vec<(String, &mut i32)> = Vec::new();
    for (b, x) in w.value.iter_mut().enumerate() {
        // K is scored by the king terms and the pawn is the unit.
        if b != 0 && b != 7 {
            out.push((format!("value {}", names[b]), x));
        }
    }
    for (b, x) in w.promoted.iter_mut().enumerate() {
        // No piece promotes to K or G.
        if b != 0 && b != 3 {
            out.push((format!("promoted {}", names[b]), x));
        }
    }
    for (k, x) in w.hidden.iter_mut().enumerate().skip(1) {
        out.push((format!("hidden {k}"), x));
    }
    out.push(("exposed".into(), &mut w.exposed));
    out.push(("mobility".into(), &mut w.mobility));
    out.push(("hand bonus %".into(), &mut w.hand_bonus_percent));
    out.push(("tempo".into(), &mut w.tempo));
    out
}

/// The tuned parameters' values, in the order of [`params`].
fn values(w: &Weights) -> Vec<i32> {
    let mut w = *w;
    params(&mut w).into_iter().map(|(_, x)| *x).collect()
}

fn with(w: &Weights, i: usize, x: i32) -> Weights {
    let mut w = *w;
    *params(&mut w)[i].1 = x;
    w
}

/// Coordinate descent from `start` at scale `k`: each parameter in turn moves by its step while
/// the loss falls; a parameter that moves neither way halves its step (first step a tenth of its
/// value, at least 1). Ends after a pass that changed nothing with every step at 1, or after
/// `max_passes`. Only the parameters whose names start with one of `only` move (all when it is
/// empty). The objective is the loss plus `l2` times the mean square of each parameter's
/// move from `start` relative to its start value (at least 50): a prior that keeps rarely seen
/// terms near their hand-set values. `progress(pass, objective)` after each pass.
pub fn descend(
    samples: &[Sample],
    start: &Weights,
    k: f64,
    l2: f64,
    max_passes: usize,
    only: &[String],
    mut progress: impl FnMut(usize, f64),
) -> Weights {
    let mut w = *start;
    let first = values(start);
    let n = first.len();
    let free: Vec<bool> = {
        let mut w = *start;
        params(&mut w)
            .iter()
            .map(|(name, _)| only.is_empty() || only.iter().any(|o| name.starts_with(o.as_str())))
            .collect()
    };
    let objective = |w: &Weights| {
        let prior: f64 = (values(w).iter().zip(&first))
            .map(|(&x, &s)| ((x - s) as f64 / s.abs().max(50) as f64).powi(2))
            .sum();
        loss(samples, w, k) + l2 * prior / n as f64
    };
    let mut steps: Vec<i32> = first.iter().map(|x| (x.abs() / 10).max(1)).collect();
    let mut best = objective(&w);
    for pass in 1..=max_passes {
        let mut changed = false;
        for i in (0..n).filter(|&i| free[i]) {
            let mut moved = false;
            for dir in [1, -1] {
                loop {
                    let trial = with(&w, i, values(&w)[i] + dir * steps[i]);
                    let l = objective(&trial);
                    if l < best {
                        (w, best, moved) = (trial, l, true);
                    } else {
                        break;
                    }
                }
                if moved {
                    break;
                }
            }
            if moved {
                changed = true;
            } else if steps[i] > 1 {
                steps[i] /= 2;
                changed = true;
            }
        }
        progress(pass, best);
        if !changed {
            break;
        }
    }
    w
}

/// What the generated file says about how it was made.
pub struct Provenance {
    pub command: String,
    pub data: String,
    pub seed: u64,
    pub k: f64,
    pub before: (f64, f64),
    pub after: (f64, f64),
}

/// The source of `weights.rs` for `w`.
pub fn render(w: &Weights, p: &Provenance) -> String {
    let list = |xs: &[i32]| xs.iter().map(i32::to_string).collect::<Vec<_>>().join(", ");
    format!(
        "//! The evaluation's weights, generated by the tuner: do not edit by hand.\n\
         //!\n\
         //! ```text\n\
         //! {}\n\
         //! ```\n\
         //!\n\
         //! Data: {}\n\
         //! Seed (train/validation split): {}. Scale K = {:.4}.\n\
         //! Mean squared error, train / validation: before {:.6} / {:.6}, after {:.6} / {:.6}.\n\
         \n\
         use super::material::Weights;\n\
         \n\
         pub const WEIGHTS: Weights = Weights {{\n    \
             value: [{}],\n    \
             promoted: [{}],\n    \
             hidden: [{}],\n    \
             exposed: {},\n    \
             mobility: {},\n    \
             hand_bonus_percent: {},\n    \
             tempo: {},\n\
         }};\n",
        p.command,
        p.data,
        p.seed,
        p.k,
        p.before.0,
        p.before.1,
        p.after.0,
        p.after.1,
        list(&w.value),
        list(&w.promoted),
        list(&w.hidden),
        w.exposed,
        w.mobility,
        w.hand_bonus_percent,
        w.tempo
    )
}

/// The hand-set weights from before the tuner: where every fit starts (and what the `--l2` prior
/// pulls toward), so the output does not depend on the weights file it replaces.
pub const HAND_SET: Weights = Weights {
    value: [0, 1000, 850, 600, 550, 400, 350, 100],
    promoted: [0, 1300, 1100, 600, 600, 600, 600, 550],
    hidden: [0, -350, -120, -50, -20, 0, 10, 15, 20],
    exposed: 600,
    mobility: 3,
    hand_bonus_percent: 8,
    tempo: 20,
};

/// `ryoshi tune`'s arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Results files of `ryoshi match` (JSONL), e.g. of `tune/selfplay.toml`.
    #[arg(required = true)]
    pub results: Vec<String>,
    /// The generated source file (never the engine's tracked `src/quantum/weights.rs`
    /// unless named: a fit replaces the engine's weights only when a match decides it).
    #[arg(long, default_value = "weights.rs")]
    pub out: String,
    /// Seed of the train/validation split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Percent of the games held out for validation.
    #[arg(long = "validation", value_name = "VALIDATION", default_value_t = 10)]
    pub validation_percent: u64,
    /// Most passes of coordinate descent.
    #[arg(long, default_value_t = 100)]
    pub max_passes: usize,
    /// Weight of a prior that keeps each weight near its current value (0: none).
    #[arg(long, default_value_t = 0.0)]
    pub l2: f64,
    /// Start from the engine's weights (`engine`: the fit adds to the last round) or from the
    /// hand-set ones (`hand-set`: the fit does not depend on the weights file it replaces).
    #[arg(long, default_value = "hand-set", value_parser = ["hand-set", "engine"])]
    pub start: String,
    /// Tune only the parameters whose names start with this (repeatable; e.g. `value`,
    /// `hidden`, `tempo`); the others keep their start values.
    #[arg(long)]
    pub only: Vec<String>,
    /// Where the results came from (written into the file's header).
    #[arg(long)]
    pub note: Option<String>,
}

/// The results files, each with its text.
fn read_results(paths: &[String]) -> Result<Vec<(String, String)>, TuneError> {
    let mut files = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|error| TuneError::File {
            path: path.clone(),
            error,
        })?;
        files.push((path.clone(), text));
    }
    Ok(files)
}

/// The weights file's provenance: the command that makes it again, and the data it was fit on.
fn provenance(args: &Args, data: &DataSet) -> (String, String) {
    let mut command = format!("ryoshi tune {} --out {}", args.results.join(" "), args.out);
    command += &format!(
        " --seed {} --validation {} --max-passes {} --l2 {} --start {}",
        args.seed, args.validation_percent, args.max_passes, args.l2, args.start
    );
    for o in &args.only {
        command += &format!(" --only '{o}'");
    }
    if let Some(note) = &args.note {
        command += &format!(" --note '{note}'");
    }
    let note = args
        .note
        .as_deref()
        .map(|n| format!("{n}. "))
        .unwrap_or_default();
    let data_line = format!(
        "{note}{} results lines, {} distinct games, {} positions after the openings, {} quiet \
         samples ({} train, {} validation; dropped: {} where the capture search ends the game, \
         {} where it runs past {QUIET_PLIES} plies or {QUIET_NODES} nodes).",
        data.lines,
        data.games,
        data.positions,
        data.train.len() + data.validation.len(),
        data.train.len(),
        data.validation.len(),
        data.decided,
        data.unresolved
    );
    (command, data_line)
}

/// `ryoshi tune`: read the results, fit, write the weights file; a summary on stdout and
/// progress bars on stderr.
pub fn run_cli(args: &Args) -> Result<(), TuneError> {
    use indicatif::{ProgressBar, ProgressStyle};
    let files = read_results(&args.results)?;
    let total: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    let bar = ProgressBar::new(total as u64).with_style(ProgressStyle::with_template(
        "{msg} {bar:40} {pos}/{len} [{elapsed}<{eta}]",
    )?);
    bar.set_message("positions");
    let data = load(&files, args.seed, args.validation_percent, |n| {
        bar.set_position(n as u64)
    })?;
    bar.finish_and_clear();
    if data.train.is_empty() {
        return Err(TuneError::NoPositions);
    }
    let start = if args.start == "engine" {
        crate::quantum::weights::WEIGHTS
    } else {
        HAND_SET
    };
    let k = fit_k(&data.train, &start);
    let before = (
        loss(&data.train, &start, k),
        loss(&data.validation, &start, k),
    );
    println!(
        "{} lines, {} games, {} positions ({} decided, {} unresolved), {} train + {} validation",
        data.lines,
        data.games,
        data.positions,
        data.decided,
        data.unresolved,
        data.train.len(),
        data.validation.len()
    );
    println!("K = {k:.4}; loss before: {:.6} / {:.6}", before.0, before.1);
    let bar = ProgressBar::new(args.max_passes as u64).with_style(ProgressStyle::with_template(
        "pass {pos}/{len} loss {msg} [{elapsed}]",
    )?);
    let tuned = descend(
        &data.train,
        &start,
        k,
        args.l2,
        args.max_passes,
        &args.only,
        |pass, l| {
            bar.set_position(pass as u64);
            bar.set_message(format!("{l:.6}"));
        },
    );
    bar.finish_and_clear();
    let after = (
        loss(&data.train, &tuned, k),
        loss(&data.validation, &tuned, k),
    );
    println!("loss after: {:.6} / {:.6}", after.0, after.1);
    let (command, data_line) = provenance(args, &data);
    let text = render(
        &tuned,
        &Provenance {
            command: command.clone(),
            data: data_line,
            seed: args.seed,
            k,
            before,
            after,
        },
    );
    std::fs::write(&args.out, text).map_err(|error| TuneError::File {
        path: args.out.clone(),
        error,
    })?;
    println!("{command}: wrote {}", args.out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantum::search::eval::evaluate;
    use crate::quantum::search::QGame;
    use crate::quantum::types::P;
    use crate::quantum::weights::WEIGHTS;
    use crate::search::SearchGame;

    /// The engine's evaluation of `pos` agrees with [`Sample::evaluate`].
    fn agrees(pos: &Position) -> bool {
        Sample::new(pos, 0.5).evaluate(&WEIGHTS, &Values::new(&WEIGHTS)) == evaluate(pos)
    }

    /// Positions from seeded random playouts.
    fn positions(count: usize) -> Vec<Position> {
        let rules = Ruleset::default();
        let mut out = Vec::new();
        let mut state = 7u64;
        while out.len() < count {
            let mut pos = Position::start();
            for _ in 0..(20 + splitmix(&mut state) % 80) {
                let moves = pos.legal_actions(&rules);
                if moves.is_empty() || pos.winner().is_some() {
                    break;
                }
                let mv = moves[(splitmix(&mut state) % moves.len() as u64) as usize];
                assert!(pos.apply(mv));
                if pos.winner().is_none() {
                    out.push(pos.clone());
                }
            }
        }
        out.truncate(count);
        out
    }

    #[test]
    fn samples_evaluate_as_the_engine_does() {
        for pos in positions(300) {
            assert!(agrees(&pos), "{}", qsfen::write(&pos));
        }
    }

    /// `count` positions with soft labels: `truth`'s own predictions at scale `k`, so its loss
    /// is 0.
    fn labelled_by(truth: &Weights, k: f64, count: usize) -> Vec<Sample> {
        let v = Values::new(truth);
        positions(count)
            .iter()
            .map(|p| {
                let mut s = Sample::new(p, 0.5);
                s.result = sigmoid(k, s.evaluate(truth, &v));
                s
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_known_weights_and_is_deterministic() {
        let truth = Weights {
            value: [0, 1300, 850, 600, 400, 400, 350, 100],
            mobility: 6,
            ..HAND_SET
        };
        let k = 1.3;
        let samples = labelled_by(&truth, k, 1500);
        assert!(loss(&samples, &truth, k) < 1e-12);
        assert!((fit_k(&samples, &truth) - k).abs() < 0.01);
        let before = loss(&samples, &HAND_SET, k);
        let tuned = descend(&samples, &HAND_SET, k, 0.0, 40, &[], |_, _| {});
        let after = loss(&samples, &tuned, k);
        assert!(after < before / 10.0, "loss {before} -> {after}");
        assert!((tuned.value[1] - 1300).abs() < 100, "{tuned:?}");
        assert!((tuned.mobility - 6).abs() <= 1, "{tuned:?}");
        assert_eq!(tuned.value[P.trailing_zeros() as usize], 100);
        assert_eq!(
            tuned,
            descend(&samples, &HAND_SET, k, 0.0, 40, &[], |_, _| {})
        );
    }

    #[test]
    fn only_the_named_parameters_move() {
        let truth = Weights {
            mobility: 6,
            exposed: 900,
            ..HAND_SET
        };
        let k = 1.3;
        let samples = labelled_by(&truth, k, 400);
        let only = ["exposed".to_string()];
        let tuned = descend(&samples, &HAND_SET, k, 0.0, 40, &only, |_, _| {});
        assert!((tuned.exposed - 900).abs() < 100, "{tuned:?}");
        assert_eq!(
            Weights {
                exposed: HAND_SET.exposed,
                ..tuned
            },
            HAND_SET
        );
    }

    #[test]
    fn quiet_leaves_have_no_winning_capture_left() {
        for pos in positions(100) {
            if let Ok(leaf) = quiet(&pos) {
                assert!(leaf.winner().is_none());
                let g = QGame::new(leaf.clone(), Ruleset::default());
                let mut caps = Vec::new();
                g.quiescence_moves(&mut caps);
                // Stand pat was at least as good as every capture's outcome: no capture of a
                // certain king remains.
                for mv in caps {
                    assert!(leaf.after(mv).winner().is_none());
                }
            }
        }
    }

    #[test]
    fn results_lines_become_labelled_samples() {
        let line = r#"{"game":1,"variant":"quantumshogi","first":"a","second":"b","result":"first","reason":"max plies","opening":"startpos moves 7g7f","opening_plies":1,"moves":["3c3d","2g2f"]}"#;
        let twice = format!("{line}\n{line}\n");
        let data = load(&[("a.jsonl".into(), twice)], 1, 0, |_| {}).unwrap();
        assert_eq!((data.lines, data.games, data.positions), (2, 1, 2));
        assert_eq!(data.train.len() + data.decided + data.unresolved, 2);
        assert!(load(&[("b.jsonl".into(), "{}".into())], 1, 0, |_| {}).is_err());
    }

    /// `plies` seeded random actions from `pos` (fewer if the game ends), as text.
    fn random_moves(pos: &mut Position, plies: usize, state: &mut u64) -> Vec<String> {
        let rules = Ruleset::default();
        let mut out = Vec::new();
        while out.len() < plies && pos.winner().is_none() {
            let moves = pos.legal_actions(&rules);
            if moves.is_empty() {
                break;
            }
            let mv = moves[(splitmix(state) % moves.len() as u64) as usize];
            out.push(pos.action_name(mv));
            assert!(pos.apply(mv));
        }
        out
    }

    #[test]
    fn the_games_of_one_opening_fall_on_one_side_of_the_split() {
        let mut both_sides = [false; 2];
        for i in 0..16u64 {
            // Two games from one opening of 6 plies that part at once and go on 30 plies.
            let mut state = i;
            let mut pos = Position::start();
            let opening = random_moves(&mut pos, 6, &mut state).join(" ");
            let mut text = String::new();
            for game in 0..2 {
                let moves = random_moves(&mut pos.clone(), 30, &mut state);
                let moves: Vec<String> = moves.iter().map(|m| format!("{m:?}")).collect();
                text += &format!(
                    r#"{{"game":{game},"variant":"quantumshogi","first":"a","second":"b","result":"first","reason":"max plies","opening":"startpos moves {opening}","opening_plies":6,"moves":[{}]}}"#,
                    moves.join(",")
                );
                text.push('\n');
            }
            let data = load(&[("a.jsonl".into(), text)], 5, 50, |_| {}).unwrap();
            assert_eq!(data.games, 2);
            let (train, validation) = (data.train.len(), data.validation.len());
            if train + validation == 0 {
                continue; // random play is seldom quiet
            }
            assert!(
                train == 0 || validation == 0,
                "{opening}: {train} / {validation}"
            );
            both_sides[(validation > 0) as usize] = true;
        }
        // The split still depends on the opening.
        assert_eq!(both_sides, [true, true]);
    }
}
