//! Ctrl-C and engine process groups through the C library's `signal` and `kill` (`libc`).
//!
//! The handler only stores into an atomic (async-signal-safe); the runner polls the flag, stops
//! handing out games and prints the summary of the finished ones. A second Ctrl-C, once the
//! runner has seen the first, ends the process the default way.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// True once SIGINT has arrived (after `install`).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs the SIGINT handler (a no-op where there are no Unix signals).
pub fn install() {
    #[cfg(unix)]
    // SAFETY: `on_sigint` only performs an atomic store, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
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

/// Puts SIGINT back to its default action, so a second Ctrl-C ends the process.
pub fn restore_default() {
    #[cfg(unix)]
    // SAFETY: resetting a disposition to SIG_DFL has no preconditions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
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
