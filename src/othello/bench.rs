//! Benchmarks for othello: perft, count and the endgame solver.

use crate::othello::count::count;
use crate::othello::position::parse_square;
use crate::othello::search::solve::Solver;
use crate::othello::search::{think, Level};
use crate::othello::{obf, perft, square_name, squares, Board, Position};
use crate::rng::splitmix;
use crate::search::{Control, Limits};
use std::time::Instant;

/// Why an Othello benchmark cannot run or its check failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
    #[error("{path}: {error}")]
    Obf {
        path: String,
        error: crate::othello::obf::ObfError,
    },
    #[error(transparent)]
    Count(crate::othello::count::CountError),
    /// The perft table gave `hashed` leaves where the plain count gave `leaves`.
    #[error("the table changed the count: {hashed} != {leaves}")]
    TableChanged { hashed: u64, leaves: u64 },
    /// A solve disagreed with the file's score: the bench's figures mean nothing then.
    #[error("{wrong} of {total} scores differ from the file")]
    WrongScores { wrong: usize, total: usize },
}

/// Othello's benchmarks. The doc comment of each is its line in `bench list`.
#[derive(clap::Subcommand)]
pub enum Which {
    /// Othello leaves per second, every leaf visited and with the table
    OthelloPerft(PerftArgs),
    /// Othello move sequences and distinct positions per depth, time and memory
    OthelloCount(CountArgs),
    /// exact endgame solves (default FFO #40-#44, built in), checked against the file
    OthelloSolve(SolveArgs),
    /// the Othello levels against each other from seeded openings
    OthelloMatch(MatchArgs),
    /// Othello evaluations per second, the hand-set one against the patterns
    OthelloEval(EvalArgs),
    /// the evaluation's side-to-move swing along seeded self-play at a fixed depth
    OthelloSwing(SwingArgs),
}

impl Which {
    /// Runs the benchmark, printing its figures to stdout.
    pub fn run(self) -> Result<(), BenchError> {
        match self {
            Which::OthelloPerft(args) => perft_bench(args),
            Which::OthelloCount(args) => count_bench(args),
            Which::OthelloSolve(args) => solve_bench(args),
            Which::OthelloMatch(args) => match_bench(args),
            Which::OthelloEval(args) => eval_bench(args),
            Which::OthelloSwing(args) => {
                let swing =
                    crate::othello::search::swing::measure(args.games, args.depth, args.seed);
                for line in swing.lines() {
                    println!("{line}");
                }
                Ok(())
            }
        }
    }
}

/// `bench othello-perft`'s arguments.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Plies from the start position
    #[arg(default_value_t = 11)]
    depth: u32,
    /// Size of the transposition table in MiB (as USI_Hash)
    #[arg(default_value_t = 64)]
    table_mib: u64,
}

/// `bench othello-count`'s arguments.
#[derive(clap::Args)]
pub struct CountArgs {
    /// Plies from the start position
    #[arg(default_value_t = 11, value_parser = clap::value_parser!(u32).range(1..=12))]
    depth: u32,
}

/// `bench othello-solve`'s arguments.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// OBF positions to solve, each checked against its best score (default: FFO #40-#44);
    /// several files are solved in turn with one total
    #[arg(value_name = "FILE.obf")]
    files: Vec<String>,
    /// Threads of each solve (as the USI option Threads)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
}

/// `bench othello-eval`'s arguments.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// Positions from seeded random games
    #[arg(default_value_t = 100_000)]
    positions: usize,
    /// Times each position is evaluated
    #[arg(default_value_t = 10)]
    rounds: usize,
}

/// `bench othello-swing`'s arguments.
#[derive(clap::Args)]
pub struct SwingArgs {
    /// Self-play games (each opening with 4 to 8 seeded random plies)
    #[arg(default_value_t = 100)]
    games: u64,
    /// Search depth of every move, scored from black's point of view
    #[arg(default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Seed of the openings
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `bench othello-match`'s arguments.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// Seeded random 4-ply openings, each played with both colours
    #[arg(default_value_t = 8)]
    openings: u64,
    /// Milliseconds per move
    #[arg(default_value_t = 50)]
    movetime_ms: u64,
}

