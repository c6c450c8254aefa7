//! The line fuzzer (issue 70): seeded, stateful sessions of the three protocol loops through the
//! real binary, `ryoshi` (USI, all three games), `ryoshi gtp --movetime-ms 30 --tree-mb 16` and
//! `ryoshi nboard`. Each line is drawn from the protocol's grammar (every command, record
//! loading from files and from the line, size and game changes, searches left running while
//! the next lines arrive), and one line in six is then mutated (characters inserted, deleted or
//! replaced). The generator keeps what it knows of the engine's state (the game, the board
//! size, the moves the engine chose) so that most lines are meaningful where they land.
//!
//! What fails a run: a panic or any other exit than a clean one at the end; a hang (a sync
//! command, sent every few lines, not answered within 10 s: USI `isready` / `readyok`, a GTP
//! numbered command / its `=id` or `?id`, NBoard `ping n` / `pong n`); memory growth (the
//! process's peak resident size, VmHWM, more than [`GROWTH_KIB`] above its peak after the
//! first quarter of the lines, or over [`PEAK_KIB`] at all). A failure prints the seed, the
//! line and the lines sent before it, and keeps the whole session in a file to replay.
//!
//! CI runs 20,000 lines per protocol: on the shared 2-core machine, run alone, GTP took 127 s,
//! USI 116 s and NBoard 3 s. A longer run:
//!
//!     RYOSHI_LINE_FUZZ_LINES=500000 RYOSHI_LINE_FUZZ_SEED=7 \
//!         cargo test --release --test line_fuzz -- --nocapture
//!
//! `RYOSHI_LINE_FUZZ_BIN=<path>` fuzzes another build of ryoshi (an older commit, the `dist`
//! profile). See docs/testing-changes.md.

use ryoshi::rng::SplitMix64;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// A sync command must be answered within this.
const HANG: Duration = Duration::from_secs(10);
/// Peak resident size allowed to grow after the first quarter of a session.
const GROWTH_KIB: u64 = 256 << 10;
/// Peak resident size allowed at all.
const PEAK_KIB: u64 = 1 << 20;
/// Lines sent before a failure that its message shows.
const SHOWN: usize = 40;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Lines per session: `default` unless `RYOSHI_LINE_FUZZ_LINES` says.
fn lines_per_protocol(default: u64) -> usize {
    env_u64("RYOSHI_LINE_FUZZ_LINES", default) as usize
}

fn seed() -> u64 {
    env_u64("RYOSHI_LINE_FUZZ_SEED", 20_251_207)
}

fn binary() -> String {
    std::env::var("RYOSHI_LINE_FUZZ_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ryoshi").into())
}

struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.0.below((hi - lo + 1) as u64) as i64
    }
}

/// Characters a mutation inserts: separators, control characters, quotes, brackets and
/// non-ASCII, with some ordinary ones.
const NOISE: &[char] = &[
    ' ',
    '\t',
    '\r',
    '\x0b',
    '\0',
    '\x01',
    '\x7f',
    '#',
    '"',
    '\\',
    '[',
    ']',
    '(',
    ')',
    ';',
    '/',
    ',',
    ':',
    '-',
    '+',
    '.',
    '0',
    '1',
    '9',
    'a',
    'b',
    'w',
    'Z',
    'é',
    '\u{a0}',
    '\u{3000}',
    '\u{feff}',
    '\u{202e}',
    '\u{1F600}',
];

