//! The control block shared by the session and a running search.

use super::limits::Limits;
use super::time::{plan, Deadlines};
use crate::stop::Flag;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Stop flag, clock and limits of one search. The search polls it; the session drives it.
pub struct Control {
    stop: Flag,
    pondering: AtomicBool,
    started: Instant,
    /// Deadlines in milliseconds since `started`; `u64::MAX` while there is none.
    soft_ms: AtomicU64,
    hard_ms: AtomicU64,
    limits: Mutex<Limits>,
    overhead_ms: u64,
}

impl Control {
    pub fn new(limits: Limits, overhead_ms: u64) -> Control {
        let budget = plan(&limits, overhead_ms);
        Control {
            stop: Flag::new(),
            pondering: AtomicBool::new(limits.ponder),
            started: Instant::now(),
            soft_ms: AtomicU64::new(budget.soft_ms),
            hard_ms: AtomicU64::new(budget.hard_ms),
            limits: Mutex::new(limits),
            overhead_ms,
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits.lock().clone()
    }

    pub fn stop(&self) {
        self.stop.raise();
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.is_raised()
    }

    /// The stop flag itself, for work that polls no clock (`go perft`).
    pub fn flag(&self) -> Flag {
        self.stop.clone()
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// The opponent played the expected move: from now on the clock counts. `fresh` replaces the
    /// clocks when the client sent new ones with `ponderhit`.
    pub fn ponderhit(&self, fresh: Option<Limits>) {
        let mut limits = self.limits.lock();
        if let Some(fresh) = fresh {
            *limits = fresh;
        }
        limits.ponder = false;
        let budget: Deadlines = plan(&limits, self.overhead_ms);
        let now = self.elapsed_ms();
        self.soft_ms
            .store(budget.soft_ms.saturating_add(now), Ordering::Relaxed);
        self.hard_ms
            .store(budget.hard_ms.saturating_add(now), Ordering::Relaxed);
        self.pondering.store(false, Ordering::Relaxed);
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Between iterations: is there time to start another one?
    pub fn soft_expired(&self) -> bool {
        self.is_stopped() || self.elapsed_ms() >= self.soft_ms.load(Ordering::Relaxed)
    }

    /// Inside an iteration (poll every thousand nodes or so): must the search stop now?
    pub fn hard_expired(&self) -> bool {
        self.is_stopped() || self.elapsed_ms() >= self.hard_ms.load(Ordering::Relaxed)
    }

    /// The node limit of `go nodes N`, if any.
    pub fn node_limit(&self) -> Option<u64> {
        self.limits.lock().nodes
    }

    /// The depth limit of `go depth N`, if any.
    pub fn depth_limit(&self) -> Option<u32> {
        self.limits.lock().depth
    }
}
