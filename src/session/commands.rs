//! What each command does: the one dispatch from a parsed [`Command`] to the session, a game's
//! own commands, and the options.

use super::options::{self, Options};
use super::variant::SessionError;
use super::{new_variant, record, Registered, Session, ENGINE_AUTHOR, ENGINE_NAME};
use crate::protocol::driver::Flow;
use crate::protocol::{Args, Command};
use std::io::Write;

/// The error of a `go` (or `go mate`) after a refused `position`.
const NO_POSITION: &str =
    "go: no position, the last position was refused (send a position that is accepted)";

impl<W: Write> Session<W> {
    pub(super) fn execute(&mut self, command: Command) -> Flow {
        let result = match command {
            Command::Usi => {
                self.line(&format!("id name {ENGINE_NAME}"));
                self.line(&format!("id author {ENGINE_AUTHOR}"));
                for declaration in Options::declarations() {
                    self.line(&declaration);
                }
                self.line("usiok");
                Ok(())
            }
            Command::IsReady => {
                // The hash table is (re)allocated here, as Stockfish does, unless a search
                // holds it.
                if self.search.is_none() {
                    self.prepare();
                }
                self.line("readyok");
                Ok(())
            }
            Command::UsiNewGame => {
                self.game.new_game();
                Ok(())
            }
            Command::Quit => {
                self.quit();
                return Flow::Quit;
            }
            Command::Stop | Command::GameOver(_) => {
                self.stop_search();
                Ok(())
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves } => {
                let result = self.game.set_position(&start, &moves, &self.options);
                self.position_refused = result.is_err();
                result
            }
            // The client believes its position is set: searching the one before would answer
            // a question it did not ask.
            Command::Go(_) if self.position_refused => self.refuse_search("bestmove resign"),
            Command::Mate(_) if self.position_refused => self.refuse_search("checkmate nomate"),
            Command::Go(params) => {
                self.start_search(&params);
                Ok(())
            }
            Command::Mate(limit) => {
                self.start_mate(limit);
                Ok(())
            }
            Command::PonderHit(params) => {
                self.ponderhit(&params);
                Ok(())
            }
            Command::Perft(depth) => self.start_perft(depth),
            Command::Display => {
                for row in self.game.display() {
                    self.line(&row);
                }
                Ok(())
            }
            Command::Moves => {
                let moves = self.game.view(&self.options).legal_moves().join(" ");
                self.line(&moves);
                Ok(())
            }
            Command::Bench => {
                let mut lines = Vec::new();
                let result = self
                    .game
                    .bench(&self.options, &mut |l: &str| lines.push(l.to_string()));
                for l in lines {
                    self.line(&l);
                }
                result
            }
            Command::Extension { name, args } => self.extension(&name, &args),
        };
        if let Err(e) = result {
            self.error(&e.to_string());
        }
        Flow::Continue
    }

    /// A `go` after a refused `position`: one error line, then the line that ends the search.
    fn refuse_search(&mut self, answer: &str) -> Result<(), SessionError> {
        self.error(NO_POSITION);
        self.line(answer);
        Ok(())
    }

    /// A word the protocol does not know: a record command (every game's), the current
    /// game's own command, or refused as another game's or as unknown.
    pub(super) fn extension(&mut self, name: &str, args: &str) -> Result<(), SessionError> {
        let is_record = record::COMMANDS.contains(&name);
        if !is_record && !Registered::commands(self.options.variant).contains(&name) {
            let theirs = crate::registry::Game::ALL
                .iter()
                .flat_map(|&g| Registered::commands(g))
                .find(|&&c| c == name);
            return Err(match theirs {
                Some(command) => {
                    SessionError::not_available(command, self.options.variant.as_str())
                }
                None => SessionError::Parse(crate::protocol::args::unknown_command(name)),
            });
        }
        let Session {
            out,
            game,
            options,
            budget,
            ..
        } = self;
        let out = &mut |l: &str| {
            crate::logging::output(l);
            let _ = writeln!(out, "{l}");
            let _ = out.flush();
        };
        let args = Args::new(name, args);
        if is_record {
            let result = game.record_command(name, args, options, out);
            if name != "record" && result.is_ok() {
                self.position_refused = false;
            }
            result
        } else {
            game.extension(name, args, options, budget, out)
        }
    }

    pub(super) fn set_option(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<(), SessionError> {
        if name.eq_ignore_ascii_case(options::DEBUG_LOG) {
            // An action, not a stored value: a file that cannot be opened is one error line
            // (the log is left as it was) and the session goes on.
            let path = value.unwrap_or("");
            if let Err(e) = crate::logging::debug_to(path) {
                self.error(&format!(
                    "{}: cannot open '{}': {e}",
                    options::DEBUG_LOG,
                    crate::text::printable(path)
                ));
            }
            return Ok(());
        }
        let before = self.options.variant;
        self.options
            .set(name, value)
            .map_err(SessionError::Option)?;
        if self.options.variant != before {
            self.game = new_variant(self.options.variant);
            self.position_refused = false;
        }
        let Some(spec) = options::find(name) else {
            return Ok(());
        };
        if spec.reallocates() {
            self.prepare();
        }
        // Stored all the same (it acts once the game changes), but a GUI user should not
        // believe it changed this game's play.
        if !spec.acts_on(self.options.variant) {
            self.line(&format!(
                "info string {} has no effect on {}",
                spec.name(),
                self.options.variant.as_str()
            ));
        }
        Ok(())
    }

    /// Allocates the hash table the options ask for; one `info string` when it is smaller.
    pub(super) fn prepare(&mut self) {
        if let Some(note) = self.game.prepare(&self.options) {
            self.line(&format!("info string {note}"));
        }
    }
}
