//! The one way work is asked to end early: a shared [`Flag`]. A search's `Control` holds one,
//! `go perft` and the perft tables poll one, and a served session's interrupt is one (raised
//! when its tab closes). The commands a game runs on the session's own thread also have a
//! [`Budget`]: that flag, and whether each keeps to its game's cap on the nodes it visits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A stop flag shared by whoever raises it and whoever polls it (clones share it).
#[derive(Clone, Debug, Default)]
pub struct Flag(Arc<AtomicBool>);

impl Flag {
    pub fn new() -> Flag {
        Flag::default()
    }

    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// What one command run on a session's own thread may spend.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Raised from outside: stop now.
    pub interrupt: Flag,
    /// Whether each such command keeps to the cap its game sets on its nodes (a served
    /// session: many tabs share one machine); false: no cap.
    pub capped: bool,
}

/// Why such a command ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Halt {
    /// The session is ending (its tab closed).
    #[error("stopped: the session is ending")]
    Interrupted,
    /// It visited more than this many nodes.
    #[error("stopped after {0} nodes, the most one command may visit in this session")]
    Work(u64),
}

impl Budget {
    /// Whether a command must stop because the session is ending.
    pub fn interrupted(&self) -> Option<Halt> {
        self.interrupt.is_raised().then_some(Halt::Interrupted)
    }

    /// Whether a command that has visited `nodes` nodes, of at most `cap` when capped, must
    /// stop, and why.
    pub fn check(&self, nodes: u64, cap: u64) -> Option<Halt> {
        self.interrupted()
            .or_else(|| (self.capped && nodes > cap).then_some(Halt::Work(cap)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_and_the_budget_says_why() {
        let flag = Flag::new();
        let budget = Budget {
            interrupt: flag.clone(),
            capped: true,
        };
        assert_eq!(budget.check(10, 10), None);
        assert_eq!(budget.check(11, 10), Some(Halt::Work(10)));
        assert_eq!(budget.interrupted(), None);
        flag.raise();
        assert_eq!(budget.check(0, 10), Some(Halt::Interrupted));
        assert_eq!(budget.interrupted(), Some(Halt::Interrupted));
        assert_eq!(Budget::default().check(u64::MAX, 10), None);
    }
}
