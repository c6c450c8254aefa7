//! GTP v2 for Go (`ryoshi gtp`): no banner; each command gets `=id result` or `?id error`
//! followed by an empty line. See protocol/gtp.md.

use crate::games::go::analysis::{extended, Analysis, Status};
use crate::games::go::notation::{format_move, format_rows, format_vertex, parse_vertex, LETTERS};
use crate::games::go::{policy, sgf, Board, Color, Game};
use crate::protocol::lines;
use crate::protocol::parse::sanitize_message;
use std::io::{BufRead, Write};

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
    "unconditional_status",
];

/// The GTP engine state: the game and the komi, and the last analysis (keyed by position).
pub struct Gtp {
    game: Game,
    komi: f64,
    cache: Option<(Board, Option<usize>, Analysis)>,
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

fn parse_color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err("invalid color".to_string()),
    }
}

impl Gtp {
    pub fn new() -> Gtp {
        Gtp {
            game: Game::empty(19).unwrap_or_else(|_| unreachable!("19 is a valid size")),
            komi: 0.0,
            cache: None,
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
            Err(text) => Reply {
                ok: false,
                text,
                quit: false,
            },
        };
        Some((id, reply))
    }

    fn execute(&mut self, command: &str, args: &[&str], quit: &mut bool) -> Result<String, String> {
        let want = |n: usize| -> Result<(), String> {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!("{command} expects {n} argument(s)"))
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
                let size: usize = args[0].parse().map_err(|_| "boardsize not an integer")?;
                self.game = Game::empty(size).map_err(|_| "unacceptable size".to_string())?;
                Ok(String::new())
            }
            "clear_board" => {
                want(0)?;
                self.game = Game::empty(self.game.board.size())?;
                Ok(String::new())
            }
            "komi" => {
                want(1)?;
                let k: f64 = args[0].parse().map_err(|_| "komi not a float")?;
                if !k.is_finite() {
                    return Err("komi not a float".into());
                }
                self.komi = k;
                Ok(String::new())
            }
            "play" => {
                want(2)?;
                let color = parse_color(args[0])?;
                let mv = parse_vertex(args[1], self.game.board.size())
                    .map_err(|_| "invalid coordinate".to_string())?;
                self.game
                    .play_as(color, mv)
                    .map_err(|_| "illegal move".to_string())?;
                Ok(String::new())
            }
            "genmove" => {
                want(1)?;
                let color = parse_color(args[0])?;
                let (mv, _) = policy::choose(&self.game, color, self.game.moves_played() as u64);
                self.game
                    .play_as(color, mv)
                    .map_err(|e| format!("internal error: chosen move illegal ({e})"))?;
                Ok(format_move(&self.game.board, mv))
            }
            "undo" => {
                want(0)?;
                if self.game.undo() {
                    Ok(String::new())
                } else {
                    Err("cannot undo".into())
                }
            }
            "showboard" => want(0).map(|_| self.showboard()),
            "loadsgf" => {
                if args.is_empty() || args.len() > 2 {
                    return Err("loadsgf expects a file name and an optional move number".into());
                }
                let text = sgf::read_file(args[0])
                    .map_err(|e| format!("cannot open or parse '{}': {e}", args[0]))?;
                let limit = match args.get(1) {
                    None => None,
                    Some(n) => Some(
                        n.parse::<usize>()
                            .map_err(|_| "move number not an integer")?,
                    ),
                };
                let game = sgf::load_until(&text, limit)
                    .map_err(|e| format!("cannot open or parse '{}': {e}", args[0]))?;
                self.game = game;
                Ok(match self.game.to_move {
                    Color::Black => "black".into(),
                    Color::White => "white".into(),
                })
            }
            "final_status_list" => {
                want(1)?;
                let wanted = args[0];
                if !["alive", "dead", "seki"].contains(&wanted) {
                    return Err("invalid status".into());
                }
                let board = self.game.board.clone();
                let analysis = self.analysis().clone();
                let points: Vec<String> = board
                    .points()
                    .filter(|&p| board.get(p) != crate::games::go::board::EMPTY)
                    .filter(|&p| match wanted {
                        "dead" => analysis.status[p] == Status::Dead,
                        "alive" => analysis.status[p] != Status::Dead,
                        _ => false,
                    })
                    .map(|p| format_vertex(&board, p))
                    .collect();
                Ok(points.join(" "))
            }
            "unconditional_status" => {
                want(1)?;
                let p = match parse_vertex(args[0], self.game.board.size()) {
                    Ok(Some(p)) => p,
                    _ => return Err("invalid coordinate".into()),
                };
                Ok(self.analysis().status[p].gtp_name().to_string())
            }
            _ => Err("unknown command".into()),
        }
    }

    fn showboard(&self) -> String {
        let board = &self.game.board;
        let size = board.size();
        let letters: String = LETTERS[..size]
            .iter()
            .map(|&l| format!(" {}", l as char))
            .collect();
        let mut out = vec![String::new(), format!("   {letters}")];
        for (row, text) in format_rows(board).split('/').enumerate() {
            let number = size - row;
            let cells: String = text.chars().map(|c| format!(" {c}")).collect();
            out.push(format!("{number:>2} {cells} {number}"));
        }
        out.push(format!("   {letters}"));
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
