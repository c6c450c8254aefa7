//! The game an engine page plays, kept in the store: the server reads the `position` lines the
//! page sends its session (every page sends its whole game with each one), and stores the game
//! they describe, so that a reloaded page, or one opened after a restart, goes on with it.
//!
//! The page learns its game's id from the line `info string game <id>`, sent when a game is
//! first stored (at its first move); opened as `/ws?game=<id>`, the socket goes on with that
//! game and says so with `info string game <id> <game> position <start> [moves ...]`. A new game
//! begins with another variant or start, with `usinewgame` followed by another position, and with
//! any change to a finished game, or to one opened for review (`/ws?review=<id>`): a game that
//! is over is never rewritten. Nor does one tab write over another's moves: a tab whose game
//! was changed elsewhere since it last wrote or read it goes on as a new game. A socket that
//! cannot go on with the game it names (none kept, a room's, one that does not replay) is told
//! why in one line and begins a new game.
//!
//! A position whose moves are a prefix of the kept game's changes nothing: the page is stepping
//! back through its game (its review board). A move played from there shortens the game to that
//! ply first (a takeback), or starts a copy when the game may not be changed.
//!
//! The page names the sides (`name <side> <text>`, [`super::names`]): the server takes these
//! lines itself, and keeps the names with the game (from its first move on, and not in a game
//! that may not be changed).
//!
//! The page's evaluation graph is kept with the game too (`graph <ply>:<score>[:<lead>] ...`,
//! numbers only, at most one point per move of the kept game, all or nothing), also for a game
//! that may not be changed otherwise (its analysis is kept as lichess keeps it); a socket that
//! opens a kept game is told its points with `info string graph ...`. A takeback drops the
//! points of the moves it replaces.
//!
//! A record the page uploads (`loadrecordtext`, or a game's older name of it) is read here
//! too, with the same reader as the session's, so that the page learns the game it holds:
//! `info string loaded <game> position <start> [moves ...]`, sent before the session's own answer
//! (nothing, or its one error line for a record that does not read; then this says nothing).

use super::limits::MAX_MESSAGE;
use super::names::{self, NameError, Names};
use super::played::{parse_start, rules_options, rules_text, Played};
use super::store::{Birth, Ending, Point, Store, StoreError, StoredGame};
use super::tab::Socket;
use crate::protocol::{parse_line, Command};
use crate::registry::Game;
use crate::session::options::Options;
use crate::session::variant::SessionError;
use crate::session::Registered;

/// The option that chooses the game.
const VARIANT: &str = "USI_Variant";
/// Lines of one message that may cost the tab a replay of its game or a write to the store
/// (`position`, `name`, `graph`, `loadrecordtext`) that it reads: a page sends one or two a
/// message. Those beyond go to the session but are not kept, so that a message's work here is
/// bounded in time as well as in size (the judgement of one long finished game alone can take
/// a fifth of a second).
pub const MESSAGE_WORK: usize = 8;
/// Largest score a graph point may hold (a mate is drawn as 30000).
pub const MAX_POINT_SCORE: i64 = 100_000;
/// Largest score lead (in points) a graph point may hold.
pub const MAX_POINT_LEAD: f64 = 1000.0;

/// Why the tab layer refuses a `name` or `graph` line (the line is then not kept at all).
#[derive(Debug, thiserror::Error)]
enum TabLineError {
    /// The side named is neither of the game's players.
    #[error("name <side> <text>: the side is {} or {}", .0[0], .0[1])]
    Side([&'static str; 2]),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error("the game is not saved: {0}")]
    NameUnsaved(StoreError),
    #[error("graph: no game is kept yet (its first move keeps it)")]
    NoGame,
    /// The game's length in plies.
    #[error("graph: more points than the game's {0} moves; none kept")]
    TooManyPoints(usize),
    /// The point's number (from 1) and the game's length.
    #[error(
        "graph: point {0} is not <ply>:<score>[:<lead>] with a ply from 1 to {1}, a whole score \
         of at most {MAX_POINT_SCORE} and a lead of at most {MAX_POINT_LEAD}; none kept"
    )]
    Point(usize, usize),
    #[error("graph: no points (graph <ply>:<score>[:<lead>] ...)")]
    NoPoints,
    #[error("the graph is not saved: {0}")]
    GraphUnsaved(StoreError),
}

