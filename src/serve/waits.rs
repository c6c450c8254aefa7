//! Where a room message's time goes: waiting for the server's shared locks (the store's
//! connection, the room table, each room), running on a core, or neither (the disk's sync, a
//! core taken by another thread). The locks are taken through [`Timed`], which adds a contended
//! wait to the taking thread's own count; [`Stopwatch`] reads those counts and the thread's CPU
//! clock around one message. A room socket answers `timing` with its last message's figures
//! when the server runs with `--debug-timing` (protocol/serve.md); the counting itself is a
//! failed `try_lock` away, so it is always on.

// SAFETY: allowed for clock_gettime of the thread's CPU clock (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use parking_lot::{Mutex, MutexGuard};
use std::cell::Cell;
use std::time::Instant;

/// The shared locks whose waits are counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// The game database's one connection.
    Store,
    /// The table of rooms in memory (and their last use).
    Rooms,
    /// One room's game and connections.
    Room,
}

const LOCKS: usize = 3;

thread_local! {
    /// Nanoseconds this thread has waited for each [`Lock`].
    static WAITED: Cell<[u64; LOCKS]> = const { Cell::new([0; LOCKS]) };
}

/// A `parking_lot` mutex whose contended waits are counted for the waiting thread.
pub struct Timed<T> {
    lock: Lock,
    inner: Mutex<T>,
}

impl<T> Timed<T> {
    pub const fn new(lock: Lock, value: T) -> Timed<T> {
        Timed {
            lock,
            inner: Mutex::new(value),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, T> {
        if let Some(guard) = self.inner.try_lock() {
            return guard;
        }
        let asked = Instant::now();
        let guard = self.inner.lock();
        let waited = u64::try_from(asked.elapsed().as_nanos()).unwrap_or(u64::MAX);
        WAITED.with(|w| {
            let mut all = w.get();
            let slot = &mut all[self.lock as usize];
            *slot = slot.saturating_add(waited);
            w.set(all);
        });
        guard
    }
}

/// This thread's CPU time so far, in nanoseconds (0 where the clock cannot be read).
fn thread_cpu_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec it is given, which lives on this stack.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if r != 0 {
        return 0;
    }
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}

/// One message's time on its connection's thread, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// From the message read to its answers queued.
    pub wall_us: u64,
    /// Running on a core.
    pub cpu_us: u64,
    /// Waiting for each [`Lock`], in its order.
    pub wait_us: [u64; LOCKS],
}

impl Timing {
    pub fn json(&self) -> serde_json::Value {
        let waited: u64 = self.wait_us.iter().sum();
        serde_json::json!({
            "wall_us": self.wall_us,
            "cpu_us": self.cpu_us,
            "store_wait_us": self.wait_us[Lock::Store as usize],
            "rooms_wait_us": self.wait_us[Lock::Rooms as usize],
            "room_wait_us": self.wait_us[Lock::Room as usize],
            // Off the core and not waiting for a lock: the disk's sync, or a core busy elsewhere.
            "other_us": self.wall_us.saturating_sub(self.cpu_us + waited),
        })
    }
}

/// Started before a message is handled, read after it.
pub struct Stopwatch {
    wall: Instant,
    cpu_ns: u64,
    waited: [u64; LOCKS],
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu_ns: thread_cpu_ns(),
            waited: WAITED.with(Cell::get),
        }
    }

    pub fn read(&self) -> Timing {
        let waited = WAITED.with(Cell::get);
        let us = |ns: u64| ns / 1000;
        Timing {
            wall_us: u64::try_from(self.wall.elapsed().as_micros()).unwrap_or(u64::MAX),
            cpu_us: us(thread_cpu_ns().saturating_sub(self.cpu_ns)),
            wait_us: std::array::from_fn(|i| us(waited[i].saturating_sub(self.waited[i]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_contended_wait_is_counted_for_the_waiting_thread_only() {
        let shared = Arc::new(Timed::new(Lock::Store, 0u32));
        let guard = shared.lock();
        let other = Arc::clone(&shared);
        let waiter = std::thread::spawn(move || {
            let watch = Stopwatch::start();
            *other.lock() += 1;
            watch.read()
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(guard);
        let timing = waiter.join().unwrap();
        assert!(timing.wait_us[Lock::Store as usize] >= 40_000, "{timing:?}");
        assert_eq!(timing.wait_us[Lock::Room as usize], 0);
        // Parked, not spinning: the wait is not CPU time.
        assert!(timing.cpu_us < timing.wall_us / 2, "{timing:?}");
        // The holder never waited.
        let watch = Stopwatch::start();
        *shared.lock() += 1;
        assert_eq!(watch.read().wait_us, [0; LOCKS]);
        assert_eq!(*shared.lock(), 2);
    }
}
