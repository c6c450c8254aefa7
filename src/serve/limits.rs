//! What one client may take, so that none starves the others: the caps on connections,
//! sessions and room sockets (and the places that count against them), the deadline of a request
//! head, and the kernel buffer of an upgraded socket.

// SAFETY: allowed for setsockopt for an upgraded socket's kernel buffer (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::{http, Server};
use http::Request;
use std::io::{self, Read};
use std::net::{IpAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest WebSocket message accepted (a long commented SGF fits).
pub const MAX_MESSAGE: usize = 256 << 10;
/// Open connections at once (each holds a thread); more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 128;
/// Engine sessions at once, unless `--max-sessions` says otherwise.
pub const DEFAULT_MAX_SESSIONS: usize = 8;
/// Room sockets at once (spectators, and players opening a new room): the rest of the
/// connections stay free for pages and engine tabs. A player joining their own seat does not
/// count against it (see [`MAX_PLAYER_SOCKETS_PER_ADDRESS`]): strangers' sockets never keep a
/// player out of their game.
pub const MAX_ROOM_SOCKETS: usize = 64;
/// Room sockets of [`MAX_ROOM_SOCKETS`] one client address may hold.
pub const MAX_ROOM_SOCKETS_PER_ADDRESS: usize = 16;
/// Sockets joining their own seat (with its token) at once. Anyone can open rooms and so hold
/// seats: this share, with [`MAX_ROOM_SOCKETS`] and the engine sessions, leaves connections for
/// pages (24 of [`MAX_CONNECTIONS`] with the default `--max-sessions`).
pub const MAX_PLAYER_SOCKETS: usize = 32;
/// Sockets of [`MAX_PLAYER_SOCKETS`] one client address may hold; each room takes at most
/// [`super::room::MAX_WATCHERS`].
pub const MAX_PLAYER_SOCKETS_PER_ADDRESS: usize = 16;

/// Engine sessions one client address may hold: three quarters of `--max-sessions` (rounded
/// up), so that one client never takes every session.
pub fn engine_sessions_per_address(max_sessions: usize) -> usize {
    (max_sessions - max_sessions / 4).max(1)
}

/// What a client address holds places of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Use {
    Room,
    Player,
    Engine,
}

/// One place of a client address, given back when dropped.
pub(super) struct AddressSlot<'a> {
    server: &'a Server,
    key: (IpAddr, Use),
}

impl<'a> AddressSlot<'a> {
    /// A place under `max` for `ip`, or None.
    pub(super) fn take(
        server: &'a Server,
        ip: IpAddr,
        what: Use,
        max: usize,
    ) -> Option<AddressSlot<'a>> {
        let mut held = server.per_address.lock();
        let n = held.entry((ip, what)).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(AddressSlot {
            server,
            key: (ip, what),
        })
    }
}

impl Drop for AddressSlot<'_> {
    fn drop(&mut self) {
        let mut held = self.server.per_address.lock();
        if let Some(n) = held.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.remove(&self.key);
            }
        }
    }
}
/// How long a new room socket waits for the place of a socket it had closed (its thread sees
/// the end and gives the place back within milliseconds).
const EVICTION_WAIT: Duration = Duration::from_secs(2);

/// One upgraded room socket holding a place under a global cap, for [`take_shared`] to choose
/// from when the cap is reached.
pub(super) struct Holder {
    id: u64,
    ip: IpAddr,
    what: Use,
    socket: super::tab::Socket,
    /// When the socket last sent a message (ms since 1970; its opening at first).
    last_message: AtomicI64,
    evicted: AtomicBool,
}

/// A [`Holder`] registered for as long as its socket is served.
pub(super) struct Held<'a> {
    server: &'a Server,
    holder: Arc<Holder>,
}

impl<'a> Held<'a> {
    pub(super) fn register(
        server: &'a Server,
        ip: IpAddr,
        what: Use,
        socket: &super::tab::Socket,
    ) -> Held<'a> {
        let holder = Arc::new(Holder {
            id: server.next_id.fetch_add(1, Ordering::SeqCst),
            ip,
            what,
            socket: socket.clone(),
            last_message: AtomicI64::new(super::store::now_ms()),
            evicted: AtomicBool::new(false),
        });
        server.holders.lock().push(Arc::clone(&holder));
        Held { server, holder }
    }

    /// The socket sent a message: it is not idle.
    pub(super) fn touch(&self) {
        let now = super::store::now_ms();
        self.holder.last_message.store(now, Ordering::Relaxed);
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let id = self.holder.id;
        self.server.holders.lock().retain(|h| h.id != id);
    }
}

