//! What a room's players ask of each other, as lichess and OGS have it: a draw, a takeback, and
//! once the game is over a rematch. One player offers, the other accepts or declines, the one
//! who offered may withdraw. See protocol/serve.md ("Offers").
//!
//! Each offer and answer is kept (the `offers` table, one row per kind and seat) before anyone
//! is shown it, so an offer waits across a restart. A draw or takeback offer lapses with the
//! next move: it is pending only while the game has the plies it was made at. A player has one
//! offer of a kind pending at most, and an offer declined or withdrawn is not made again before
//! the next move (a rematch not again at all): nobody is asked the same thing twice in a row.

use super::room::{Room, RoomError, Seat};
use crate::serve::clock::{self, Clock};
use crate::serve::played::Played;
use crate::serve::store::{now_ms, Birth, Store};

/// What is offered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Draw,
    Takeback,
    Rematch,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Draw => "draw",
            Kind::Takeback => "takeback",
            Kind::Rematch => "rematch",
        }
    }

    pub fn parse(word: &str) -> Option<Kind> {
        [Kind::Draw, Kind::Takeback, Kind::Rematch]
            .into_iter()
            .find(|k| k.as_str() == word)
    }

    /// Whether it lapses with the next move (a rematch comes once the game is over).
    fn lapses(self) -> bool {
        self != Kind::Rematch
    }
}

/// Where an offer stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Answer {
    Pending,
    Declined,
    Withdrawn,
    Accepted,
}

impl Answer {
    /// As stored (None: pending).
    pub fn as_str(self) -> Option<&'static str> {
        match self {
            Answer::Pending => None,
            Answer::Declined => Some("declined"),
            Answer::Withdrawn => Some("withdrawn"),
            Answer::Accepted => Some("accepted"),
        }
    }

    pub fn parse(text: Option<&str>) -> Option<Answer> {
        [
            Answer::Pending,
            Answer::Declined,
            Answer::Withdrawn,
            Answer::Accepted,
        ]
        .into_iter()
        .find(|a| a.as_str() == text)
    }
}

/// One offer as kept: the last of its kind from its seat.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferRow {
    pub kind: Kind,
    pub seat: usize,
    /// The game's plies when it was made.
    pub ply: usize,
    pub answer: Answer,
    /// An accepted rematch's room.
    pub room: Option<String>,
}

/// A room's offers, made and answered.
#[derive(Clone, Debug, Default)]
pub struct Offers(Vec<OfferRow>);

