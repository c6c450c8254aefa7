//! Clocks in rooms: the time control chosen when a room is made (`clock=600+10`, `600b30`), each
//! side's time as the server keeps it, and the one timer thread that lets a flag fall while
//! nobody moves. See protocol/serve.md (`/room` and Kept games).
//!
//! Times are wall-clock milliseconds (what the store can keep across a restart). A side's time
//! runs from the state after the opponent's move until its own move arrives; the first move of
//! the game is not timed (the room's maker waits for the invited player to come).

use crate::games::record::TimeTerms;
use nom::branch::alt;
use nom::character::complete::{char, digit1};
use nom::combinator::{all_consuming, map_res, opt};
use nom::sequence::{preceded, separated_pair, tuple};
use nom::IResult;
use once_cell::sync::{Lazy, OnceCell};
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// The longest main time, in seconds (3 hours).
pub const MAX_MAIN_S: u64 = 3 * 3600;
/// The longest increment or byoyomi period, in seconds.
pub const MAX_STEP_S: u64 = 600;
/// The most byoyomi periods.
pub const MAX_PERIODS: u32 = 10;

/// A room's time control: main time, then either an increment after every move (Fischer) or
/// `periods` byoyomi periods of `period_ms` (Japanese byoyomi: a move within a period keeps
/// it; a period overrun is used up; the flag falls when the last one is). The records' terms,
/// so that a record states the clock it was played on as it is.
pub type ClockSpec = TimeTerms;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error(
        "clock '{}': expected <main>+<increment> or <main>b<period>[x<periods>] in seconds \
         (600+10, 600b30, 0b30x5)",
        crate::text::printable(.0)
    )]
    Syntax(String),
    #[error("clock '{spec}': {what} is at most {most}")]
    TooLong {
        spec: String,
        what: &'static str,
        most: String,
    },
    #[error("clock '{0}': a clock needs some time (a main time, or a byoyomi period)")]
    NoTime(String),
}

crate::games::error_text!(derived: ClockError);

fn seconds(input: &str) -> IResult<&str, u64> {
    // At most 6 digits: anything longer is over every bound anyway.
    map_res(digit1, |d: &str| {
        if d.len() > 6 {
            Err(())
        } else {
            d.parse::<u64>().map_err(|_| ())
        }
    })(input)
}

/// `<main>+<inc>` or `<main>b<period>[x<periods>]`: (main, Ok(inc)) or (main, Err((period, n))).
type Parsed = (u64, Result<u64, (u64, Option<u64>)>);

fn spec(input: &str) -> IResult<&str, Parsed> {
    alt((
        nom::combinator::map(separated_pair(seconds, char('+'), seconds), |(m, i)| {
            (m, Ok(i))
        }),
        nom::combinator::map(
            tuple((
                seconds,
                preceded(char('b'), seconds),
                opt(preceded(char('x'), seconds)),
            )),
            |(m, p, n)| (m, Err((p, n))),
        ),
    ))(input)
}

impl ClockSpec {
    pub fn parse(text: &str) -> Result<ClockSpec, ClockError> {
        let (_, (main, rest)) =
            all_consuming(spec)(text).map_err(|_| ClockError::Syntax(text.to_string()))?;
        let too_long = |what: &'static str, most: String| ClockError::TooLong {
            spec: text.to_string(),
            what,
            most,
        };
        if main > MAX_MAIN_S {
            return Err(too_long("the main time", format!("{MAX_MAIN_S} s")));
        }
        let (inc, period, periods) = match rest {
            Ok(inc) => (inc, 0, 0),
            Err((period, n)) => (0, period, n.unwrap_or(1)),
        };
        if inc > MAX_STEP_S {
            return Err(too_long("the increment", format!("{MAX_STEP_S} s")));
        }
        if period > MAX_STEP_S {
            return Err(too_long("a byoyomi period", format!("{MAX_STEP_S} s")));
        }
        if periods > u64::from(MAX_PERIODS) {
            return Err(too_long("the number of periods", MAX_PERIODS.to_string()));
        }
        // Fischer with no main time would flag at the first timed move; byoyomi needs a period.
        if (period == 0 && main == 0) || (rest.is_err() && (period == 0 || periods == 0)) {
            return Err(ClockError::NoTime(text.to_string()));
        }
        Ok(ClockSpec {
            main_ms: main * 1000,
            inc_ms: inc * 1000,
            period_ms: period * 1000,
            periods: periods as u32,
        })
    }
}

/// Both sides' clocks.
#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    pub spec: ClockSpec,
    /// Main time left, ms (0 once in byoyomi).
    pub left: [u64; 2],
    /// Byoyomi periods left.
    pub periods: [u32; 2],
    /// The side whose time runs, and since when (ms since 1970).
    pub running: Option<(usize, i64)>,
    /// The side whose flag fell.
    pub flagged: Option<usize>,
}

