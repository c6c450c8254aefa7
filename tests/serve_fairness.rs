//! Issue 70, point 10: a flood on one room does not slow another. Room B's move round trip (a
//! player's `move` sent → the opponent reads the state with it) is measured with room A quiet,
//! then while room A's 16 sockets (its two players, 14 spectators) push every kind of message a
//! client may send, then quiet again. The server runs with `--debug-timing`, so each of room B's
//! moves also says where its time went on the server: lock waits (store, room table, room), CPU,
//! and the rest (the disk's sync, a core taken by another thread). The figures are printed; the
//! test asserts the flood's effect on B's median. `by_hand_` runs the issue's whole attack (49k
//! messages).

// SAFETY: allowed for setsockopt (SO_LINGER) on the flooders' sockets (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

mod serve_support;

use serve_support::{frame_bytes, Client, Frame, Server};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// An empty 19x19 Go board: long games, long states.
fn go19() -> String {
    format!(
        "/room?new=go&start=19_{}_b",
        vec![".".repeat(19); 19].join("/")
    )
}

fn state_of(line: &str) -> serde_json::Value {
    serde_json::from_str(&line[6..]).expect("state JSON")
}

fn plies(state: &serde_json::Value) -> usize {
    state["moves"].as_array().map_or(0, Vec::len)
}

/// A room socket, waiting a little while the server gives back the places of sockets just
/// closed (16 room sockets per address; it learns of a close after the client).
fn open(server: &Server, path: &str) -> Client {
    for _ in 0..250 {
        if let Some(ws) = server.socket(path, &server.origin()) {
            return ws;
        }
        thread::sleep(Duration::from_millis(20));
    }
    panic!("{path} stays refused");
}

/// A room of 19x19 Go with both players in: (id, [first, second], the state).
fn open_room(server: &Server) -> (String, [Client; 2], serde_json::Value) {
    let origin = server.origin();
    let mut first = open(server, &go19());
    let words: Vec<String> = first.until(|_| true)[0]
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let (id, invite) = (words[1].clone(), words[5].clone());
    first.until(|l| l.starts_with("state "));
    let mut second = server
        .socket(&format!("/room?room={id}&seat={invite}"), &origin)
        .expect("the second seat");
    let state = state_of(&second.until(|l| l.starts_with("state ")).pop().unwrap());
    first.until(|l| l.starts_with("state "));
    (id, [first, second], state)
}

/// The move played at `ply`: a legal point (never a pass, so the game never enters scoring),
/// spread over the board by the ply.
fn pick(state: &serde_json::Value, ply: usize) -> Option<String> {
    let legal: Vec<&str> = state["legal"]
        .as_array()?
        .iter()
        .filter_map(|m| m.as_str())
        .filter(|m| *m != "pass")
        .collect();
    (!legal.is_empty()).then(|| legal[(ply * 37) % legal.len()].to_string())
}

/// One of room B's moves: its round trip, and the server's account of it.
struct Sample {
    round_trip_ms: f64,
    timing: serde_json::Value,
}

