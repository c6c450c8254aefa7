//! The one way work is asked to end early: a shared [`Flag`]. A search's `Control` holds one,
//! `go perft` and the perft tables poll one, and a served session's interrupt is one (raised
//! when its tab closes). A served session's own commands (Othello `count` and `solve`) also
//! have a [`Budget`]: that flag, and the most nodes one command may visit.

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
    /// Most nodes one such command may visit; None: no limit.
    pub nodes: Option<u64>,
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
    /// Whether a command that has visited `nodes` nodes must stop, and why.
    pub fn check(&self, nodes: u64) -> Option<Halt> {
        if self.interrupt.is_raised() {
            return Some(Halt::Interrupted);
        }
        match self.nodes {
            Some(most) if nodes > most => Some(Halt::Work(most)),
            _ => None,
        }
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
            nodes: Some(10),
        };
        assert_eq!(budget.check(10), None);
        assert_eq!(budget.check(11), Some(Halt::Work(10)));
        flag.raise();
        assert_eq!(budget.check(0), Some(Halt::Interrupted));
        assert_eq!(Budget::default().check(u64::MAX), None);
    }
}
