//! Two people, one game: a room holds one game record, refereed here with the same rules code the
//! sessions use (`session::Variant`). Players hold seat tokens; anyone with the room id watches.
//! See protocol/serve.md for the lines exchanged.

use super::tab::Socket;
use crate::games::rules::Verdict;
use crate::protocol::StartSpec;
use crate::registry::Game;
use crate::session::new_variant;
use crate::session::options::Options;
use crate::session::variant::{SessionError, Variant};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// Rooms kept at once. When full, a room nobody is connected to is dropped to make room: first
/// one where no move was ever played, else one untouched for [`ROOM_IDLE`]; a game with a
/// player connected, or played recently, is never dropped for a new one.
pub const MAX_ROOMS: usize = 64;
/// How long a game nobody is connected to is kept for its players' return, at least.
pub const ROOM_IDLE: std::time::Duration = std::time::Duration::from_secs(30 * 60);
/// Connections (players and spectators) per room.
pub const MAX_WATCHERS: usize = 16;

static ROOMS: Lazy<Mutex<HashMap<String, Room>>> = Lazy::new(|| Mutex::new(HashMap::new()));

pub fn count() -> usize {
    ROOMS.lock().len()
}

/// An unguessable token: 128 bits from the standard library's randomly keyed hasher.
fn token() -> String {
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// Why a room refuses a request (sent to the connection as `error <text>`).
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// The position or the move, refused by the game's rules.
    #[error(transparent)]
    Game(SessionError),
    #[error("a spectator cannot move")]
    Spectator,
    /// The game is over, and why.
    #[error("the game is over: {0}")]
    Over(String),
    /// It is the player `name`'s turn.
    #[error("it is {0}'s turn")]
    NotYourTurn(&'static str),
    #[error("too many games are open (at most {MAX_ROOMS})")]
    TooManyRooms,
    #[error("no such game")]
    NoSuchGame,
    #[error("this seat token does not belong to the game")]
    WrongToken,
    #[error("this game has {MAX_WATCHERS} connections already")]
    TooManyWatchers,
    /// Not `move <move>` or `resign` (the text as sent).
    #[error(
        "unknown room command '{}' (expected: move <move> or resign)",
        crate::text::printable(.0)
    )]
    UnknownCommand(String),
}

crate::games::error_text!(derived: RoomError);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Seat {
    First,
    Second,
    Spectator,
}

struct Room {
    variant: Game,
    options: Options,
    start: StartSpec,
    moves: Vec<String>,
    game: Box<dyn Variant>,
    seats: [String; 2],
    watchers: Vec<(u64, Seat, Socket)>,
    /// What happened at the last move that a person should be told (a pass).
    note: Option<String>,
    /// The last join, leave or move.
    active: std::time::Instant,
    /// The seat (0 or 1) that resigned.
    resigned: Option<usize>,
}

impl Room {
    fn new(variant: Game, start: Option<Vec<String>>) -> Result<Room, RoomError> {
        let mut options = Options::default();
        options.variant = variant;
        let mut game = new_variant(variant);
        let start = start
            .map(StartSpec::Sfen)
            .unwrap_or_else(|| game.casual_start());
        game.set_position(&start, &[], &options)
            .map_err(RoomError::Game)?;
        Ok(Room {
            variant,
            options,
            start,
            moves: Vec::new(),
            game,
            seats: [token(), token()],
            watchers: Vec::new(),
            note: None,
            active: std::time::Instant::now(),
            resigned: None,
        })
    }

    fn turn(&self) -> usize {
        self.game.view(&self.options).side_to_move().index()
    }

    /// Why the game is over, or None: the rules' own verdict and reason (the referee's too).
    fn over(&self) -> Option<String> {
        let names = self.variant.players();
        if let Some(seat) = self.resigned {
            return Some(format!("{} resigns", names[seat]));
        }
        let end = self.game.view(&self.options).game_end()?;
        Some(match end.verdict {
            Verdict::Win(side) => format!("{} wins by {}", names[side.index()], end.reason),
            Verdict::Draw => format!("draw by {}", end.reason),
        })
    }

    /// Whether the player of `seat` has a connection in the room, and how many.
    fn connections(&self, seat: Seat) -> usize {
        self.watchers.iter().filter(|(_, s, _)| *s == seat).count()
    }

