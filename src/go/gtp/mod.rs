//! GTP v2 for Go (`ryoshi gtp`): no banner; each command gets `=id result` or `?id error`
//! followed by an empty line. See protocol/gtp.md.

pub mod analyze;
mod clock;

use crate::go::analysis::{extended, Analysis};
use crate::go::notation::{format_move, format_vertex, parse_vertex};
use crate::go::score::{self, Judgement, Life};
use crate::go::search::mcts::{Mcts, Settings, Snapshot};
use crate::go::search::player::{self, Choice};
use crate::go::search::{self as go_search, policy};
use crate::go::{handicap, sgf, Board, Color, HandicapError, Illegal, Position, SizeError};
use crate::protocol::driver::{self, Input};
use crate::protocol::lines;
use crate::search::{Control, Limits};
use crate::text::sanitize_message;
pub use analyze::Args;
use clock::{Clock, ClockError};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::time::Instant;

/// The komi until a `komi` command sets another: 7.5, as GNU Go, KataGo and most servers use
/// with area scoring.
pub const DEFAULT_KOMI: f64 = 7.5;
/// Kept back from a clock's time for the reply to reach the controller (and for its lag).
const CLOCK_OVERHEAD_MS: u64 = 100;

pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "loadsgf",
    "final_status_list",
    "final_score",
    "unconditional_status",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "time_settings",
    "kgs-time_settings",
    "time_left",
    "kgs-genmove_cleanup",
    "analyze",
    "lz-analyze",
    "kata-analyze",
    "genmove_analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
];

/// The GTP engine state: the game, the komi, the clock, and the last analysis and end-of-game
/// judgement (keyed by position).
pub struct Gtp {
    game: Position,
    komi: f64,
    clock: Clock,
    cache: Option<(Board, Option<usize>, Analysis)>,
    judged: Option<(Board, Color, Option<usize>, Judgement)>,
    /// Handicap stones placed by a handicap command: (moves in the record just after them,
    /// count). White gets a point per stone at the count, as under Chinese rules.
    handicap: Option<(usize, usize)>,
    args: Args,
    /// The search, allocated at the first command that needs it.
    engine: Option<Mcts>,
    /// The last search's position (with the side that moved first) and its result.
    last: Option<(Position, Snapshot)>,
}

impl Default for Gtp {
    fn default() -> Self {
        Self::new()
    }
}

/// What a command produced: the reply text, success or failure, and whether to stop.
pub struct Reply {
    pub ok: bool,
    pub text: String,
    pub quit: bool,
    /// An analysis to stream after the `=` (the text is then empty).
    pub stream: Option<analyze::Request>,
}

/// Why a command failed: its Display is the text after `? ` (GTP 2's standard messages where
/// the standard has one).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Failure {
    #[error("{command} expects {count} argument(s)")]
    Arguments { command: String, count: usize },
    #[error("unknown command")]
    UnknownCommand,
    #[error("invalid color")]
    InvalidColor,
    #[error("invalid coordinate")]
    InvalidCoordinate,
    #[error("illegal move")]
    IllegalMove,
    #[error("board not empty")]
    BoardNotEmpty,
    #[error("invalid number of stones")]
    InvalidStones,
    #[error("bad vertex list")]
    BadVertexList,
    #[error("cannot undo")]
    CannotUndo,
    #[error("invalid status")]
    InvalidStatus,
    /// `what` (boardsize, handicap, move number) is not an integer.
    #[error("{0} not an integer")]
    NotInteger(&'static str),
    #[error("unacceptable size")]
    UnacceptableSize,
    #[error("komi not a float")]
    KomiNotFloat,
    #[error("loadsgf expects a file name and an optional move number")]
    LoadsgfArguments,
    /// `loadsgf`: the file cannot be read or is not a game.
    #[error("cannot open or parse '{path}': {why}")]
    CannotLoad { path: String, why: String },
    #[error(transparent)]
    Clock(#[from] ClockError),
    #[error(transparent)]
    Handicap(#[from] HandicapError),
    #[error(transparent)]
    Size(#[from] SizeError),
    /// The move chooser picked a move the rules refuse (a bug).
    #[error("internal error: chosen move illegal ({0})")]
    ChosenIllegal(Illegal),
    #[error(
        "expected [color] [interval] [interval <cs>] [ownership true|false] \
         [minmoves <n>] [maxmoves <n>]"
    )]
    AnalyzeArguments,
    /// The search tree could not be allocated.
    #[error("{0}")]
    Memory(String),
}

fn parse_color(text: &str) -> Result<Color, Failure> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(Failure::InvalidColor),
    }
}

