//! `ryoshi analysis`: KataGo's analysis engine protocol. A JSON query a line on stdin, a JSON
//! answer a line on stdout. The input is read on its own thread into a bounded channel, the
//! positions wait in a bounded queue, and `--analysis-threads` workers search them, the
//! highest `priority` first (then the earliest), each answering as its search ends; actions
//! (`terminate`, `query_version`, ...) are answered at once. At the end of the input every
//! waiting position is still searched and answered, as KataGo does.

use super::answer;
use super::query::{self, Defaults, Job, Message, Request};
use crate::go::search::mcts::{Mcts, Settings, Snapshot};
use crate::protocol::driver::{self, Input};
use crate::protocol::lines;
use crate::search::{Control, Limits};
use parking_lot::{Condvar, Mutex};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `ryoshi analysis [--analysis-threads N] [--threads N] [--visits N] [--seed N]
/// [--tree-mb N] [--max-queued N]`.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// Positions searched at once, each by its own worker (KataGo's `numAnalysisThreads`).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub analysis_threads: u64,
    /// Search threads per position (KataGo's `numSearchThreadsPerAnalysisThread`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Playouts per position when a query gives no `maxVisits`.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..))]
    pub visits: u64,
    /// Seed of the playouts' random generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Megabytes for each worker's search tree.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub tree_mb: u64,
    /// Positions that may wait for a worker; a query that would pass it is refused.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_queued: u64,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            analysis_threads: 2,
            threads: 1,
            visits: 500,
            seed: 0,
            tree_mb: 64,
            max_queued: 1000,
        }
    }
}

struct Queued {
    job: Job,
    seq: u64,
}

struct Running {
    id: String,
    turn: usize,
    control: Arc<Control>,
}

#[derive(Default)]
struct State {
    queue: Vec<Queued>,
    running: Vec<Running>,
    next_seq: u64,
    /// No more queries come: workers end once the queue is empty.
    closing: bool,
}

struct Shared<W> {
    state: Mutex<State>,
    wake: Condvar,
    out: Mutex<W>,
    /// The client's end of the output is gone: everything stops.
    broken: AtomicBool,
}

impl<W: Write> Shared<W> {
    fn write(&self, line: &str) {
        crate::logging::output(line);
        let mut out = self.out.lock();
        if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
            self.broken.store(true, Ordering::Relaxed);
        }
    }

    /// Stops every search and drops every waiting position (the output is gone).
    fn abandon(&self) {
        let mut state = self.state.lock();
        state.queue.clear();
        state.closing = true;
        for r in &state.running {
            r.control.stop();
        }
        self.wake.notify_all();
    }

    /// The next position to search: the highest priority, then the earliest; None once the
    /// input has ended and nothing waits.
    fn next(&self) -> Option<(Job, Arc<Control>)> {
        let mut state = self.state.lock();
        loop {
            let best = state
                .queue
                .iter()
                .enumerate()
                .max_by_key(|(_, q)| (q.job.priority, std::cmp::Reverse(q.seq)))
                .map(|(i, _)| i);
            if let Some(i) = best {
                let job = state.queue.swap_remove(i).job;
                let limits = Limits {
                    nodes: Some(job.visits),
                    movetime: job.max_time_ms,
                    ..Limits::default()
                };
                let control = Arc::new(Control::new(limits, 0));
                state.running.push(Running {
                    id: job.id.clone(),
                    turn: job.turn,
                    control: Arc::clone(&control),
                });
                return Some((job, control));
            }
            if state.closing {
                return None;
            }
            self.wake.wait(&mut state);
        }
    }

    fn finished(&self, control: &Arc<Control>) {
        self.state
            .lock()
            .running
            .retain(|r| !Arc::ptr_eq(&r.control, control));
    }

    /// `terminate`: waiting positions of `id` (all, for `terminate_all`) at `turns` are
    /// dropped and answered `noResults`; running ones are stopped and answer what they found.
    fn terminate(&self, id: Option<&str>, turns: Option<&[i64]>) {
        let matches = |job_id: &str, turn: usize| {
            id.is_none_or(|id| id == job_id)
                && turns.is_none_or(|t| t.iter().any(|&n| usize::try_from(n) == Ok(turn)))
        };
        let mut dropped = Vec::new();
        {
            let mut state = self.state.lock();
            let mut kept = Vec::with_capacity(state.queue.len());
            for q in state.queue.drain(..) {
                if matches(&q.job.id, q.job.turn) {
                    dropped.push(q);
                } else {
                    kept.push(q);
                }
            }
            state.queue = kept;
            for r in &state.running {
                if matches(&r.id, r.turn) {
                    r.control.stop();
                }
            }
        }
        dropped.sort_by_key(|q| q.seq);
        for q in dropped {
            self.write(&answer::no_results(&q.job.id, q.job.turn));
        }
    }

    /// One input line.
    fn handle(&self, line: &str, defaults: Defaults, max_queued: usize) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        match query::read(line, defaults) {
            Err(message) => self.write(&message.to_json()),
            Ok(Request::Echo(text)) => self.write(&text),
            Ok(Request::Terminate { id, turns, echo }) => {
                self.write(&echo);
                self.terminate(id.as_deref(), turns.as_deref());
            }
            Ok(Request::Query { jobs, warnings }) => {
                let Some(id) = jobs.first().map(|j| j.id.clone()) else {
                    for w in &warnings {
                        self.write(&w.to_json());
                    }
                    return;
                };
                let mut state = self.state.lock();
                if state.queue.len() + jobs.len() > max_queued {
                    let waiting = state.queue.len();
                    drop(state);
                    let refusal = Message {
                        warning: false,
                        id: Some(id),
                        field: None,
                        text: format!(
                            "{waiting} positions are waiting already (at most {max_queued}); \
                             query refused"
                        ),
                    };
                    self.write(&refusal.to_json());
                    return;
                }
                // The warnings go out before any answer can.
                for w in &warnings {
                    self.write(&w.to_json());
                }
                for job in jobs {
                    let seq = state.next_seq;
                    state.next_seq += 1;
                    state.queue.push(Queued { job, seq });
                }
                drop(state);
                self.wake.notify_all();
            }
        }
    }
}