/// Why a new socket cannot go on with the kept game it asked for (it begins a new one); the id
/// is the client's text, shown printable.
#[derive(Debug, thiserror::Error)]
enum KeptError {
    #[error("no game '{0}' is kept")]
    Missing(String),
    #[error("the game {0} cannot be read: {1}")]
    Unreadable(String, StoreError),
    #[error("the game {0} is played in a room (/play?room={0})")]
    Room(String),
    #[error("the game {0} is kept but does not replay")]
    NoReplay(String),
}

pub struct TabGame<'a> {
    store: &'a Store,
    socket: Socket,
    variant: Game,
    /// The session's options as the page set them: its game is played, and kept, under their
    /// rules.
    options: Options,
    id: String,
    /// The current game's start (`startpos`, `sfen ...`), once a position was sent.
    start: Option<String>,
    /// Its moves as stored.
    moves: Vec<String>,
    /// Whether the game is in the store (a game is stored at its first move).
    stored: bool,
    /// `usinewgame` was sent: a position other than the current one begins a new game.
    fresh: bool,
    /// The stored game may not be changed: it is over, or opened for review.
    frozen: bool,
    /// The sides' names as the page gave them, for the game it plays.
    names: Names,
    /// The game of the record the page uploaded last (its start, moves and players' names):
    /// when the page then plays it, it is kept with the record's names, not the page's.
    loaded: Option<(String, Vec<String>, Names)>,
}