    fn state_line(&self, seat: Seat) -> String {
        let view = self.game.view(&self.options);
        let sfen = view.position();
        // `d`'s lines: the pages draw the quantum candidate sets from them.
        let display = self.game.display();
        let over = self.over();
        let legal = if over.is_some() {
            Vec::new()
        } else {
            view.legal_moves()
        };
        let warnings = if over.is_some() {
            Vec::new()
        } else {
            self.game.warnings()
        };
        let names = self.variant.players();
        let you = match seat {
            Seat::First => names[0],
            Seat::Second => names[1],
            Seat::Spectator => "spectator",
        };
        let state = serde_json::json!({
            "game": self.variant.as_str(),
            "you": you,
            "turn": names[self.turn()],
            "sfen": sfen,
            "moves": self.moves,
            "legal": legal,
            "over": over,
            "note": self.note,
            "display": display,
            "warnings": warnings,
            "connected": [self.connections(Seat::First) > 0, self.connections(Seat::Second) > 0],
            "same_seat": match seat {
                Seat::Spectator => 0,
                seat => self.connections(seat).saturating_sub(1),
            },
        });
        format!("state {state}")
    }

    /// The state line for each connection, to be sent once the rooms are unlocked.
    fn broadcast(&self) -> Vec<(Socket, String)> {
        self.watchers
            .iter()
            .map(|(_, seat, socket)| (socket.clone(), self.state_line(*seat)))
            .collect()
    }

    /// Whether the room may be dropped for a new one.
    fn evictable(&self) -> bool {
        self.watchers.is_empty() && (self.moves.is_empty() || self.active.elapsed() >= ROOM_IDLE)
    }

    fn resign(&mut self, seat: Seat) -> Result<(), RoomError> {
        let who = match seat {
            Seat::Spectator => return Err(RoomError::Spectator),
            Seat::First => 0,
            Seat::Second => 1,
        };
        if let Some(why) = self.over() {
            return Err(RoomError::Over(why));
        }
        self.resigned = Some(who);
        self.note = None;
        Ok(())
    }

    fn play(&mut self, seat: Seat, mv: &str) -> Result<(), RoomError> {
        let mover = match seat {
            Seat::Spectator => return Err(RoomError::Spectator),
            Seat::First => 0,
            Seat::Second => 1,
        };
        if let Some(why) = self.over() {
            return Err(RoomError::Over(why));
        }
        if self.turn() != mover {
            return Err(RoomError::NotYourTurn(self.variant.players()[self.turn()]));
        }
        let mut moves = self.moves.clone();
        moves.push(mv.to_string());
        let mut game = new_variant(self.variant);
        game.set_position(&self.start, &moves, &self.options)
            .map_err(RoomError::Game)?;
        self.game = game;
        self.moves = moves;
        // Said the same way for every game: a pass that was played, or one the rules made
        // (the mover is to move again).
        let names = self.variant.players();
        self.note = if mv.eq_ignore_ascii_case("pass") {
            Some(format!("{} passes", names[mover]))
        } else if self.over().is_none() && self.turn() == mover {
            Some(format!("{} has no move and passes", names[1 - mover]))
        } else {
            None
        };
        Ok(())
    }
}

/// Creates a room, from the variant's start or from `start` (the fields of `position sfen`);
/// returns its id and the two seat tokens.
pub fn create(
    variant: Game,
    start: Option<Vec<String>>,
) -> Result<(String, [String; 2]), RoomError> {
    let mut rooms = ROOMS.lock();
    if rooms.len() >= MAX_ROOMS {
        // The least recently active of the droppable rooms, unplayed ones first.
        let victim = rooms
            .iter()
            .filter(|(_, r)| r.evictable())
            .min_by_key(|(id, r)| (!r.moves.is_empty(), r.active, id.to_string()))
            .map(|(id, _)| id.clone());
        match victim {
            Some(id) => {
                rooms.remove(&id);
            }
            None => return Err(RoomError::TooManyRooms),
        }
    }
    let room = Room::new(variant, start)?;
    let id = token()[..16].to_string();
    let seats = room.seats.clone();
    rooms.insert(id.clone(), room);
    Ok((id, seats))
}