/// A place under the global cap `max` of `counter` (room sockets, or players' seats) for a
/// socket of `ip`. When the cap is reached, the addresses present share it: an address holding
/// fewer than its share (`max` over the addresses holding places, itself counted) takes the
/// place of the socket idle longest (no message for the longest time) of the address holding
/// the most, when that one holds more than its share. That socket is told why and closed
/// (status 1013). None when no place comes free.
pub(super) fn take_shared<'a>(
    server: &Server,
    counter: &'a AtomicUsize,
    max: usize,
    ip: IpAddr,
    what: Use,
) -> Option<Slot<'a>> {
    if let Some(place) = Slot::take(counter, max) {
        return Some(place);
    }
    // This address's places, the sockets still opening counted (they are registered as holders
    // only once upgraded), less the place of this one.
    let mine = server
        .per_address
        .lock()
        .get(&(ip, what))
        .map_or(0, |n| n.saturating_sub(1));
    let victim = {
        let holders = server.holders.lock();
        let live = || {
            holders
                .iter()
                .filter(|h| h.what == what && !h.evicted.load(Ordering::SeqCst))
        };
        let mut held: Vec<(IpAddr, usize)> = Vec::new();
        for h in live() {
            match held.iter_mut().find(|(a, _)| *a == h.ip) {
                Some((_, n)) => *n += 1,
                None => held.push((h.ip, 1)),
            }
        }
        let addresses = held.len() + usize::from(!held.iter().any(|&(a, _)| a == ip));
        let share = max / addresses.max(1);
        // The most held, the lowest address among equals (no map's order decides).
        let (most, n) = held
            .iter()
            .copied()
            .max_by_key(|&(a, n)| (n, std::cmp::Reverse(a)))?;
        if mine >= share || n <= share || most == ip {
            return None;
        }
        let victim = live()
            .filter(|h| h.ip == most)
            .min_by_key(|h| (h.last_message.load(Ordering::Relaxed), h.id))?
            .clone();
        victim.evicted.store(true, Ordering::SeqCst);
        victim
    };
    // Offered, never waited for: a victim that does not read is dropped at once.
    victim.socket.offer_line(&format!(
        "info string error: closed to make room for another address: the room sockets are \
         shared among the addresses present when all {max} are taken, and yours holds more \
         than its share"
    ));
    victim.socket.close(1013, "room for another address");
    let deadline = Instant::now() + EVICTION_WAIT;
    loop {
        std::thread::sleep(Duration::from_millis(5));
        if let Some(place) = Slot::take(counter, max) {
            return Some(place);
        }
        if Instant::now() > deadline {
            return None;
        }
    }
}

/// The whole request head must arrive within this time (not per read: a byte every few seconds
/// does not keep a connection).
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// A WebSocket that sends nothing (not even the pong to the server's ping) for this long is
/// closed, unless `--idle-timeout` says otherwise; pings go out three times as often.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// A taken place in one of the server's counters, given back when dropped (whatever path the
/// connection takes, and when its thread could not even start).
pub(super) struct Slot<'a>(&'a AtomicUsize);

impl<'a> Slot<'a> {
    /// A place under `max`, or None.
    pub(super) fn take(counter: &'a AtomicUsize, max: usize) -> Option<Slot<'a>> {
        counter
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(counter))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The connection counter's place, owned (it moves into the connection thread).
pub(super) struct ConnectionSlot(pub(super) Arc<Server>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Shuts the connection that has been reading its head the longest; whether there was one. Its
/// thread ends at once and gives its place back; meanwhile the new connection is let in.
pub(super) fn evict_oldest_head(server: &Server) -> bool {
    let mut heads = server.heads.lock();
    if heads.is_empty() {
        return false;
    }
    let (_, _, stream) = heads.remove(0);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    true
}

/// Bytes the kernel may hold for one upgraded socket's client. Fixed (the default grows to
/// 4 MiB per socket): with the socket's queue ([`super::tab::SOCKET_QUEUE`] frames) it bounds
/// what a client that does not read costs, and how soon it is found out and dropped.
pub const SOCKET_SEND_BUFFER: i32 = 128 << 10;

pub(super) fn limit_send_buffer(stream: &TcpStream) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let bytes: libc::c_int = SOCKET_SEND_BUFFER;
        // SAFETY: a valid socket descriptor and an int option of the right size.
        unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                &bytes as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}

/// Reads with a deadline for the whole read (each read waits only for the time left).
struct DeadlineReader<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl DeadlineReader<'_> {
    /// Sets the socket's timeout to the time left, or fails once none is.
    fn arm(&self) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the request head took too long",
            ));
        }
        self.stream.set_read_timeout(Some(left))
    }
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm()?;
        (&mut &*self.stream).read(buf)
    }
}