/// When this server started (ms since 1970): a running clock read back from before it resumes
/// from here, so that the time the server was down is charged to nobody.
static BOOT: OnceCell<i64> = OnceCell::new();

pub fn set_boot(now: i64) {
    let _ = BOOT.set(now);
}

impl Clock {
    pub fn new(spec: ClockSpec) -> Clock {
        Clock {
            spec,
            left: [spec.main_ms; 2],
            periods: [spec.periods; 2],
            running: None,
            flagged: None,
        }
    }

    /// The clock as the store kept it: a time that started before this server did starts again
    /// at the server's start.
    pub fn resumed(mut self) -> Clock {
        if let (Some((side, since)), Some(&boot)) = (self.running, BOOT.get()) {
            self.running = Some((side, since.max(boot)));
        }
        self
    }

    /// Takes `elapsed` ms from `side`'s time; false when that is more than it had. Returns also
    /// what is left of the current byoyomi period.
    fn spend(&mut self, side: usize, elapsed: u64) -> (bool, u64) {
        let spec = self.spec;
        let left = self.left[side];
        if elapsed <= left {
            self.left[side] = left - elapsed;
            return (true, spec.period_ms);
        }
        self.left[side] = 0;
        if !spec.byoyomi() {
            return (false, 0);
        }
        let over = elapsed - left;
        // Each whole period passed is used up; the one the move falls in is kept.
        let used = (over - 1) / spec.period_ms;
        if used >= u64::from(self.periods[side]) {
            self.periods[side] = 0;
            return (false, 0);
        }
        self.periods[side] -= used as u32;
        (true, spec.period_ms - (over - used * spec.period_ms))
    }

    /// The last moment (ms since 1970) the running side may still move, or None.
    pub fn deadline(&self) -> Option<i64> {
        let (side, since) = self.running?;
        let rest = self.left[side]
            + u64::from(self.periods[side]) * self.spec.period_ms * u64::from(self.spec.byoyomi());
        Some(since.saturating_add(rest as i64))
    }

    /// `side` moved at `now`: its time is charged (when it ran) and the increment added. False
    /// when its flag had fallen (nothing is changed then).
    #[must_use]
    pub fn moved(&mut self, side: usize, now: i64) -> bool {
        let Some((running, since)) = self.running else {
            return true;
        };
        if running != side {
            return true;
        }
        let mut after = self.clone();
        let (in_time, _) = after.spend(side, now.saturating_sub(since).max(0) as u64);
        if !in_time {
            return false;
        }
        after.left[side] += self.spec.inc_ms;
        after.running = None;
        *self = after;
        true
    }

    /// The running side's time is charged up to `now`, with no increment, and stops: a
    /// takeback or a draw agreed is not a move. False when its flag had fallen (nothing is
    /// changed then).
    #[must_use]
    pub fn charge(&mut self, now: i64) -> bool {
        let Some((side, since)) = self.running else {
            return true;
        };
        let mut after = self.clone();
        let (in_time, _) = after.spend(side, now.saturating_sub(since).max(0) as u64);
        if !in_time {
            return false;
        }
        after.running = None;
        *self = after;
        true
    }

    /// `side`'s time runs from `now`.
    pub fn start(&mut self, side: usize, now: i64) {
        self.running = Some((side, now));
    }

    pub fn stop(&mut self) {
        self.running = None;
    }

    /// Whether the running side's flag has fallen at `now`.
    pub fn fallen(&self, now: i64) -> Option<usize> {
        let (side, _) = self.running?;
        (now > self.deadline()?).then_some(side)
    }

    /// The running side's flag falls: it has no time left.
    pub fn fall(&mut self, side: usize) {
        self.left[side] = 0;
        self.periods[side] = 0;
        self.running = None;
        self.flagged = Some(side);
    }

    /// The clock as the state shows it at `now` (`names`: the players), protocol/serve.md.
    pub fn json(&self, names: [&str; 2], now: i64) -> serde_json::Value {
        let mut shown = self.clone();
        let mut period = [self.spec.period_ms; 2];
        if let Some((side, since)) = self.running {
            let (in_time, rest) = shown.spend(side, now.saturating_sub(since).max(0) as u64);
            period[side] = if in_time { rest } else { 0 };
        }
        if !self.spec.byoyomi() {
            period = [0, 0];
        }
        serde_json::json!({
            "spec": self.spec.to_string(),
            "main_ms": self.spec.main_ms,
            "increment_ms": self.spec.inc_ms,
            "period_ms": self.spec.period_ms,
            "periods": self.spec.periods,
            "left_ms": shown.left,
            "period_left_ms": period,
            "periods_left": shown.periods,
            "running": self.running.map(|(side, _)| names[side]),
            "flagged": self.flagged.map(|side| names[side]),
        })
    }
}

