//! The players' clocks: what `go` says, how long a move may take, and when a flag falls.
//!
//! Time is measured by the runner from sending `go` to reading `bestmove`. A flag falls when a
//! move takes longer than the time left (plus the byoyomi) by more than `margin_ms`.

use super::config::TimeControl;
use super::referee::Side;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Clocks {
    control: TimeControl,
    margin_ms: u64,
    /// Main time left per side (first, second), in ms.
    left: [u64; 2],
}

impl Clocks {
    pub fn new(control: TimeControl, margin_ms: u64) -> Clocks {
        let main = match control {
            TimeControl::Clock { main_ms, .. } => main_ms,
            _ => 0,
        };
        Clocks {
            control,
            margin_ms,
            left: [main; 2],
        }
    }

    /// Main time left for `side`, in ms.
    pub fn left(&self, side: Side) -> u64 {
        self.left[side.index()]
    }

    /// The `go` command for the side to move.
    pub fn go_command(&self) -> String {
        match self.control {
            TimeControl::Clock {
                inc_ms, byoyomi_ms, ..
            } => {
                let mut s = format!("go btime {} wtime {}", self.left[0], self.left[1]);
                if inc_ms > 0 {
                    s.push_str(&format!(" binc {inc_ms} winc {inc_ms}"));
                } else {
                    s.push_str(&format!(" byoyomi {byoyomi_ms}"));
                }
                s
            }
            TimeControl::MoveTime(ms) => format!("go movetime {ms}"),
            TimeControl::Nodes(n) => format!("go nodes {n}"),
        }
    }

    /// How long `side` may think before its flag falls; `None` when the limit is not time
    /// (the runner's `timeout_ms` then applies).
    pub fn allowance(&self, side: Side) -> Option<Duration> {
        let ms = match self.control {
            TimeControl::Clock { byoyomi_ms, .. } => self.left(side) + byoyomi_ms,
            TimeControl::MoveTime(ms) => ms,
            TimeControl::Nodes(_) => return None,
        };
        Some(Duration::from_millis(ms + self.margin_ms))
    }

    /// Charges `elapsed` to `side`; `Err` when its flag fell.
    pub fn charge(&mut self, side: Side, elapsed: Duration) -> Result<(), FlagFell> {
        let ms = elapsed.as_millis().min(u64::MAX as u128) as u64;
        if let Some(allowed) = self.allowance(side) {
            if elapsed > allowed {
                return Err(FlagFell {
                    used_ms: ms,
                    allowed_ms: allowed.as_millis(),
                    margin_ms: self.margin_ms,
                });
            }
        }
        if let TimeControl::Clock { inc_ms, .. } = self.control {
            // Byoyomi is used after the main time and never banked; the increment is added
            // after the move. Overruns within the margin leave the clock at zero.
            let left = &mut self.left[side.index()];
            *left = left.saturating_sub(ms) + inc_ms;
        }
        Ok(())
    }
}

/// A side's flag fell: it used more than its time (the margin included).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("used {used_ms} ms with {allowed_ms} ms allowed (margin {margin_ms} ms included)")]
pub struct FlagFell {
    pub used_ms: u64,
    pub allowed_ms: u128,
    pub margin_ms: u64,
}

crate::games::error_text!(derived: FlagFell);

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn byoyomi_clock() {
        let tc = TimeControl::Clock {
            main_ms: 1000,
            inc_ms: 0,
            byoyomi_ms: 200,
        };
        let mut c = Clocks::new(tc, 50);
        assert_eq!(c.go_command(), "go btime 1000 wtime 1000 byoyomi 200");
        assert_eq!(c.allowance(Side::First), Some(ms(1250)));
        c.charge(Side::First, ms(900)).unwrap();
        assert_eq!(c.go_command(), "go btime 100 wtime 1000 byoyomi 200");
        c.charge(Side::First, ms(340)).unwrap(); // 100 main + 200 byoyomi + 40 of margin
        assert_eq!(c.left(Side::First), 0);
        assert!(c.charge(Side::First, ms(251)).is_err());
        c.charge(Side::Second, ms(1)).unwrap();
        assert_eq!(c.left(Side::Second), 999);
    }

    #[test]
    fn increment_clock() {
        let tc = TimeControl::Clock {
            main_ms: 100,
            inc_ms: 10,
            byoyomi_ms: 0,
        };
        let mut c = Clocks::new(tc, 0);
        assert_eq!(c.go_command(), "go btime 100 wtime 100 binc 10 winc 10");
        c.charge(Side::Second, ms(60)).unwrap();
        assert_eq!(c.left(Side::Second), 50);
        assert!(c.charge(Side::Second, ms(51)).is_err());
        c.charge(Side::Second, ms(50)).unwrap();
        assert_eq!(c.left(Side::Second), 10);
    }

    #[test]
    fn movetime_and_nodes() {
        let mut c = Clocks::new(TimeControl::MoveTime(100), 20);
        assert_eq!(c.go_command(), "go movetime 100");
        c.charge(Side::First, ms(120)).unwrap();
        assert!(c.charge(Side::First, ms(121)).is_err());
        let mut c = Clocks::new(TimeControl::Nodes(1000), 20);
        assert_eq!(c.go_command(), "go nodes 1000");
        assert_eq!(c.allowance(Side::First), None);
        c.charge(Side::First, ms(100_000)).unwrap();
    }
}