impl<'a> TabGame<'a> {
    /// The game of a new socket: the stored engine game `game` (or a copy of `review`) when
    /// there is one, else a new one.
    pub fn open(
        store: &'a Store,
        socket: &Socket,
        game: Option<&str>,
        review: Option<&str>,
    ) -> TabGame<'a> {
        let mut tab = TabGame {
            store,
            socket: socket.clone(),
            variant: Options::default().variant,
            options: Options::default(),
            id: new_id(),
            start: None,
            moves: Vec::new(),
            stored: false,
            fresh: false,
            frozen: false,
            names: [None, None],
            loaded: None,
        };
        let wanted = game.or(review).unwrap_or_default();
        let resumed = if wanted.is_empty() {
            None
        } else {
            match find_kept(store, wanted, review.is_some()) {
                Ok(found) => Some(found),
                Err(why) => {
                    // The page still shows `?game=<id>` and would look like that game.
                    socket.error(&format!("{why}; this tab begins a new game"));
                    None
                }
            }
        };
        if let Some((g, variant, over)) = resumed {
            let moves = if g.moves.is_empty() {
                String::new()
            } else {
                format!(" moves {}", g.moves.join(" "))
            };
            tab.socket.send_line(&format!(
                "info string game {} {} position {}{moves}",
                g.id,
                variant.as_str(),
                g.start
            ));
            match store.points(&g.id) {
                Ok(points) if !points.is_empty() => {
                    let words: Vec<String> = points.iter().map(point_text).collect();
                    tab.socket
                        .send_line(&format!("info string graph {}", words.join(" ")));
                }
                Ok(_) => {}
                Err(e) => tab.socket.error(&format!("the graph cannot be read: {e}")),
            }
            tab.variant = variant;
            tab.names = store.names(&g.id).unwrap_or_default();
            tab.id = g.id;
            tab.start = Some(g.start);
            tab.moves = g.moves;
            tab.stored = true;
            tab.frozen = over || review.is_some();
        }
        tab
    }

    fn announce(&self) {
        self.socket
            .send_line(&format!("info string game {}", self.id));
    }

    /// Whether the server answers `line` itself (it never reaches the session): `name` and
    /// `graph`.
    pub fn takes(line: &str) -> bool {
        matches!(line.split_whitespace().next(), Some("name" | "graph"))
    }

    /// Reads the lines of one message the session accepted, and the server's own. Those that
    /// may cost a replay or a write ([`MESSAGE_WORK`]) are read up to a bound, and only while
    /// the client is there: this runs on its connection's thread, before its next message.
    pub fn observe(&mut self, text: &str) {
        let mut work = 0;
        let mut skipped = 0;
        for line in text.split('\n') {
            let line = line.trim_end_matches('\r');
            let command = if Self::takes(line) {
                None
            } else {
                match parse_line(line) {
                    Ok(Some(command)) => Some(command),
                    _ => continue,
                }
            };
            let costly = match &command {
                None => true,
                Some(Command::Position { .. }) => true,
                Some(Command::Extension { name, .. }) => loads_record_text(name),
                Some(_) => false,
            };
            if costly {
                if work == MESSAGE_WORK || !self.socket.is_open() {
                    skipped += 1;
                    continue;
                }
                work += 1;
            }
            match command {
                None => self.own_line(line.trim_start()),
                Some(command) => self.session_line(command),
            }
        }
        if skipped > 0 {
            self.socket.error(&format!(
                "a message keeps at most {MESSAGE_WORK} lines of position, name, graph or \
                 loadrecordtext; its last {skipped} were sent to the engine but not kept"
            ));
        }
    }

    /// `name` or `graph`, which the server answers itself.
    fn own_line(&mut self, line: &str) {
        let done = match line.strip_prefix("graph") {
            Some(points) => self.graph(points),
            None => self.name(line["name".len()..].trim_start()),
        };
        if let Err(why) = done {
            self.socket.error(&why.to_string());
        }
    }

    /// A line the session runs: what it changes of the tab's game.
    fn session_line(&mut self, command: Command) {
        match command {
            Command::SetOption {
                name,
                value: Some(value),
            } if name.eq_ignore_ascii_case(VARIANT) => {
                if let Some(variant) = Game::named(value.trim()) {
                    if variant != self.variant {
                        self.variant = variant;
                        self.start = None;
                    }
                }
            }
            // The session refuses the same values.
            Command::SetOption { name, value } => {
                let _ = self.options.set(&name, value.as_deref());
            }
            Command::UsiNewGame => self.fresh = true,
            Command::Position { start, moves } => {
                self.position(super::played::start_text(&start), moves)
            }
            // A game's older name of `loadrecordtext` is its own; another game refuses it,
            // and is told nothing here either.
            Command::Extension { name, args }
                if name == "loadrecordtext"
                    || self.variant.record_text_aliases().contains(&name.as_str()) =>
            {
                self.loaded(&args)
            }
            _ => {}
        }
    }

    /// The game the session plays, as the lines it accepted set it.
    pub fn variant(&self) -> Game {
        self.variant
    }

    /// `name <side> <text>`: the name of that side (`black`, `white` ...), none when the
    /// text is empty.
    fn name(&mut self, args: &str) -> Result<(), TabLineError> {
        let (side, text) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
        let players = self.variant.players();
        let seat = players
            .iter()
            .position(|p| *p == side)
            .ok_or(TabLineError::Side(players))?;
        let name = names::check(text)?;
        if self.stored && !self.frozen && self.names[seat] != name {
            self.store
                .set_name(&self.id, seat, name.as_deref(), Some(&self.moves))
                .map_err(TabLineError::NameUnsaved)?;
        }
        self.names[seat] = name;
        Ok(())
    }

    /// `graph <ply>:<score>[:<lead>] ...`: points of the kept game's evaluation graph, all
    /// kept or, with one error line, none.
    fn graph(&mut self, args: &str) -> Result<(), TabLineError> {
        if !self.stored {
            return Err(TabLineError::NoGame);
        }
        let plies = self.moves.len();
        let mut points = Vec::new();
        for (i, word) in args.split_whitespace().enumerate() {
            if i >= plies {
                return Err(TabLineError::TooManyPoints(plies));
            }
            let point = parse_point(word, plies).ok_or(TabLineError::Point(i + 1, plies))?;
            points.push(point);
        }
        if points.is_empty() {
            return Err(TabLineError::NoPoints);
        }
        // A finished game's graph is anyone's to open, so none may rewrite it: its points only
        // fill the plies it lacks (the first analysis kept stands).
        self.store
            .add_points(&self.id, &points, !self.frozen, Some(&self.moves))
            .map_err(TabLineError::GraphUnsaved)
    }

    /// Tells the page the game of the record it sent, when the record reads.
    fn loaded(&mut self, text: &str) {
        let read = crate::matches::record::game_with_passes(self.variant, text.trim());
        let Ok((opening, players)) = read else {
            return;
        };
        let start = opening
            .sfen
            .map_or_else(|| "startpos".to_string(), |s| format!("sfen {s}"));
        // A record's name that is no name here (too long, a line break) is left out.
        let names = players.map(|p| p.and_then(|p| names::check(&p).ok().flatten()));
        self.loaded = Some((start.clone(), opening.moves.clone(), names));
        let moves = if opening.moves.is_empty() {
            String::new()
        } else {
            format!(" moves {}", opening.moves.join(" "))
        };
        self.socket.send_line(&format!(
            "info string loaded {} position {start}{moves}",
            self.variant.as_str()
        ));
    }

    /// The game from `start` after `moves`, under the session's rules.
    fn played(&self, start: &str, moves: &[String]) -> Result<Played, SessionError> {
        let options = self.options.clone();
        Played::under(self.variant, options, parse_start(start), moves.to_vec())
    }

    fn position(&mut self, start: String, moves: Vec<String>) {
        let fresh = std::mem::take(&mut self.fresh);
        let changed = self.start.as_deref() != Some(start.as_str()) || moves != self.moves;
        let other_start = self.start.as_deref() != Some(start.as_str());
        let stepping_back = self.stored
            && !other_start
            && moves.len() < self.moves.len()
            && self.moves.starts_with(&moves);
        if stepping_back && !fresh {
            return;
        }
        // A copy of a game that may not change keeps the graph of the moves they share.
        let mut copy_points = None;
        if self.stored && (other_start || (changed && (fresh || self.frozen))) {
            // A position the session refuses (a bad pasted start) leaves the game as it is: the
            // page sends the game's own position again.
            if self.played(&start, &moves).is_err() {
                return;
            }
            if !other_start && !fresh {
                let same = self.moves.iter().zip(&moves).take_while(|(a, b)| a == b);
                copy_points = Some((self.id.clone(), same.count()));
            }
            self.id = new_id();
            self.moves.clear();
            self.stored = false;
            self.frozen = false;
        }
        self.start = Some(start.clone());
        if !changed && self.stored || moves.is_empty() && !self.stored {
            return;
        }
        // Only legal games are kept; the session answers an illegal one with its error.
        let Ok(mut played) = self.played(&start, &moves) else {
            return;
        };
        let (ending, settled) = ending_of(&mut played);
        let written = if self.stored {
            self.store.set_engine_moves(
                &self.id,
                &self.moves,
                &moves,
                ending.as_ref(),
                settled.as_deref(),
            )
        } else {
            Ok(false)
        };
        // Another tab on the same game changed it (or ended it) since this one last wrote or
        // read it: this tab's game goes on as a new game of its own, so that neither tab's
        // moves are mixed into the other's.
        let mut forked = None;
        let saved = match written {
            Ok(true) => Ok(()),
            Err(e) => Err(e),
            Ok(false) => {
                if self.stored {
                    forked = Some(std::mem::replace(&mut self.id, new_id()));
                    self.stored = false;
                }
                let ended = (ending.as_ref(), settled.as_deref());
                self.create(start, &moves, ended, copy_points)
            }
        };
        match saved {
            Ok(()) => {
                match forked {
                    Some(old) => self.socket.send_line(&format!(
                        "info string game {} (a new game: {old} was changed in another tab)",
                        self.id
                    )),
                    None if !self.stored => self.announce(),
                    None => {}
                }
                self.stored = true;
                self.moves = moves;
                self.frozen = ending.is_some();
            }
            Err(e) => self.socket.error(&format!("the game is not saved: {e}")),
        }
    }

    /// Keeps the tab's game as a new stored game (`self.id`): its moves, names, the graph
    /// points of `copy_points` (the game copied and the plies shared) and its end (`ended`:
    /// the result, its end agreement's text as judged), in one transaction.
    fn create(
        &mut self,
        start: String,
        moves: &[String],
        ended: (Option<&Ending>, Option<&str>),
        copy_points: Option<(String, usize)>,
    ) -> Result<(), StoreError> {
        // The game of an uploaded record keeps the names the record gives.
        let names = match self.loaded.take() {
            Some((s, m, names)) if s == start && m == moves => names,
            _ => self.names.clone(),
        };
        let game = StoredGame {
            id: self.id.clone(),
            kind: "engine".into(),
            game: self.variant.as_str().into(),
            start,
            seats: None,
            resigned: None,
            moves: moves.to_vec(),
            rules: rules_text(self.variant, &self.options),
        };
        let birth = Birth {
            names,
            clock: None,
            points_from: copy_points
                .as_ref()
                .map(|(from, plies)| (from.as_str(), *plies)),
            ending: ended.0,
            end: ended.1,
            rematch_of: None,
        };
        self.store.create(&game, &birth)
    }
}