/// Why an offer, or its answer, is refused (one `info string error:` line).
#[derive(Debug, thiserror::Error)]
pub enum OfferError {
    #[error("a spectator cannot offer, accept or decline")]
    Spectator,
    #[error(
        "a draw by agreement is not a result of {0}: the game ends by its score or a resignation"
    )]
    NoDraw(&'static str),
    #[error("a rematch is offered once the game is over")]
    NotOver,
    #[error("you have offered a {0} already: wait for the answer, or withdraw it")]
    Already(&'static str),
    #[error("your {0} offer was answered: offer it again after the next move")]
    Again(&'static str),
    #[error("your rematch offer was answered: start a new game from the home page")]
    NoSecondRematch,
    #[error("there is no {0} offer of your opponent's to {1}")]
    NoneToAnswer(&'static str, &'static str),
    #[error("there is no {0} offer of yours to withdraw")]
    NoneToWithdraw(&'static str),
    #[error("you have no move to take back")]
    NoMove,
    #[error("a takeback does not go back past a resume of the end agreement")]
    PastResume,
    #[error("the rematch is the game {0} already")]
    Rematched(String),
    /// Not `offer`, `accept`, `decline` or `withdraw` of `draw`, `takeback` or `rematch`.
    #[error("expected offer, accept, decline or withdraw, then draw, takeback or rematch")]
    Unknown,
}

crate::games::error_text!(derived: OfferError);

impl Offers {
    pub fn new(rows: Vec<OfferRow>) -> Offers {
        Offers(rows)
    }

    fn row(&self, kind: Kind, seat: usize) -> Option<&OfferRow> {
        self.0.iter().find(|r| r.kind == kind && r.seat == seat)
    }

    /// Whether `seat`'s last offer of `kind` still counts at `plies` (a draw or takeback made
    /// before the last move does not).
    fn current(&self, kind: Kind, seat: usize, plies: usize) -> Option<&OfferRow> {
        self.row(kind, seat)
            .filter(|r| !kind.lapses() || r.ply == plies)
    }

    fn pending(&self, kind: Kind, seat: usize, plies: usize) -> bool {
        self.current(kind, seat, plies)
            .is_some_and(|r| r.answer == Answer::Pending)
    }

    fn put(&mut self, row: OfferRow) {
        self.0.retain(|r| (r.kind, r.seat) != (row.kind, row.seat));
        self.0.push(row);
    }

    /// Whether the players agreed a draw.
    pub fn drawn(&self) -> bool {
        self.0
            .iter()
            .any(|r| r.kind == Kind::Draw && r.answer == Answer::Accepted)
    }

    /// The rematch's room, once agreed.
    pub fn rematch(&self) -> Option<&str> {
        self.0
            .iter()
            .find(|r| r.kind == Kind::Rematch && r.answer == Answer::Accepted)
            .and_then(|r| r.room.as_deref())
    }

    /// The offers waiting for an answer, as the state shows them (`players`: the seats' names).
    pub fn json(&self, players: [&str; 2], plies: usize) -> serde_json::Value {
        let mut rows: Vec<&OfferRow> = self
            .0
            .iter()
            .filter(|r| self.pending(r.kind, r.seat, plies))
            .collect();
        rows.sort_by_key(|r| (r.kind.as_str(), r.seat));
        rows.iter()
            .map(|r| serde_json::json!({ "kind": r.kind.as_str(), "by": players[r.seat] }))
            .collect()
    }
}

impl Room {
    /// `<verb> <kind>` from `seat`: an offer made, withdrawn, declined or accepted; kept, then
    /// taken (an accepted draw ends the game, a takeback cuts it, a rematch makes its room).
    pub(super) fn offer(
        &mut self,
        store: &Store,
        seat: Seat,
        verb: &str,
        kind: &str,
    ) -> Result<(), RoomError> {
        let who = seat.index().ok_or(OfferError::Spectator)?;
        let kind = Kind::parse(kind).ok_or(OfferError::Unknown)?;
        let plies = self.played.moves.len();
        let over = self.over();
        match (kind, over) {
            (Kind::Rematch, None) => return Err(OfferError::NotOver.into()),
            (Kind::Rematch, Some(_)) => {
                if let Some(id) = self.offers.rematch() {
                    return Err(OfferError::Rematched(id.into()).into());
                }
            }
            (_, Some(why)) => return Err(RoomError::Over(why)),
            (Kind::Draw, None) if !self.played.variant.draw_by_agreement() => {
                return Err(OfferError::NoDraw(self.played.variant.as_str()).into())
            }
            (Kind::Takeback, None) if self.phase() != super::end::Phase::Play => {
                return Err(RoomError::Agreeing(self.texts()))
            }
            _ => {}
        }
        let name = self.played.variant.players()[who];
        let words = kind.as_str();
        let theirs = self.offers.pending(kind, 1 - who, plies);
        let mine = self.offers.pending(kind, who, plies);
        let row = |seat, answer| OfferRow {
            kind,
            seat,
            ply: plies,
            answer,
            room: None,
        };
        let (row, note) = match (verb, theirs, mine) {
            // Offering what the opponent offers accepts it.
            ("offer" | "accept", true, _) => return self.accept(store, who, kind),
            ("decline", true, _) => {
                let mut row = self
                    .offers
                    .row(kind, 1 - who)
                    .cloned()
                    .unwrap_or(row(1 - who, Answer::Pending));
                row.answer = Answer::Declined;
                (row, format!("{name} declines the {words}"))
            }
            ("accept", false, _) => return Err(OfferError::NoneToAnswer(words, "accept").into()),
            ("decline", false, _) => return Err(OfferError::NoneToAnswer(words, "decline").into()),
            ("offer", _, true) => return Err(OfferError::Already(words).into()),
            ("offer", _, false) => {
                if self.offers.current(kind, who, plies).is_some() {
                    return Err(match kind {
                        Kind::Rematch => OfferError::NoSecondRematch,
                        _ => OfferError::Again(words),
                    }
                    .into());
                }
                if kind == Kind::Takeback {
                    self.takeback_point(who)?;
                }
                let note = match kind {
                    Kind::Draw => format!("{name} offers a draw"),
                    Kind::Takeback => format!("{name} asks to take back their last move"),
                    Kind::Rematch => format!("{name} offers a rematch"),
                };
                (row(who, Answer::Pending), note)
            }
            ("withdraw", _, true) => (
                row(who, Answer::Withdrawn),
                format!("{name} withdraws the {words} offer"),
            ),
            ("withdraw", _, false) => return Err(OfferError::NoneToWithdraw(words).into()),
            _ => return Err(OfferError::Unknown.into()),
        };
        self.keep(store, row, note)
    }

    /// Keeps `row`, then shows it.
    fn keep(&mut self, store: &Store, row: OfferRow, note: String) -> Result<(), RoomError> {
        store
            .set_offer(&self.id, &row)
            .map_err(RoomError::Unsaved)?;
        self.offers.put(row);
        self.note = Some(note);
        Ok(())
    }

    /// `who` accepts the opponent's offer of `kind`.
    fn accept(&mut self, store: &Store, who: usize, kind: Kind) -> Result<(), RoomError> {
        let by = 1 - who;
        let name = self.played.variant.players()[who];
        let mut row = self
            .offers
            .row(kind, by)
            .cloned()
            .ok_or(OfferError::NoneToAnswer(kind.as_str(), "accept"))?;
        row.answer = Answer::Accepted;
        let now = now_ms();
        // The time up to the answer is charged to the side to move; a flag that fell first
        // decides the game instead.
        let mut clock = self.clock.clone();
        if kind != Kind::Rematch {
            if let Some(c) = &mut clock {
                if !c.charge(now) {
                    let side = self.played.turn();
                    self.fall(store, side)?;
                    return Ok(());
                }
            }
        }
        match kind {
            Kind::Draw => {
                let mut next = self.replayed(self.played.moves.len())?;
                next.drawn = true;
                // A drawn game always has its ending; `Unknown` is never said.
                let ending = next.ending().ok_or(OfferError::Unknown)?;
                store
                    .agree_draw(&self.id, &row, &ending, clock.as_ref())
                    .map_err(RoomError::Unsaved)?;
                self.played = next;
                self.note = Some(format!("{name} accepts the draw"));
            }
            Kind::Takeback => {
                let keep = self.takeback_point(by)?;
                let next = self.replayed(keep)?;
                // The time is not given back: each side keeps what it has, and the requester's
                // runs from now (none before the game's first move, which is never timed).
                if let Some(c) = &mut clock {
                    if keep > 0 {
                        c.start(next.turn(), now);
                    }
                }
                store
                    .take_back(&self.id, keep, clock.as_ref())
                    .map_err(RoomError::Unsaved)?;
                let taken = self.played.moves.len() - keep;
                self.played = next;
                self.offers.0.retain(|r| !r.kind.lapses());
                self.aside = None;
                self.note = Some(format!(
                    "{name} accepts the takeback: {taken} move{} taken back",
                    if taken == 1 { "" } else { "s" }
                ));
            }
            Kind::Rematch => {
                let id = self.rematch(store, &mut row)?;
                self.note = Some(format!("{name} accepts the rematch: the game {id}"));
                self.offers.put(row);
                return Ok(());
            }
        }
        if let Some(c) = clock {
            clock::arm(&self.id, c.deadline());
            self.clock = Some(c);
        }
        self.offers.put(row);
        Ok(())
    }

    /// The game's first `plies` moves, as they were played.
    fn replayed(&self, plies: usize) -> Result<Played, RoomError> {
        let p = &self.played;
        Played::under(
            p.variant,
            p.options.clone(),
            Some(p.start.clone()),
            p.moves[..plies.min(p.moves.len())].to_vec(),
        )
        .map_err(RoomError::Game)
    }

    /// How many moves stay when `seat` takes back its last move (and the reply after it, as
    /// lichess): the position before that move, where `seat` is to move and has a move to make
    /// (an automatic pass the rules made is never where a takeback stops). Looked for among the
    /// last few plies only, each a replay.
    fn takeback_point(&self, seat: usize) -> Result<usize, RoomError> {
        let plies = self.played.moves.len();
        let resumed = self.end.as_ref().map_or(0, |end| end.resumed);
        for keep in (0..plies).rev().take(6) {
            let before = self.replayed(keep)?;
            if before.turn() == seat && before.with_automatic_pass().moves.len() == keep {
                if keep < resumed {
                    return Err(OfferError::PastResume.into());
                }
                return Ok(keep);
            }
        }
        Err(OfferError::NoMove.into())
    }

    /// The rematch's room, made and kept with `row` (the offer accepted, naming it) at once:
    /// the same start and clock, the colours swapped. Its seats are the same players' tokens,
    /// so each player's link opens their new seat (and a player away meanwhile finds it).
    fn rematch(&mut self, store: &Store, row: &mut OfferRow) -> Result<String, RoomError> {
        let start = match &self.played.start {
            crate::protocol::StartSpec::Sfen(fields) => Some(fields.clone()),
            crate::protocol::StartSpec::Startpos => None,
        };
        let (mut next, _) = Room::new(self.played.variant, start)?;
        next.seats = [self.seats[1].clone(), self.seats[0].clone()];
        next.clock = self.clock.as_ref().map(|c| Clock::new(c.spec));
        next.names = [self.names[1].clone(), self.names[0].clone()];
        row.room = Some(next.id.clone());
        let birth = Birth {
            clock: next.clock.as_ref(),
            names: next.names.clone(),
            rematch_of: Some((&self.id, row)),
            ..Birth::default()
        };
        store
            .create(&next.stored(), &birth)
            .map_err(RoomError::Unsaved)?;
        Ok(next.id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::room::{Room, Seat};
    use super::*;
    use crate::registry::Game;
    use crate::serve::clock::ClockSpec;

    /// A room of `game` kept in a fresh database (`name`: its folder).
    fn kept(name: &str, game: Game, clock: Option<&str>) -> (Store, Room, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("ryoshi-offers-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&dir.join("games.db")).unwrap();
        let (mut room, _) = Room::new(game, None).unwrap();
        room.clock = clock.map(|c| Clock::new(ClockSpec::parse(c).unwrap()));
        let birth = Birth {
            clock: room.clock.as_ref(),
            ..Birth::default()
        };
        store.create(&room.stored(), &birth).unwrap();
        (store, room, dir)
    }

    /// A move as the room plays it, kept.
    fn play(store: &Store, room: &mut Room, seat: Seat, mv: &str) {
        let next = room.played(seat, mv).unwrap();
        let from = room.played.moves.len();
        store
            .set_moves(&room.id, from, &next.moves[from..], None, None)
            .unwrap();
        room.take(next, seat.index().map(|i| (i, mv)));
    }

    fn pending(room: &Room) -> serde_json::Value {
        let names = room.played.variant.players();
        room.offers.json(names, room.played.moves.len())
    }

    fn error(outcome: Result<(), RoomError>) -> String {
        outcome.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn a_draw_offer_waits_lapses_and_once_accepted_ends_the_game_as_kept() {
        let (store, mut room, dir) = kept("draw", Game::Othello, Some("600+5"));
        let r = &mut room;
        assert!(error(r.offer(&store, Seat::Spectator, "offer", "draw")).contains("spectator"));
        r.offer(&store, Seat::First, "offer", "draw").unwrap();
        assert_eq!(
            pending(r),
            serde_json::json!([{"kind": "draw", "by": "black"}])
        );
        assert_eq!(r.note.as_deref(), Some("black offers a draw"));
        assert!(error(r.offer(&store, Seat::First, "offer", "draw")).contains("already"));
        assert!(error(r.offer(&store, Seat::First, "accept", "draw")).contains("no draw offer"));
        r.offer(&store, Seat::Second, "decline", "draw").unwrap();
        assert_eq!(pending(r), serde_json::json!([]));
        // Declined: not again before a move.
        assert!(error(r.offer(&store, Seat::First, "offer", "draw")).contains("after the next"));
        play(&store, r, Seat::First, "f5");
        r.offer(&store, Seat::First, "offer", "draw").unwrap();
        // The next move lets it lapse.
        play(&store, r, Seat::Second, "d6");
        assert_eq!(pending(r), serde_json::json!([]));
        assert!(error(r.offer(&store, Seat::Second, "accept", "draw")).contains("no draw offer"));
        r.offer(&store, Seat::Second, "offer", "draw").unwrap();
        r.offer(&store, Seat::Second, "withdraw", "draw").unwrap();
        assert_eq!(pending(r), serde_json::json!([]));
        play(&store, r, Seat::First, "c3");
        r.offer(&store, Seat::Second, "offer", "draw").unwrap();
        // Offering what the opponent offers accepts it.
        r.clock.as_mut().unwrap().start(0, now_ms());
        r.offer(&store, Seat::First, "offer", "draw").unwrap();
        assert_eq!(r.over().as_deref(), Some("draw by agreement"));
        assert_eq!(r.state()["phase"], "over");
        assert_eq!(r.clock.as_ref().unwrap().running, None, "the clocks stop");
        assert!(r.played(Seat::Second, "c4").is_err());
        assert!(error(r.offer(&store, Seat::First, "offer", "draw")).contains("is over"));
        // Kept: the archive's result, and the agreement read back after a restart.
        let (list, _) = store.list(0, 1).unwrap();
        assert_eq!(list[0].result.as_deref(), Some("draw"));
        assert_eq!(list[0].reason.as_deref(), Some("agreement"));
        let id = r.id.clone();
        drop(store);
        let store = Store::open(&dir.join("games.db")).unwrap();
        assert!(Offers::new(store.offers(&id).unwrap()).drawn());
        assert_eq!(store.load_clock(&id).unwrap().unwrap().running, None);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn go_has_no_draw_by_agreement() {
        let (store, mut room, dir) = kept("godraw", Game::Go, None);
        let why = error(room.offer(&store, Seat::First, "offer", "draw"));
        assert!(why.contains("not a result of go"), "{why}");
        assert_eq!(room.state()["draws"], false);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_takeback_goes_back_to_the_requesters_move_and_keeps_the_time_spent() {
        let (store, mut room, dir) = kept("takeback", Game::QuantumShogi, Some("600+10"));
        let r = &mut room;
        assert!(error(r.offer(&store, Seat::First, "offer", "takeback")).contains("no move"));
        play(&store, r, Seat::First, "7g7f");
        // Gote has no move yet; sente's own move is taken back alone.
        assert!(error(r.offer(&store, Seat::Second, "offer", "takeback")).contains("no move"));
        play(&store, r, Seat::Second, "3c3d");
        play(&store, r, Seat::First, "2g2f");
        // Gote to move asks: its reply 3c3d and sente's 2g2f after it go.
        let now = now_ms();
        r.clock.as_mut().unwrap().start(1, now - 5_000);
        r.offer(&store, Seat::Second, "offer", "takeback").unwrap();
        r.offer(&store, Seat::First, "offer", "draw").unwrap();
        r.offer(&store, Seat::First, "accept", "takeback").unwrap();
        assert_eq!(r.played.moves, ["7g7f"]);
        assert_eq!(r.played.turn(), 1);
        assert_eq!(
            r.note.as_deref(),
            Some("sente accepts the takeback: 2 moves taken back")
        );
        // The draw offer made before it is gone with it.
        assert_eq!(pending(r), serde_json::json!([]));
        let clock = r.clock.clone().unwrap();
        // Not refunded: gote's 5 s (and more) are spent, no increment; gote's time runs.
        assert!(clock.left[1] <= 595_000, "{:?}", clock.left);
        assert_eq!(clock.left[0], 600_000);
        assert_eq!(clock.running.map(|(side, _)| side), Some(1));
        // Kept: the moves and the clock as they are now.
        let stored = store.load(&r.id).unwrap().unwrap();
        assert_eq!(stored.moves, ["7g7f"]);
        assert_eq!(store.load_clock(&r.id).unwrap(), Some(clock));
        // Sente to move asks again after a move: only its own last move goes.
        play(&store, r, Seat::Second, "3c3d");
        r.offer(&store, Seat::First, "offer", "takeback").unwrap();
        r.offer(&store, Seat::Second, "decline", "takeback")
            .unwrap();
        assert_eq!(r.played.moves, ["7g7f", "3c3d"]);
        assert_eq!(r.note.as_deref(), Some("gote declines the takeback"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_takeback_steps_over_the_passes_the_rules_made() {
        // Rows 1 and 8 are `-OXXXXXX`: black's a1 leaves white no move, so white passes at once.
        let board = format!(
            "-OXXXXXX{}---XX------XX---{}-OXXXXXX",
            "-".repeat(16),
            "-".repeat(16)
        );
        let (store, _, dir) = kept("passes", Game::Othello, None);
        let (mut room, _) = Room::new(Game::Othello, Some(vec![board, "b".into()])).unwrap();
        store.create(&room.stored(), &Birth::default()).unwrap();
        play(&store, &mut room, Seat::First, "a1");
        assert_eq!(room.played.moves, ["a1", "pass"]);
        // Black is to move again; its last move is a1: the pass goes with it.
        room.offer(&store, Seat::First, "offer", "takeback")
            .unwrap();
        room.offer(&store, Seat::Second, "accept", "takeback")
            .unwrap();
        assert!(room.played.moves.is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_rematch_is_a_new_room_with_the_colours_swapped() {
        let (store, mut room, dir) = kept("rematch", Game::Go, Some("0b30x5"));
        room.names = [Some("Ann".into()), Some("Bob".into())];
        assert!(
            error(room.offer(&store, Seat::First, "offer", "rematch")).contains("once the game")
        );
        play(&store, &mut room, Seat::First, "E5");
        let next = room.resigned(Seat::Second).unwrap();
        store
            .set_moves(&room.id, 1, &[], next.resigned, next.ending().as_ref())
            .unwrap();
        room.take(next, None);
        room.offer(&store, Seat::Second, "offer", "rematch")
            .unwrap();
        assert_eq!(
            pending(&room),
            serde_json::json!([{"kind": "rematch", "by": "white"}])
        );
        room.offer(&store, Seat::First, "accept", "rematch")
            .unwrap();
        let id = room.offers.rematch().unwrap().to_string();
        assert_ne!(id, room.id);
        assert_eq!(room.state()["rematch"], id.as_str());
        assert!(error(room.offer(&store, Seat::First, "offer", "rematch")).contains(&id));
        let new = store.load(&id).unwrap().unwrap();
        let old = store.load(&room.id).unwrap().unwrap();
        let [a, b] = old.seats.unwrap();
        assert_eq!(new.seats, Some([b, a]));
        assert!(new.moves.is_empty() && new.start == old.start);
        assert_eq!(
            store.names(&id).unwrap(),
            [Some("Bob".into()), Some("Ann".into())]
        );
        let clock = store.load_clock(&id).unwrap().unwrap();
        assert_eq!(
            (clock.spec.to_string().as_str(), clock.left),
            ("0b30x5", [0, 0])
        );
        // The old room names it after a restart too.
        let old_id = room.id.clone();
        drop(store);
        let store = Store::open(&dir.join("games.db")).unwrap();
        assert_eq!(
            Offers::new(store.offers(&old_id).unwrap()).rematch(),
            Some(id.as_str())
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