/// `othello-perft [depth] [hash-MiB]`: leaves per second from the start position (default
/// depth 11), first visiting every leaf, then with the symmetric transposition table that
/// `go perft` uses (default 64 MiB, as USI_Hash).
pub fn perft_bench(args: PerftArgs) -> Result<(), BenchError> {
    let (depth, mib) = (args.depth, args.table_mib);
    let t0 = Instant::now();
    let n = perft::leaves(&Board::START, depth);
    let s = t0.elapsed().as_secs_f64();
    println!(
        "perft {depth} every leaf: {n} leaves in {s:.3} s, {:.0} leaves/s (native popcount: {})",
        n as f64 / s.max(1e-9),
        perft::has_native()
    );
    let t0 = Instant::now();
    let mut table = perft::PerftTable::new(mib);
    let h = perft::leaves_hashed(&mut table, &Board::START, depth);
    let s = t0.elapsed().as_secs_f64();
    println!(
        "perft {depth} with a {mib} MiB table: {h} leaves in {s:.3} s, {:.0} leaves/s",
        h as f64 / s.max(1e-9)
    );
    if h != n {
        return Err(BenchError::TableChanged {
            hashed: h,
            leaves: n,
        });
    }
    Ok(())
}

/// FFO #40-#44, built into the binary so that `bench othello-solve` runs from any directory (and
/// from an installed binary); the file is the test fixture, so the two cannot drift apart.
const DEFAULT_OBF: &str = include_str!("../../tests/data/othello/fforum-40-44.obf");
const DEFAULT_OBF_NAME: &str = "fforum-40-44.obf";

/// Published node counts on FFO #40-#59: (FFO number, Egaroucid 7.8.0 SIMD with 42 threads,
/// Edax 4.5.5 x64-v3 with 32 threads), both from the files of Egaroucid's benchmarks page for
/// 7.8.0 (`000_ffo40_59_Core_i9-13900K_SIMD.txt`, `010_ffo40_59_Core_i9-13900K_edax_x64_v3.txt`,
/// hash 2^25, Core i9-13900K). Multi-threaded counts: somewhat above one thread's.
const ANCHORS: [(usize, u64, u64); 20] = [
    (40, 9_645_526, 10_593_841),
    (41, 11_823_528, 23_504_239),
    (42, 18_176_660, 29_753_131),
    (43, 68_152_369, 89_413_746),
    (44, 7_940_057, 19_875_648),
    (45, 193_612_001, 269_538_788),
    (46, 42_932_299, 68_859_306),
    (47, 13_401_971, 20_213_841),
    (48, 95_261_523, 163_208_900),
    (49, 222_739_622, 369_260_322),
    (50, 523_197_906, 982_629_790),
    (51, 169_952_079, 350_205_998),
    (52, 360_325_529, 785_392_624),
    (53, 1_431_005_834, 3_185_945_823),
    (54, 2_182_164_652, 4_282_847_738),
    (55, 6_715_594_734, 11_709_882_077),
    (56, 613_958_492, 1_440_917_181),
    (57, 1_008_918_237, 1_646_036_510),
    (58, 892_560_995, 2_079_154_919),
    (59, 5_871_982, 958_168),
];

/// The anchors' counts of FFO position `number`, when published.
fn anchors(number: usize) -> Option<(u64, u64)> {
    ANCHORS
        .iter()
        .find(|a| a.0 == number)
        .map(|&(_, egaroucid, edax)| (egaroucid, edax))
}

/// The FFO number of a file's first line, from a name like `fforum-40-44.obf`.
fn first_ffo_number(path: &str) -> Option<usize> {
    std::path::Path::new(path)
        .file_stem()?
        .to_str()?
        .strip_prefix("fforum-")?
        .split('-')
        .next()?
        .parse()
        .ok()
}