/// Joins a room with a seat token (or none: a spectator). Sends the state at once.
pub fn join(id: &str, token: Option<&str>, conn: u64, socket: &Socket) -> Result<Seat, RoomError> {
    let mut rooms = ROOMS.lock();
    let room = rooms.get_mut(id).ok_or(RoomError::NoSuchGame)?;
    room.active = std::time::Instant::now();
    let seat = match token {
        None | Some("") => Seat::Spectator,
        Some(t) if t == room.seats[0] => Seat::First,
        Some(t) if t == room.seats[1] => Seat::Second,
        Some(_) => return Err(RoomError::WrongToken),
    };
    if room.watchers.len() >= MAX_WATCHERS {
        return Err(RoomError::TooManyWatchers);
    }
    room.watchers.push((conn, seat, socket.clone()));
    // Everyone sees who is connected now; the newcomer gets its state first.
    let state = room.state_line(seat);
    let others: Vec<(Socket, String)> = room
        .broadcast()
        .into_iter()
        .filter(|(s, _)| !s.same(socket))
        .collect();
    drop(rooms);
    socket.send_line(&state);
    for (to, line) in others {
        to.offer_line(&line);
    }
    Ok(seat)
}

pub fn leave(id: &str, conn: u64) {
    let sends = match ROOMS.lock().get_mut(id) {
        Some(room) => {
            room.watchers.retain(|(c, _, _)| *c != conn);
            room.active = std::time::Instant::now();
            room.broadcast()
        }
        None => Vec::new(),
    };
    for (to, line) in sends {
        to.offer_line(&line);
    }
}

/// One message from a connection in a room: `move <m>`. The new state goes to everyone in the
/// room after the rooms are unlocked, without waiting: a connection that does not read its
/// messages is dropped ([`Socket::offer_line`]), and nobody else waits for it.
pub fn message(id: &str, seat: Seat, text: &str, socket: &Socket) {
    let outcome = {
        let mut rooms = ROOMS.lock();
        match rooms.get_mut(id) {
            None => Err("the game is gone".to_string()),
            Some(room) => {
                let words: Vec<&str> = text.split_whitespace().collect();
                let result = match words.as_slice() {
                    ["move", mv] => room.play(seat, mv),
                    ["resign"] => room.resign(seat),
                    [] => Ok(()),
                    _ => Err(RoomError::UnknownCommand(text.trim().into())),
                };
                match result {
                    Ok(()) if !words.is_empty() => {
                        room.active = std::time::Instant::now();
                        Ok(room.broadcast())
                    }
                    Ok(()) => Ok(Vec::new()),
                    Err(why) => Err(why.to_string()),
                }
            }
        }
    };
    match outcome {
        Ok(sends) => {
            for (to, line) in sends {
                to.offer_line(&line);
            }
        }
        Err(why) => socket.error(&why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referee_checks_turn_seat_and_legality() {
        let mut room = Room::new(Game::Othello, None).unwrap();
        assert!(room.play(Seat::Spectator, "f5").is_err());
        assert!(room.play(Seat::Second, "f5").is_err());
        assert!(room.play(Seat::First, "a1").is_err());
        room.play(Seat::First, "f5").unwrap();
        assert!(room.play(Seat::First, "d6").is_err());
        room.play(Seat::Second, "d6").unwrap();
        assert_eq!(room.moves, ["f5", "d6"]);
        assert!(room.over().is_none());
        assert_ne!(token(), token());
    }

    #[test]
    fn only_idle_unattended_rooms_are_evictable() {
        let mut room = Room::new(Game::Othello, None).unwrap();
        assert!(room.evictable());
        room.play(Seat::First, "f5").unwrap();
        room.active = std::time::Instant::now();
        assert!(!room.evictable(), "a game just played is kept");
        if let Some(long_ago) = std::time::Instant::now().checked_sub(ROOM_IDLE) {
            room.active = long_ago;
            assert!(room.evictable());
        }
    }

    #[test]
    fn go_ends_after_two_passes() {
        let mut room = Room::new(Game::Go, None).unwrap();
        room.play(Seat::First, "E5").unwrap();
        room.play(Seat::Second, "pass").unwrap();
        assert!(room.over().is_none());
        room.play(Seat::First, "pass").unwrap();
        assert!(room.over().is_some());
        assert!(room.play(Seat::Second, "D4").is_err());
    }

    #[test]
    fn a_player_may_resign_and_then_nobody_moves() {
        let mut room = Room::new(Game::QuantumShogi, None).unwrap();
        assert!(room.resign(Seat::Spectator).is_err());
        room.resign(Seat::Second).unwrap();
        assert_eq!(room.over().as_deref(), Some("gote resigns"));
        assert!(room.play(Seat::First, "7g7f").is_err());
        assert!(room.resign(Seat::First).is_err());
    }
}
