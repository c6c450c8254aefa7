//! GTP engines in a match (GNU Go, GRhino, Edax, `ryoshi gtp`), driven as gogui-twogtp and
//! gomill drive them: `list_commands` once, then per game `boardsize`, `clear_board`, the
//! game's own settings (its [`MatchOption`]s' `gtp_command`) and `time_settings`, the moves as
//! `play <colour> <move>`, each move asked with `time_left` and `genmove <colour>`, and
//! `final_score` at the end as a check of the referee's score.
//!
//! Every command carries an id; an answer with another id (a late one, to a command that timed
//! out) or any line that is not an answer is skipped, as the GTP specification allows.
//!
//! [`MatchOption`]: crate::games::rules::MatchOption

use super::config::{Config, TimeControl};
use super::engine::{Engine, Failure};
use super::referee::Side;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The most lines one answer may have (`list_commands` of a big engine has a few hundred).
const MAX_ANSWER_LINES: usize = 4096;

/// An answer: `Ok` for `=`, `Err` for `?`, with the text after the id.
pub type Answer = Result<String, Refused>;

/// A `?` answer: the engine's text after the id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// A command an engine refused (`?`), and its answer: what a game's record quotes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{command}`: ? {answer}")]
pub struct Refusal {
    pub command: String,
    pub answer: Refused,
}

impl Engine {
    /// Starts a GTP engine and reads its `list_commands` (which decides whether the optional
    /// commands, `time_settings`, `time_left` and `final_score`, are sent).
    pub fn start_gtp(
        config: &Config,
        name: &str,
        stop: &AtomicBool,
        tap: Option<super::iolog::Tap>,
    ) -> Result<Engine, Failure> {
        let Some(engine_config) = config.engine(name) else {
            return Err(Failure::Crash(format!("no engine `{name}`")));
        };
        let mut engine = Engine::spawn(engine_config, &config.base_dir, tap)?;
        let deadline = Instant::now() + Duration::from_millis(config.play.timeout_ms);
        match engine.gtp("list_commands", deadline, stop)? {
            Ok(list) => {
                engine.declared = list.split_whitespace().map(str::to_string).collect();
                engine.genmove = engine_config.genmove.command();
                // `genmove` is required of every GTP engine; only another command is checked.
                if engine.genmove != "genmove" && !engine.knows(engine.genmove) {
                    return Err(Failure::Refused(format!(
                        "`{}` (its `genmove` setting) is not in its `list_commands`",
                        engine.genmove
                    )));
                }
                Ok(engine)
            }
            Err(why) => Err(Failure::Refused(format!("`list_commands`: ? {why}"))),
        }
    }

    /// Sends one command and waits for its answer until `deadline`.
    pub fn gtp(
        &mut self,
        command: &str,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> Result<Answer, Failure> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&format!("{id} {command}"))?;
        let word = command.split_whitespace().next().unwrap_or(command);
        let (ok, text) = loop {
            let line = self.recv(deadline, stop, word)?;
            if let Some((ok, text)) = answer_to(&line, id) {
                break (ok, text.to_string());
            }
        };
        let mut text = text;
        // The answer ends with an empty line; a multi-line answer continues until then.
        for _ in 0..MAX_ANSWER_LINES {
            let line = self.recv(deadline, stop, word)?;
            if line.trim().is_empty() {
                return Ok(if ok { Ok(text) } else { Err(Refused(text)) });
            }
            text.push('\n');
            text.push_str(line.trim_end());
        }
        Err(Failure::Crash(format!(
            "its answer to `{word}` has more than {MAX_ANSWER_LINES} lines"
        )))
    }

    /// Whether the engine listed `command` in `list_commands`.
    pub fn knows(&self, command: &str) -> bool {
        self.declared.iter().any(|c| c == command)
    }

    /// A command the engine must accept: `?` is a [`Failure::Refused`].
    fn must(&mut self, command: &str, deadline: Instant, stop: &AtomicBool) -> Result<(), Failure> {
        match self.gtp(command, deadline, stop)? {
            Ok(_) => Ok(()),
            Err(why) => Err(Failure::Refused(format!("`{command}`: ? {why}"))),
        }
    }

    /// Readies engine `name` for a new game: the board size (of a game that has several), an
    /// empty board, the game's own settings, the clock (unless it is `untimed`), then the moves
    /// that set up the start position and the opening's moves, `setup`.
    pub fn gtp_new_game(
        &mut self,
        config: &Config,
        name: &str,
        setup: &[(Side, String)],
        stop: &AtomicBool,
    ) -> Result<(), Failure> {
        let deadline = Instant::now() + Duration::from_millis(config.play.timeout_ms);
        if let Some(size) = config.board_size() {
            self.must(&format!("boardsize {size}"), deadline, stop)?;
        }
        self.must("clear_board", deadline, stop)?;
        for (option, value) in config.option_values().iter() {
            if let Some(command) = option.gtp_command {
                self.must(&format!("{command} {value}"), deadline, stop)?;
            }
        }
        let untimed = config.engine(name).is_some_and(|e| e.untimed);
        if let Some(settings) = time_settings(config.time_control()).filter(|_| !untimed) {
            if self.knows("time_settings") {
                self.must(&settings, deadline, stop)?;
            }
        }
        for (side, mv) in setup {
            self.must(&format!("play {} {mv}", colour(*side)), deadline, stop)?;
        }
        Ok(())
    }
}