/// `othello-solve [file...]`: solves FFO positions (default: #40-#44, tests/data/othello/
/// fforum-40-44.obf, built in), checks each score against the file, and sets each position's
/// nodes beside Egaroucid's and Edax's published counts (ratios: ours over theirs).
pub fn solve_bench(args: SolveArgs) -> Result<(), BenchError> {
    let mut sets = Vec::new();
    if args.files.is_empty() {
        sets.push((DEFAULT_OBF_NAME.to_string(), DEFAULT_OBF.to_string()));
    }
    for path in args.files {
        let text = std::fs::read_to_string(&path).map_err(|error| BenchError::Unreadable {
            path: path.clone(),
            error,
        })?;
        sets.push((path, text));
    }
    let mut total_nodes = 0u64;
    // The part of the nodes visited by the evaluation searches that order moves and guess.
    let mut eval_nodes = 0u64;
    let mut wrong = 0;
    let mut total = 0;
    // Sums over the positions with published counts: ours, Egaroucid's, Edax's.
    let mut anchored = (0u64, 0u64, 0u64);
    let t_all = Instant::now();
    for (path, text) in sets {
        let entries = obf::parse_file(&text).map_err(|error| BenchError::Obf {
            path: path.clone(),
            error,
        })?;
        // FFO numbers from the file's name; else lines count from 1 and have no anchors.
        let first = first_ffo_number(&path);
        for (i, e) in entries.iter().enumerate() {
            let mut solver = Solver::new(22).with_threads(args.threads as usize);
            let t0 = Instant::now();
            let r = solver.solve(&e.position.board);
            let s = t0.elapsed().as_secs_f64();
            total_nodes += solver.nodes;
            eval_nodes += solver.eval_nodes;
            let expect = e.best_score();
            let ok = Some(r.score) == expect;
            wrong += usize::from(!ok);
            total += 1;
            let number = first.map(|f| f + i);
            let beside = match number.and_then(anchors) {
                Some((egaroucid, edax)) => {
                    anchored.0 += solver.nodes;
                    anchored.1 += egaroucid;
                    anchored.2 += edax;
                    format!(
                        " egaroucid {egaroucid} (x{:.2}) edax {edax} (x{:.2})",
                        solver.nodes as f64 / egaroucid as f64,
                        solver.nodes as f64 / edax as f64
                    )
                }
                None => String::new(),
            };
            println!(
                "#{:<3} empties {:2} best {} score {:+} (file {:+}) {} nodes {} (evaluation {}){beside} {:.3} s {:.1} Mn/s",
                number.unwrap_or(i + 1),
                e.position.board.empties().count_ones(),
                r.best.map(square_name).unwrap_or_else(|| "none".into()),
                r.score,
                expect.unwrap_or(0),
                if ok { "ok" } else { "WRONG" },
                solver.nodes,
                solver.eval_nodes,
                s,
                solver.nodes as f64 / s.max(1e-9) / 1e6,
            );
        }
    }
    let s = t_all.elapsed().as_secs_f64();
    if anchored.1 > 0 {
        println!(
            "anchored {} nodes egaroucid {} (x{:.2}) edax {} (x{:.2})",
            anchored.0,
            anchored.1,
            anchored.0 as f64 / anchored.1 as f64,
            anchored.2,
            anchored.0 as f64 / anchored.2 as f64
        );
    }
    println!(
        "total {total_nodes} nodes (evaluation searches {eval_nodes}, exact search {}) {s:.3} s {:.1} Mn/s{}",
        total_nodes - eval_nodes,
        total_nodes as f64 / s.max(1e-9) / 1e6,
        if wrong == 0 {
            String::new()
        } else {
            format!(" {wrong} WRONG")
        }
    );
    if wrong > 0 {
        return Err(BenchError::WrongScores { wrong, total });
    }
    Ok(())
}

/// Peak resident memory of this process (Linux `VmHWM`), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// `othello-count [depth]`: the seed's table from the start (default depth 11), time per row,
/// positions per second, and peak memory.
pub fn count_bench(args: CountArgs) -> Result<(), BenchError> {
    let depth = args.depth;
    let t0 = Instant::now();
    let mut total_positions = 0u64;
    let peak = count(
        &Position::START,
        depth,
        &mut |r| {
            total_positions += r.positions;
            println!(
                "count {} paths {} positions {} ({:.3} s)",
                r.depth,
                r.paths,
                r.positions,
                t0.elapsed().as_secs_f64()
            );
        },
        &mut |_, _, _| Ok(()),
    )
    .map_err(BenchError::Count)?;
    let s = t0.elapsed().as_secs_f64();
    println!(
        "{total_positions} distinct positions in {s:.3} s, {:.0} positions/s; layers peak {:.0} MiB, process peak RSS {} MiB",
        total_positions as f64 / s.max(1e-9),
        peak as f64 / (1 << 20) as f64,
        peak_rss_mib().map_or("?".into(), |m| format!("{m:.0}"))
    );
    Ok(())
}