impl Gtp {
    pub fn new() -> Gtp {
        Self::with_args(Args::default())
    }

    /// An engine with the command line's settings.
    pub fn with_args(args: Args) -> Gtp {
        Gtp {
            args,
            engine: None,
            last: None,
            game: Position::empty(19).unwrap_or_else(|_| unreachable!("19 is a valid size")),
            komi: DEFAULT_KOMI,
            clock: Clock::default(),
            cache: None,
            judged: None,
            handicap: None,
        }
    }

    pub fn game(&self) -> &Position {
        &self.game
    }

    fn analysis(&mut self) -> &Analysis {
        let key_ok =
            matches!(&self.cache, Some((b, ko, _)) if *b == self.game.board && *ko == self.game.ko);
        if !key_ok {
            let a = extended(&self.game.board, self.game.ko);
            self.cache = Some((self.game.board.clone(), self.game.ko, a));
        }
        match &self.cache {
            Some((_, _, a)) => a,
            None => unreachable!("just filled"),
        }
    }

    /// The handicap stones on the record.
    fn handicap_compensation(&self) -> usize {
        self.handicap.map_or(0, |(_, n)| n)
    }

    /// The end-of-game judgement of the current position (see [`score::judge`]).
    fn judgement(&mut self) -> &Judgement {
        let g = &self.game;
        let key_ok = matches!(&self.judged,
            Some((b, c, ko, _)) if *b == g.board && *c == g.to_move && *ko == g.ko);
        if !key_ok {
            let ownership = self.ownership();
            let g = &self.game;
            let komi = self.settings(g, None).komi;
            let j = player::judge_game(g, komi, &ownership);
            self.judged = Some((g.board.clone(), g.to_move, g.ko, j));
        }
        match &self.judged {
            Some((_, _, _, j)) => j,
            None => unreachable!("just filled"),
        }
    }

    /// The search, allocated on first use (`--tree-mb`).
    fn engine(&mut self) -> Result<&Mcts, Failure> {
        if self.engine.is_none() {
            let bytes = (self.args.tree_mb as usize).saturating_mul(1 << 20);
            let mcts = Mcts::new(bytes).map_err(|e| Failure::Memory(e.to_string()))?;
            self.engine = Some(mcts);
        }
        match &self.engine {
            Some(e) => Ok(e),
            None => unreachable!("just allocated"),
        }
    }

    /// The game with `color` to move (a move out of turn, as `play` allows, lifts the ko ban).
    fn game_for(&self, color: Color) -> Position {
        let mut game = self.game.clone();
        if color != game.to_move {
            game.to_move = color;
            game.ko = None;
        }
        game
    }

    fn settings(&self, game: &Position, report_ms: Option<u64>) -> Settings {
        let komi = self.komi + self.handicap_compensation() as f64;
        Settings {
            passes: if game.to_move == self.game.to_move {
                self.game.passes()
            } else {
                0
            },
            report_ms,
            ..Settings::new(komi, self.args.threads as usize, self.args.seed)
        }
    }

    /// The limits of a move for `color`, and the time kept back for the reply to reach the
    /// controller: the clock's (planned by the time manager as every search's are), or
    /// without one the playout limit or the default move time.
    fn limits(&self, color: Color) -> (Limits, u64) {
        let playouts = self.args.playouts;
        match self
            .clock
            .limits(color, go_search::moves_to_go(&self.game.board))
        {
            Some(clock) => (
                Limits {
                    nodes: playouts,
                    ..clock
                },
                CLOCK_OVERHEAD_MS,
            ),
            None => (
                Limits {
                    movetime: playouts.is_none().then_some(self.args.movetime_ms.max(1)),
                    nodes: playouts,
                    ..Limits::default()
                },
                0,
            ),
        }
    }