impl http::Peek for DeadlineReader<'_> {
    fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm()?;
        self.stream.peek(buf)
    }
}

/// How long an answered connection is kept, at most, reading what the client still sends (a
/// body, the rest of a head too large), and how much of it is read.
pub const LINGER: Duration = Duration::from_secs(2);
pub const LINGER_BYTES: u64 = 1 << 20;

/// Ends a connection whose answer is written without a reset, which would destroy the answer
/// before the client reads it: closing a socket with unread bytes resets it. The answer is
/// followed by the end of the stream, and what the client still sends is read and dropped
/// until it closes, for at most [`LINGER`] and [`LINGER_BYTES`]. Meanwhile the connection
/// counts as reading its head, so it is the first to go when every connection is taken.
pub(super) fn close_answered(server: &Server, stream: TcpStream) {
    if stream.shutdown(std::net::Shutdown::Write).is_err() {
        return;
    }
    let id = server.next_id.fetch_add(1, Ordering::SeqCst);
    if let Ok(clone) = stream.try_clone() {
        server.heads.lock().push((id, Instant::now(), clone));
    }
    let reader = DeadlineReader {
        stream: &stream,
        deadline: Instant::now() + LINGER,
    };
    let _ = io::copy(&mut reader.take(LINGER_BYTES), &mut io::sink());
    server.heads.lock().retain(|(i, _, _)| *i != id);
}

/// [`close_answered`] for the listener's own `503`, which may not wait: only what the client
/// sent already is read and dropped (what comes later still resets the connection).
pub(super) fn close_refused(stream: TcpStream) {
    if stream.shutdown(std::net::Shutdown::Write).is_err() || stream.set_nonblocking(true).is_err()
    {
        return;
    }
    let mut buf = [0u8; 4096];
    let mut left = LINGER_BYTES;
    while left > 0 {
        match (&stream).read(&mut buf) {
            Ok(n) if n > 0 => left = left.saturating_sub(n as u64),
            _ => break,
        }
    }
}

pub(super) fn read_head(
    server: &Server,
    stream: &TcpStream,
) -> Result<Request, http::RequestError> {
    let id = server.next_id.fetch_add(1, Ordering::SeqCst);
    if let Ok(clone) = stream.try_clone() {
        server.heads.lock().push((id, Instant::now(), clone));
    }
    let mut reader = DeadlineReader {
        stream,
        deadline: Instant::now() + HEAD_DEADLINE,
    };
    let req = http::read_request(&mut reader);
    server.heads.lock().retain(|(i, _, _)| *i != id);
    req
}

/// Messages a room's seat (all its sockets together) or a spectator's socket sends a second,
/// on average, before the server slows its reading ([`Paces`]).
pub const ROOM_MESSAGES_PER_SECOND: u32 = 20;
/// Messages a room's seat or spectator may send at once before [`ROOM_MESSAGES_PER_SECOND`]
/// applies: a page joining a game asks for its positions one after another (`view`).
pub const ROOM_MESSAGE_BURST: u32 = 60;
/// Of those, the messages other than `view` (moves, names, an end agreement's changes: each one a
/// write to the game database, whose disk sync every room waits for) a second, on average.
pub const ROOM_ACTIONS_PER_SECOND: u32 = 4;
/// Actions at once before [`ROOM_ACTIONS_PER_SECOND`] applies (an end agreement may take many
/// clicks).
pub const ROOM_ACTION_BURST: u32 = 10;

/// A token bucket: past its burst, each message waits for its turn.
struct Pace {
    rate: f64,
    burst: f64,
    /// Messages that may still come at once (negative: messages already waiting their turn),
    /// as of the instant beside it.
    bucket: parking_lot::Mutex<(f64, Instant)>,
}

impl Pace {
    fn new(rate: u32, burst: u32, now: Instant) -> Pace {
        Pace {
            rate: f64::from(rate),
            burst: f64::from(burst),
            bucket: parking_lot::Mutex::new((f64::from(burst), now)),
        }
    }

