//! Two people, one game: a room holds one game, refereed here with the same rules code the
//! sessions use ([`Played`]). Players hold seat tokens; anyone with the room id watches. See
//! protocol/serve.md for the lines exchanged.
//!
//! Every room is in the store from its creation, and every move is written there before it is
//! shown, so the rooms in memory are only the ones in use: a room nobody holds is dropped when
//! the table is full and read back from the store when someone comes back. Each room has its own
//! lock; the table's lock is held only to find, add or drop a room, never while a game is
//! replayed or its state rendered.

use super::clock::{self, Clock, ClockSpec};
use super::end::{self, Agreement, Phase};
use super::names::{self, NameError, Names};
use super::offers::{self, OfferError, Offers};
use super::played::{parse_start, start_text, Played};
use super::store::{now_ms, token_hash, Birth, Ending, Store, StoreError, StoredGame};
use super::tab::Socket;
use super::waits::{Lock, Timed};
use crate::games::end::EndTexts;
use crate::protocol::StartSpec;
use crate::registry::Game;
use crate::session::variant::SessionError;
use once_cell::sync::Lazy;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

/// Rooms kept in memory when some are held by nobody: past it, the least recently used of those
/// goes back to the store (it is read back when someone joins). Rooms with connections stay,
/// so the table may grow past it, as far as the connections go; a new room is never refused.
pub const MAX_ROOMS: usize = 64;
/// Connections (players and spectators) per room.
pub const MAX_WATCHERS: usize = 16;

type Shared = Arc<Timed<Room>>;

static ROOMS: Lazy<Timed<HashMap<String, Shared>>> =
    Lazy::new(|| Timed::new(Lock::Rooms, HashMap::new()));

/// Rooms in memory now.
pub fn count() -> usize {
    ROOMS.lock().len()
}