    /// Searches the position for `color` under `control`; reports go to `report`.
    fn search(
        &mut self,
        color: Color,
        control: &Control,
        report_ms: Option<u64>,
        report: &mut dyn FnMut(&Snapshot),
    ) -> Result<(Position, Snapshot), Failure> {
        let game = self.game_for(color);
        let settings = self.settings(&game, report_ms);
        let snap = self.engine()?.search(&game, &settings, control, report);
        self.last = Some((game.clone(), snap.clone()));
        Ok((game, snap))
    }

    /// The ownership of the current position (side to move's view): the last search's when it
    /// was of this position, otherwise a short seeded search's.
    fn ownership(&mut self) -> Vec<f64> {
        let g = &self.game;
        if let Some((game, snap)) = &self.last {
            if game.board == g.board && game.to_move == g.to_move && snap.playouts >= 500 {
                return snap.ownership.clone();
            }
        }
        let komi = self.settings(g, None).komi;
        player::fresh_ownership(g, komi)
    }

    /// `genmove` and `kgs-genmove_cleanup`: searches within the clock's budget, plays and
    /// charges the time to `color`.
    fn generate(&mut self, color: Color, cleanup: bool) -> Result<String, Failure> {
        self.generate_reporting(color, cleanup, None, &mut |_| {})
    }

    fn generate_reporting(
        &mut self,
        color: Color,
        cleanup: bool,
        report_ms: Option<u64>,
        report: &mut dyn FnMut(&Snapshot),
    ) -> Result<String, Failure> {
        let start = Instant::now();
        let (limits, overhead_ms) = self.limits(color);
        let control = Control::new(limits, overhead_ms);
        let capture = if cleanup {
            let ko = if color == self.game.to_move {
                self.game.ko
            } else {
                None
            };
            let mut keep_going = || !control.soft_expired();
            let j = score::judge(&self.game.board, color, ko, &mut keep_going);
            score::capture_dead(&self.game.board, ko, color, &j)
        } else {
            None
        };
        let choice = match capture {
            Some(p) => Choice::Play(p),
            None => {
                let (game, snap) = self.search(color, &control, report_ms, report)?;
                // A streamed search ends with its final state, however short it was.
                if report_ms.is_some() {
                    report(&snap);
                }
                let komi = self.komi + self.handicap_compensation() as f64;
                let passes = self.settings(&game, None).passes;
                // The cleanup phase plays on to the end: no resigning.
                let may_resign = !self.args.no_resign && !cleanup;
                player::decide(&game, komi, passes, &snap, may_resign)
            }
        };
        let mv = match choice {
            Choice::Resign => {
                self.clock.charge(color, start.elapsed().as_secs_f64());
                return Ok("resign".into());
            }
            Choice::Pass => None,
            Choice::Play(p) => Some(p),
        };
        self.game
            .play_as(color, mv)
            .map_err(Failure::ChosenIllegal)?;
        self.clock.charge(color, start.elapsed().as_secs_f64());
        Ok(format_move(&self.game.board, mv))
    }

    /// Parses a handicap count for `fixed_handicap` / `place_free_handicap` on an empty board.
    fn handicap_count(&self, arg: &str) -> Result<usize, Failure> {
        let n: usize = arg.parse().map_err(|_| Failure::NotInteger("handicap"))?;
        if !self.game.board.is_empty() {
            return Err(Failure::BoardNotEmpty);
        }
        let size = self.game.board.size();
        if n < 2 || n >= size * size {
            return Err(Failure::InvalidStones);
        }
        Ok(n)
    }

    /// Places handicap stones and replies with their vertices.
    fn put_handicap(&mut self, points: &[usize]) -> Result<String, Failure> {
        self.game.place_handicap(points)?;
        self.handicap = Some((self.game.moves_played(), points.len()));
        let board = &self.game.board;
        Ok(points
            .iter()
            .map(|&p| format_vertex(board, p))
            .collect::<Vec<_>>()
            .join(" "))
    }

    /// The engine's choice of `n` free handicap stones: the fixed placement as far as it goes,
    /// then the move chooser's black moves; fewer when it finds nothing more worth placing.
    fn free_handicap(&self, n: usize) -> Vec<usize> {
        let fixed = n.min(handicap::max_fixed(self.game.board.size()));
        let mut points = handicap::fixed_points(&self.game.board, fixed).unwrap_or_default();
        let mut game = self.game.clone();
        for &p in &points {
            game.board.set(p, Color::Black.cell());
        }
        while points.len() < n {
            let (Some(p), _) = policy::choose(&game, Color::Black, points.len() as u64) else {
                break;
            };
            if game.play_as(Color::Black, Some(p)).is_err() {
                break;
            }
            points.push(p);
        }
        points.sort_unstable();
        points
    }

