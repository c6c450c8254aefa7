//! `ryoshi bench threads [DEPTH] [RUNS] [THREADS]`: Lazy SMP time-to-depth. The start position
//! (two plies shallower: its tree is much the widest) and three mid-game `bench` positions are each
//! searched to `DEPTH` (default 5) with one thread and with `THREADS` (default 2), `RUNS` times
//! each (default 5, the two alternating so that a change in the machine's load hits both), with a
//! fresh 64 MiB table every time. Prints the medians of the time to depth, of the nodes all
//! threads searched to reach it, of nodes/s and of nodes per CPU second, and the ratios (N
//! threads over one; `time` is the speed-up, one thread's time over N threads'). On a busy
//! machine the helpers find no free core: then the node ratio (the helpers' search overhead) and
//! nodes per CPU second (the cost of sharing the table) still say what N free cores would give.

// SAFETY: allowed for getrusage for the process's CPU time (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::BenchError;
use crate::quantum::search::{bench_positions, QGame};
use crate::quantum::{Position, Ruleset};
use crate::search::{Control, Limits, Searcher};
use std::time::Instant;

/// Wall milliseconds, nodes of all threads, CPU seconds of the process.
type Sample = (f64, u64, f64);

/// User and system CPU time of this process so far (all threads), where the system says.
fn cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        // SAFETY: rusage is plain integers, for which all zeros is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage only writes the struct it is given.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
            return t(usage.ru_utime) + t(usage.ru_stime);
        }
    }
    0.0
}

/// `bench threads`'s arguments (out-of-range values are clamped).
#[derive(clap::Args)]
pub struct Args {
    /// Depth of the middle-game searches (3 to 64; the start position two plies less)
    #[arg(default_value_t = 5)]
    depth: u64,
    /// Runs of each position, the fastest kept (1 to 1000)
    #[arg(default_value_t = 5)]
    runs: u64,
    /// Threads of the Lazy SMP search, against one (2 to 256)
    #[arg(default_value_t = 2)]
    threads: u64,
}

pub fn threads(args: Args) -> Result<(), BenchError> {
    let depth = args.depth.clamp(3, 64) as u32;
    let runs = args.runs.clamp(1, 1000) as usize;
    let many = args.threads.clamp(2, 256) as usize;
    let rules = Ruleset::default();
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
        let mut samples: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..runs {
            for (k, searcher) in searchers.iter_mut().enumerate() {
                searcher.clear();
                let limits = Limits {
                    depth: Some(*depth),
                    ..Default::default()
                };
                let control = Control::new(limits, 0);
                let (started, cpu) = (Instant::now(), cpu_seconds());
                let outcome = searcher.run(&game, &[], &control, *depth, &mut |_| {});
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                let cpu = cpu_seconds() - cpu;
                samples[k].push((ms, outcome.info.nodes, cpu));
            }
        }
        let median = |s: &[Sample], key: fn(&Sample) -> f64| {
            let mut v: Vec<f64> = s.iter().map(key).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let ms = |s: &Sample| s.0;
        let nodes = |s: &Sample| s.1 as f64;
        let nps = |s: &Sample| s.1 as f64 / s.0.max(0.001) * 1000.0;
        let cpu_nps = |s: &Sample| s.1 as f64 / s.2.max(0.000_001);
        let (t1, tn) = (median(&samples[0], ms), median(&samples[1], ms));
        let (n1, nn) = (median(&samples[0], nodes), median(&samples[1], nodes));
        let (v1, vn) = (median(&samples[0], nps), median(&samples[1], nps));
        let (c1, cn) = (median(&samples[0], cpu_nps), median(&samples[1], cpu_nps));
        sum_one += t1;
        sum_many += tn;
        // Nodes to depth over all threads: the search overhead of the helpers, which the
        // machine's load does not change much.
        println!(
            "{name:>8} depth {depth}: {t1:>8.1} ms {n1:>8.0} nodes {v1:>7.0} nps | \
             {tn:>8.1} ms {nn:>8.0} nodes {vn:>7.0} nps | time x{:.2}, nodes x{:.2}, nps x{:.2}, \
             nodes per CPU second x{:.2}",
            t1 / tn.max(0.001),
            nn / n1.max(1.0),
            vn / v1.max(1.0),
            cn / c1.max(1.0)
        );
    }
    println!(
        "total of medians: {sum_one:.1} ms against {sum_many:.1} ms, speed-up {:.2}",
        sum_one / sum_many.max(0.001)
    );
    Ok(())
}
