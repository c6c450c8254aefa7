//! Ctrl-C without a crate: the C library's `signal` and `kill`, which std already links.
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
mod sys {
    use std::os::raw::c_int;

    pub const SIGINT: c_int = 2;
    pub const SIGPIPE: c_int = 13;
    pub const SIG_IGN: usize = 1;
    pub const SIGKILL: c_int = 9;
    pub const SIG_DFL: usize = 0;

    extern "C" {
        pub fn signal(signum: c_int, handler: usize) -> usize;
        pub fn kill(pid: c_int, sig: c_int) -> c_int;
    }
}

#[cfg(unix)]
extern "C" fn on_sigint(_: std::os::raw::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs the SIGINT handler (a no-op where there are no Unix signals).
pub fn install() {
    #[cfg(unix)]
    // SAFETY: `on_sigint` only performs an atomic store, which is async-signal-safe.
    unsafe {
        sys::signal(
            sys::SIGINT,
            on_sigint as extern "C" fn(std::os::raw::c_int) as usize,
        );
    }
}

/// Ignores SIGPIPE, so writing to an engine that has died is an error the runner handles (the
/// engine loses) rather than a signal that ends the runner.
pub fn ignore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal has no preconditions.
    unsafe {
        sys::signal(sys::SIGPIPE, sys::SIG_IGN);
    }
}

/// Puts SIGINT back to its default action, so a second Ctrl-C ends the process.
pub fn restore_default() {
    #[cfg(unix)]
    // SAFETY: resetting a disposition to SIG_DFL has no preconditions.
    unsafe {
        sys::signal(sys::SIGINT, sys::SIG_DFL);
    }
}

/// SIGKILL to the process group `pgid` (an engine and whatever it started).
#[cfg(unix)]
pub fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: a plain system call; a group that no longer exists just yields ESRCH.
        unsafe {
            sys::kill(-pgid, sys::SIGKILL);
        }
    }
}