/// An unguessable token: 128 bits from the standard library's randomly keyed hasher.
pub(super) fn token() -> String {
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
    #[error("no such game")]
    NoSuchGame,
    #[error("this seat token does not belong to the game")]
    WrongToken,
    #[error("a spectator has no seat to name")]
    SpectatorName,
    /// A name refused, and why.
    #[error(transparent)]
    Name(#[from] NameError),
    #[error("this game has {MAX_WATCHERS} connections already")]
    TooManyWatchers,
    /// An offer (a draw, a takeback, a rematch) or its answer, refused.
    #[error(transparent)]
    Offer(#[from] OfferError),
    /// Not `move <move>`, `resign`, `name <text>`, `view <ply>` or an offer, nor a message of
    /// the game's end agreement (the text as sent, and the game's agreement).
    #[error(
        "unknown room command '{}' (expected: move <move>, resign, name <text>, view <ply> or \
         offer/accept/decline/withdraw draw, takeback or rematch{})",
        crate::text::printable(.0),
        .1.map(agreement_help).unwrap_or_default()
    )]
    UnknownCommand(String, Option<&'static EndTexts>),
    /// `view` of a ply the game does not have (the text as sent, and the game's length).
    #[error(
        "no ply '{ply}' to view: this game has plies 0 to {plies}",
        ply = crate::text::printable(.0),
        plies = .1
    )]
    NoSuchPly(String, usize),
    /// The store refused the move or the resignation: nothing of it was shown or kept.
    #[error("not saved, so not played: {0}")]
    Unsaved(StoreError),
    /// The store could not make or read the room.
    #[error(transparent)]
    Store(StoreError),
    /// The end agreement's messages from a spectator.
    #[error("a spectator cannot {}, accept or resume", .0.act)]
    SpectatorAgrees(&'static EndTexts),
    /// An agreement's message in play (or in a game without one).
    #[error("the game is not in its {} phase ({})", .0.phase, .0.begins)]
    NotAgreeing(&'static EndTexts),
    /// A move in the agreement's phase.
    #[error("the game is in its {} phase: {}, accept, or resume play", .0.phase, .0.change)]
    Agreeing(&'static EndTexts),
    #[error("{} are being judged: the server's proposal follows", .0.proposal)]
    Judging(&'static EndTexts),
    /// A change the game's agreement refused (its text).
    #[error("{0}")]
    Change(crate::games::end::Refusal),
    /// An `accept <version>` of a proposal that changed since.
    #[error("{} changed meanwhile: look at them again, then accept", .0.proposal)]
    Changed(&'static EndTexts),
}

/// What the unknown-command error adds for a game with an end agreement.
fn agreement_help(texts: &EndTexts) -> String {
    format!("; its {}: {}, accept or resume", texts.phase, texts.change)
}

/// The texts of a game without an agreement, for the errors its agreement's messages get.
static NO_AGREEMENT: EndTexts = EndTexts {
    phase: "agreement",
    begins: "this game has none",
    change: "",
    act: "agree",
    proposal: "the proposal",
};

crate::games::error_text!(derived: RoomError);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Seat {
    First,
    Second,
    Spectator,
}

impl Seat {
    pub(super) fn index(self) -> Option<usize> {
        match self {
            Seat::First => Some(0),
            Seat::Second => Some(1),
            Seat::Spectator => None,
        }
    }
}

pub(super) struct Room {
    pub(super) id: String,
    pub(super) played: Played,
    /// The seat tokens' hashes (the tokens themselves are known only to their players).
    pub(super) seats: [String; 2],
    pub(super) watchers: Vec<(u64, Seat, Socket)>,
    /// What happened at the last move that a person should be told (a pass).
    pub(super) note: Option<String>,
    /// The clocks of a timed room.
    pub(super) clock: Option<Clock>,
    /// The names the players gave (`name <text>`), kept with the game.
    pub(super) names: Names,
    /// The game's end agreement (its phase and what was agreed); None in a game without one.
    pub(super) end: Option<Agreement>,
    /// A connection is judging the proposal ([`propose`]).
    pub(super) judging: bool,
    /// The agreement's question to the player of a seat after their change (the fields it adds
    /// to the agreement's state). Not stored: a question, gone with any other action.
    pub(super) aside: Option<(usize, serde_json::Map<String, serde_json::Value>)>,
    /// What the players offered each other (offers.rs).
    pub(super) offers: Offers,
}

/// A connection's hold on its room: the room stays in memory while someone holds it.
pub struct Held(Shared);

impl Room {
    pub(super) fn new(
        variant: Game,
        start: Option<Vec<String>>,
    ) -> Result<(Room, [String; 2]), RoomError> {
        // A start whose side to move is stuck opens with its pass, as the list shows it.
        let played = Played::new(variant, start.map(StartSpec::Sfen), Vec::new())
            .map_err(RoomError::Game)?
            .with_automatic_pass();
        let tokens = [token(), token()];
        let room = Room {
            id: token()[..16].to_string(),
            played,
            seats: [token_hash(&tokens[0]), token_hash(&tokens[1])],
            watchers: Vec::new(),
            note: None,
            clock: None,
            names: [None, None],
            end: variant.end_agreement().map(|_| Agreement::default()),
            judging: false,
            aside: None,
            offers: Offers::default(),
        };
        Ok((room, tokens))
    }

    /// The room as stored, its moves replayed, with its clock and its end agreement as stored.
    fn from_stored(
        stored: StoredGame,
        clock: Option<Clock>,
        end: Option<Agreement>,
    ) -> Option<Room> {
        let variant = Game::named(&stored.game)?;
        let start = parse_start(&stored.start)?;
        let mut played = Played::new(variant, Some(start), stored.moves).ok()?;
        played.resigned = stored.resigned;
        played.flagged = clock.as_ref().and_then(|c| c.flagged);
        Some(Room {
            id: stored.id,
            played,
            seats: stored.seats?,
            watchers: Vec::new(),
            note: None,
            clock: clock.map(Clock::resumed),
            names: [None, None],
            end: variant.end_agreement().map(|_| end.unwrap_or_default()),
            judging: false,
            aside: None,
            offers: Offers::default(),
        })
    }

    /// Where the game stands: play, its end agreement's phase, or agreed (a game without
    /// one: play).
    pub(super) fn phase(&self) -> Phase {
        match &self.end {
            Some(end) if self.played.on_the_board() => end::phase(&self.played, end),
            _ => Phase::Play,
        }
    }

    /// The game's agreement texts, for its errors.
    pub(super) fn texts(&self) -> &'static EndTexts {
        self.played
            .variant
            .end_agreement()
            .map_or(&NO_AGREEMENT, |h| h.texts())
    }

    /// How the game ended, as the room says it: a game whose play stopped for its end
    /// agreement is over only once both players accepted, with the verdict's ending.
    pub(super) fn over(&self) -> Option<String> {
        match (&self.end, self.phase()) {
            (Some(end), Phase::Agreed) => end.verdict.as_deref().map(|verdict| {
                let e = end::ending(self.played.variant, verdict);
                format!("{} by {}", e.result, e.reason)
            }),
            // Resumed after play stopped, the rules' own end does not count.
            (Some(_), _) if self.played.on_the_board() => None,
            _ => self.played.over(),
        }
    }

    /// How `next` ended for the archive: as [`Room::over`] says (the verdict is stored with
    /// the agreement).
    fn ending_of(&self, next: &Played) -> Option<Ending> {
        match self.end {
            Some(_) if next.on_the_board() => None,
            _ => next.ending(),
        }
    }

    /// A room stored before its game kept its end agreement (no `game_ends` row) whose play
    /// stopped: judged once, the judgement taken as agreed and stored, so it is never judged
    /// again. Shown only once kept: when the store refuses, so is the room (its next load
    /// judges it again).
    fn settle_unkept_end(&mut self, store: &Store) -> Result<(), StoreError> {
        if self.phase() != Phase::Agreeing {
            return Ok(());
        }
        let played = &self.played;
        let proposal = end::judge(played.variant, played.start.clone(), played.moves.clone());
        let proposal = proposal.unwrap_or_default();
        let Some(verdict) = end::verdict(played, &proposal) else {
            return Ok(());
        };
        let ending = end::ending(played.variant, &verdict);
        let end = Agreement {
            resumed: 0,
            proposal: Some(proposal),
            accepted: [true; 2],
            verdict: Some(verdict),
        };
        store.set_end(&self.id, &end.text(), Some(&ending), None)?;
        self.end = Some(end);
        Ok(())
    }

    /// A message of the end agreement from `seat` in its phase (`accept`, `resume`, or one of
    /// the game's changes), stored.
    fn agree(&mut self, store: &Store, seat: Seat, words: &[&str]) -> Result<(), RoomError> {
        let texts = self.texts();
        let who = seat.index().ok_or(RoomError::SpectatorAgrees(texts))?;
        if let Some(why) = self.over() {
            return Err(RoomError::Over(why));
        }
        let (hook, end) = match (self.played.variant.end_agreement(), &self.end) {
            (Some(hook), Some(end)) if self.phase() == Phase::Agreeing => (hook, end.clone()),
            _ => return Err(RoomError::NotAgreeing(texts)),
        };
        let name = self.played.variant.players()[who];
        self.aside = None;
        let mut aside = None;
        let mut next = end.clone();
        let mut ending = None;
        let mut clock = None;
        let note;
        match (words, &end.proposal) {
            (["resume"], _) => {
                next = Agreement::fresh(self.played.moves.len());
                // Play goes on, and so does the side to move's time (stopped with play).
                clock = self.clock.clone().map(|mut c| {
                    c.start(self.played.turn(), now_ms());
                    c
                });
                note = format!("{name} resumes play");
            }
            (["accept"] | ["accept", _], None) => return Err(RoomError::Judging(texts)),
            (["accept"] | ["accept", _], Some(proposal)) => {
                // The `version` of the proposal the player saw.
                if words
                    .get(1)
                    .is_some_and(|v| v.parse() != Ok(end::version(&end)))
                {
                    return Err(RoomError::Changed(texts));
                }
                next.accepted[who] = true;
                if next.accepted == [true; 2] {
                    let verdict = end::verdict(&self.played, proposal)
                        .ok_or(RoomError::NotAgreeing(texts))?;
                    ending = Some(end::ending(self.played.variant, &verdict));
                    next.verdict = Some(verdict);
                }
                note = format!("{name} accepts {}", texts.proposal);
            }
            ([verb, ..], _) if !hook.verbs().contains(verb) => {
                return Err(RoomError::UnknownCommand(words.join(" "), Some(texts)));
            }
            (_, None) => return Err(RoomError::Judging(texts)),
            (_, Some(proposal)) => {
                let position = end::position(&self.played);
                let change = hook
                    .change(&position, proposal, words)
                    .map_err(RoomError::Change)?;
                aside = change.aside.map(|fields| (who, fields));
                note = format!("{name} {}", change.note);
                next.proposal = Some(change.proposal);
                next.accepted = [false; 2];
            }
        }
        store
            .set_end(&self.id, &next.text(), ending.as_ref(), clock.as_ref())
            .map_err(RoomError::Unsaved)?;
        if let Some(clock) = clock {
            clock::arm(&self.id, clock.deadline());
            self.clock = Some(clock);
        }
        self.end = Some(next);
        self.aside = aside;
        self.note = Some(note);
        Ok(())
    }

    pub(super) fn stored(&self) -> StoredGame {
        StoredGame {
            id: self.id.clone(),
            kind: "room".into(),
            game: self.played.variant.as_str().into(),
            start: start_text(&self.played.start),
            seats: Some(self.seats.clone()),
            resigned: self.played.resigned,
            moves: self.played.moves.clone(),
            rules: None,
        }
    }

    /// Whether the player of `seat` has a connection in the room, and how many.
    fn connections(&self, seat: Seat) -> usize {
        self.watchers.iter().filter(|(_, s, _)| *s == seat).count()
    }

    /// The state as every connection sees it; [`Room::state_line`] adds who each one is.
    pub(super) fn state(&self) -> serde_json::Value {
        let played = &self.played;
        let view = played.game.view(&played.options);
        let over = self.over();
        let phase = self.phase();
        let legal = if over.is_some() || phase != Phase::Play {
            Vec::new()
        } else {
            view.legal_moves()
        };
        let warnings = if over.is_some() {
            Vec::new()
        } else {
            played.game.warnings()
        };
        let names = played.variant.players();
        let (mut agreement, score) = match &self.end {
            Some(end) if phase != Phase::Play => end::state(played, end),
            _ => (serde_json::Value::Null, None),
        };
        let asking = self.aside.as_ref().filter(|_| over.is_none());
        if let (Some(fields), Some((seat, aside))) = (agreement.as_object_mut(), asking) {
            for (key, value) in aside {
                let mut value = value.clone();
                if let Some(question) = value.as_object_mut() {
                    question.insert("by".into(), names[*seat].into());
                }
                fields.insert(key.clone(), value);
            }
        }
        let hook = played.variant.end_agreement();
        let mut state = serde_json::json!({
            "game": played.variant.as_str(),
            // The registry's words for the game and its seats: the page names nothing itself.
            "title": played.variant.title(),
            "players": names,
            "turn": names[played.turn()],
            "sfen": view.position(),
            "moves": played.moves,
            "legal": legal,
            "over": over,
            "note": self.note,
            // `d`'s lines: the pages draw what the board alone does not show from them.
            "display": played.game.display(),
            "warnings": warnings,
            "connected": [self.connections(Seat::First) > 0, self.connections(Seat::Second) > 0],
            "phase": match (phase, hook) {
                _ if over.is_some() => "over",
                (Phase::Agreeing, Some(hook)) => hook.texts().phase,
                _ => "play",
            },
            "score": score,
            "clock": self.clock.as_ref().map(|c| c.json(names, now_ms())),
            "names": self.names,
            "offers": self.offers.json(names, played.moves.len()),
            "rematch": self.offers.rematch(),
            "draws": played.variant.draw_by_agreement(),
        });
        // The agreement's field is named after its phase (a game without one has neither).
        if let Some(hook) = hook {
            state[hook.texts().phase] = agreement;
        }
        state
    }

    fn state_line(&self, state: &serde_json::Value, seat: Seat) -> String {
        let names = self.played.variant.players();
        let mut state = state.clone();
        state["you"] = match seat.index() {
            Some(i) => names[i].into(),
            None => "spectator".into(),
        };
        state["same_seat"] = match seat {
            Seat::Spectator => 0,
            seat => self.connections(seat).saturating_sub(1),
        }
        .into();
        format!("state {state}")
    }

    /// The state line for each connection, to be sent once the room is unlocked (the game is
    /// rendered once, not once per connection).
    fn broadcast(&self) -> Vec<(Socket, String)> {
        let state = self.state();
        self.watchers
            .iter()
            .map(|(_, seat, socket)| (socket.clone(), self.state_line(&state, *seat)))
            .collect()
    }

    /// The game after `seat` resigns, or why not.
    pub(super) fn resigned(&self, seat: Seat) -> Result<Played, RoomError> {
        let who = seat.index().ok_or(RoomError::Spectator)?;
        if let Some(why) = self.over() {
            return Err(RoomError::Over(why));
        }
        let mut played = Played::new(
            self.played.variant,
            Some(self.played.start.clone()),
            self.played.moves.clone(),
        )
        .map_err(RoomError::Game)?;
        played.resigned = Some(who);
        Ok(played)
    }

    /// The game after `seat` plays `mv`, or why not.
    pub(super) fn played(&self, seat: Seat, mv: &str) -> Result<Played, RoomError> {
        let mover = seat.index().ok_or(RoomError::Spectator)?;
        if let Some(why) = self.over() {
            return Err(RoomError::Over(why));
        }
        if self.phase() == Phase::Agreeing {
            return Err(RoomError::Agreeing(self.texts()));
        }
        let turn = self.played.turn();
        if turn != mover {
            return Err(RoomError::NotYourTurn(self.played.variant.players()[turn]));
        }
        let next = self.played.with_move(mv).map_err(RoomError::Game)?;
        // The opponent had no move and passed: the pass is a move of the list.
        Ok(if next.over().is_none() && next.turn() == mover {
            next.with_automatic_pass()
        } else {
            next
        })
    }

    /// Takes `next` as the game (once stored): `mover`'s move `mv`, or a resignation.
    pub(super) fn take(&mut self, next: Played, mover: Option<(usize, &str)>) {
        self.played = next;
        // Play that stops begins the agreement afresh: nothing proposed or accepted yet.
        if self.phase() == Phase::Agreeing {
            if let Some(end) = &mut self.end {
                *end = Agreement::fresh(end.resumed);
            }
        }
        // Said the same way for every game: a pass that was played, or one the rules made
        // (the mover is to move again).
        let names = self.played.variant.players();
        self.note = match mover {
            Some((mover, mv)) if mv.eq_ignore_ascii_case("pass") => {
                Some(format!("{} passes", names[mover]))
            }
            Some((mover, _)) if self.played.over().is_none() && self.played.turn() == mover => {
                Some(format!("{} has no move and passes", names[1 - mover]))
            }
            _ => None,
        };
    }

    /// The clock after `next` is taken at `now` (the side to move's move, an automatic pass
    /// after it, or a resignation), or the side whose flag fell before it came.
    fn clock_after(&self, next: &Played, now: i64) -> Result<Option<Clock>, usize> {
        let Some(mut clock) = self.clock.clone() else {
            return Ok(None);
        };
        if let Some(side) = clock.fallen(now) {
            return Err(side);
        }
        if next.resigned.is_none() {
            let mover = self.played.turn();
            if !clock.moved(mover, now) {
                return Err(mover);
            }
            // The rules' automatic pass is the opponent's move, made at once.
            for _ in self.played.moves.len() + 1..next.moves.len() {
                clock.start(1 - mover, now);
                let _ = clock.moved(1 - mover, now);
            }
        }
        match next.over() {
            None => clock.start(next.turn(), now),
            Some(_) => clock.stop(),
        }
        Ok(Some(clock))
    }

    /// `side`'s flag falls: the game ends on time, stored before anyone is shown it.
    pub(super) fn fall(
        &mut self,
        store: &Store,
        side: usize,
    ) -> Result<Vec<(Socket, String)>, RoomError> {
        let mut clock = self.clock.clone().ok_or(RoomError::NoSuchGame)?;
        clock.fall(side);
        self.played.flagged = Some(side);
        let stored = store.set_moves_and_clock(
            &self.id,
            self.played.moves.len(),
            &[],
            self.played.resigned,
            self.played.ending().as_ref(),
            Some(&clock),
        );
        if let Err(e) = stored {
            self.played.flagged = None;
            return Err(RoomError::Unsaved(e));
        }
        self.clock = Some(clock);
        self.note = None;
        clock::arm(&self.id, None);
        Ok(self.broadcast())
    }

    #[cfg(test)]
    fn play(&mut self, seat: Seat, mv: &str) -> Result<(), RoomError> {
        let next = self.played(seat, mv)?;
        self.take(next, seat.index().map(|i| (i, mv)));
        Ok(())
    }

    #[cfg(test)]
    fn resign(&mut self, seat: Seat) -> Result<(), RoomError> {
        let next = self.resigned(seat)?;
        self.take(next, None);
        Ok(())
    }
}

/// Puts `room` in the table, dropping from memory (not from the store) rooms nobody holds while
/// the table is full, the least recently used first: a table that grew past [`MAX_ROOMS`] while
/// its rooms were all held comes back to it as they are left.
fn insert(rooms: &mut HashMap<String, Shared>, id: &str, room: Shared) {
    if rooms.len() >= MAX_ROOMS {
        // Held by the table alone: no connection is in it and nobody is joining it.
        let used = USED.lock();
        let mut idle: Vec<(u64, String)> = rooms
            .iter()
            .filter(|(_, r)| Arc::strong_count(r) == 1)
            .map(|(id, _)| (used.get(id).copied().unwrap_or(0), id.clone()))
            .collect();
        drop(used);
        idle.sort_unstable();
        let excess = rooms.len() + 1 - MAX_ROOMS;
        for (_, victim) in idle.into_iter().take(excess) {
            rooms.remove(&victim);
            USED.lock().remove(&victim);
        }
    }
    rooms.insert(id.to_string(), room);
    touch(id);
}

/// When each room in memory was last held, as a counter (the least recent goes first).
static USED: Lazy<Timed<HashMap<String, u64>>> =
    Lazy::new(|| Timed::new(Lock::Rooms, HashMap::new()));
static TICK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn touch(id: &str) {
    let tick = TICK.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    USED.lock().insert(id.to_string(), tick);
}

/// Creates a room, from the variant's start or from `start` (the fields of `position sfen`),
/// and stores it; returns its id and the two seat tokens.
pub fn create(
    store: &Store,
    variant: Game,
    start: Option<Vec<String>>,
    clock: Option<ClockSpec>,
) -> Result<(String, [String; 2]), RoomError> {
    let (mut room, tokens) = Room::new(variant, start)?;
    room.clock = clock.map(Clock::new);
    let birth = Birth {
        clock: room.clock.as_ref(),
        ..Birth::default()
    };
    store
        .create(&room.stored(), &birth)
        .map_err(RoomError::Store)?;
    let id = room.id.clone();
    insert(
        &mut ROOMS.lock(),
        &id,
        Arc::new(Timed::new(Lock::Room, room)),
    );
    Ok((id, tokens))
}

/// The room `id` held for a connection: from memory, else read back from the store.
fn hold(store: &Store, id: &str) -> Result<Held, RoomError> {
    if let Some(room) = ROOMS.lock().get(id) {
        touch(id);
        return Ok(Held(Arc::clone(room)));
    }
    let stored = store
        .load(id)
        .map_err(RoomError::Store)?
        .filter(|g| g.kind == "room")
        .ok_or(RoomError::NoSuchGame)?;
    let clock = store.load_clock(id).map_err(RoomError::Store)?;
    let agrees = Game::named(&stored.game).is_some_and(|g| g.end_agreement().is_some());
    let end = if agrees {
        let text = store.load_end(id).map_err(RoomError::Store)?;
        text.as_deref().and_then(Agreement::read)
    } else {
        None
    };
    let unkept = end.is_none();
    let mut room = Room::from_stored(stored, clock, end).ok_or(RoomError::NoSuchGame)?;
    room.names = store.names(id).map_err(RoomError::Store)?;
    room.offers = Offers::new(store.offers(id).map_err(RoomError::Store)?);
    room.played.drawn = room.offers.drawn();
    if unkept && room.end.is_some() {
        room.settle_unkept_end(store).map_err(RoomError::Store)?;
    }
    let mut rooms = ROOMS.lock();
    // Another connection may have read it back meanwhile: theirs is the room.
    if let Some(room) = rooms.get(id) {
        touch(id);
        return Ok(Held(Arc::clone(room)));
    }
    let room = Arc::new(Timed::new(Lock::Room, room));
    insert(&mut rooms, id, Arc::clone(&room));
    Ok(Held(room))
}

/// Whether `token` is a seat of the room `id` (in memory or in the store).
pub fn is_player(store: &Store, id: &str, token: &str) -> bool {
    if token.is_empty() || id.is_empty() {
        return false;
    }
    let hash = token_hash(token);
    let held = ROOMS.lock().get(id).cloned();
    match held {
        Some(room) => room.lock().seats.contains(&hash),
        None => store
            .load(id)
            .ok()
            .flatten()
            .and_then(|g| g.seats)
            .is_some_and(|seats| seats.contains(&hash)),
    }
}

/// Joins a room with a seat token (or none: a spectator). Sends the state at once.
pub fn join(
    store: &Store,
    id: &str,
    token: Option<&str>,
    conn: u64,
    socket: &Socket,
) -> Result<(Held, Seat), RoomError> {
    let held = hold(store, id)?;
    let mut room = held.0.lock();
    let seat = match token {
        None | Some("") => Seat::Spectator,
        Some(t) => {
            let hash = token_hash(t);
            if hash == room.seats[0] {
                Seat::First
            } else if hash == room.seats[1] {
                Seat::Second
            } else {
                return Err(RoomError::WrongToken);
            }
        }
    };
    if room.watchers.len() >= MAX_WATCHERS {
        return Err(RoomError::TooManyWatchers);
    }
    room.watchers.push((conn, seat, socket.clone()));
    // Everyone sees who is connected now; the newcomer gets its state first.
    let state = room.state();
    let own = room.state_line(&state, seat);
    let others: Vec<(Socket, String)> = room
        .watchers
        .iter()
        .filter(|(_, _, s)| !s.same(socket))
        .map(|(_, seat, s)| (s.clone(), room.state_line(&state, *seat)))
        .collect();
    drop(room);
    socket.send_line(&own);
    for (to, line) in others {
        to.offer_line(&line);
    }
    // An agreement whose proposal was not judged (the server stopped meanwhile).
    propose(store, &held);
    Ok((held, seat))
}

/// When the room is in its end agreement's phase without a proposal, judges the game on this
/// connection's thread outside the room's lock (the state with the phase is out already; other
/// messages to the room go on meanwhile), stores the proposal and sends the state with it.
fn propose(store: &Store, held: &Held) {
    let job = {
        let mut room = held.0.lock();
        let waiting = room.end.as_ref().is_some_and(|end| end.proposal.is_none());
        if room.judging || !waiting || room.phase() != Phase::Agreeing {
            return;
        }
        room.judging = true;
        let played = &room.played;
        (played.variant, played.start.clone(), played.moves.clone())
    };
    let (variant, start, moves) = job;
    let proposal = end::judge(variant, start, moves.clone()).unwrap_or_default();
    let sends = {
        let mut room = held.0.lock();
        room.judging = false;
        match room.end.clone() {
            // Still the game it judged, and still waiting (not resumed, resigned or replayed).
            Some(end)
                if room.played.moves == moves
                    && end.proposal.is_none()
                    && room.phase() == Phase::Agreeing =>
            {
                let end = Agreement {
                    proposal: Some(proposal),
                    ..end
                };
                // Shown only once kept; else the next connection to join judges again.
                match store.set_end(&room.id, &end.text(), None, None) {
                    Ok(()) => {
                        room.end = Some(end);
                        room.broadcast()
                    }
                    Err(_) => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    };
    for (to, line) in sends {
        to.offer_line(&line);
    }
}

pub fn leave(held: Held, conn: u64) {
    let sends = {
        let mut room = held.0.lock();
        room.watchers.retain(|(c, _, _)| *c != conn);
        touch(&room.id);
        room.broadcast()
    };
    for (to, line) in sends {
        to.offer_line(&line);
    }
}

/// One message from a connection in a room: `move <m>`, `resign`, or in the game's end
/// agreement `accept`, `resume` or one of its changes. The move is stored, then
/// the new state goes to everyone in the room after the room is unlocked, without waiting: a
/// connection that does not read its messages is dropped ([`Socket::offer_line`]), and nobody
/// else waits for it.
pub fn message(store: &Store, held: &Held, seat: Seat, text: &str, socket: &Socket) {
    if let Some(ply) = text.trim().strip_prefix("view ") {
        return view(held, ply.trim(), socket);
    }
    let named = text.trim_start().strip_prefix("name");
    if let Some(name) = named.filter(|r| r.is_empty() || r.starts_with(char::is_whitespace)) {
        return rename(store, held, seat, name, socket);
    }
    let outcome = {
        let mut room = held.0.lock();
        let words: Vec<&str> = text.split_whitespace().collect();
        let next = match words.as_slice() {
            ["move", mv] => room.played(seat, mv).map(|p| (p, Some(*mv))),
            ["resign"] => room.resigned(seat).map(|p| (p, None)),
            [] => return,
            [verb @ ("offer" | "withdraw" | "decline" | "accept"), kind]
                if offers::Kind::parse(kind).is_some() || *verb != "accept" =>
            {
                let sends = room
                    .offer(store, seat, verb, kind)
                    .map(|()| room.broadcast());
                drop(room);
                return finish(sends, socket);
            }
            [verb, ..] if agreement_verb(room.played.variant, verb) => {
                let sends = room.agree(store, seat, &words).map(|()| room.broadcast());
                drop(room);
                return finish(sends, socket);
            }
            _ => {
                let texts = room.played.variant.end_agreement().map(|h| h.texts());
                Err(RoomError::UnknownCommand(text.trim().into(), texts))
            }
        };
        next.and_then(|(next, mv)| {
            let clock = match room.clock_after(&next, now_ms()) {
                Ok(clock) => clock,
                // The flag fell before the move came: the game is lost on time instead.
                Err(side) => return room.fall(store, side),
            };
            // Play that stops begins the agreement: kept afresh before the moves are.
            if let Some(end) = &room.end {
                if next.resigned.is_none() && end::phase(&next, end) != Phase::Play {
                    let fresh = Agreement::fresh(end.resumed);
                    store
                        .set_end(&room.id, &fresh.text(), None, None)
                        .map_err(RoomError::Unsaved)?;
                }
            }
            // On disk before anyone is shown it.
            let from = room.played.moves.len();
            store
                .set_moves_and_clock(
                    &room.id,
                    from,
                    &next.moves[from..],
                    next.resigned,
                    room.ending_of(&next).as_ref(),
                    clock.as_ref(),
                )
                .map_err(RoomError::Unsaved)?;
            let mover = seat.index().zip(mv);
            room.take(next, mover);
            if let Some(clock) = clock {
                clock::arm(&room.id, clock.deadline());
                room.clock = Some(clock);
            }
            Ok(room.broadcast())
        })
    };
    finish(outcome, socket);
    propose(store, held);
}

/// Whether `verb` begins a message of an end agreement (`accept`, `resume`, or a change of
/// `variant`'s agreement): those of a game without one get its error too.
fn agreement_verb(variant: Game, verb: &str) -> bool {
    let changes = variant.end_agreement().map_or(&[][..], |h| h.verbs());
    verb == "accept" || verb == "resume" || changes.contains(&verb)
}

/// Sends a message's outcome: the states to everyone, or the error to its sender.
fn finish(outcome: Result<Vec<(Socket, String)>, RoomError>, socket: &Socket) {
    match outcome {
        Ok(sends) => {
            for (to, line) in sends {
                to.offer_line(&line);
            }
        }
        Err(why) => socket.error(&why.to_string()),
    }
}

/// The timer's call when the room `id`'s running side may have run out of time: its flag falls
/// (stored, then shown), or the room's next deadline is set when a move came meanwhile.
pub fn clock_due(store: &Store, id: &str) {
    let held = match hold(store, id) {
        Ok(held) => held,
        Err(RoomError::Store(e)) => {
            // Like a flag the store refused: tried again in a second, rather than the room
            // left with no timer at all.
            eprintln!("ryoshi serve: room {id}: its clock cannot be read: {e}");
            clock::arm(id, Some(now_ms() + 1000));
            return;
        }
        // Gone, or not a room that can be played: nothing to time.
        Err(_) => return,
    };
    let sends = {
        let mut room = held.0.lock();
        let Some(clock) = room.clock.clone() else {
            return;
        };
        match clock.fallen(now_ms()) {
            None => {
                clock::arm(id, clock.deadline());
                return;
            }
            Some(side) => match room.fall(store, side) {
                Ok(sends) => sends,
                Err(e) => {
                    // The store refused: tried again in a second, the game still on meanwhile.
                    eprintln!("ryoshi serve: room {id}: the flag could not be stored: {e}");
                    clock::arm(id, Some(now_ms() + 1000));
                    return;
                }
            },
        }
    };
    drop(held);
    for (to, line) in sends {
        to.offer_line(&line);
    }
}

/// Arms the timer for every stored room whose clock runs (at the server's start: their time
/// resumes from the start, see [`Clock::resumed`]). A room whose clock cannot be read is said
/// on stderr and left unarmed; it must not stop the others' flags from falling.
pub fn arm_stored_clocks(store: &Store) -> Result<(), StoreError> {
    for id in store.running_clocks()? {
        match store.load_clock(&id) {
            Ok(Some(clock)) => clock::arm(&id, clock.resumed().deadline()),
            Ok(None) => {}
            Err(e) => eprintln!("ryoshi serve: room {id}: its clock cannot be read: {e}"),
        }
    }
    Ok(())
}

/// `view <ply>`: the position after the game's first `ply` moves, for the page that steps back
/// through the game (anyone in the room may). Answered to `socket` alone as `view <json>`, and
/// nothing of the game changes. The moves are copied under the room's lock and replayed outside
/// it, so a view never holds up a move; a connection's messages are read one at a time, so each
/// socket has at most one replay running.
fn view(held: &Held, ply: &str, socket: &Socket) {
    let (variant, start, mut moves) = {
        let room = held.0.lock();
        let p = &room.played;
        (p.variant, p.start.clone(), p.moves.clone())
    };
    let total = moves.len();
    let Some(k) = ply.parse::<usize>().ok().filter(|k| *k <= total) else {
        return socket.error(&RoomError::NoSuchPly(ply.into(), total).to_string());
    };
    moves.truncate(k);
    let played = match Played::new(variant, Some(start), moves) {
        Ok(played) => played,
        Err(why) => return socket.error(&RoomError::Game(why).to_string()),
    };
    let position = played.game.view(&played.options);
    let answer = serde_json::json!({
        "ply": k,
        "plies": total,
        "turn": variant.players()[played.turn()],
        "sfen": position.position(),
        "display": played.game.display(),
        "last": played.moves.last(),
    });
    socket.send_line(&format!("view {answer}"));
}

/// `name <text>`: the player of `seat` names themselves (an empty text takes the name back).
/// Kept with the game, then everyone in the room is shown it.
fn rename(store: &Store, held: &Held, seat: Seat, text: &str, socket: &Socket) {
    let outcome = seat
        .index()
        .ok_or(RoomError::SpectatorName)
        .and_then(|who| Ok((who, names::check(text)?)))
        .and_then(|(who, name)| {
            let mut room = held.0.lock();
            if room.names[who] != name {
                store
                    .set_name(&room.id, who, name.as_deref(), None)
                    .map_err(RoomError::Store)?;
                room.names[who] = name;
            }
            Ok(room.broadcast())
        });
    match outcome {
        Ok(sends) => {
            for (to, line) in sends {
                to.offer_line(&line);
            }
        }
        Err(why) => socket.error(&why.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referee_checks_turn_seat_and_legality() {
        let (mut room, _) = Room::new(Game::Othello, None).unwrap();
        assert!(room.play(Seat::Spectator, "f5").is_err());
        assert!(room.play(Seat::Second, "f5").is_err());
        assert!(room.play(Seat::First, "a1").is_err());
        room.play(Seat::First, "f5").unwrap();
        assert!(room.play(Seat::First, "d6").is_err());
        room.play(Seat::Second, "d6").unwrap();
        assert_eq!(room.played.moves, ["f5", "d6"]);
        assert!(room.played.over().is_none());
        assert_ne!(token(), token());
    }

    #[test]
    fn othello_passes_are_moves_of_the_list() {
        // Rows 1 and 8 are `-OXXXXXX`: black's a1 turns b1, and then white has no move.
        let board = format!(
            "-OXXXXXX{}---XX------XX---{}-OXXXXXX",
            "-".repeat(16),
            "-".repeat(16)
        );
        let start = |side: &str| Some(vec![board.clone(), side.to_string()]);
        let (mut room, _) = Room::new(Game::Othello, start("b")).unwrap();
        assert!(room.played.moves.is_empty());
        room.play(Seat::First, "a1").unwrap();
        assert_eq!(room.played.moves, ["a1", "pass"]);
        assert_eq!(room.note.as_deref(), Some("white has no move and passes"));
        // White to move but stuck at the start: the list opens with white's pass.
        let (room, _) = Room::new(Game::Othello, start("w")).unwrap();
        assert_eq!(room.played.moves, ["pass"]);
        assert_eq!(room.played.turn(), 0);
        // Go's pass is a move of its own, never written for the player.
        let (mut room, _) = Room::new(Game::Go, None).unwrap();
        room.play(Seat::First, "E5").unwrap();
        assert_eq!(room.played.moves, ["E5"]);
    }

    #[test]
    fn passes_are_moves_for_the_clock() {
        // As above: black's a1 leaves white no move, and the rules pass for white at once.
        let board = format!(
            "-OXXXXXX{}---XX------XX---{}-OXXXXXX",
            "-".repeat(16),
            "-".repeat(16)
        );
        let (mut room, _) = Room::new(Game::Othello, Some(vec![board, "b".into()])).unwrap();
        room.clock = Some(Clock::new(ClockSpec::parse("10+2").unwrap()));
        let next = room.played(Seat::First, "a1").unwrap();
        // The first move is not timed; white's pass is made at once and earns its increment.
        let clock = room.clock_after(&next, 1_000).unwrap().unwrap();
        assert_eq!(clock.left, [10_000, 12_000]);
        assert_eq!(clock.running, Some((0, 1_000)));
        room.take(next, Some((0, "a1")));
        room.clock = Some(clock);
        let next = room.played(Seat::First, "a8").unwrap();
        let clock = room.clock_after(&next, 4_000).unwrap().unwrap();
        assert_eq!(clock.left[0], 9_000, "3 s charged, 2 s added");
        // Late: the flag falls instead of the move.
        assert_eq!(room.clock_after(&next, 11_001), Err(0));
        // Go's pass is charged like any move.
        let (mut room, _) = Room::new(Game::Go, None).unwrap();
        room.clock = Some(Clock::new(ClockSpec::parse("0b5x2").unwrap()));
        room.play(Seat::First, "E5").unwrap();
        room.clock.as_mut().unwrap().start(1, 0);
        let next = room.played(Seat::Second, "pass").unwrap();
        let clock = room.clock_after(&next, 7_000).unwrap().unwrap();
        // 7 s: the first 5 s period is used up, the move is in the second.
        assert_eq!((clock.periods[1], clock.running), (1, Some((0, 7_000))));
    }

    #[test]
    fn go_scores_after_two_passes() {
        let (mut room, _) = Room::new(Game::Go, None).unwrap();
        room.play(Seat::First, "E5").unwrap();
        room.play(Seat::Second, "pass").unwrap();
        assert_eq!(room.phase(), Phase::Play);
        room.play(Seat::First, "pass").unwrap();
        // Two passes open the scoring phase: not over, no move, the proposal to come.
        assert_eq!(room.phase(), Phase::Agreeing);
        assert!(room.over().is_none());
        assert!(matches!(
            room.play(Seat::Second, "D4"),
            Err(RoomError::Agreeing(_))
        ));
        let state = room.state();
        assert_eq!(state["phase"], "scoring");
        assert_eq!(state["scoring"]["dead"], serde_json::Value::Null);
        assert_eq!(state["legal"], serde_json::json!([]));
        // The proposal is Go's `score` judgement: here nothing dead, black's whole board.
        let played = &room.played;
        let dead = end::judge(played.variant, played.start.clone(), played.moves.clone());
        assert_eq!(dead.as_deref(), Some(""));
        room.end.as_mut().unwrap().proposal = dead;
        let state = room.state();
        assert_eq!(
            state["score"],
            serde_json::json!(["score B+73.5 komi 7.5", "dead b", "dead w"])
        );
        assert_eq!(state["scoring"]["score"], "B+73.5");
        // Resigning stays possible, and then the game is over by resignation.
        room.resign(Seat::Second).unwrap();
        assert_eq!(room.over().as_deref(), Some("white resigns"));
        assert_eq!(room.state()["scoring"], serde_json::Value::Null);
    }

    #[test]
    fn a_table_grown_past_its_size_while_held_comes_back_once_left() {
        let mut rooms = HashMap::new();
        let id = |i: usize| format!("grow{i}");
        let held: Vec<Shared> = (0..MAX_ROOMS + 5)
            .map(|i| {
                let (room, _) = Room::new(Game::Othello, None).unwrap();
                let shared = Arc::new(Timed::new(Lock::Room, room));
                insert(&mut rooms, &id(i), Arc::clone(&shared));
                shared
            })
            .collect();
        // Every room held: none may go.
        assert_eq!(rooms.len(), MAX_ROOMS + 5);
        drop(held);
        let (room, _) = Room::new(Game::Othello, None).unwrap();
        insert(&mut rooms, "grown", Arc::new(Timed::new(Lock::Room, room)));
        assert_eq!(rooms.len(), MAX_ROOMS);
        // The least recently used went.
        for i in 0..6 {
            assert!(!rooms.contains_key(&id(i)), "{}", id(i));
        }
        assert!(rooms.contains_key(&id(6)) && rooms.contains_key("grown"));
    }

    #[test]
    fn a_go_room_kept_before_its_end_was_is_judged_once_and_kept() {
        let dir = std::env::temp_dir().join(format!("ryoshi-room-{}-unkept", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.db");
        // Black's wall owns A-E, white's F-J, and white's lone B9 is dead: the old referee said
        // white wins (every stone alive), Go's `score` says black by 1.5.
        let rows = ["....XO..."; 9]
            .join("/")
            .replacen("....XO...", ".O..XO...", 1);
        {
            // A file of schema version 1, as written before Go rooms kept their end.
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(super::super::store::MIGRATIONS[0])
                .unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute(
                "INSERT INTO games (id, kind, game, start, seat0, seat1, result, reason, \
                 created, updated, plies) VALUES ('old1', 'room', 'go', ?1, 'a', 'b', \
                 'white wins', 'area score', 0, 0, 2)",
                [format!("sfen 9 {rows} b")],
            )
            .unwrap();
            conn.execute_batch(
                "INSERT INTO moves VALUES ('old1', 0, 'pass'), ('old1', 1, 'pass');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        // While another program holds the file's write lock the judgement cannot be kept, and
        // the room is not shown with it either (its next load judges it again).
        let other = rusqlite::Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        assert!(matches!(hold(&store, "old1"), Err(RoomError::Store(_))));
        assert!(!ROOMS.lock().contains_key("old1"));
        other.execute_batch("COMMIT").unwrap();
        drop(other);
        let held = hold(&store, "old1").unwrap();
        let state = held.0.lock().state();
        assert_eq!(state["over"], "black wins by area score", "{state}");
        assert_eq!(state["score"][0], "score B+1.5 komi 7.5");
        let (list, _) = store.list(0, 10).unwrap();
        assert_eq!(list[0].result.as_deref(), Some("black wins"));
        // Kept: read back as stored, never judged again (a stored score shows as it is).
        let text = store.load_end("old1").unwrap().unwrap();
        let mut end = Agreement::read(&text).unwrap();
        assert_eq!(end.proposal.as_deref(), Some("B9"));
        end.verdict = Some("score W+99 komi 7.5".into());
        store.set_end("old1", &end.text(), None, None).unwrap();
        drop(held);
        ROOMS.lock().remove("old1");
        let held = hold(&store, "old1").unwrap();
        assert_eq!(held.0.lock().state()["over"], "white wins by area score");
        drop(held);
        drop(store);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_agreements_words_are_the_games() {
        // Go's, as they were before the agreement was a hook (protocol/serve.md).
        let go = Game::Go.end_agreement().unwrap().texts();
        let said = [
            RoomError::SpectatorAgrees(go),
            RoomError::NotAgreeing(go),
            RoomError::Agreeing(go),
            RoomError::Judging(go),
            RoomError::Changed(go),
        ]
        .map(|e| e.to_string());
        assert_eq!(
            said,
            [
                "a spectator cannot mark dead stones, accept or resume",
                "the game is not in its scoring phase (two passes in a row begin it)",
                "the game is in its scoring phase: mark the dead stones (dead <vertex>), \
                 accept, or resume play",
                "the dead stones are being judged: the server's proposal follows",
                "the dead stones changed meanwhile: look at them again, then accept",
            ]
        );
        let unknown = RoomError::UnknownCommand("x".into(), Some(go)).to_string();
        assert!(unknown
            .ends_with("; its scoring: mark the dead stones (dead <vertex>), accept or resume)"));
        // A game without one: no field in its state, and its messages say it has none.
        let dir = std::env::temp_dir().join(format!("ryoshi-room-{}-none", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&dir.join("games.db")).unwrap();
        let (mut room, _) = Room::new(Game::Othello, None).unwrap();
        assert!(room.state().get("scoring").is_none());
        let refused = room.agree(&store, Seat::First, &["accept"]).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the game is not in its agreement phase (this game has none)"
        );
        assert!(!agreement_verb(Game::Othello, "dead"));
        assert!(agreement_verb(Game::Go, "dead") && agreement_verb(Game::Othello, "resume"));
        let unknown = RoomError::UnknownCommand("dead a1".into(), None).to_string();
        assert!(unknown.ends_with("takeback or rematch)"), "{unknown}");
        drop(store);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_player_may_resign_and_then_nobody_moves() {
        let (mut room, _) = Room::new(Game::QuantumShogi, None).unwrap();
        assert!(room.resign(Seat::Spectator).is_err());
        room.resign(Seat::Second).unwrap();
        assert_eq!(room.played.over().as_deref(), Some("gote resigns"));
        assert!(room.play(Seat::First, "7g7f").is_err());
        assert!(room.resign(Seat::First).is_err());
    }
}
