//! GTP v2 for Go (`ryoshi gtp`): no banner; each command gets `=id result` or `?id error`
//! followed by an empty line. See protocol/gtp.md.

mod clock;

use crate::games::go::analysis::{extended, Analysis};
use crate::games::go::notation::{format_move, format_vertex, parse_vertex};
use crate::games::go::score::{self, Judgement, Life};
use crate::games::go::{handicap, sgf, Board, Color, Game, HandicapError, Illegal, SizeError};
use crate::protocol::lines;
use crate::text::sanitize_message;
use crate::search::go::policy;
use clock::{Clock, ClockError};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// The komi until a `komi` command sets another: 7.5, as GNU Go, KataGo and most servers use
/// with area scoring.
pub const DEFAULT_KOMI: f64 = 7.5;

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
];

/// The GTP engine state: the game, the komi, the clock, and the last analysis and end-of-game
/// judgement (keyed by position).
pub struct Gtp {
    game: Game,
    komi: f64,
    clock: Clock,
    cache: Option<(Board, Option<usize>, Analysis)>,
    judged: Option<(Board, Color, Option<usize>, Judgement)>,
    /// Handicap stones placed by a handicap command: (moves in the record just after them,
    /// count). White gets a point per stone at the count, as under Chinese rules.
    handicap: Option<(usize, usize)>,
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
}

/// Why a command failed: its Display is the text after `? ` (GTP 2's standard messages where
/// the standard has one).
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    Arguments {
        command: String,
        count: usize,
    },
    UnknownCommand,
    InvalidColor,
    InvalidCoordinate,
    IllegalMove,
    BoardNotEmpty,
    InvalidStones,
    BadVertexList,
    CannotUndo,
    InvalidStatus,
    /// `what` (boardsize, handicap, move number) is not an integer.
    NotInteger(&'static str),
    UnacceptableSize,
    KomiNotFloat,
    LoadsgfArguments,
    /// `loadsgf`: the file cannot be read or is not a game.
    CannotLoad {
        path: String,
        why: String,
    },
    Clock(ClockError),
    Handicap(HandicapError),
    Size(SizeError),
    /// The move chooser picked a move the rules refuse (a bug).
    ChosenIllegal(Illegal),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Failure::Arguments { command, count } => {
                write!(f, "{command} expects {count} argument(s)")
            }
            Failure::UnknownCommand => f.write_str("unknown command"),
            Failure::InvalidColor => f.write_str("invalid color"),
            Failure::InvalidCoordinate => f.write_str("invalid coordinate"),
            Failure::IllegalMove => f.write_str("illegal move"),
            Failure::BoardNotEmpty => f.write_str("board not empty"),
            Failure::InvalidStones => f.write_str("invalid number of stones"),
            Failure::BadVertexList => f.write_str("bad vertex list"),
            Failure::CannotUndo => f.write_str("cannot undo"),
            Failure::InvalidStatus => f.write_str("invalid status"),
            Failure::NotInteger(what) => write!(f, "{what} not an integer"),
            Failure::UnacceptableSize => f.write_str("unacceptable size"),
            Failure::KomiNotFloat => f.write_str("komi not a float"),
            Failure::LoadsgfArguments => {
                f.write_str("loadsgf expects a file name and an optional move number")
            }
            Failure::CannotLoad { path, why } => write!(f, "cannot open or parse '{path}': {why}"),
            Failure::Clock(e) => e.fmt(f),
            Failure::Handicap(e) => e.fmt(f),
            Failure::Size(e) => e.fmt(f),
            Failure::ChosenIllegal(e) => write!(f, "internal error: chosen move illegal ({e})"),
        }
    }
}

impl std::error::Error for Failure {}

impl From<ClockError> for Failure {
    fn from(e: ClockError) -> Self {
        Failure::Clock(e)
    }
}

impl From<HandicapError> for Failure {
    fn from(e: HandicapError) -> Self {
        Failure::Handicap(e)
    }
}

impl From<SizeError> for Failure {
    fn from(e: SizeError) -> Self {
        Failure::Size(e)
    }
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
        Gtp {
            game: Game::empty(19).unwrap_or_else(|_| unreachable!("19 is a valid size")),
            komi: DEFAULT_KOMI,
            clock: Clock::default(),
            cache: None,
            judged: None,
            handicap: None,
        }
    }

    pub fn game(&self) -> &Game {
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
            let j = score::judge(&g.board, g.to_move, g.ko, &mut || true);
            self.judged = Some((g.board.clone(), g.to_move, g.ko, j));
        }
        match &self.judged {
            Some((_, _, _, j)) => j,
            None => unreachable!("just filled"),
        }
    }

    /// `genmove` and `kgs-genmove_cleanup`: chooses within the clock's budget, plays and
    /// charges the time to `color`.
    fn generate(&mut self, color: Color, cleanup: bool) -> Result<String, Failure> {
        let start = Instant::now();
        let empty = self
            .game
            .board
            .points()
            .filter(|&p| self.game.board.get(p) == crate::games::go::board::EMPTY)
            .count();
        // A budget too large for a Duration or an Instant (`time_left b 1e300 0`) is no limit.
        let deadline = self
            .clock
            .budget(color, empty)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .and_then(|d| start.checked_add(d));
        let mut keep_going = || deadline.is_none_or(|d| Instant::now() < d);
        let seed = self.game.moves_played() as u64;
        let capture = if cleanup {
            let ko = if color == self.game.to_move {
                self.game.ko
            } else {
                None
            };
            let j = score::judge(&self.game.board, color, ko, &mut keep_going);
            score::capture_dead(&self.game.board, ko, color, &j)
        } else {
            None
        };
        let mv = match capture {
            Some(p) => Some(p),
            None => policy::choose_within(&self.game, color, seed, &mut keep_going).0,
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
                },
            ));
        };
        let args: Vec<&str> = tokens.collect();
        let mut quit = false;
        let result = self.execute(command, &args, &mut quit);
        let reply = match result {
            Ok(text) => Reply {
                ok: true,
                text,
                quit,
            },
            Err(failure) => Reply {
                ok: false,
                text: failure.to_string(),
                quit: false,
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
                self.game = Game::empty(size).map_err(|_| Failure::UnacceptableSize)?;
                self.handicap = None;
                Ok(String::new())
            }
            "clear_board" => {
                want(0)?;
                self.game = Game::empty(self.game.board.size())?;
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
        out.extend(crate::games::go::notation::diagram(&self.game.board));
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

/// Runs the GTP loop until `quit` or the end of the input. Lines over
/// [`lines::MAX_LINE_BYTES`] fail with `? line longer than ...` and are not executed.
pub fn run<R: BufRead, W: Write>(mut input: R, mut output: W) -> Result<(), String> {
    let mut gtp = Gtp::new();
    let mut buf = Vec::new();
    loop {
        let (id, reply) = match lines::read_line(&mut input, &mut buf, lines::MAX_LINE_BYTES) {
            lines::Read::Eof => break,
            lines::Read::TooLong => (
                None,
                Reply {
                    ok: false,
                    text: lines::too_long_message(),
                    quit: false,
                },
            ),
            lines::Read::Line => {
                let line = String::from_utf8_lossy(&buf);
                let Some(answer) = gtp.handle(&preprocess(&line)) else {
                    continue;
                };
                answer
            }
        };
        let id = id.unwrap_or_default();
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
        output
            .write_all(text.as_bytes())
            .and_then(|_| output.flush())
            .map_err(|e| format!("writing output: {e}"))?;
        if reply.quit {
            break;
        }
    }
    Ok(())
}
