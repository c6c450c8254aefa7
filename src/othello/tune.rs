//! Fitting the Othello pattern evaluation ([`crate::othello::search::pattern`]) to self-play.
//!
//! Two steps, both reproducible from their seed, and a third after them:
//! - `ryoshi tune othello generate`: seeded self-play of the engine (a random opening of
//!   `--random-min`..=`--random-max` plies, then a fixed-depth search per move; from `--exact`
//!   empties the exact solver plays perfectly to the end). Every position is written with the
//!   game's final disc margin from its side to move: positions within the solver's reach are
//!   thus labelled by their exact value, the others by the outcome of the game. Games are
//!   numbered; `--shard K/N` plays every N-th one, so shards run side by side and their files
//!   together are the unsharded file's lines.
//! - `ryoshi tune othello fit`: least squares of the margin on the features, by full-batch
//!   gradient descent where each weight moves by the mean residual of the positions that read
//!   it (shrunk towards 0 by `--l2` pseudo-positions), early stopping on a held-out set of
//!   games. A shape's two readings under its own symmetry share one weight. The table is
//!   written as `weights.bin` with the command in its header.
//! - `ryoshi tune othello tempo`: the side to move's bonus by phase that makes a position's
//!   fixed-depth score and the next position's agree (the fit above leaves searches leaning
//!   against the side to move at their horizon), added to the built-in table's parity weights.

use crate::othello::board::Board;
use crate::othello::search::game::Eval;
use crate::othello::search::pattern::{
    self, features, phase, FEATURES, INSTANCES, OFFSETS, PHASE_SIZE, SHAPES, TABLE_SIZE,
};
use crate::othello::search::solve::{final_score, Solver};
use crate::othello::search::{think, Level};
use crate::progress;
use crate::rng::{mix, SplitMix64};
use crate::search::{Control, Limits};
use std::io::Write;

/// Why a tuning command stops: its Display is the message `ryoshi:` prints.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A file cannot be read or written.
    #[error("{path}: {error}")]
    File { path: String, error: std::io::Error },
    /// A line of a positions file is not a position.
    #[error("{path}: {error}")]
    Data { path: String, error: LineError },
    #[error("--shard wants K/N with 1 <= K <= N: {0}")]
    Shard(String),
    #[error("--random-min must not exceed --random-max")]
    RandomRange,
    #[error("no positions to search")]
    NoPositions,
    #[error("too few positions for a training and a validation set")]
    TooFew,
    /// Self-play cannot go on (a bug in a search or the rules).
    #[error("the solver found no move")]
    SolverNoMove,
    #[error("the search found no move")]
    SearchNoMove,
    #[error("an illegal move")]
    IllegalMove,
}

crate::games::error_text!(derived: TuneError);

/// A positions line that is not one (the line, trimmed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a positions line: {0}")]
pub struct LineError(pub String);

fn file_error(path: &str) -> impl Fn(std::io::Error) -> TuneError + '_ {
    move |error| TuneError::File {
        path: path.to_string(),
        error,
    }
}

fn data_error(path: &str) -> impl Fn(LineError) -> TuneError + '_ {
    move |error| TuneError::Data {
        path: path.to_string(),
        error,
    }
}

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Play seeded self-play games and write their positions, labelled by the final margin.
    Generate(GenerateArgs),
    /// Fit the pattern weights to generated positions and write the weights file.
    Fit(FitArgs),
    /// Fit Multi-ProbCut's regressions (deep score on shallow score, by depth) and print them.
    Probcut(ProbcutArgs),
    /// Fit the side to move's bonus by phase (the tempo) that makes a position's score and the
    /// next one's agree, and write the built-in weights with it.
    Tempo(TempoArgs),
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum EvalArg {
    /// The hand-weighted evaluation of before the patterns.
    Hand,
    /// The built-in pattern weights.
    Pattern,
}

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// Games in all (over every shard).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play only the K-th of N disjoint slices of the games.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Search depth of each self-play move.
    #[arg(long, default_value_t = 4)]
    pub depth: u32,
    /// From this many empties the exact solver plays.
    #[arg(long, default_value_t = 14)]
    pub exact: u32,
    /// Fewest random opening plies.
    #[arg(long, default_value_t = 6)]
    pub random_min: u32,
    /// Most random opening plies.
    #[arg(long, default_value_t = 20)]
    pub random_max: u32,
    /// The evaluation the self-play searches with.
    #[arg(long, value_enum, default_value = "pattern")]
    pub eval: EvalArg,
    /// The positions file to write.
    #[arg(long)]
    pub out: String,
}

