//! What one command run on a session's own thread (Othello `count` and `solve`) may spend, and
//! the session's interrupt: a served tab that closes raises it, and such a command polls it
//! (searches and perft poll their own stop flags, which the session raises). Installed once per
//! session thread by `session::run_with`; a thread without one (tools, tests) has no limits.
//! Memory has its own per-thread budget: [`crate::memory::limit_thread`].

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Default)]
pub struct Budget {
    /// Raised from outside: stop now.
    pub interrupt: Arc<AtomicBool>,
    /// Most nodes one such command may visit; None: no limit.
    pub nodes: Option<u64>,
}

thread_local! {
    static CURRENT: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

pub fn install(budget: Budget) {
    CURRENT.with(|c| *c.borrow_mut() = Some(budget));
}

/// Why such a command ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stop {
    /// The session is ending (its tab closed).
    #[error("stopped: the session is ending")]
    Interrupted,
    /// It visited more than this many nodes.
    #[error("stopped after {0} nodes, the most one command may visit in this session")]
    Work(u64),
}

/// Whether a command that has visited `nodes` nodes must stop, and why.
pub fn check(nodes: u64) -> Option<Stop> {
    CURRENT.with(|c| {
        let c = c.borrow();
        let budget = c.as_ref()?;
        if budget.interrupt.load(Ordering::Relaxed) {
            return Some(Stop::Interrupted);
        }
        match budget.nodes {
            Some(most) if nodes > most => Some(Stop::Work(most)),
            _ => None,
        }
    })
}
