//! Ctrl-C (and SIGTERM, SIGHUP) and engine process groups through the C library's `signal`
//! and `kill` (`libc`).
//!
//! The handler only stores into atomics and makes system calls that are async-signal-safe: the
//! first signal sets a flag that the runner polls (it stops handing out games and prints the
//! summary of the finished ones); a second one kills every engine's process group still
//! registered and ends the process at once, so that no engine outlives the runner.

// SAFETY: allowed for signal handlers, kill and _exit (libc), so that no engine outlives the runner.
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Engine process groups alive now (0: a free slot), for a second signal to kill on its way
/// out. Two engines a game, at most [`super::config::MAX_CONCURRENCY`] games at once, and a
/// restarted engine's group is in until its old one is gone.
static GROUPS: [AtomicI32; 1024] = [const { AtomicI32::new(0) }; 1024];

/// True once SIGINT, SIGTERM or SIGHUP has arrived (after `install`).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    if !INTERRUPTED.swap(true, Ordering::SeqCst) {
        return;
    }
    for slot in &GROUPS {
        kill_group(slot.load(Ordering::SeqCst));
    }
    // SAFETY: `_exit` is async-signal-safe and ends the process without running anything.
    unsafe { libc::_exit(128 + signal) }
}

/// Installs the handler for SIGINT, SIGTERM and SIGHUP (a no-op where there are no Unix
/// signals): a terminal closed, `kill` or a CI's timeout stop the match as Ctrl-C does.
pub fn install() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `on_signal` only touches atomics and calls `kill` and `_exit`, which are
        // async-signal-safe.
        unsafe {
            libc::signal(
                signal,
                on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Keeps the engine group `pgid` for a second signal to kill; false when every slot is taken
/// (the group is then killed only the usual way).
pub fn register_group(pgid: i32) -> bool {
    GROUPS.iter().any(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// The group `pgid` is gone (killed and its leader reaped): its id may be reused.
pub fn unregister_group(pgid: i32) {
    for slot in &GROUPS {
        if slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Ignores SIGPIPE, so writing to an engine that has died is an error the runner handles (the
/// engine loses) rather than a signal that ends the runner.
pub fn ignore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// SIGKILL to the process group `pgid` (an engine and whatever it started).
#[cfg(unix)]
pub fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: a plain system call; a group that no longer exists just yields ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}