    /// Runs one command line (already stripped of comments); `None` for a blank line.
    /// The id is echoed exactly as given (any number of digits).
    pub fn handle(&mut self, line: &str) -> Option<(Option<String>, Reply)> {
        let mut tokens = line.split_whitespace().peekable();
        let first = *tokens.peek()?;
        let id = if first.bytes().all(|b| b.is_ascii_digit()) {
            tokens.next();
            Some(first.to_string())
        } else {
            None
        };
        let Some(command) = tokens.next() else {
            return Some((
                id,
                Reply {
                    ok: false,
                    text: "missing command".into(),
                    quit: false,
                    stream: None,
                },
            ));
        };
        let args: Vec<&str> = tokens.collect();
        let mut quit = false;
        if let Some((format, genmove)) = analyze::command(command) {
            let reply = match analyze::parse(format, genmove, &args, self.game.to_move) {
                Ok(request) => Reply {
                    ok: true,
                    text: String::new(),
                    quit: false,
                    stream: Some(request),
                },
                Err(failure) => Reply {
                    ok: false,
                    text: failure.to_string(),
                    quit: false,
                    stream: None,
                },
            };
            return Some((id, reply));
        }
        let result = self.execute(command, &args, &mut quit);
        let reply = match result {
            Ok(text) => Reply {
                ok: true,
                text,
                quit,
                stream: None,
            },
            Err(failure) => Reply {
                ok: false,
                text: failure.to_string(),
                quit: false,
                stream: None,
            },
        };
        Some((id, reply))
    }