#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// Positions files of `ryoshi tune othello generate`.
    #[arg(required = true)]
    pub data: Vec<String>,
    #[arg(long, default_value = "src/othello/search/weights.bin")]
    pub out: String,
    /// Seed of the train/validation split (by game).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Percent of the games held out for validation.
    #[arg(long, default_value_t = 10)]
    pub validation: u64,
    /// Most passes over the training set.
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Step: the share of its mean residual a weight moves by in a pass.
    #[arg(long, default_value_t = 0.05)]
    pub lr: f64,
    /// Pseudo-positions of residual 0 each weight counts (shrinks rarely seen weights to 0).
    #[arg(long, default_value_t = 20.0)]
    pub l2: f64,
    /// Phase smoothing: each position also trains the two neighbouring phases' weights, at
    /// this weight (0: off).
    #[arg(long, default_value_t = 0.0)]
    pub smooth: f64,
    /// Where the data came from (written into the header).
    #[arg(long)]
    pub note: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct ProbcutArgs {
    /// Positions files of `ryoshi tune othello generate` (positions are drawn from them).
    #[arg(required = true)]
    pub data: Vec<String>,
    /// Positions searched.
    #[arg(long, default_value_t = 400)]
    pub positions: usize,
    /// Deepest search (every depth up to it is scored).
    #[arg(long, default_value_t = 10)]
    pub max_depth: u32,
    /// Only positions with at least this many empties (the midgame).
    #[arg(long, default_value_t = 20)]
    pub min_empties: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct TempoArgs {
    /// Positions files of `ryoshi tune othello generate` (positions are drawn from them).
    #[arg(required = true)]
    pub data: Vec<String>,
    /// Positions searched.
    #[arg(long, default_value_t = 1000)]
    pub positions: usize,
    /// The depth of the searches made to agree: a position's and the one after its chosen move
    /// (0: the static evaluation and the best child's).
    #[arg(long, default_value_t = 8)]
    pub depth: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fewest positions a phase needs for a bonus of its own (one with fewer takes the nearest
    /// fitted phase's: the deeper fits see no opening horizon).
    #[arg(long, default_value_t = 30)]
    pub min_positions: u64,
    /// The weights file to write: the built-in table with the tempo added.
    #[arg(long, default_value = "src/othello/search/weights.bin")]
    pub out: String,
}

pub fn run_cli(command: &Command) -> Result<(), TuneError> {
    match command {
        Command::Generate(a) => generate(a),
        Command::Fit(a) => fit_cli(a),
        Command::Probcut(a) => probcut_cli(a),
        Command::Tempo(a) => tempo_cli(a),
    }
}

/// The exact (no pruning, no ProbCut) score of `board` at every depth 1..=max, centi-discs.
pub fn scores_by_depth(board: &Board, max: u32) -> Vec<i32> {
    use crate::othello::search::game::OGame;
    use crate::search::Report;
    let mut searcher = crate::search::alphabeta::Searcher::<OGame>::new(16);
    searcher.set_pruning(false);
    let root = OGame {
        player: board.player,
        opponent: board.opponent,
        eval: Eval::Pattern,
    };
    let control = Control::new(
        Limits {
            depth: Some(max),
            ..Default::default()
        },
        0,
    );
    let mut out = Vec::new();
    searcher.run(&root, &[], &control, max, &mut |r| {
        if let Report::Info(i) = r {
            if i.depth as usize == out.len() + 1 {
                out.push(i.score);
            }
        }
    });
    out
}

/// Least squares of y on x: (a, b, residual deviation).
pub fn regress(pairs: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = pairs.len().max(1) as f64;
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let a = if sxx > 0.0 { sxy / sxx } else { 1.0 };
    let b = my - a * mx;
    let var = pairs
        .iter()
        .map(|p| (p.1 - a * p.0 - b).powi(2))
        .sum::<f64>()
        / n;
    (a, b, var.sqrt())
}

fn probcut_cli(args: &ProbcutArgs) -> Result<(), TuneError> {
    use crate::othello::search::probcut::{shallow, MIN_DEPTH};
    let pool = draw_positions(&args.data, args.min_empties, args.positions, args.seed)?;
    let count = pool.len();
    let max = args.max_depth.max(MIN_DEPTH as u32);
    let t0 = std::time::Instant::now();
    let mut scores = Vec::with_capacity(count);
    let bar = progress::bar(
        "searching [{bar:40}] {pos}/{len} positions {elapsed}",
        count as u64,
    );
    for (k, b) in pool.iter().enumerate() {
        scores.push(scores_by_depth(b, max));
        if let Some(bar) = &bar {
            bar.set_position(k as u64 + 1);
        } else if (k + 1) % 50 == 0 {
            eprintln!("{} positions, {:.0} s", k + 1, t0.elapsed().as_secs_f64());
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let files = args.data.join(" ");
    println!(
        "// ryoshi tune othello probcut {files} --positions {} --max-depth {max} --min-empties {} --seed {}",
        args.positions, args.min_empties, args.seed
    );
    println!(
        "// {count} positions of at least {} empties; (a, b, sigma) for depth d from shallow(d)",
        args.min_empties
    );
    for d in MIN_DEPTH..=max as i32 {
        let s = shallow(d);
        let pairs: Vec<(f64, f64)> = scores
            .iter()
            .filter(|v| v.len() >= d as usize)
            .map(|v| (v[s as usize - 1] as f64, v[d as usize - 1] as f64))
            .collect();
        let (a, b, sigma) = regress(&pairs);
        println!(
            "    ({a:.3}, {b:.1}, {sigma:.1}), // depth {d} from {s}, {} positions",
            pairs.len()
        );
    }
    Ok(())
}

/// Positions of generated files with a move and more than `min_empties` empties, a seeded draw
/// of at most `count` of them (partial Fisher-Yates).
fn draw_positions(
    files: &[String],
    min_empties: u32,
    count: usize,
    seed: u64,
) -> Result<Vec<Board>, TuneError> {
    let mut pool = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(file_error(path))?;
        for line in text.lines() {
            if let Some(l) = parse_line(line).map_err(data_error(path))? {
                let b = Board {
                    player: l.player,
                    opponent: l.opponent,
                };
                if b.empties().count_ones() >= min_empties && b.moves() != 0 {
                    pool.push(b);
                }
            }
        }
    }
    if pool.is_empty() {
        return Err(TuneError::NoPositions);
    }
    let mut rng = SplitMix64::new(seed);
    let count = count.min(pool.len());
    for i in 0..count {
        let j = i + rng.index(pool.len() - i);
        pool.swap(i, j);
    }
    pool.truncate(count);
    Ok(pool)
}

/// A position's level-3 score at `depth` (no exact solve) and the score of the position after
/// the move it chose, both in centi-discs for the side to move at the first: what the swing of
/// `bench othello-swing` compares. At depth 0, the static evaluation and the best child's.
pub fn score_and_reply(board: &Board, depth: u32) -> Option<(i32, i32)> {
    use crate::othello::search::pattern::evaluate;
    if depth == 0 {
        let best = crate::othello::board::squares(board.moves())
            .filter_map(|sq| board.play(sq))
            .map(|c| -evaluate(c.player, c.opponent))
            .max()?;
        return Some((evaluate(board.player, board.opponent), best));
    }
    let search = |b: &Board| {
        let level = Level::fixed_depth(depth);
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        think(b, level, 0, &Control::new(limits, 0), &mut |_| {})
    };
    let first = search(board);
    let sq = first
        .best
        .as_deref()
        .and_then(crate::othello::position::parse_square)?;
    let mut child = board.play(sq)?;
    let sign = if child.moves() == 0 && !child.is_game_over() {
        child = child.pass();
        1
    } else {
        -1
    };
    let reply = if child.is_game_over() {
        final_score(child.player, child.opponent) * 100
    } else {
        search(&child).info.score
    };
    Some((first.info.score, sign * reply))
}

/// The tempo by phase, centi-discs. A search of even depth ends where the root's side is to
/// move, its opponent's search one ply later where the opponent is: a bonus t for the side to
/// move at the horizon raises the first score by t and lowers the second (read from the root's
/// side) by t, so their difference moves by 2t (the other way round at odd depths). Each
/// sample is (discs, score, score after the chosen move); half its difference, signed by the
/// parity of the depth, is counted in the phase of the depth-d horizon. A phase's mean is the
/// bonus that makes a position's score and the next one's agree on average there. Returns
/// (positions, mean) by phase.
pub fn tempo_by_phase(samples: &[(u32, i32, i32)], depth: u32) -> [(u64, f64); pattern::PHASES] {
    let sign = if depth.is_multiple_of(2) { 1.0 } else { -1.0 };
    let mut sums = [(0u64, 0f64); pattern::PHASES];
    for &(discs, score, reply) in samples {
        let ph = phase(discs + depth);
        sums[ph].0 += 1;
        sums[ph].1 += sign * (reply - score) as f64 / 2.0;
    }
    sums.map(|(n, s)| (n, if n > 0 { s / n as f64 } else { 0.0 }))
}

/// The bonus by phase, centi-discs, from [`tempo_by_phase`]'s figures: a phase with fewer than
/// `min` positions takes the nearest phase's that has them (the earlier on a tie).
fn tempo_table(fitted: &[(u64, f64); pattern::PHASES], min: u64) -> [i32; pattern::PHASES] {
    let ok: Vec<usize> = (0..pattern::PHASES)
        .filter(|&ph| fitted[ph].0 >= min.max(1))
        .collect();
    std::array::from_fn(|ph| {
        ok.iter()
            .min_by_key(|&&k| (k.abs_diff(ph), k))
            .map_or(0, |&k| fitted[k].1.round() as i32)
    })
}

fn tempo_cli(args: &TempoArgs) -> Result<(), TuneError> {
    // More empties than two searches' plies: no search reaches the end, where the scores are
    // exact and a tempo moves nothing.
    let boards = draw_positions(&args.data, args.depth + 2, args.positions, args.seed)?;
    let t0 = std::time::Instant::now();
    let bar = progress::bar(
        "searching [{bar:40}] {pos}/{len} positions {elapsed}",
        boards.len() as u64,
    );
    let mut samples = Vec::with_capacity(boards.len());
    for (k, b) in boards.iter().enumerate() {
        if let Some((score, reply)) = score_and_reply(b, args.depth) {
            samples.push(((b.player | b.opponent).count_ones(), score, reply));
        }
        if let Some(bar) = &bar {
            bar.set_position(k as u64 + 1);
        } else if (k + 1) % 100 == 0 {
            eprintln!("{} positions, {:.0} s", k + 1, t0.elapsed().as_secs_f64());
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let command = format!(
        "ryoshi tune othello tempo {} --positions {} --depth {} --seed {} --min-positions {} --out {}",
        args.data.join(" "),
        args.positions,
        args.depth,
        args.seed,
        args.min_positions,
        args.out
    );
    let fitted = tempo_by_phase(&samples, args.depth);
    let row: Vec<String> = fitted
        .iter()
        .map(|&(n, m)| format!("{:+.2} ({n})", m / 100.0))
        .collect();
    println!(
        "{command}: {} positions; tempo by phase of the horizon, discs (positions): {}",
        samples.len(),
        row.join(" ")
    );
    let tempo = tempo_table(&fitted, args.min_positions);
    let mut table = pattern::built_in().to_vec();
    for (ph, &t) in tempo.iter().enumerate() {
        for i in pattern::parity_slots(ph) {
            table[i] = (table[i] as i32 + t).clamp(-32000, 32000) as i16;
        }
    }
    let text: Vec<String> = tempo
        .iter()
        .map(|t| format!("{:+.2}", *t as f64 / 100.0))
        .collect();
    let header = format!(
        "{}Tempo added by `{command}`: the side to move's bonus by phase, discs: {} ({} positions; a phase with fewer than {} takes the nearest fitted one's).\n",
        pattern::header(),
        text.join(" "),
        samples.len(),
        args.min_positions
    );
    let bytes = pattern::encode(&header, &table);
    std::fs::write(&args.out, &bytes).map_err(file_error(&args.out))?;
    print!("{header}");
    println!("wrote {} ({} bytes)", args.out, bytes.len());
    Ok(())
}

/// `K/N` with 1 <= K <= N.
fn parse_shard(text: Option<&str>) -> Result<(u64, u64), TuneError> {
    let Some(text) = text else { return Ok((1, 1)) };
    let bad = || TuneError::Shard(text.to_string());
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// One labelled position: the side to move's discs, the other's, the final margin for the side
/// to move, and whether the exact solver was playing (the label is then its exact value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labelled {
    pub game: u64,
    pub player: u64,
    pub opponent: u64,
    pub margin: i32,
    pub exact: bool,
}

/// Game `game` of the self-play set: its positions, labelled.
pub fn self_play(
    game: u64,
    args: &GenerateArgs,
    solver: &mut Solver,
) -> Result<Vec<Labelled>, TuneError> {
    let mut rng = SplitMix64::new(args.seed ^ mix(game.wrapping_add(1)));
    let span = args.random_max.saturating_sub(args.random_min) as u64 + 1;
    let random_plies = args.random_min + rng.below(span) as u32;
    let level = Level {
        eval: match args.eval {
            EvalArg::Hand => Eval::Hand,
            EvalArg::Pattern => Eval::Pattern,
        },
        ..Level::fixed_depth(args.depth.max(1))
    };
    let mut board = Board::START;
    let mut black = true;
    let mut ply = 0;
    // (player, opponent, black to move, exact)
    let mut seen: Vec<(u64, u64, bool, bool)> = Vec::new();
    while !board.is_game_over() {
        let m = board.moves();
        if m == 0 {
            board = board.pass();
            black = !black;
            continue;
        }
        let empties = board.empties().count_ones();
        let exact = empties <= args.exact;
        seen.push((board.player, board.opponent, black, exact));
        let sq = if ply < random_plies {
            let list: Vec<u32> = crate::othello::board::squares(m).collect();
            list[rng.index(list.len())]
        } else if exact {
            solver.solve(&board).best.ok_or(TuneError::SolverNoMove)?
        } else {
            let control = Control::new(
                Limits {
                    depth: Some(args.depth.max(1)),
                    ..Default::default()
                },
                0,
            );
            let out = think(&board, level, game, &control, &mut |_| {});
            out.best
                .as_deref()
                .and_then(crate::othello::position::parse_square)
                .ok_or(TuneError::SearchNoMove)?
        };
        board = board.play(sq).ok_or(TuneError::IllegalMove)?;
        black = !black;
        ply += 1;
    }
    let black_margin = if black {
        final_score(board.player, board.opponent)
    } else {
        -final_score(board.player, board.opponent)
    };
    Ok(seen
        .into_iter()
        .map(|(p, o, b, exact)| Labelled {
            game,
            player: p,
            opponent: o,
            margin: if b { black_margin } else { -black_margin },
            exact,
        })
        .collect())
}

fn generate(args: &GenerateArgs) -> Result<(), TuneError> {
    let (k, n) = parse_shard(args.shard.as_deref())?;
    if args.random_min > args.random_max {
        return Err(TuneError::RandomRange);
    }
    let io = file_error(&args.out);
    let file = std::fs::File::create(&args.out).map_err(&io)?;
    let mut out = std::io::BufWriter::new(file);
    let eval = match args.eval {
        EvalArg::Hand => "hand",
        EvalArg::Pattern => "pattern",
    };
    let command = format!(
        "ryoshi tune othello generate --games {} --seed {} --shard {k}/{n} --depth {} --exact {} --random-min {} --random-max {} --eval {eval} --out {}",
        args.games, args.seed, args.depth, args.exact, args.random_min, args.random_max, args.out
    );
    writeln!(out, "# {command}").map_err(&io)?;
    if matches!(args.eval, EvalArg::Pattern) {
        writeln!(
            out,
            "# weights: {}",
            pattern::header().lines().next().unwrap_or("")
        )
        .map_err(&io)?;
    }
    writeln!(out, "# game player opponent margin exact|game").map_err(&io)?;
    let mut solver = Solver::new(20);
    let t0 = std::time::Instant::now();
    let (mut games, mut positions) = (0u64, 0u64);
    let shard_games = (0..args.games).filter(|g| g % n == k - 1).count() as u64;
    let bar = progress::bar("{msg} [{bar:40}] {pos}/{len} games {elapsed}", shard_games);
    for g in (0..args.games).filter(|g| g % n == k - 1) {
        for l in self_play(g, args, &mut solver)? {
            writeln!(
                out,
                "{} {:016x} {:016x} {} {}",
                l.game,
                l.player,
                l.opponent,
                l.margin,
                if l.exact { 'e' } else { 'g' }
            )
            .map_err(&io)?;
            positions += 1;
        }
        games += 1;
        if let Some(bar) = &bar {
            bar.set_position(games);
            bar.set_message(format!("{positions} positions"));
        } else if games % 100 == 0 {
            eprintln!(
                "{games} games, {positions} positions, {:.0} s",
                t0.elapsed().as_secs_f64()
            );
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    out.flush().map_err(&io)?;
    println!(
        "{command}: {games} games, {positions} positions in {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Per shape, each index's canonical index (the smaller of it and its reading under the
/// shape's own symmetry), so both readings share a weight.
fn canonical_tables() -> Vec<Vec<u32>> {
    SHAPES
        .iter()
        .map(|shape| {
            let n = shape.squares.len();
            let perm: Vec<usize> = shape
                .squares
                .iter()
                .map(|&sq| {
                    let m = shape.mirror.map(sq);
                    shape.squares.iter().position(|&q| q == m).unwrap_or(0)
                })
                .collect();
            let size = 3usize.pow(n as u32);
            let mut pow = vec![1usize; n];
            for i in 1..n {
                pow[i] = pow[i - 1] * 3;
            }
            (0..size)
                .map(|idx| {
                    let mut m = 0;
                    for i in 0..n {
                        m += (idx / pow[i] % 3) * pow[perm[i]];
                    }
                    idx.min(m) as u32
                })
                .collect()
        })
        .collect()
}

/// The training view of a position: phase-and-canonical feature indices into the whole table.
fn sample_features(canon: &[Vec<u32>], p: u64, o: u64) -> [u32; FEATURES] {
    use crate::othello::board::moves;
    let mp = moves(p, o).count_ones();
    let mo = moves(o, p).count_ones();
    let mut f = features(p, o, mp, mo);
    let base = (phase((p | o).count_ones()) * PHASE_SIZE) as u32;
    let mut k = 0;
    for (s, shape) in SHAPES.iter().enumerate() {
        for _ in shape.images {
            let local = f[k] as usize - OFFSETS[s];
            f[k] = OFFSETS[s] as u32 + canon[s][local];
            k += 1;
        }
    }
    debug_assert_eq!(k, INSTANCES);
    for x in f.iter_mut() {
        *x += base;
    }
    f
}

/// Positions as the fit reads them.
pub struct Data {
    pub features: Vec<[u32; FEATURES]>,
    pub target: Vec<f32>,
    /// Each position's weight in the fit: 1, or `--smooth` for a copy read by a neighbouring
    /// phase's weights.
    pub weight: Vec<f32>,
}

impl Data {
    fn new() -> Data {
        Data {
            features: Vec::new(),
            target: Vec::new(),
            weight: Vec::new(),
        }
    }

    fn push(&mut self, f: [u32; FEATURES], target: f32, weight: f32) {
        self.features.push(f);
        self.target.push(target);
        self.weight.push(weight);
    }
}

/// Parses one positions line (comments and blank lines give None).
pub fn parse_line(line: &str) -> Result<Option<Labelled>, LineError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let w: Vec<&str> = line.split_whitespace().collect();
    let bad = || LineError(line.to_string());
    if w.len() != 5 {
        return Err(bad());
    }
    let l = Labelled {
        game: w[0].parse().map_err(|_| bad())?,
        player: u64::from_str_radix(w[1], 16).map_err(|_| bad())?,
        opponent: u64::from_str_radix(w[2], 16).map_err(|_| bad())?,
        margin: w[3].parse().map_err(|_| bad())?,
        exact: w[4] == "e",
    };
    if l.player & l.opponent != 0 || l.margin.abs() > 64 {
        return Err(bad());
    }
    Ok(Some(l))
}

/// Mean squared error (discs²) of `w` on `data`.
fn mse(data: &Data, w: &[f32]) -> f64 {
    let mut sum = 0.0f64;
    for (f, &y) in data.features.iter().zip(&data.target) {
        let pred: f32 = f.iter().map(|&i| w[i as usize]).sum();
        sum += ((y - pred) as f64).powi(2);
    }
    sum / data.features.len().max(1) as f64
}

/// The fit: returns the weights (discs) of the best validation error, and that error by pass.
pub fn fit(
    train: &Data,
    validation: &Data,
    epochs: usize,
    lr: f64,
    l2: f64,
    mut progress: impl FnMut(usize, f64, f64),
) -> Vec<f32> {
    let mut count = vec![0f32; TABLE_SIZE];
    for (f, &wt) in train.features.iter().zip(&train.weight) {
        for &i in f {
            count[i as usize] += wt;
        }
    }
    let scale: Vec<f32> = count
        .iter()
        .map(|&n| {
            if n > 0.0 {
                (lr / (n as f64 + l2)) as f32
            } else {
                0.0
            }
        })
        .collect();
    let mut w = vec![0f32; TABLE_SIZE];
    let mut grad = vec![0f32; TABLE_SIZE];
    let mut best = (f64::INFINITY, w.clone());
    let mut worse = 0;
    for epoch in 0..epochs {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let (mut sum, mut total) = (0.0f64, 0.0f64);
        for ((f, &y), &wt) in train.features.iter().zip(&train.target).zip(&train.weight) {
            let pred: f32 = f.iter().map(|&i| w[i as usize]).sum();
            let r = y - pred;
            sum += wt as f64 * (r as f64).powi(2);
            total += wt as f64;
            let r = r * wt;
            for &i in f {
                grad[i as usize] += r;
            }
        }
        for i in 0..TABLE_SIZE {
            w[i] += grad[i] * scale[i];
        }
        let v = mse(validation, &w);
        progress(epoch + 1, sum / total.max(1.0), v);
        if v < best.0 {
            best = (v, w.clone());
            worse = 0;
        } else {
            worse += 1;
            if worse >= 10 {
                break;
            }
        }
    }
    best.1
}

/// The full table (every index, both readings of a symmetric shape) in centi-discs.
fn export(canon: &[Vec<u32>], w: &[f32]) -> Vec<i16> {
    let cd = |x: f32| (x * 100.0).round().clamp(-32000.0, 32000.0) as i16;
    let mut table = vec![0i16; TABLE_SIZE];
    for ph in 0..pattern::PHASES {
        let base = ph * PHASE_SIZE;
        for (s, c) in canon.iter().enumerate() {
            for (idx, &ci) in c.iter().enumerate() {
                table[base + OFFSETS[s] + idx] = cd(w[base + OFFSETS[s] + ci as usize]);
            }
        }
        for i in OFFSETS[11]..PHASE_SIZE {
            table[base + i] = cd(w[base + i]);
        }
    }
    table
}

/// The positions of a fit, split by game into its train and validation sets.
struct Loaded {
    train: Data,
    validation: Data,
    /// Positions read, and those of them labelled by an exact solve.
    lines: u64,
    exact: u64,
    games: usize,
    /// The hand-set evaluation's mean squared error on the validation set, discs².
    hand_error: f64,
}

impl Loaded {
    /// The positions of the training set, copies for the neighbouring phases left out.
    fn trained(&self) -> u64 {
        self.lines - self.validation.features.len() as u64
    }
}

/// Reads the positions files of `args.data` and splits them by game (`args.seed`,
/// `args.validation`), with the copies of `args.smooth`.
fn load(args: &FitArgs, canon: &[Vec<u32>]) -> Result<Loaded, TuneError> {
    let (mut train, mut validation) = (Data::new(), Data::new());
    let (mut lines, mut exact) = (0u64, 0u64);
    let mut games = std::collections::BTreeSet::new();
    let mut hand_err = (0.0f64, 0u64);
    for path in &args.data {
        let text = std::fs::read_to_string(path).map_err(file_error(path))?;
        for line in text.lines() {
            let Some(l) = parse_line(line).map_err(data_error(path))? else {
                continue;
            };
            lines += 1;
            exact += l.exact as u64;
            // Games are numbered per generating command: the file and number name one.
            games.insert((path.clone(), l.game));
            let held_out =
                mix(args.seed ^ mix(l.game ^ mix(path.len() as u64))) % 100 < args.validation;
            let set = if held_out {
                &mut validation
            } else {
                &mut train
            };
            let f = sample_features(canon, l.player, l.opponent);
            set.push(f, l.margin as f32, 1.0);
            if !held_out && args.smooth > 0.0 {
                // Phase smoothing: the neighbouring phases' weights read the position too, at
                // a lower weight, so that the evaluation does not jump at a phase's edge.
                let ph = phase((l.player | l.opponent).count_ones());
                let step = PHASE_SIZE as u32;
                if ph > 0 {
                    train.push(f.map(|i| i - step), l.margin as f32, args.smooth as f32);
                }
                if ph + 1 < pattern::PHASES {
                    train.push(f.map(|i| i + step), l.margin as f32, args.smooth as f32);
                }
            }
            if held_out {
                let h = crate::othello::search::eval::evaluate(l.player, l.opponent) as f64 / 100.0;
                hand_err.0 += (h - l.margin as f64).powi(2);
                hand_err.1 += 1;
            }
        }
    }
    Ok(Loaded {
        train,
        validation,
        lines,
        exact,
        games: games.len(),
        hand_error: hand_err.0 / hand_err.1.max(1) as f64,
    })
}

/// [`fit`] with its progress shown (a bar on a terminal, a line every 10 passes otherwise):
/// the weights and the passes made.
fn fit_shown(args: &FitArgs, data: &Loaded) -> (Vec<f32>, usize) {
    let t0 = std::time::Instant::now();
    let mut passes = 0;
    let bar = progress::bar(
        "{msg} [{bar:40}] {pos}/{len} passes {elapsed}",
        args.epochs as u64,
    );
    let w = fit(
        &data.train,
        &data.validation,
        args.epochs,
        args.lr,
        args.l2,
        |e, t, v| {
            passes = e;
            if let Some(bar) = &bar {
                bar.set_position(e as u64);
                bar.set_message(format!("train {t:.3} validation {v:.3}"));
            } else if e % 10 == 0 {
                eprintln!(
                    "pass {e}: train {t:.3} validation {v:.3} discs² ({:.0} s)",
                    t0.elapsed().as_secs_f64()
                );
            }
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    (w, passes)
}

/// The mean squared error, discs², of the exported `table` (centi-discs) on `data`.
fn table_error(table: &[i16], data: &Data) -> f64 {
    let mut sum = 0.0;
    for (f, &y) in data.features.iter().zip(&data.target) {
        let pred: i32 = f.iter().map(|&i| table[i as usize] as i32).sum();
        sum += (pred as f64 / 100.0 - y as f64).powi(2);
    }
    sum / data.features.len() as f64
}

/// The command line that makes the table again, for its header.
fn fit_command(args: &FitArgs) -> String {
    let mut command = format!(
        "ryoshi tune othello fit {} --out {} --seed {} --validation {} --epochs {} --lr {} --l2 {}",
        args.data.join(" "),
        args.out,
        args.seed,
        args.validation,
        args.epochs,
        args.lr,
        args.l2
    );
    if args.smooth > 0.0 {
        command += &format!(" --smooth {}", args.smooth);
    }
    if let Some(note) = &args.note {
        command += &format!(" --note '{note}'");
    }
    command
}

fn fit_cli(args: &FitArgs) -> Result<(), TuneError> {
    let canon = canonical_tables();
    let data = load(args, &canon)?;
    if data.train.features.is_empty() || data.validation.features.is_empty() {
        return Err(TuneError::TooFew);
    }
    println!(
        "{} positions ({} exact) of {} games: {} train, {} validation; the hand-set evaluation's validation error {:.2} discs²",
        data.lines,
        data.exact,
        data.games,
        data.trained(),
        data.validation.features.len(),
        data.hand_error
    );
    let (w, passes) = fit_shown(args, &data);
    let table = export(&canon, &w);
    let header = format!(
        "Generated by `{}`: do not edit.\n{}{} positions ({} labelled by an exact solve) of {} self-play games; {} train, {} validation. Least squares on the final disc margin, {} passes; validation error {:.3} discs² (the hand-set evaluation: {:.3}).\n",
        fit_command(args),
        args.note.as_deref().map(|n| format!("{n}\n")).unwrap_or_default(),
        data.lines,
        data.exact,
        data.games,
        data.trained(),
        data.validation.features.len(),
        passes,
        table_error(&table, &data.validation),
        data.hand_error
    );
    let bytes = pattern::encode(&header, &table);
    std::fs::write(&args.out, &bytes).map_err(file_error(&args.out))?;
    print!("{header}");
    println!("wrote {} ({} bytes)", args.out, bytes.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_indices_pair_each_reading_with_its_mirror() {
        let canon = canonical_tables();
        for (s, c) in canon.iter().enumerate() {
            assert_eq!(c.len(), OFFSETS[s + 1] - OFFSETS[s]);
            for (idx, &ci) in c.iter().enumerate() {
                assert!(ci as usize <= idx);
                assert_eq!(c[ci as usize], ci, "shape {s}: canonical of canonical");
            }
        }
        // The edge's first reading (a1 own, the rest empty) pairs with h1 own.
        assert_eq!(canon[0][3usize.pow(7)], 1);
    }

    #[test]
    fn self_play_is_seeded_and_labels_agree_with_the_solver() {
        let args = GenerateArgs {
            games: 2,
            seed: 3,
            shard: None,
            depth: 2,
            exact: 10,
            random_min: 4,
            random_max: 8,
            eval: EvalArg::Hand,
            out: String::new(),
        };
        let mut solver = Solver::new(16);
        let a = self_play(0, &args, &mut solver).unwrap();
        assert_eq!(a, self_play(0, &args, &mut solver).unwrap());
        assert_ne!(a, self_play(1, &args, &mut solver).unwrap());
        let exact: Vec<&Labelled> = a.iter().filter(|l| l.exact).collect();
        assert!(!exact.is_empty());
        for l in exact {
            let b = Board {
                player: l.player,
                opponent: l.opponent,
            };
            assert_eq!(Solver::new(16).solve(&b).score, l.margin);
        }
        let line = format!("7 {:016x} {:016x} -4 e", a[3].player, a[3].opponent);
        let back = parse_line(&line).unwrap().unwrap();
        assert_eq!((back.game, back.margin, back.exact), (7, -4, true));
        assert!(parse_line("7 zz 00 1 e").is_err());
        assert_eq!(parse_line("# comment").unwrap(), None);
    }

    #[test]
    fn the_tempo_is_half_the_disagreement_of_a_score_and_the_next() {
        // Scores that lean against the side to move at the horizon by t: at an even depth a
        // position reads v − t and the next (from the first one's side) v + t; at an odd depth
        // the other way round. The bonus that makes them agree is t either way; each sample is
        // counted in the phase of its depth-d horizon.
        for depth in [0u32, 1, 4, 7, 8] {
            let lean = if depth.is_multiple_of(2) { 1 } else { -1 };
            let samples: Vec<(u32, i32, i32)> = [(20u32, 150), (21, 150), (22, 150), (40, -50)]
                .iter()
                .map(|&(discs, t)| (discs, 37 - lean * t, 37 + lean * t))
                .collect();
            let by = tempo_by_phase(&samples, depth);
            let (early, late) = (phase(20 + depth), phase(40 + depth));
            assert_eq!(by.iter().map(|b| b.0).sum::<u64>(), 4);
            assert_eq!(by[late], (1, -50.0), "depth {depth}");
            if phase(22 + depth) == early {
                assert_eq!(by[early], (3, 150.0), "depth {depth}");
            }
        }
        // Too few positions: the nearest fitted phase's bonus (the nearer earlier on a tie).
        let mut fitted = [(0u64, 0.0f64); pattern::PHASES];
        fitted[2] = (30, 140.4);
        fitted[5] = (39, 90.0);
        fitted[6] = (29, -500.0);
        assert_eq!(
            tempo_table(&fitted, 30),
            [140, 140, 140, 140, 90, 90, 90, 90]
        );
        assert_eq!(
            tempo_table(&fitted, 29),
            [140, 140, 140, 140, 90, 90, -500, -500]
        );
        assert_eq!(
            tempo_table(&[(0, 7.0); pattern::PHASES], 1),
            [0; pattern::PHASES]
        );
    }

    #[test]
    fn a_bonus_on_the_parity_slots_is_a_bonus_for_the_side_to_move() {
        let mut rng = SplitMix64::new(67);
        let table = pattern::built_in().to_vec();
        let mut bonus = table.clone();
        for ph in 0..pattern::PHASES {
            for i in pattern::parity_slots(ph) {
                bonus[i] += 10 * ph as i16 + 7;
            }
        }
        for _ in 0..2000 {
            let a = rng.next() & rng.next();
            let (p, o) = (a, rng.next() & !a);
            let (mp, mo) = (rng.below(20) as u32, rng.below(20) as u32);
            let ph = phase((p | o).count_ones()) as i32;
            let before = pattern::evaluate_with(&table, p, o, mp, mo);
            let after = pattern::evaluate_with(&bonus, p, o, mp, mo);
            if before.abs() < 6000 {
                assert_eq!(after - before, 10 * ph + 7);
            }
        }
    }

    #[test]
    fn the_regression_recovers_a_planted_line() {
        // y = 0.9·x + 30 with residuals ±20 (equal counts): exactly a, b and sigma 20.
        let pairs: Vec<(f64, f64)> = (0..200)
            .map(|i| {
                let x = (i / 2) as f64 * 7.0 - 300.0;
                let e = if i % 2 == 0 { 20.0 } else { -20.0 };
                (x, 0.9 * x + 30.0 + e)
            })
            .collect();
        let (a, b, sigma) = regress(&pairs);
        assert!((a - 0.9).abs() < 1e-9 && (b - 30.0).abs() < 1e-6, "{a} {b}");
        assert!((sigma - 20.0).abs() < 1e-6, "{sigma}");
    }

    #[test]
    fn scores_by_depth_are_the_exact_searches() {
        use crate::othello::search::game::OGame;
        use crate::search::SearchGame;
        // Depth 1 is the best child's evaluation, negated.
        let b = Board::START
            .play(Board::START.moves().trailing_zeros())
            .unwrap();
        let v = scores_by_depth(&b, 3);
        assert_eq!(v.len(), 3);
        let best = crate::othello::board::squares(b.moves())
            .map(|sq| {
                let mut g = OGame {
                    player: b.player,
                    opponent: b.opponent,
                    eval: Eval::Pattern,
                };
                g.play(sq);
                -g.evaluate()
            })
            .max();
        assert_eq!(Some(v[0]), best);
    }

    #[test]
    fn the_fit_recovers_a_planted_table() {
        // Labels from a sparse planted table: the fit's error falls well below the labels' own
        // spread (the table has far more weights than there are positions, so not to 0).
        let canon = canonical_tables();
        let mut rng = SplitMix64::new(4);
        let args = GenerateArgs {
            games: 40,
            seed: 8,
            shard: None,
            depth: 1,
            exact: 0,
            random_min: 60,
            random_max: 60,
            eval: EvalArg::Hand,
            out: String::new(),
        };
        let mut solver = Solver::new(10);
        let mut planted = vec![0f32; TABLE_SIZE];
        for p in planted.iter_mut().step_by(97) {
            *p = (rng.below(9) as f32) - 4.0;
        }
        let (mut train, mut validation) = (Data::new(), Data::new());
        for g in 0..args.games {
            for l in self_play(g, &args, &mut solver).unwrap() {
                let f = sample_features(&canon, l.player, l.opponent);
                let y: f32 = f.iter().map(|&i| planted[i as usize]).sum();
                let set = if g % 5 == 0 {
                    &mut validation
                } else {
                    &mut train
                };
                set.push(f, y, 1.0);
            }
        }
        let spread = mse(&validation, &vec![0.0; TABLE_SIZE]);
        let w = fit(&train, &validation, 300, 0.05, 0.0, |_, _, _| {});
        let after = mse(&train, &w);
        assert!(after < spread / 2.5, "{spread} -> {after}");
    }
}