/// The kept game `id` a new socket asked for, its variant and whether it is over; or why the
/// socket cannot go on with it.
fn find_kept(store: &Store, id: &str, review: bool) -> Result<(StoredGame, Game, bool), KeptError> {
    let shown = crate::text::printable(id);
    let g = match store.load(id) {
        Ok(Some(g)) => g,
        Ok(None) => return Err(KeptError::Missing(shown)),
        Err(e) => return Err(KeptError::Unreadable(shown, e)),
    };
    // Any kept game opens for review (a copy), a room's too; only an engine page's own game
    // goes on as itself.
    if g.kind != "engine" && !review {
        return Err(KeptError::Room(shown));
    }
    let replayed = Game::named(&g.game)
        .zip(rules_options(g.rules.as_deref()))
        .and_then(|(variant, rules)| {
            let played = Played::under(variant, rules, parse_start(&g.start), g.moves.clone());
            Some((variant, played.ok()?.ending().is_some()))
        });
    match replayed {
        Some((variant, over)) => Ok((g, variant, over)),
        None => Err(KeptError::NoReplay(shown)),
    }
}

/// A new game's id.
fn new_id() -> String {
    super::room::token()[..16].to_string()
}

/// How the game ended, if it did; a game whose end its players agree on is ended as its page
/// shows it, with the game's judgement taken as agreed (kept as its agreement's text), not by
/// the rules' own count.
fn ending_of(played: &mut Played) -> (Option<Ending>, Option<String>) {
    let Some(ending) = played.ending() else {
        return (None, None);
    };
    match super::end::settle(played) {
        Some((end, verdict)) => (Some(verdict), Some(end.text())),
        None => (Some(ending), None),
    }
}