/// Plays `n` moves in room B, each timed from the send to the opponent's reading the state.
fn round_trips(players: &mut [Client; 2], state: &mut serde_json::Value, n: usize) -> Vec<Sample> {
    let mut out = Vec::new();
    for _ in 0..n {
        // A quick player's pace, within the server's (4 actions a second for a seat, after 20).
        thread::sleep(Duration::from_millis(200));
        let ply = plies(state);
        let Some(mv) = pick(state, ply) else { break };
        let mover = ply % 2;
        let t0 = Instant::now();
        players[mover].send(&format!("move {mv}"));
        let this_ply = |l: &str| l.starts_with("state ") && plies(&state_of(l)) == ply + 1;
        let seen = players[1 - mover].until(this_ply).pop().unwrap();
        let round_trip_ms = t0.elapsed().as_secs_f64() * 1e3;
        players[mover].until(this_ply);
        players[mover].send("timing");
        let line = players[mover]
            .until(|l| l.starts_with("timing "))
            .pop()
            .unwrap();
        *state = state_of(&seen);
        out.push(Sample {
            round_trip_ms,
            timing: serde_json::from_str(&line[7..]).expect("timing JSON"),
        });
    }
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The round trip's median and 90th percentile, then the means of the server's account (the
/// parts add up to the whole), in ms.
fn summary(samples: &[Sample]) -> [f64; 7] {
    let mean = |key: &str| {
        let sum: f64 = samples
            .iter()
            .map(|s| s.timing[key].as_f64().unwrap_or(f64::NAN) / 1e3)
            .sum();
        sum / samples.len().max(1) as f64
    };
    let mut trips: Vec<f64> = samples.iter().map(|s| s.round_trip_ms).collect();
    trips.sort_by(f64::total_cmp);
    let p90 = trips.get(trips.len() * 9 / 10).copied().unwrap_or(f64::NAN);
    [
        median(trips),
        p90,
        mean("wall_us"),
        mean("cpu_us"),
        mean("store_wait_us"),
        mean("room_wait_us") + mean("rooms_wait_us"),
        mean("other_us"),
    ]
}

fn row(name: &str, samples: &[Sample]) -> String {
    let [median, p90, wall, cpu, store, rooms, other] = summary(samples);
    format!(
        "| {name:<5} | {n:>3} | {median:>6.2} | {p90:>6.2} | {wall:>7.2} | {cpu:>4.2} | \
         {store:>10.2} | {rooms:>10.2} | {other:>5.2} |",
        n = samples.len()
    )
}

/// The flood on room A: every socket pushes messages as fast as the server reads them, and
/// reads everything it is sent (a flooder that does not read is dropped at once, which ends its
/// flood). Players play whenever it is their turn and rename themselves in between; spectators
/// step through the game, send unknown commands and try to move.
struct Flood {
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicUsize>,
    threads: Vec<thread::JoinHandle<()>>,
    /// Handles of the flooders' sockets, reset at the end (what the server has not read yet is
    /// dropped with them).
    streams: Vec<std::net::TcpStream>,
    /// Close statuses the server sent the flooders.
    closes: Arc<Mutex<Vec<u16>>>,
}

impl Flood {
    fn start(server: &Server, budget: usize) -> Flood {
        let (id, players, _) = open_room(server);
        let stop = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicUsize::new(0));
        let closes = Arc::new(Mutex::new(Vec::new()));
        let mut sockets: Vec<(Option<usize>, Client)> = players
            .into_iter()
            .enumerate()
            .map(|(i, c)| (Some(i), c))
            .collect();
        for _ in 0..14 {
            let mut watcher = open(server, &format!("/room?room={id}"));
            watcher.until(|l| l.starts_with("state "));
            sockets.push((None, watcher));
        }
        let mut threads = Vec::new();
        let mut streams = Vec::new();
        for (n, (seat, client)) in sockets.into_iter().enumerate() {
            streams.push(client.stream.try_clone().unwrap());
            let writer = Arc::new(Mutex::new(client.stream.try_clone().unwrap()));
            let (stop, sent, closes) = (stop.clone(), sent.clone(), closes.clone());
            let send = {
                let (writer, sent, stop) = (writer.clone(), sent.clone(), stop.clone());
                move |text: &str| -> bool {
                    if stop.load(Ordering::Relaxed) || sent.fetch_add(1, Ordering::SeqCst) >= budget
                    {
                        return false;
                    }
                    let frame = frame_bytes(1, true, text.as_bytes(), Some([1, 2, 3, 4]));
                    writer.lock().unwrap().write_all(&frame).is_ok()
                }
            };
            // The reader: drains the socket, and a player answers each state of its turn.
            let reader_send = send.clone();
            let reader_stop = stop.clone();
            threads.push(thread::spawn(move || {
                let mut client = client;
                let _ = client
                    .stream
                    .set_read_timeout(Some(Duration::from_millis(200)));
                loop {
                    match client.next() {
                        Some(Frame::Text(t)) if t.starts_with("state ") => {
                            let state = state_of(&t);
                            let ply = plies(&state);
                            let mine = seat.is_some_and(|s| ply % 2 == s);
                            if let Some(mv) = pick(&state, ply).filter(|_| mine) {
                                reader_send(&format!("move {mv}"));
                            }
                        }
                        Some(Frame::Close(code)) => {
                            closes.lock().unwrap().push(code);
                            return;
                        }
                        Some(_) => {}
                        None if reader_stop.load(Ordering::Relaxed) => return,
                        // A read timeout, or the end: the end is seen again at once.
                        None => {
                            let mut probe = [0u8; 1];
                            if client.stream.peek(&mut probe).ok() == Some(0) {
                                return;
                            }
                        }
                    }
                }
            }));
            threads.push(thread::spawn(move || {
                for i in 0.. {
                    let text = match (seat, i % 3) {
                        (Some(s), _) => format!("name flood{s}x{}", i % 2),
                        (None, 0) => format!("view {}", (i + n) % 50),
                        (None, 1) => "chat hello everyone".to_string(),
                        (None, _) => "move D4".to_string(),
                    };
                    if !send(&text) {
                        return;
                    }
                }
            }));
        }
        Flood {
            stop,
            sent,
            threads,
            streams,
            closes,
        }
    }

    /// Ends the flood: the messages sent and the close statuses received.
    fn end(self) -> (usize, Vec<u16>) {
        self.stop.store(true, Ordering::SeqCst);
        for stream in &self.streams {
            reset(stream);
        }
        for t in self.threads {
            let _ = t.join();
        }
        let sent = self.sent.load(Ordering::SeqCst);
        let closes = self.closes.lock().unwrap().clone();
        (sent, closes)
    }
}

/// Ends `stream` as a client that vanishes: shut (which wakes the flooder's threads blocked on
/// it), then reset (SO_LINGER 0) once its last handle is closed.
fn reset(stream: &std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket descriptor and a linger struct of the right size.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &linger as *const libc::linger as *const libc::c_void,
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Room B's moves in `blocks` rounds of `per_block` moves quiet then `per_block` under a flood
/// on a new room A of at most `budget` messages (interleaved, so that a machine's load that
/// comes and goes weighs on both alike), and quiet once more; prints the table and gives (quiet
/// median, flood median) in ms.
fn measure(blocks: usize, per_block: usize, budget: usize) -> (f64, f64) {
    let server = Server::start_with(2, &["--debug-timing"]);
    let (_, mut b, mut state) = open_room(&server);
    // Warm up: the first moves open the database's pages and the threads' stacks.
    round_trips(&mut b, &mut state, 5);
    let mut quiet = round_trips(&mut b, &mut state, per_block);
    let mut flooded = Vec::new();
    let (mut sent, mut secs, mut cpu, mut closes) = (0, 0.0, 0.0, Vec::new());
    for _ in 0..blocks {
        let cpu_before = server.cpu_seconds();
        let t0 = Instant::now();
        let flood = Flood::start(&server, budget);
        // Let the flood reach its pace before measuring.
        thread::sleep(Duration::from_millis(300));
        flooded.extend(round_trips(&mut b, &mut state, per_block));
        let (n, closed) = flood.end();
        sent += n;
        closes.extend(closed);
        secs += t0.elapsed().as_secs_f64();
        cpu += server.cpu_seconds() - cpu_before;
        thread::sleep(Duration::from_millis(300));
        quiet.extend(round_trips(&mut b, &mut state, per_block));
    }
    println!(
        "room A floods: {blocks} of 16 sockets, {sent} messages written in {secs:.1} s, server \
         CPU {cpu:.1} s meanwhile; closes sent to flooders: {closes:?}"
    );
    println!(
        "room B's moves: round trip median and 90th percentile; on the server, means per move \
         (ms)\n\
         | B     |   n | median |    p90 | handled |  CPU | store wait | room waits | other |\n\
         |-------|-----|--------|--------|---------|------|------------|------------|-------|"
    );
    println!("{}", row("quiet", &quiet));
    println!("{}", row("flood", &flooded));
    (summary(&quiet)[0], summary(&flooded)[0])
}

#[test]
fn a_flood_on_one_room_leaves_another_within_twice_its_median() {
    let (quiet, flood) = measure(3, 10, 1_000_000);
    // A millisecond of slack: on an idle machine the quiet median is a few milliseconds, where
    // a scheduler's tick is a large part.
    assert!(
        flood <= 2.0 * quiet + 1.0,
        "room B's median move round trip: {quiet:.2} ms quiet, {flood:.2} ms under the flood"
    );
}

#[test]
#[ignore = "by hand: the issue's attack, 49k messages into room A"]
fn by_hand_the_issues_attack() {
    let (quiet, flood) = measure(1, 100, 49_000);
    println!(
        "quiet {quiet:.2} ms, flood {flood:.2} ms, ratio {:.2}",
        flood / quiet
    );
}