/// The rooms whose clock runs, by deadline: one entry a room, so it never holds more than the
/// rooms that are being played; a room's entry is replaced at each move.
struct Deadlines {
    by_time: BTreeSet<(i64, String)>,
    by_room: HashMap<String, i64>,
}

static DEADLINES: Lazy<(Mutex<Deadlines>, Condvar)> = Lazy::new(|| {
    (
        Mutex::new(Deadlines {
            by_time: BTreeSet::new(),
            by_room: HashMap::new(),
        }),
        Condvar::new(),
    )
});

/// Sets (None: clears) when the room `id` must be looked at: just after its running side's
/// deadline.
pub fn arm(id: &str, deadline: Option<i64>) {
    let (lock, wake) = &*DEADLINES;
    let mut d = lock.lock();
    if let Some(old) = d.by_room.remove(id) {
        d.by_time.remove(&(old, id.to_string()));
    }
    if let Some(at) = deadline {
        let at = at.saturating_add(1);
        d.by_room.insert(id.to_string(), at);
        d.by_time.insert((at, id.to_string()));
    }
    wake.notify_one();
}

/// The timer thread's loop: sleeps until the next deadline (or until one is set sooner) and
/// calls `due` with the room whose deadline passed, outside the lock. Never returns.
pub fn run(now: impl Fn() -> i64, due: impl Fn(&str)) -> ! {
    let (lock, wake) = &*DEADLINES;
    loop {
        let id = {
            let mut d = lock.lock();
            loop {
                let first = d.by_time.iter().next().cloned();
                match first {
                    None => {
                        wake.wait(&mut d);
                    }
                    Some((at, id)) => {
                        let wait = at - now();
                        if wait <= 0 {
                            d.by_time.remove(&(at, id.clone()));
                            d.by_room.remove(&id);
                            break id;
                        }
                        // A wall clock set back is noticed within a minute.
                        let wait = Duration::from_millis(wait.min(60_000) as u64);
                        wake.wait_for(&mut d, wait);
                    }
                }
            }
        };
        due(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for (text, main, inc, period, periods) in [
            ("600+10", 600_000, 10_000, 0, 0),
            ("180+2", 180_000, 2000, 0, 0),
            ("600b30", 600_000, 0, 30_000, 1),
            ("0b30x5", 0, 0, 30_000, 5),
            ("1+0", 1000, 0, 0, 0),
        ] {
            let spec = ClockSpec::parse(text).unwrap();
            assert_eq!(
                (spec.main_ms, spec.inc_ms, spec.period_ms, spec.periods),
                (main, inc, period, periods),
                "{text}"
            );
            assert_eq!(spec.to_string(), text);
        }
        for bad in [
            "",
            "600",
            "600+",
            "+10",
            "600+10+1",
            "600b",
            "600b30x",
            "-1+0",
            "10801+0",
            "600+601",
            "600b601",
            "600b30x11",
            "0+0",
            "0+5",
            "0b0",
            "600b30x0",
            "9999999+0",
            " 600+10",
            "600 +10",
            "600b30x5x2",
        ] {
            assert!(ClockSpec::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn fischer_charges_the_thought_and_adds_the_increment() {
        let mut clock = Clock::new(ClockSpec::parse("10+2").unwrap());
        // The first move is not timed.
        assert!(clock.moved(0, 5_000));
        assert_eq!(clock.left, [10_000, 10_000]);
        clock.start(1, 1_000);
        assert_eq!(clock.deadline(), Some(11_000));
        assert!(clock.moved(1, 4_500));
        assert_eq!(clock.left, [10_000, 8_500]);
        clock.start(0, 5_000);
        assert_eq!(clock.fallen(15_000), None);
        assert_eq!(clock.fallen(15_001), Some(0));
        let before = clock.clone();
        assert!(!clock.moved(0, 15_001), "the flag fell");
        assert_eq!(clock, before);
    }

    #[test]
    fn byoyomi_keeps_a_period_met_and_uses_up_one_overrun() {
        let mut clock = Clock::new(ClockSpec::parse("10b5x3").unwrap());
        clock.start(0, 0);
        assert_eq!(clock.deadline(), Some(25_000));
        // 10 s main, then 4 s into the first period: it is kept.
        assert!(clock.moved(0, 14_000));
        assert_eq!((clock.left[0], clock.periods[0]), (0, 3));
        clock.start(0, 0);
        assert_eq!(
            clock.json(["black", "white"], 7_000)["period_left_ms"][0],
            3000
        );
        // 7 s: the first period is used up, the move is in the second.
        assert!(clock.moved(0, 7_000));
        assert_eq!(clock.periods[0], 2);
        clock.start(0, 0);
        assert_eq!(clock.deadline(), Some(10_000));
        assert_eq!(clock.fallen(10_000), None);
        assert!(!clock.moved(0, 10_001));
    }
}