    fn execute(
        &mut self,
        command: &str,
        args: &[&str],
        quit: &mut bool,
    ) -> Result<String, Failure> {
        let want = |n: usize| -> Result<(), Failure> {
            if args.len() == n {
                Ok(())
            } else {
                Err(Failure::Arguments {
                    command: command.into(),
                    count: n,
                })
            }
        };
        match command {
            "protocol_version" => want(0).map(|_| "2".into()),
            "name" => want(0).map(|_| "ryoshi".into()),
            "version" => want(0).map(|_| env!("CARGO_PKG_VERSION").into()),
            "known_command" => {
                want(1)?;
                Ok(COMMANDS.contains(&args[0]).to_string())
            }
            "list_commands" => want(0).map(|_| COMMANDS.join("\n")),
            "quit" => {
                *quit = true;
                Ok(String::new())
            }
            "boardsize" => {
                want(1)?;
                let size: usize = args[0]
                    .parse()
                    .map_err(|_| Failure::NotInteger("boardsize"))?;
                self.game = Position::empty(size).map_err(|_| Failure::UnacceptableSize)?;
                self.handicap = None;
                Ok(String::new())
            }
            "clear_board" => {
                want(0)?;
                self.game = Position::empty(self.game.board.size())?;
                self.handicap = None;
                Ok(String::new())
            }
            "komi" => {
                want(1)?;
                let k: f64 = args[0].parse().map_err(|_| Failure::KomiNotFloat)?;
                if !k.is_finite() {
                    return Err(Failure::KomiNotFloat);
                }
                self.komi = k;
                Ok(String::new())
            }
            "play" => {
                want(2)?;
                let color = parse_color(args[0])?;
                let mv = parse_vertex(args[1], self.game.board.size())
                    .map_err(|_| Failure::InvalidCoordinate)?;
                self.game
                    .play_as(color, mv)
                    .map_err(|_| Failure::IllegalMove)?;
                Ok(String::new())
            }
            "genmove" | "kgs-genmove_cleanup" => {
                want(1)?;
                let color = parse_color(args[0])?;
                self.generate(color, command == "kgs-genmove_cleanup")
            }
            "fixed_handicap" => {
                want(1)?;
                let n = self.handicap_count(args[0])?;
                let points =
                    handicap::fixed_points(&self.game.board, n).ok_or(Failure::InvalidStones)?;
                self.put_handicap(&points)
            }
            "place_free_handicap" => {
                want(1)?;
                let n = self.handicap_count(args[0])?;
                let points = self.free_handicap(n);
                if points.is_empty() {
                    return Err(Failure::InvalidStones);
                }
                self.put_handicap(&points)
            }
            "set_free_handicap" => {
                let size = self.game.board.size();
                if args.len() < 2 || args.len() >= size * size {
                    return Err(Failure::BadVertexList);
                }
                let mut points = Vec::with_capacity(args.len());
                for a in args {
                    match parse_vertex(a, size) {
                        Ok(Some(p)) if !points.contains(&p) => points.push(p),
                        _ => return Err(Failure::BadVertexList),
                    }
                }
                if !self.game.board.is_empty() {
                    return Err(Failure::BoardNotEmpty);
                }
                self.put_handicap(&points).map(|_| String::new())
            }
            "time_settings" => {
                self.clock = Clock::time_settings(args)?;
                Ok(String::new())
            }
            "kgs-time_settings" => {
                self.clock = Clock::kgs_time_settings(args)?;
                Ok(String::new())
            }
            "time_left" => {
                want(3)?;
                let color = parse_color(args[0])?;
                self.clock.time_left(color, args[1], args[2])?;
                Ok(String::new())
            }
            "final_score" => {
                want(0)?;
                let komi = self.komi + self.handicap_compensation() as f64;
                let board = self.game.board.clone();
                let j = self.judgement();
                Ok(score::format_score(score::area_score(&board, j, komi)))
            }
            "undo" => {
                want(0)?;
                if self.game.undo() {
                    if matches!(self.handicap, Some((at, _)) if self.game.moves_played() < at) {
                        self.handicap = None;
                    }
                    Ok(String::new())
                } else {
                    Err(Failure::CannotUndo)
                }
            }
            "showboard" => want(0).map(|_| self.showboard()),
            "loadsgf" => {
                if args.is_empty() || args.len() > 2 {
                    return Err(Failure::LoadsgfArguments);
                }
                let cannot = |why: String| Failure::CannotLoad {
                    path: args[0].into(),
                    why,
                };
                let text = sgf::read_file(args[0]).map_err(|e| cannot(e.to_string()))?;
                let limit = match args.get(1) {
                    None => None,
                    Some(n) => Some(
                        n.parse::<usize>()
                            .map_err(|_| Failure::NotInteger("move number"))?,
                    ),
                };
                let game = sgf::read_game(&text, limit).map_err(|e| cannot(e.to_string()))?;
                self.game = game;
                self.handicap = None;
                Ok(match self.game.to_move {
                    Color::Black => "black".into(),
                    Color::White => "white".into(),
                })
            }
            "final_status_list" => {
                want(1)?;
                let wanted = match args[0].to_ascii_lowercase().as_str() {
                    "alive" => Life::Alive,
                    "dead" => Life::Dead,
                    "seki" => Life::Seki,
                    _ => return Err(Failure::InvalidStatus),
                };
                let board = self.game.board.clone();
                let j = self.judgement();
                // One line per block, blocks and stones in scanning order, as GNU Go answers.
                let lines: Vec<String> = board
                    .blocks()
                    .into_iter()
                    .filter(|(_, stones, _)| j.life[stones[0]] == wanted)
                    .map(|(_, stones, _)| {
                        stones
                            .iter()
                            .map(|&p| format_vertex(&board, p))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                Ok(lines.join("\n"))
            }
            "unconditional_status" => {
                want(1)?;
                let p = match parse_vertex(args[0], self.game.board.size()) {
                    Ok(Some(p)) => p,
                    _ => return Err(Failure::InvalidCoordinate),
                };
                Ok(self.analysis().status[p].gtp_name().to_string())
            }
            _ => Err(Failure::UnknownCommand),
        }
    }

    fn showboard(&self) -> String {
        let mut out = vec![String::new()];
        out.extend(crate::go::notation::diagram(&self.game.board));
        out.push(format!(
            "{} to move, komi {}",
            match self.game.to_move {
                Color::Black => "black",
                Color::White => "white",
            },
            self.komi
        ));
        out.join("\n")
    }
}

/// Removes control characters other than tab/newline, turns tabs into spaces and drops
/// everything after a `#` (GTP's preprocessing).
fn preprocess(line: &str) -> String {
    let line = line.split('#').next().unwrap_or("");
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

fn write_text<W: Write>(output: &Mutex<W>, text: &str) -> Result<(), String> {
    let mut out = output.lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| format!("writing output: {e}"))
}

/// Runs the GTP loop until `quit` or the end of the input. Lines over
/// [`lines::MAX_LINE_BYTES`] fail with `? line longer than ...` and are not executed.
/// Input is read on its own thread, so that a running analysis stops when the next command
/// arrives.
pub fn run<R: BufRead + Send + 'static, W: Write + Send>(
    input: R,
    output: W,
) -> Result<(), String> {
    run_with(Args::default(), input, output)
}

/// [`run`] with the engine settings of the command line.
pub fn run_with<R: BufRead + Send + 'static, W: Write + Send>(
    args: Args,
    input: R,
    output: W,
) -> Result<(), String> {
    let mut gtp = Gtp::with_args(args);
    // A few lines of look-ahead: the reader waits when the engine is busy.
    let rx = driver::spawn_reader(input, 4);
    let output = Mutex::new(output);
    let mut pending: Option<Input> = None;
    loop {
        let msg = match pending.take() {
            Some(msg) => msg,
            None => rx.recv().unwrap_or(Input::Eof),
        };
        let (id, reply) = match msg {
            Input::Eof => break,
            Input::TooLong => (
                None,
                Reply {
                    ok: false,
                    text: lines::too_long_message(),
                    quit: false,
                    stream: None,
                },
            ),
            Input::Line(line) => {
                let Some(answer) = gtp.handle(&preprocess(&line)) else {
                    continue;
                };
                answer
            }
        };
        let id = id.unwrap_or_default();
        if let Some(request) = reply.stream {
            pending = gtp.stream(&id, &request, &output, &rx)?;
            continue;
        }
        let mark = if reply.ok { '=' } else { '?' };
        let body = if reply.ok {
            reply.text
        } else {
            sanitize_message(&reply.text)
        };
        let text = if body.is_empty() {
            format!("{mark}{id}\n\n")
        } else {
            format!("{mark}{id} {body}\n\n")
        };
        write_text(&output, &text)?;
        if reply.quit {
            break;
        }
    }
    Ok(())
}