    /// Takes the place of one message arriving at `now`: how long it waits before it is read.
    fn take(&self, now: Instant) -> Duration {
        let mut bucket = self.bucket.lock();
        let (left, then) = *bucket;
        let refilled = now.saturating_duration_since(then).as_secs_f64() * self.rate;
        let left = (left + refilled).min(self.burst) - 1.0;
        *bucket = (left, now.max(then));
        if left >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-left / self.rate)
        }
    }
}

/// The pace of a room client's messages: past a burst, each message waits for its turn before
/// it is read, and the socket is not read meanwhile (the client's sends wait in TCP's
/// buffers). Slowed rather than refused, so that a page asking for positions one after another
/// is only slower; and a flood costs the server no more than this pace, whatever it sends, so
/// it no longer slows other rooms through the database and the cores they share.
pub(super) struct Paces {
    messages: Pace,
    actions: Pace,
}

impl Paces {
    fn new(now: Instant) -> Paces {
        Paces {
            messages: Pace::new(ROOM_MESSAGES_PER_SECOND, ROOM_MESSAGE_BURST, now),
            actions: Pace::new(ROOM_ACTIONS_PER_SECOND, ROOM_ACTION_BURST, now),
        }
    }

    /// Takes the place of the message `text` arriving at `now`: how long it waits.
    pub(super) fn take(&self, text: &str, now: Instant) -> Duration {
        let wait = self.messages.take(now);
        if text.trim_start().starts_with("view ") {
            return wait;
        }
        wait.max(self.actions.take(now))
    }
}

/// The paces of a room socket's messages: a player's are their seat's, shared by every socket
/// that holds it (a seat may be open 16 times); a spectator's socket has its own.
pub(super) fn paces_of(server: &Server, room: &str, seat: Option<usize>) -> Arc<Paces> {
    let now = Instant::now();
    let Some(seat) = seat else {
        return Arc::new(Paces::new(now));
    };
    let mut paces = server.paces.lock();
    paces.retain(|_, pace| pace.strong_count() > 0);
    let key = (room.to_string(), seat);
    if let Some(pace) = paces.get(&key).and_then(std::sync::Weak::upgrade) {
        return pace;
    }
    let pace = Arc::new(Paces::new(now));
    paces.insert(key, Arc::downgrade(&pace));
    pace
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pace_lets_a_burst_through_then_one_message_per_period() {
        let t0 = Instant::now();
        let pace = Pace::new(ROOM_MESSAGES_PER_SECOND, ROOM_MESSAGE_BURST, t0);
        for _ in 0..ROOM_MESSAGE_BURST {
            assert_eq!(pace.take(t0), Duration::ZERO);
        }
        let period = 1.0 / f64::from(ROOM_MESSAGES_PER_SECOND);
        // Past the burst, messages arriving together wait one period more each.
        for k in 1..=3 {
            let wait = pace.take(t0).as_secs_f64();
            assert!((wait - k as f64 * period).abs() < 1e-9, "{k}: {wait}");
        }
        // Once their turns have passed, one message per period goes through at once.
        let later = t0 + Duration::from_secs_f64(4.0 * period);
        assert_eq!(pace.take(later), Duration::ZERO);
        assert!(pace.take(later) > Duration::ZERO);
        // A long pause fills the bucket up to the burst, not past it.
        let rested = later + Duration::from_secs(3600);
        for _ in 0..ROOM_MESSAGE_BURST {
            assert_eq!(pace.take(rested), Duration::ZERO);
        }
        assert!(pace.take(rested) > Duration::ZERO);
    }

    #[test]
    fn views_are_paced_as_messages_and_the_rest_as_actions_too() {
        let t0 = Instant::now();
        let paces = Paces::new(t0);
        for _ in 0..ROOM_ACTION_BURST {
            assert_eq!(paces.take("name x", t0), Duration::ZERO);
        }
        // The actions' burst is spent; views still pass until the messages' burst is.
        assert!(paces.take("move D4", t0) > Duration::ZERO);
        let views = ROOM_MESSAGE_BURST - ROOM_ACTION_BURST - 1;
        for _ in 0..views {
            assert_eq!(paces.take("view 3", t0), Duration::ZERO);
        }
        assert!(paces.take("view 3", t0) > Duration::ZERO);
    }
}