/// One worker: searches positions until none is left.
fn work<W: Write>(shared: &Shared<W>, args: &Args) {
    let mut mcts: Option<Mcts> = None;
    while let Some((job, control)) = shared.next() {
        if mcts.is_none() {
            let bytes = (args.tree_mb as usize).saturating_mul(1 << 20);
            match Mcts::new(bytes) {
                Ok(m) => mcts = Some(m),
                Err(e) => {
                    let failure = Message {
                        id: Some(job.id.clone()),
                        ..Message::general(e.to_string())
                    };
                    shared.write(&failure.to_json());
                    shared.finished(&control);
                    continue;
                }
            }
        }
        let Some(engine) = &mcts else { continue };
        // Every position afresh: a kept tree's visits would count for banned moves.
        engine.forget();
        let settings = Settings {
            passes: job.passes,
            report_ms: job.report_ms,
            bans: job.bans.clone(),
            ..Settings::new(job.komi, args.threads as usize, args.seed)
        };
        let mut report = |snap: &Snapshot| shared.write(&answer::answer(&job, snap, true));
        let snap = engine.search(&job.game, &settings, &control, &mut report);
        shared.finished(&control);
        shared.write(&answer::answer(&job, &snap, false));
        if shared.broken.load(Ordering::Relaxed) {
            shared.abandon();
        }
    }
}

/// Runs the analysis engine until the input ends and every query is answered, or the output
/// is gone.
pub fn run<R: BufRead + Send + 'static, W: Write + Send>(
    args: Args,
    input: R,
    output: W,
) -> io::Result<()> {
    let shared = Shared {
        state: Mutex::new(State::default()),
        wake: Condvar::new(),
        out: Mutex::new(output),
        broken: AtomicBool::new(false),
    };
    let defaults = Defaults {
        visits: args.visits,
    };
    let max_queued = usize::try_from(args.max_queued).unwrap_or(usize::MAX);
    // A few lines of look-ahead: a flood waits in its own pipe.
    let rx = driver::spawn_reader(input, 4);
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..args.analysis_threads {
            let spawned = std::thread::Builder::new()
                .name("analysis".into())
                .spawn_scoped(scope, || work(&shared, &args));
            if spawned.is_ok() {
                started += 1;
            }
        }
        if started == 0 {
            shared.write(&Message::general("cannot start an analysis thread".into()).to_json());
            return;
        }
        loop {
            match rx.recv().unwrap_or(Input::Eof) {
                Input::Eof => break,
                Input::TooLong(_) => {
                    shared.write(&Message::general(lines::too_long_message()).to_json())
                }
                Input::Line(line) => {
                    crate::logging::input(&line);
                    shared.handle(&line, defaults, max_queued);
                }
            }
            if shared.broken.load(Ordering::Relaxed) {
                shared.abandon();
                return;
            }
        }
        shared.state.lock().closing = true;
        shared.wake.notify_all();
    });
    if shared.broken.load(Ordering::Relaxed) {
        return Err(io::Error::new(io::ErrorKind::BrokenPipe, "output closed"));
    }
    Ok(())
}
