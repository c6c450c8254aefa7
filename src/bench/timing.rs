//! `ryoshi bench timing [N]`: how well the engine keeps time, measured from outside, as a GUI
//! sees it. Starts this binary as a child, builds seeded mid-game positions from its own `moves`
//! replies, and times N `go movetime 450`, N bare `go`, `isready` during searches and
//! `stop` -> `bestmove`.

use super::BenchError;
use crate::rng::splitmix;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// `bench timing`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Searches to time
    #[arg(default_value_t = 200)]
    n: usize,
}

struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<(Instant, String)>,
}

impl EngineProcess {
    fn start() -> Result<EngineProcess, BenchError> {
        let exe = std::env::current_exe().map_err(BenchError::Io)?;
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(BenchError::StartEngine)?;
        let stdout = child.stdout.take().ok_or(BenchError::NoPipe("stdout"))?;
        let stdin = child.stdin.take().ok_or(BenchError::NoPipe("stdin"))?;
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines,
        })
    }

    fn send(&mut self, line: &str) -> Result<Instant, BenchError> {
        writeln!(self.stdin, "{line}").map_err(BenchError::Io)?;
        self.stdin.flush().map_err(BenchError::Io)?;
        Ok(Instant::now())
    }

    /// The first line starting with `prefix` and when it arrived.
    fn wait_for(&mut self, prefix: &str) -> Result<(Instant, String), BenchError> {
        loop {
            let (at, line) = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .map_err(|_| BenchError::NoLine(prefix.into()))?;
            if line.starts_with(prefix) {
                return Ok((at, line));
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A seeded random walk of 16 to 40 plies from the start, using the engine's own `moves`,
/// that leaves the side to move with something to play.
fn midgame(engine: &mut EngineProcess, rng: &mut u64) -> Result<String, BenchError> {
    loop {
        let plies = 16 + splitmix(rng) % 25;
        let mut played: Vec<String> = Vec::new();
        let mut alive = true;
        for _ in 0..=plies {
            engine.send(&format!("position startpos moves {}", played.join(" ")))?;
            engine.send("moves")?;
            let (_, line) = engine.wait_for("")?;
            let moves: Vec<&str> = line.split_whitespace().collect();
            if moves.is_empty() || line.starts_with("info") {
                alive = false;
                break;
            }
            if played.len() as u64 == plies {
                break;
            }
            played.push(moves[(splitmix(rng) % moves.len() as u64) as usize].to_string());
        }
        if alive {
            return Ok(format!("position startpos moves {}", played.join(" ")));
        }
    }
}

#[derive(Default)]
struct Stats {
    samples: Vec<f64>,
}

impl Stats {
    fn add(&mut self, ms: f64) {
        self.samples.push(ms);
    }
    fn line(&mut self, label: &str) -> String {
        self.samples.sort_by(|a, b| a.total_cmp(b));
        let n = self.samples.len().max(1);
        let mean = self.samples.iter().sum::<f64>() / n as f64;
        let p99 = self
            .samples
            .get((n * 99 / 100).min(n - 1))
            .copied()
            .unwrap_or(0.0);
        let max = self.samples.last().copied().unwrap_or(0.0);
        format!(
            "{label:<34} n {:>4}  mean {mean:>7.2} ms  p99 {p99:>7.2} ms  max {max:>7.2} ms",
            self.samples.len()
        )
    }
}

pub fn timing(args: Args) -> Result<(), BenchError> {
    let n = args.n;
    let mut engine = EngineProcess::start()?;
    engine.send("usi")?;
    engine.wait_for("usiok")?;
    engine.send("isready")?;
    engine.wait_for("readyok")?;
    let mut rng = 0x7469_6d69_6e67u64;
    let (mut movetime, mut bare, mut ready, mut stop) = (
        Stats::default(),
        Stats::default(),
        Stats::default(),
        Stats::default(),
    );
    for i in 0..n {
        for (command, stats) in [("go movetime 450", &mut movetime), ("go", &mut bare)] {
            let position = midgame(&mut engine, &mut rng)?;
            engine.send(&position)?;
            let t0 = engine.send(command)?;
            // An isready at a random moment of the search.
            thread::sleep(Duration::from_millis(50 + splitmix(&mut rng) % 300));
            let asked = engine.send("isready")?;
            let (mut answered, mut done) = (None, None);
            while answered.is_none() || done.is_none() {
                let (at, line) = engine.wait_for("")?;
                if line == "readyok" {
                    answered = Some(at);
                } else if line.starts_with("bestmove") {
                    done = Some(at);
                }
            }
            let (answered, done) = (answered.unwrap_or(asked), done.unwrap_or(t0));
            ready.add(answered.saturating_duration_since(asked).as_secs_f64() * 1e3);
            stats.add(done.duration_since(t0).as_secs_f64() * 1e3 - 450.0);
        }
        if i % 2 == 0 {
            let position = midgame(&mut engine, &mut rng)?;
            engine.send(&position)?;
            engine.send("go infinite")?;
            thread::sleep(Duration::from_millis(100 + splitmix(&mut rng) % 200));
            let asked = engine.send("stop")?;
            let (done, _) = engine.wait_for("bestmove")?;
            stop.add(done.duration_since(asked).as_secs_f64() * 1e3);
        }
        eprint!("\r{}/{}", i + 1, n);
    }
    eprintln!();
    println!("{}", movetime.line("go movetime 450: overshoot"));
    println!("{}", bare.line("bare go (450 ms): overshoot"));
    println!("{}", ready.line("isready -> readyok during search"));
    println!("{}", stop.line("stop -> bestmove"));
    engine.send("quit")?;
    Ok(())
}