/// `<ply>:<score>[:<lead>]`, within the bounds; None otherwise.
fn parse_point(word: &str, plies: usize) -> Option<Point> {
    let mut parts = word.split(':');
    let ply = parts
        .next()?
        .parse::<usize>()
        .ok()
        .filter(|p| (1..=plies).contains(p))?;
    let score = parts
        .next()?
        .parse::<i64>()
        .ok()
        .filter(|s| s.abs() <= MAX_POINT_SCORE)?;
    let lead = match parts.next() {
        None => None,
        Some(text) => Some(
            text.parse::<f64>()
                .ok()
                .filter(|l| l.is_finite() && l.abs() <= MAX_POINT_LEAD)?,
        ),
    };
    if parts.next().is_some() {
        return None;
    }
    Some(Point { ply, score, lead })
}

/// A point as `graph` takes it and `info string graph` gives it back.
fn point_text(p: &Point) -> String {
    match p.lead {
        Some(lead) => format!("{}:{}:{lead}", p.ply, p.score),
        None => format!("{}:{}", p.ply, p.score),
    }
}

/// Longest `position` line of a loaded record's game: the pages send a game's `position` twice
/// in one message at most (the review's graph and download: the ply evaluated, then the page's
/// own), with a few short lines, and a message holds [`MAX_MESSAGE`] bytes.
pub const MAX_LOADED_POSITION: usize = MAX_MESSAGE / 2 - 1024;

/// Whether `name` is `loadrecordtext`, or a game's older name of it.
fn loads_record_text(name: &str) -> bool {
    name == "loadrecordtext"
        || Game::ALL
            .iter()
            .any(|game| game.record_text_aliases().contains(&name))
}

/// Why a served session refuses `loadrecordtext` (or a game's older name of it) in `variant`,
/// before loading it: the page could not send its game back. A record that does not read is
/// the session's to refuse.
pub fn record_refusal(variant: Game, command: &Command) -> Option<String> {
    let Command::Extension { name, args } = command else {
        return None;
    };
    if !loads_record_text(name) {
        return None;
    }
    let opening = crate::matches::record::opening(variant, args.trim(), None).ok()?;
    let start = opening
        .sfen
        .as_ref()
        .map_or("startpos".len(), |s| "sfen ".len() + s.len());
    let moves: usize = opening.moves.iter().map(|m| 1 + m.len()).sum();
    let moves = if moves == 0 {
        0
    } else {
        " moves".len() + moves
    };
    let bytes = "position ".len() + start + moves;
    (bytes > MAX_LOADED_POSITION).then(|| {
        format!(
            "{name}: the record's game of {} moves is a position line of {bytes} bytes, and a \
             page sends it back at most {MAX_LOADED_POSITION} long; it is not loaded",
            opening.moves.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_read_back_as_written_and_stay_in_bounds() {
        for text in ["1:0", "3:-120", "2:40:-1.5", "3:100000:1000"] {
            let point = parse_point(text, 3).unwrap();
            assert_eq!(point_text(&point), text);
        }
        for bad in [
            "0:1", "4:1", "1", "1:", "1:1.5", "1:100001", "1:1:NaN", "1:1:inf", "1:1:1001",
            "1:1:1:1", "x:1", "1:-x", "",
        ] {
            assert_eq!(parse_point(bad, 3), None, "{bad}");
        }
    }
}