impl Gtp {
    /// Streams an analysis: `=id`, then a line per report; `lz-analyze`/`kata-analyze` run until
    /// the next input line (returned, to be handled next), `genmove_analyze` until the move's
    /// time is up, then `play <move>`. An empty line ends the reply.
    fn stream<W: Write + Send>(
        &mut self,
        id: &str,
        request: &analyze::Request,
        output: &Mutex<W>,
        rx: &crossbeam_channel::Receiver<Input>,
    ) -> Result<Option<Input>, String> {
        if let Err(e) = self.engine() {
            let text = sanitize_message(&e.to_string());
            write_text(output, &format!("?{id} {text}\n\n"))?;
            return Ok(None);
        }
        write_text(output, &format!("={id}\n"))?;
        let board = self.game.board.clone();
        // A failed write shows again, and is returned, at the reply's last line.
        let mut report = |snap: &Snapshot| {
            let text = format!("{}\n", analyze::line(request, &board, snap));
            let _ = write_text(output, &text);
        };
        if request.genmove {
            let result = self.generate_reporting(
                request.color,
                false,
                Some(request.interval_ms),
                &mut report,
            );
            // The move is played unless the rules refuse it (a bug): then the reply says so.
            let end = match result {
                Ok(mv) => format!("play {mv}\n\n"),
                Err(e) => format!("{}\n\n", sanitize_message(&e.to_string())),
            };
            write_text(output, &end)?;
            return Ok(None);
        }
        let control = Control::new(
            Limits {
                infinite: true,
                ..Limits::default()
            },
            0,
        );
        let game = self.game_for(request.color);
        let settings = self.settings(&game, Some(request.interval_ms));
        let Some(engine) = &self.engine else {
            unreachable!("allocated above")
        };
        let (next, snap) = std::thread::scope(|scope| {
            let search = scope.spawn(|| engine.search(&game, &settings, &control, &mut report));
            let next = rx.recv().unwrap_or(Input::Eof);
            control.stop();
            (next, search.join())
        });
        if let Ok(snap) = snap {
            self.last = Some((game, snap));
        }
        write_text(output, "\n")?;
        Ok(Some(next))
    }
}
