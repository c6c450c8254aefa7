//! `ryoshi bench threads [DEPTH] [RUNS] [THREADS]`: Lazy SMP time-to-depth. The start position
//! (two plies shallower: its tree is much the widest) and three mid-game `bench` positions are each
//! searched to `DEPTH` (default 5) with one thread and with `THREADS` (default 2), `RUNS` times
//! each (default 5, the two alternating so that a change in the machine's load hits both), with a
//! fresh 64 MiB table every time. Prints the median time to depth, nodes/s and their ratios.

use crate::games::quantum::{Position, Rules};
use crate::search::quantum::{bench_positions, QGame};
use crate::search::{Control, Limits, Searcher};
use std::time::Instant;

pub const NAMES: &[&str] = &["threads"];

pub fn run(what: &str, args: &[String]) -> Option<Result<(), String>> {
    (what == "threads").then(|| threads(args))
}

fn threads(args: &[String]) -> Result<(), String> {
    let number = |i: usize, default: u64| -> Result<u64, String> {
        args.get(i).map_or(Ok(default), |a| {
            a.parse().map_err(|_| format!("bad number '{a}'"))
        })
    };
    let depth = number(0, 5)?.clamp(3, 64) as u32;
    let runs = number(1, 5)?.clamp(1, 1000) as usize;
    let many = number(2, 2)?.clamp(2, 256) as usize;
    let rules = Rules::default();
    let mids = bench_positions(&rules);
    // 20, 36 and 52 random plies from the start (the others of the eight end in a forced
    // result within a few plies, or have small trees).
    let positions: Vec<(String, Position, u32)> = [1, 3, 5]
        .iter()
        .map(|&i| (format!("bench {}", i + 1), mids[i].clone(), depth))
        .chain(std::iter::once((
            "start".to_string(),
            Position::start(),
            depth - 2,
        )))
        .collect();
    let mut searchers = [Searcher::<QGame>::new(64), Searcher::<QGame>::new(64)];
    if let Some(note) = searchers[1].set_threads(many) {
        println!("{note}");
    }
    let (mut sum_one, mut sum_many) = (0.0, 0.0);
    println!("threads 1 against {many}, median of {runs} runs, time to depth in ms");
    for (name, pos, depth) in &positions {
        let game = QGame::new(pos.clone(), rules);
        let mut samples: [Vec<(f64, u64)>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..runs {
            for (k, searcher) in searchers.iter_mut().enumerate() {
                searcher.clear();
                let limits = Limits {
                    depth: Some(*depth),
                    ..Default::default()
                };
                let control = Control::new(limits, 0);
                let started = Instant::now();
                let outcome = searcher.run(&game, &[], &control, *depth, &mut |_| {});
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                samples[k].push((ms, outcome.info.nodes));
            }
        }
        let median = |s: &mut Vec<(f64, u64)>| {
            s.sort_by(|a, b| a.0.total_cmp(&b.0));
            s[s.len() / 2]
        };
        let (one, many_) = (median(&mut samples[0]), median(&mut samples[1]));
        let nps = |(ms, nodes): (f64, u64)| nodes as f64 / ms.max(0.001) * 1000.0;
        sum_one += one.0;
        sum_many += many_.0;
        println!(
            "{name:>8} depth {depth}: {:>9.1} ms {:>8.0} nps | {:>9.1} ms {:>8.0} nps | \
             speed-up {:.2}, nps x{:.2}",
            one.0,
            nps(one),
            many_.0,
            nps(many_),
            one.0 / many_.0.max(0.001),
            nps(many_) / nps(one).max(1.0)
        );
    }
    println!(
        "total of medians: {sum_one:.1} ms against {sum_many:.1} ms, speed-up {:.2}",
        sum_one / sum_many.max(0.001)
    );
    Ok(())
}
