//! Benchmarks for othello: perft, count and the endgame solver.

use crate::games::othello::{obf, perft, solve::Solver, square_name, Board};
use std::time::Instant;

/// The benchmark names this file answers for.
pub const NAMES: &[&str] = &["othello-perft", "othello-count", "othello-solve"];

/// Runs `what` if it is one of [`NAMES`].
pub fn run(what: &str, args: &[String]) -> Option<Result<(), String>> {
    match what {
        "othello-perft" => Some(perft_bench(args)),
        "othello-solve" => Some(solve_bench(args)),
        _ => None,
    }
}

fn depth_arg(args: &[String], default: u32) -> Result<u32, String> {
    match args.first() {
        None => Ok(default),
        Some(a) => a
            .parse()
            .map_err(|_| format!("expected a depth, not '{a}'")),
    }
}

/// `othello-perft [depth]`: leaves per second from the start position (default depth 11).
fn perft_bench(args: &[String]) -> Result<(), String> {
    let depth = depth_arg(args, 11)?;
    let t0 = Instant::now();
    let n = perft::leaves(&Board::START, depth);
    let s = t0.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {n} leaves in {s:.3} s, {:.0} leaves/s (native popcount: {})",
        n as f64 / s.max(1e-9),
        perft::has_native()
    );
    Ok(())
}

/// `othello-solve [file] [first] [last]`: solves FFO positions (default: #40-#44 from
/// ../shared/data/othello/fforum-40-44.obf) and checks each score against the file.
fn solve_bench(args: &[String]) -> Result<(), String> {
    let path = args
        .first()
        .cloned()
        .unwrap_or_else(|| "../shared/data/othello/fforum-40-44.obf".to_string());
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let entries = obf::parse_file(&text)?;
    let mut total_nodes = 0u64;
    let t_all = Instant::now();
    for (i, e) in entries.iter().enumerate() {
        let mut solver = Solver::new(22);
        let t0 = Instant::now();
        let r = solver.solve(&e.position.board);
        let s = t0.elapsed().as_secs_f64();
        total_nodes += solver.nodes;
        let expect = e.best_score();
        println!(
            "#{:<3} empties {:2} best {} score {:+} (file {:+}) {} nodes {} {:.3} s {:.1} Mn/s",
            i + 1,
            e.position.board.empties().count_ones(),
            r.best.map(square_name).unwrap_or_else(|| "none".into()),
            r.score,
            expect.unwrap_or(0),
            if Some(r.score) == expect {
                "ok"
            } else {
                "WRONG"
            },
            solver.nodes,
            s,
            solver.nodes as f64 / s.max(1e-9) / 1e6,
        );
    }
    let s = t_all.elapsed().as_secs_f64();
    println!(
        "total {total_nodes} nodes {s:.3} s {:.1} Mn/s",
        total_nodes as f64 / s.max(1e-9) / 1e6
    );
    Ok(())
}