/// `Some((ok, text))` when `line` answers command `id`.
fn answer_to(line: &str, id: u64) -> Option<(bool, &str)> {
    let ok = match line.as_bytes().first() {
        Some(b'=') => true,
        Some(b'?') => false,
        _ => return None,
    };
    let rest = &line[1..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if rest[..digits].parse::<u64>().ok() != Some(id) {
        return None;
    }
    Some((ok, rest[digits..].trim()))
}

/// GTP's colour of a side: the first player is black.
pub fn colour(side: Side) -> &'static str {
    match side {
        Side::First => "black",
        Side::Second => "white",
    }
}

/// Whole seconds, as GTP counts time: rounded down, but a time that is not zero stays at least
/// one second (GTP's 0 means "no limit" for byo-yomi).
fn seconds(ms: u64) -> u64 {
    if ms == 0 {
        0
    } else {
        (ms / 1000).max(1)
    }
}

/// The `time_settings` command for a time control: main time plus a byo-yomi of one move per
/// period (a time per move), absolute time for Fischer (then `time_left` carries the increments),
/// and nothing under a node limit (GTP has none: the engine's own settings decide, and
/// `timeout_ms` catches a hang).
pub fn time_settings(control: TimeControl) -> Option<String> {
    match control {
        TimeControl::Clock {
            main_ms,
            inc_ms: 0,
            byoyomi_ms,
        } => Some(format!(
            "time_settings {} {} {}",
            main_ms / 1000,
            seconds(byoyomi_ms),
            u64::from(byoyomi_ms > 0)
        )),
        TimeControl::Clock { main_ms, .. } => Some(format!("time_settings {} 0 0", main_ms / 1000)),
        TimeControl::MoveTime(ms) => Some(format!("time_settings 0 {} 1", seconds(ms))),
        TimeControl::Nodes(_) => None,
    }
}

/// The `time_left` command before `side` moves with `left_ms` of main time left.
pub fn time_left(control: TimeControl, side: Side, left_ms: u64) -> Option<String> {
    let (secs, moves) = match control {
        TimeControl::Clock { byoyomi_ms, .. } if left_ms == 0 && byoyomi_ms > 0 => {
            (seconds(byoyomi_ms), 1)
        }
        TimeControl::Clock { .. } => (left_ms / 1000, 0),
        TimeControl::MoveTime(ms) => (seconds(ms), 1),
        TimeControl::Nodes(_) => return None,
    };
    Some(format!("time_left {} {secs} {moves}", colour(side)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_matched_by_id() {
        assert_eq!(answer_to("=3 D4", 3), Some((true, "D4")));
        assert_eq!(answer_to("=3", 3), Some((true, "")));
        assert_eq!(
            answer_to("?12 illegal move", 12),
            Some((false, "illegal move"))
        );
        assert_eq!(answer_to("=2 D4", 3), None, "another command's answer");
        assert_eq!(answer_to("= D4", 3), None, "no id");
        assert_eq!(answer_to("D4", 3), None);
        assert_eq!(answer_to("", 3), None);
    }

    #[test]
    fn time_commands() {
        let byoyomi = TimeControl::Clock {
            main_ms: 60_500,
            inc_ms: 0,
            byoyomi_ms: 1000,
        };
        assert_eq!(time_settings(byoyomi).unwrap(), "time_settings 60 1 1");
        assert_eq!(
            time_left(byoyomi, Side::First, 12_900).unwrap(),
            "time_left black 12 0"
        );
        assert_eq!(
            time_left(byoyomi, Side::Second, 0).unwrap(),
            "time_left white 1 1"
        );
        let fischer = TimeControl::Clock {
            main_ms: 5000,
            inc_ms: 100,
            byoyomi_ms: 0,
        };
        assert_eq!(time_settings(fischer).unwrap(), "time_settings 5 0 0");
        assert_eq!(
            time_left(fischer, Side::First, 4100).unwrap(),
            "time_left black 4 0"
        );
        let sudden = TimeControl::Clock {
            main_ms: 30_000,
            inc_ms: 0,
            byoyomi_ms: 0,
        };
        assert_eq!(time_settings(sudden).unwrap(), "time_settings 30 0 0");
        let movetime = TimeControl::MoveTime(450);
        assert_eq!(time_settings(movetime).unwrap(), "time_settings 0 1 1");
        assert_eq!(
            time_left(movetime, Side::Second, 0).unwrap(),
            "time_left white 1 1"
        );
        assert_eq!(
            time_settings(TimeControl::MoveTime(2000)).unwrap(),
            "time_settings 0 2 1"
        );
        assert_eq!(time_settings(TimeControl::Nodes(100)), None);
        assert_eq!(time_left(TimeControl::Nodes(100), Side::First, 0), None);
    }
}
