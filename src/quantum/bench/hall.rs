//! Benchmarks for quantum shogi.
//!
//! `ryoshi bench hall [STATES]`: nanoseconds per exact projection of one origin side (20 local
//! sets → 20 exact sets, or "infeasible"), over a fixed seeded set of states taken from random
//! games (captures and drops preferred, so hands and narrowed pieces are common), and the same
//! for the matching oracle, with the ratio.

use super::BenchError;
use crate::quantum::types::{Color, Mask, PIECES_PER_SIDE};
use crate::quantum::{hall, oracle, Action, Position, Ruleset};
use crate::rng::SplitMix64 as SplitMix;
use std::hint::black_box;
use std::time::Instant;

/// `bench hall`'s arguments.
#[derive(clap::Args)]
pub struct HallArgs {
    /// Color states to project (seeded, from random games)
    #[arg(default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    states: u64,
}

/// Color states from seeded random games. Each state is one side's exact sets with one piece
/// freshly restricted by a random local set, as after an action (some become infeasible).
pub fn sample_states(count: usize, seed: u64) -> Vec<[Mask; PIECES_PER_SIDE]> {
    let mut rng = SplitMix(seed);
    let rules = Ruleset::default();
    let mut states = Vec::with_capacity(count);
    let mut pos = Position::start();
    let mut actions = Vec::new();
    while states.len() < count {
        actions.clear();
        pos.generate(&rules, &mut actions);
        if actions.is_empty() || pos.winner().is_some() || pos.move_number() > 200 {
            pos = Position::start();
            continue;
        }
        let captures: Vec<Action> = actions
            .iter()
            .copied()
            .filter(|a| matches!(a, Action::Move { to, .. } if pos.piece_at(*to).is_some()))
            .collect();
        let action = if !captures.is_empty() && rng.index(2) == 0 {
            captures[rng.index(captures.len())]
        } else {
            actions[rng.index(actions.len())]
        };
        let consistent = pos.apply(action);
        debug_assert!(consistent, "generated {action:?}");
        for origin in Color::BOTH {
            let base = origin.index() * PIECES_PER_SIDE;
            let mut masks = [0; PIECES_PER_SIDE];
            for (k, m) in masks.iter_mut().enumerate() {
                *m = pos.piece(base + k).mask;
            }
            let k = rng.index(PIECES_PER_SIDE);
            masks[k] &= rng.next() as u8 | 1 << rng.index(8);
            states.push(masks);
        }
    }
    states.truncate(count);
    states
}

/// This thread's CPU time in nanoseconds (Linux), to see through a busy machine.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Wall and CPU nanoseconds per call of `f` over all states, repeated for about `budget` s.
fn time_per_state(
    states: &[[Mask; PIECES_PER_SIDE]],
    budget: f64,
    mut f: impl FnMut(&[Mask; PIECES_PER_SIDE]) -> u64,
) -> (f64, Option<f64>) {
    let (mut calls, mut sink) = (0u64, 0u64);
    let c0 = cpu_ns();
    let t0 = Instant::now();
    loop {
        for s in states {
            sink = sink.wrapping_add(f(black_box(s)));
        }
        calls += states.len() as u64;
        if t0.elapsed().as_secs_f64() >= budget {
            break;
        }
    }
    black_box(sink);
    let wall = t0.elapsed().as_secs_f64() * 1e9 / calls as f64;
    let cpu = match (c0, cpu_ns()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / calls as f64),
        _ => None,
    };
    (wall, cpu)
}

pub fn hall_bench(args: HallArgs) -> Result<(), BenchError> {
    let count = args.states as usize;
    let states = sample_states(count, 0x4841_4C4C);
    let feasible = states
        .iter()
        .filter(|s| hall::analyze(&s[..]).is_some())
        .count();
    // Both must agree before their speeds mean anything.
    for s in &states {
        if hall::projected(&s[..]) != oracle::project(&s[..]) {
            return Err(BenchError::ProjectionsDiffer(format!("{s:?}")));
        }
    }
    // What `Position::apply` runs after an action (`hall::project` was `analyze` then
    // `exact_all` before it seated the pieces, so older figures time the same work).
    let fast = time_per_state(&states, 1.0, |s| {
        let mut m = *s;
        if hall::project(&mut m) {
            m.iter().map(|&x| x as u64).sum()
        } else {
            1
        }
    });
    let slow = time_per_state(&states, 1.0, |s| {
        oracle::project(&s[..]).map_or(1, |m| m.iter().map(|&x| x as u64).sum())
    });
    let cpu = |c: Option<f64>| c.map_or(String::new(), |c| format!(" (cpu {c:.1})"));
    println!(
        "hall: {} states ({} feasible), fast {:.1}{} ns/projection, oracle {:.0}{} ns/projection, ratio {:.0}x",
        states.len(),
        feasible,
        fast.0,
        cpu(fast.1),
        slow.0,
        cpu(slow.1),
        match (fast.1, slow.1) {
            (Some(f), Some(s)) => s / f,
            _ => slow.0 / fast.0,
        }
    );
    Ok(())
}