/// The final disc difference for black of a game between two levels from `opening`.
fn play_game(opening: &[u32], black: u64, white: u64, movetime: u64, seed: u64) -> i32 {
    let mut pos = Position::START;
    for &sq in opening {
        pos = pos.play(sq).expect("opening moves are legal");
    }
    loop {
        if let Some(passed) = pos.forced_pass() {
            pos = passed;
        }
        if pos.board.is_game_over() {
            break;
        }
        let level = if pos.black_to_move { black } else { white };
        let limits = Limits {
            movetime: Some(movetime),
            ..Default::default()
        };
        let control = Control::new(limits, 0);
        let outcome = think(&pos.board, Level::new(level), seed, &control, &mut |_| {});
        let sq = outcome
            .best
            .as_deref()
            .and_then(parse_square)
            .expect("a legal move");
        pos = pos.play(sq).expect("the search plays legal moves");
    }
    let b = pos.black().count_ones() as i32;
    let w = pos.white().count_ones() as i32;
    b - w
}

/// `othello-match [openings] [movetime-ms]`: each pair of levels plays every seeded random
/// 4-ply opening with both colours (default 8 openings, 50 ms a move).
pub fn match_bench(args: MatchArgs) -> Result<(), BenchError> {
    let (openings, movetime) = (args.openings, args.movetime_ms);
    let mut rng = 2026u64;
    let lines: Vec<Vec<u32>> = (0..openings)
        .map(|_| {
            let mut pos = Position::START;
            let mut line = Vec::new();
            for _ in 0..4 {
                let list: Vec<u32> = squares(pos.board.moves()).collect();
                let sq = list[(splitmix(&mut rng) % list.len() as u64) as usize];
                line.push(sq);
                pos = pos.play(sq).expect("legal");
            }
            line
        })
        .collect();
    for (a, b) in [(2u64, 1u64), (3, 2), (3, 1)] {
        let (mut wins, mut draws, mut losses, mut discs) = (0, 0, 0, 0i64);
        let t0 = Instant::now();
        for (i, line) in lines.iter().enumerate() {
            for a_black in [true, false] {
                let seed = i as u64 * 2 + a_black as u64;
                let diff = if a_black {
                    play_game(line, a, b, movetime, seed)
                } else {
                    -play_game(line, b, a, movetime, seed)
                };
                discs += diff as i64;
                match diff.signum() {
                    1 => wins += 1,
                    0 => draws += 1,
                    _ => losses += 1,
                }
            }
        }
        let names: Vec<String> = lines[0].iter().map(|&s| square_name(s)).collect();
        println!(
            "level {a} vs level {b}: {wins} wins {draws} draws {losses} losses, mean disc difference {:+.1} ({} games, {movetime} ms a move, {:.1} s; first opening {})",
            discs as f64 / (2 * lines.len()) as f64,
            2 * lines.len(),
            t0.elapsed().as_secs_f64(),
            names.join(" ")
        );
    }
    Ok(())
}

/// `othello-eval [positions] [rounds]`: evaluations per second of the hand-set evaluation (of
/// before issue 18) and of the pattern evaluation, on the same positions from seeded random
/// games (default 100000 positions, 10 rounds), measured in one run so the ratio is fair.
pub fn eval_bench(args: EvalArgs) -> Result<(), BenchError> {
    use crate::othello::search::{eval, pattern};
    let (count, rounds) = (args.positions, args.rounds);
    let mut rng = 18u64;
    let mut positions = Vec::new();
    while positions.len() < count {
        let mut b = Board::START;
        while !b.is_game_over() && positions.len() < count {
            let list: Vec<u32> = squares(b.moves()).collect();
            b = if list.is_empty() {
                b.pass()
            } else {
                let sq = list[(splitmix(&mut rng) % list.len() as u64) as usize];
                positions.push((b.player, b.opponent));
                b.play(sq).expect("legal")
            };
        }
    }
    let time = |f: &dyn Fn(u64, u64) -> i32| {
        let t0 = Instant::now();
        let mut sum = 0i64;
        for _ in 0..rounds {
            for &(p, o) in &positions {
                sum += f(p, o) as i64;
            }
        }
        let s = t0.elapsed().as_secs_f64();
        ((count * rounds) as f64 / s.max(1e-9), sum)
    };
    let (hand, hand_sum) = time(&|p, o| eval::evaluate(p, o));
    let (pat, pat_sum) = time(&|p, o| pattern::evaluate(p, o));
    println!(
        "hand-set evaluation: {hand:.0} positions/s (checksum {hand_sum})\npattern evaluation: {pat:.0} positions/s (checksum {pat_sum}); ratio pattern/hand {:.2}\nweights: {} bytes in the binary ({} weights, {} phases)",
        pat / hand.max(1e-9),
        pattern::file_size(),
        pattern::TABLE_SIZE,
        pattern::PHASES
    );
    Ok(())
}