/// `line` with one to three characters inserted, deleted or replaced, or a word doubled or
/// dropped.
fn mutate(rng: &mut Rng, line: &str) -> String {
    let mut chars: Vec<char> = line.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(5) {
            0 | 1 => chars.insert(at, NOISE[rng.below(NOISE.len())]),
            2 if at < chars.len() => {
                chars.remove(at);
            }
            3 if at < chars.len() => chars[at] = NOISE[rng.below(NOISE.len())],
            _ => {
                let text: String = chars.iter().collect();
                let mut words: Vec<&str> = text.split(' ').collect();
                let w = rng.below(words.len());
                if rng.chance(2) {
                    words.insert(w, words[w]);
                } else if words.len() > 1 {
                    words.remove(w);
                }
                chars = words.join(" ").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

/// The words of a line as a loop reads them (control characters other than tab dropped, as
/// GTP does; tab a separator): a mutation must not make a `quit` that ends the run early.
fn quits(line: &str) -> bool {
    let clean: String = line
        .chars()
        .filter(|c| *c == '\t' || !c.is_control())
        .collect();
    let mut words = clean.split_whitespace();
    let first = words.next().unwrap_or("");
    let first = if first.bytes().all(|b| b.is_ascii_digit()) {
        words.next().unwrap_or("")
    } else {
        first
    };
    first.to_ascii_lowercase().contains("quit")
}

/// The files a session loads, written into its scratch directory (the engine runs there, so
/// that every path a line names, mutated or not, is relative to it).
struct Files {
    dir: PathBuf,
}

impl Files {
    fn new(protocol: &str, seed: u64) -> Files {
        let dir = std::env::temp_dir().join(format!(
            "ryoshi-line-fuzz-{protocol}-{seed}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Files { dir }
    }

    /// Writes `text` as `name`, and a truncated and a mutated copy (`t-name`, `m-name`).
    fn put(&self, rng: &mut Rng, name: &str, text: &str) {
        let write = |n: String, t: &str| std::fs::write(self.dir.join(n), t).expect("write");
        write(name.into(), text);
        let cut = text.char_indices().nth(rng.below(text.chars().count()));
        write(format!("t-{name}"), &text[..cut.map_or(0, |(i, _)| i)]);
        let mut mutated = text.to_string();
        for _ in 0..4 {
            mutated = mutate(rng, &mutated);
        }
        write(format!("m-{name}"), &mutated);
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Go records (name, board size, text).
const SGF: &[(&str, usize, &str)] = &[
    (
        "a.sgf",
        9,
        "(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[cc];B[gg];W[gc];B[cg])",
    ),
    (
        "h.sgf",
        13,
        "(;GM[1]SZ[13]HA[2]KM[0.5]AB[dd][jj]PL[W];W[gg];B[cc](;W[dc])(;W[kk]))",
    ),
    ("s.sgf", 5, "(;SZ[5]AB[aa:bb]AW[dd]PL[W];W[cc];B[];W[tt])"),
    ("k.sgf", 2, "(;SZ[2];B[aa];W[ba];B[bb];W[];B[])"),
    (
        "big.sgf",
        25,
        "(;SZ[25]RU[Chinese]PB[x]PW[y];B[yy];W[aa];B[ma];W[am];B[mm])",
    ),
    ("bad.sgf", 19, "(;SZ[19];B[pd];W[dp"),
];

const KIFU: &str =
    "[Game \"quantum shogi\"]\n[Sente \"a\"]\n[Gote \"b\"]\n\n1. 7g7f\n2. 3c3d\n3. 8h2b+\n";
const GGF: &str = "(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3//1.5]W[C5/-0.25/2.1]B[E6];)";
const GGF_FULL: &str =
    "(;GM[Othello]TY[8]BO[8 XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO *];)";

fn write_records(files: &Files, rng: &mut Rng) {
    for (name, _, text) in SGF {
        files.put(rng, name, text);
    }
    files.put(rng, "q.kifu", KIFU);
    files.put(rng, "o.ggf", GGF);
    files.put(rng, "f.ggf", GGF_FULL);
    files.put(rng, "o.txt", "f5d6c3d3c4f4");
}

/// A file to load: one of the records, its truncated or mutated copy, or none at all.
fn record_file(rng: &mut Rng, names: &[&str]) -> String {
    let name = rng.pick(names);
    match rng.below(6) {
        0 => format!("t-{name}"),
        1 => format!("m-{name}"),
        2 => "missing.sgf".into(),
        3 => ".".into(),
        _ => name.into(),
    }
}

/// One protocol's grammar, its sync command and what it learns from the output.
trait Grammar {
    /// The next line.
    fn line(&mut self, rng: &mut Rng) -> String;
    /// The `k`-th sync command, and the output line that answers it.
    fn sync(&mut self, k: usize) -> (String, String);
    /// Whether `output` (a line the engine wrote) answers the sync command `answer`.
    fn answers(&self, output: &str, answer: &str) -> bool {
        output == answer
    }
    /// Learns from a line the engine wrote.
    fn observe(&mut self, _line: &str) {}
    /// `line` was sent mutated: what it was to change is no longer known.
    fn mutated(&mut self, _line: &str) {}
    /// The lines that end the session (searches stopped first).
    fn end(&self) -> Vec<String>;
}

/// The engine, its output lines as they come, and its standard error.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: thread::JoinHandle<String>,
}

impl Process {
    fn start(args: &[&str], dir: &Path) -> Process {
        let mut child = Command::new(binary())
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ryoshi");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Ok(n) = reader.read_until(b'\n', &mut buf) {
                if n == 0 {
                    break;
                }
                let line = String::from_utf8_lossy(&buf)
                    .trim_end_matches('\n')
                    .to_string();
                buf.clear();
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().expect("stderr");
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        let stdin = child.stdin.take().expect("stdin");
        Process {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Peak resident size so far (KiB), from /proc.
    fn peak_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a session did, for the report.
#[derive(Debug)]
struct Summary {
    lines: usize,
    syncs: usize,
    peak_kib: u64,
}

/// Runs `lines` lines of `grammar` through `ryoshi <args>`; panics on a failure.
fn session(name: &str, args: &[&str], grammar: &mut dyn Grammar, lines: usize) -> Summary {
    let seed = seed();
    let mut rng = Rng(SplitMix64::new(seed ^ (name.len() as u64 * 0x9e37_79b9)));
    let files = Files::new(name, seed);
    write_records(&files, &mut rng);
    let mut engine = Process::start(args, &files.dir);
    let mut sent: Vec<String> = Vec::new();
    let mut recent: VecDeque<String> = VecDeque::new();
    let t0 = Instant::now();
    let fail = |sent: &[String], why: String| -> ! {
        let log = files.dir.with_extension("log");
        let _ = std::fs::write(&log, sent.join("\n") + "\n");
        let from = sent.len().saturating_sub(SHOWN);
        panic!(
            "{name} (seed {seed}, line {}): {why}\nwhole session kept in {}\nlast lines sent:\n{}",
            sent.len(),
            log.display(),
            sent[from..].join("\n")
        );
    };
    let mut syncs = 0;
    let mut quarter_peak = None;
    let mut peak = 0;
    let mut next_sync = 1 + rng.below(12);
    for i in 0..lines {
        let mut line = grammar.line(&mut rng);
        if rng.chance(6) {
            let mutated = mutate(&mut rng, &line);
            if !quits(&mutated) {
                grammar.mutated(&line);
                line = mutated;
            }
        }
        if writeln!(engine.stdin, "{line}").is_err() {
            sent.push(line);
            fail(&sent, "the engine stopped reading".into());
        }
        sent.push(line);
        next_sync -= 1;
        if next_sync > 0 && i + 1 < lines {
            continue;
        }
        next_sync = 1 + rng.below(12);
        let (command, answer) = grammar.sync(syncs);
        syncs += 1;
        let _ = writeln!(engine.stdin, "{command}");
        let _ = engine.stdin.flush();
        sent.push(command.clone());
        let deadline = Instant::now() + HANG;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match engine.lines.recv_timeout(left) {
                Ok(out) => {
                    grammar.observe(&out);
                    recent.push_back(out.clone());
                    if recent.len() > 8 {
                        recent.pop_front();
                    }
                    if grammar.answers(&out, &answer) {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => fail(
                    &sent,
                    format!("no '{answer}' within {HANG:?} (a hang); last output {recent:?}"),
                ),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = engine.child.wait().ok();
                    let err = std::mem::replace(&mut engine.stderr, thread::spawn(String::new));
                    let err = err.join().unwrap_or_default();
                    fail(&sent, format!("the engine ended ({status:?}):\n{err}"))
                }
            }
        }
        if let Some(kib) = engine.peak_kib() {
            peak = kib;
            if i >= lines / 4 && quarter_peak.is_none() {
                quarter_peak = Some(kib);
            }
            if kib > PEAK_KIB {
                fail(&sent, format!("peak memory {kib} KiB over {PEAK_KIB}"));
            }
            if quarter_peak.is_some_and(|q| kib > q + GROWTH_KIB) {
                fail(
                    &sent,
                    format!("peak memory grew from {quarter_peak:?} to {kib} KiB"),
                );
            }
        }
    }
    for line in grammar.end() {
        let _ = writeln!(engine.stdin, "{line}");
        sent.push(line);
    }
    let _ = engine.stdin.flush();
    let deadline = Instant::now() + HANG;
    let status = loop {
        while engine.lines.try_recv().is_ok() {}
        if let Ok(Some(status)) = engine.child.try_wait() {
            break status;
        }
        if Instant::now() > deadline {
            fail(&sent, format!("no exit within {HANG:?} of the end"));
        }
        thread::sleep(Duration::from_millis(10));
    };
    let err = std::mem::replace(&mut engine.stderr, thread::spawn(String::new));
    let err = err.join().unwrap_or_default();
    if !status.success() || err.contains("panicked") {
        fail(&sent, format!("exit {status:?}:\n{err}"));
    }
    eprintln!(
        "line fuzz {name}: {lines} lines, {syncs} syncs, peak {peak} KiB, {:.1} s (seed {seed})",
        t0.elapsed().as_secs_f64()
    );
    Summary {
        lines,
        syncs,
        peak_kib: peak,
    }
}

/// A GTP vertex on a board of about `size` (off it now and then), or a pass.
fn vertex(rng: &mut Rng, size: usize) -> String {
    if rng.chance(12) {
        return rng
            .pick(&["pass", "PASS", "A0", "Z26", "tt", "K10", "I5"])
            .into();
    }
    let size = (size + rng.below(3)).saturating_sub(1).clamp(1, 25);
    let col = b"ABCDEFGHJKLMNOPQRSTUVWXYZ"[rng.below(size)] as char;
    let col = if rng.chance(4) {
        col.to_ascii_lowercase()
    } else {
        col
    };
    format!("{col}{}", 1 + rng.below(size))
}

fn color(rng: &mut Rng) -> &'static str {
    rng.pick(&["b", "w", "B", "W", "black", "white"])
}

/// GTP: what it knows is the board size (None after a load it cannot predict).
struct Gtp {
    size: Option<usize>,
}

impl Grammar for Gtp {
    fn line(&mut self, rng: &mut Rng) -> String {
        let size = self.size.unwrap_or(9);
        let id = if rng.chance(3) {
            format!("{} ", rng.below(1000))
        } else {
            String::new()
        };
        let body = match rng.below(40) {
            0..=1 => {
                let n = match rng.below(8) {
                    0 => rng.range(-1, 30).to_string(),
                    1..=4 => rng.pick(&["2", "3", "5", "7", "9"]).to_string(),
                    _ => rng.pick(&["13", "19", "25"]).to_string(),
                };
                if let Ok(n) = n.parse::<usize>() {
                    if (2..=25).contains(&n) {
                        self.size = Some(n);
                    }
                }
                format!("boardsize {n}")
            }
            2 => "clear_board".into(),
            3 => format!(
                "komi {}",
                rng.pick(&["0", "6.5", "7.5", "-3", "0.5", "nan", "1e9"])
            ),
            4 => format!("fixed_handicap {}", rng.range(0, 10)),
            5 => format!("place_free_handicap {}", rng.range(0, 6)),
            6 => {
                let n = 1 + rng.below(4);
                let v: Vec<String> = (0..n).map(|_| vertex(rng, size)).collect();
                format!("set_free_handicap {}", v.join(" "))
            }
            7..=8 => "undo".into(),
            9..=10 => {
                let names: Vec<&str> = SGF.iter().map(|s| s.0).collect();
                let file = record_file(rng, &names);
                // A truncated or mutated copy may load, at any size; a failed load keeps the
                // board, whose size is then not known either.
                self.size = SGF
                    .iter()
                    .find(|s| s.0 == file && s.0 != "bad.sgf")
                    .map(|s| s.1);
                let n = if rng.chance(2) {
                    format!(" {}", rng.range(-1, 7))
                } else {
                    String::new()
                };
                format!("loadsgf {file}{n}")
            }
            11..=19 => format!("play {} {}", color(rng), vertex(rng, size)),
            20 => format!("genmove {}", color(rng)),
            21..=22 if self.size.is_some_and(|s| s <= 9) && rng.chance(2) => {
                format!("kgs-genmove_cleanup {}", color(rng))
            }
            23..=26 => {
                let command = rng.pick(&[
                    "lz-analyze",
                    "kata-analyze",
                    "analyze",
                    "genmove_analyze",
                    "lz-genmove_analyze",
                    "kata-genmove_analyze",
                ]);
                let mut args = String::new();
                if rng.chance(2) {
                    args += &format!(" {}", color(rng));
                }
                args += &format!(" {}", rng.range(1, 20));
                if rng.chance(3) {
                    args += " ownership true rootInfo true";
                }
                if rng.chance(4) {
                    args += &format!(
                        " {} {} {},{} {}",
                        rng.pick(&["avoid", "allow"]),
                        color(rng),
                        vertex(rng, size),
                        vertex(rng, size),
                        rng.range(0, 3)
                    );
                }
                format!("{command}{args}")
            }
            // The end-of-game judgement plays on for a while: on a small board only.
            27 if self.size.is_some_and(|s| s <= 9) => rng
                .pick(&[
                    "final_score",
                    "final_status_list dead",
                    "final_status_list alive",
                ])
                .into(),
            28 => format!("unconditional_status {}", vertex(rng, size)),
            29 => "showboard".into(),
            30 => rng.pick(&["printsgf", "printsgf out.sgf"]).into(),
            31 => rng
                .pick(&[
                    "time_settings 1 0 0",
                    "time_settings 0 0 0",
                    "kgs-time_settings absolute 1",
                    "kgs-time_settings none",
                    "time_left b 1 0",
                    "time_left w 0 0",
                ])
                .into(),
            32 => rng
                .pick(&[
                    "protocol_version",
                    "name",
                    "version",
                    "list_commands",
                    "known_command play",
                    "known_command nonsense",
                    "nonsense",
                ])
                .into(),
            _ => format!("play {} {}", color(rng), vertex(rng, size)),
        };
        format!("{id}{body}")
    }

    fn mutated(&mut self, line: &str) {
        if line.contains("boardsize") || line.contains("loadsgf") {
            self.size = None;
        }
    }

    fn sync(&mut self, k: usize) -> (String, String) {
        let id = 7_000_000 + k;
        (format!("{id} protocol_version"), format!("={id} 2"))
    }

    fn end(&self) -> Vec<String> {
        vec!["quit".into()]
    }
}

/// USI's game, as the generator believes it.
#[derive(Clone, Copy, PartialEq)]
enum Game {
    Quantum,
    Othello,
    Go,
}

/// USI: the game, the position's start and the moves played since (the engine's `bestmove`s).
struct Usi {
    game: Game,
    start: String,
    moves: Vec<String>,
}

impl Usi {
    /// A search. Go's are kept short: `go depth N` is N thousand playouts, and a 19x19 tree
    /// of 1 MiB searched by two threads runs a few hundred a second on a busy machine, while
    /// a record load queued behind the search holds the reader (and `isready`) until it ends.
    fn go(&self, rng: &mut Rng) -> String {
        let (depth, nodes) = match self.game {
            Game::Go => (1, 300),
            _ => (3, 3000),
        };
        match rng.below(9) {
            0..=2 => format!("go movetime {}", rng.range(1, 10)),
            3 => format!("go depth {}", rng.range(1, depth)),
            4 => format!("go nodes {}", rng.range(1, nodes)),
            5 => "go infinite".into(),
            6 => format!(
                "go btime {} wtime {} byoyomi {}",
                rng.range(0, 200),
                rng.range(0, 200),
                rng.range(0, 50)
            ),
            7 => format!("go ponder movetime {}", rng.range(1, 10)),
            _ => format!("go perft {}", rng.range(1, 2)),
        }
    }

    fn position(&self) -> String {
        if self.moves.is_empty() {
            format!("position {}", self.start)
        } else {
            format!("position {} moves {}", self.start, self.moves.join(" "))
        }
    }
}

impl Grammar for Usi {
    fn line(&mut self, rng: &mut Rng) -> String {
        match rng.below(30) {
            0 => {
                let (name, game) = match rng.below(3) {
                    0 => ("quantumshogi", Game::Quantum),
                    1 => ("othello", Game::Othello),
                    _ => ("go", Game::Go),
                };
                self.game = game;
                self.start = "startpos".into();
                self.moves.clear();
                format!("setoption name USI_Variant value {name}")
            }
            1 => rng
                .pick(&[
                    "setoption name USI_Hash value 4",
                    "setoption name USI_Hash value 16",
                    "setoption name Threads value 2",
                    "setoption name Threads value 1",
                    "setoption name MultiPV value 3",
                    "setoption name GoAnalysis value true",
                    "setoption name Level value 2",
                    "setoption name Komi value 0.5",
                    "usi",
                    "usinewgame",
                ])
                .into(),
            2..=5 => {
                // The position the engine's moves led to, or one back, or startpos.
                if rng.chance(4) && !self.moves.is_empty() {
                    self.moves.pop();
                }
                if rng.chance(8) {
                    self.start = "startpos".into();
                    self.moves.clear();
                }
                if self.game == Game::Go && rng.chance(6) {
                    let n = rng.pick(&["2", "3", "5", "9"]);
                    let size: usize = n.parse().unwrap_or(5);
                    let row = ".".repeat(size);
                    let rows = vec![row; size].join("/");
                    self.start = format!("sfen {n} {rows} {}", rng.pick(&["b", "w"]));
                    self.moves.clear();
                }
                self.position()
            }
            6..=9 => self.go(rng),
            12..=13 => "stop".into(),
            14 => rng
                .pick(&["ponderhit", "gameover win", "gameover draw"])
                .into(),
            15..=16 => rng.pick(&["d", "moves", "undo", "record"]).into(),
            17..=18 => {
                let names = match self.game {
                    Game::Quantum => vec!["q.kifu"],
                    Game::Othello => vec!["o.ggf", "f.ggf", "o.txt"],
                    Game::Go => SGF.iter().map(|s| s.0).collect(),
                };
                self.moves.clear();
                self.start = "startpos".into();
                format!("loadrecord {}", record_file(rng, &names))
            }
            19 => {
                self.moves.clear();
                let text = match self.game {
                    Game::Quantum => KIFU.replace('\n', " "),
                    Game::Othello => GGF.into(),
                    Game::Go => SGF[rng.below(SGF.len())].2.into(),
                };
                format!("loadrecordtext {text}")
            }
            20 => format!("go mate {}", rng.range(1, 50)),
            21..=22 => match self.game {
                Game::Quantum => rng.pick(&["defend", "undo", "d"]).into(),
                Game::Othello => rng
                    .pick(&["count", "flips d3", "flips f5", "hint 2", "solve", "undo"])
                    .into(),
                Game::Go => rng
                    .pick(&[
                        "benson",
                        "benson classic",
                        "score",
                        "undo",
                        "loadsgf a.sgf",
                        "loadsgftext (;SZ[3];B[bb])",
                    ])
                    .into(),
            },
            _ => self.position(),
        }
    }

    fn sync(&mut self, _k: usize) -> (String, String) {
        ("isready".into(), "readyok".into())
    }

    fn observe(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("bestmove ") {
            let mv = rest.split_whitespace().next().unwrap_or("");
            if !mv.is_empty()
                && !["resign", "win", "(none)"].contains(&mv)
                && self.moves.len() < 200
            {
                self.moves.push(mv.to_string());
            }
        }
    }

    fn end(&self) -> Vec<String> {
        vec!["stop".into(), "quit".into()]
    }
}

/// NBoard: the moves the engine chose since the last `set game`.
struct Nboard {
    moves: Vec<String>,
}

impl Grammar for Nboard {
    fn line(&mut self, rng: &mut Rng) -> String {
        let square = |rng: &mut Rng| {
            let file = (b'A' + rng.below(8) as u8) as char;
            format!("{file}{}", 1 + rng.below(8))
        };
        match rng.below(24) {
            0..=2 => {
                self.moves.clear();
                format!(
                    "set game {}",
                    rng.pick(&[GGF, GGF_FULL, "(;GM[Othello]TY[8];)", "(;GM[Othello]"])
                )
            }
            3 => format!("set depth {}", rng.range(0, 12)),
            4 => format!("set contempt {}", rng.range(-7000, 7000)),
            5..=8 => rng.pick(&["go", "hint 1", "hint 3", "analyze"]).into(),
            9..=12 => match self.moves.pop() {
                Some(m) if rng.chance(2) => format!("move {m}"),
                _ => format!("move {}", square(rng)),
            },
            13 => square(rng),
            14 => format!("move PA/{}/0.1", rng.range(-64, 64)),
            15 => rng.pick(&["record", "record game.ggf", "learn"]).into(),
            16 => format!("nboard {}", rng.range(0, 3)),
            17 => "set time 10".into(),
            _ => format!("move {}", square(rng)),
        }
    }

    fn sync(&mut self, k: usize) -> (String, String) {
        (format!("ping {k}"), format!("pong {k}"))
    }

    fn observe(&mut self, line: &str) {
        // `=== F5/...`: the move `go` would play.
        if let Some(rest) = line.strip_prefix("=== ") {
            let mv = rest.split('/').next().unwrap_or("").to_string();
            self.moves.push(mv);
        }
    }

    fn end(&self) -> Vec<String> {
        vec!["quit".into()]
    }
}

#[test]
fn line_fuzz_gtp() {
    let args = ["gtp", "--movetime-ms", "30", "--tree-mb", "16"];
    let s = session(
        "gtp",
        &args,
        &mut Gtp { size: Some(19) },
        lines_per_protocol(20_000),
    );
    assert!(s.syncs > s.lines / 20, "{} syncs", s.syncs);
    assert!(s.peak_kib > 0);
}

#[test]
fn line_fuzz_usi() {
    let mut usi = Usi {
        game: Game::Quantum,
        start: "startpos".into(),
        moves: Vec::new(),
    };
    let s = session("usi", &[], &mut usi, lines_per_protocol(20_000));
    assert!(s.syncs > s.lines / 20, "{} syncs", s.syncs);
}

#[test]
fn line_fuzz_nboard() {
    let mut nboard = Nboard { moves: Vec::new() };
    let s = session(
        "nboard",
        &["nboard"],
        &mut nboard,
        lines_per_protocol(20_000),
    );
    assert!(s.syncs > s.lines / 20, "{} syncs", s.syncs);
}

#[test]
fn a_sync_command_never_answered_fails_the_run() {
    // The harness itself: a session that cannot answer its sync command is a failure.
    struct Mute;
    impl Grammar for Mute {
        fn line(&mut self, _: &mut Rng) -> String {
            "name".into()
        }
        fn sync(&mut self, _: usize) -> (String, String) {
            ("1 name".into(), "=1 never".into())
        }
        fn end(&self) -> Vec<String> {
            vec!["quit".into()]
        }
    }
    let hung = std::panic::catch_unwind(|| session("mute", &["gtp"], &mut Mute, 3));
    let message = hung.expect_err("a sync never answered fails the run");
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(text.contains("a hang"), "{text}");
    // The session it kept for replay is this test's own: nothing to keep.
    if let Some(log) = text.split("whole session kept in ").nth(1) {
        let _ = std::fs::remove_file(log.lines().next().unwrap_or_default());
    }
    assert!(quits("3 qu\x01it") && quits("QUIT") && !quits("play b A1"));
}
