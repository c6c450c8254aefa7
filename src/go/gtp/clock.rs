//! Time controls (`time_settings`, `kgs-time_settings`, `time_left`) and the time budget of one
//! `genmove`.

use crate::go::Color;
use crate::search::Limits;

/// Seconds to whole milliseconds; `None` past 10^15 ms (`time_left b 1e300 0`), which no
/// game lasts.
fn ms(seconds: f64) -> Option<u64> {
    let ms = seconds * 1000.0;
    (ms < 1e15).then_some(ms as u64)
}

/// The time system of the game, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum System {
    Unlimited,
    /// Main time only.
    Absolute,
    /// After main time, `stones` moves in every `period`.
    Canadian {
        period: f64,
        stones: u32,
    },
    /// After main time, `periods` periods of `period` seconds; a move within a period keeps it.
    Byoyomi {
        period: f64,
        periods: u32,
    },
}

/// What one side has left: `time` seconds, and `stones` (0 = still in main time; in overtime
/// the Canadian stones to play in this period, or the byoyomi periods left).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Left {
    pub time: f64,
    pub stones: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    pub system: System,
    pub main: f64,
    pub left: [Left; 2],
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            system: System::Unlimited,
            main: 0.0,
            left: [Left {
                time: 0.0,
                stones: 0,
            }; 2],
        }
    }
}

/// Why a time setting is refused (the GTP failure text is its Display).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("'{0}' is not a non-negative number")]
    NotSeconds(String),
    #[error("'{0}' is not a non-negative integer")]
    NotCount(String),
    #[error("time_settings expects 3 argument(s)")]
    TimeSettingsArguments,
    #[error(
        "kgs-time_settings expects none, absolute <main>, byoyomi <main> <period> \
         <periods> or canadian <main> <period> <stones>"
    )]
    KgsUsage,
}

crate::games::error_text!(derived: ClockError);

/// A non-negative, finite number of seconds (or stones).
fn seconds(text: &str) -> Result<f64, ClockError> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(ClockError::NotSeconds(text.into())),
    }
}

fn count(text: &str) -> Result<u32, ClockError> {
    text.parse::<u32>()
        .map_err(|_| ClockError::NotCount(text.into()))
}

impl Clock {
    fn with(system: System, main: f64) -> Clock {
        let start = if main > 0.0 {
            Left {
                time: main,
                stones: 0,
            }
        } else {
            Self::overtime(system).unwrap_or(Left {
                time: 0.0,
                stones: 0,
            })
        };
        Clock {
            system,
            main,
            left: [start; 2],
        }
    }

    /// The same time settings with both sides' time full again (a new game).
    pub fn restarted(&self) -> Clock {
        Clock::with(self.system, self.main)
    }

    /// A fresh overtime period, when the system has one.
    fn overtime(system: System) -> Option<Left> {
        match system {
            System::Canadian { period, stones } => Some(Left {
                time: period,
                stones,
            }),
            System::Byoyomi { period, periods } => Some(Left {
                time: period,
                stones: periods,
            }),
            _ => None,
        }
    }

    /// `time_settings <main> <byo_yomi_time> <byo_yomi_stones>` (GTP 4.2): byo-yomi time and
    /// stones both 0 is absolute time; byo-yomi time above 0 with 0 stones is no limit.
    pub fn time_settings(args: &[&str]) -> Result<Clock, ClockError> {
        let [main, byo, stones] = args else {
            return Err(ClockError::TimeSettingsArguments);
        };
        let (main, period, stones) = (seconds(main)?, seconds(byo)?, count(stones)?);
        let system = match (period > 0.0, stones > 0) {
            (false, false) => System::Absolute,
            (true, false) => System::Unlimited,
            (false, true) => System::Absolute,
            (true, true) => System::Canadian { period, stones },
        };
        Ok(Clock::with(system, main))
    }

    /// `kgs-time_settings none | absolute <main> | byoyomi <main> <period> <periods> |
    /// canadian <main> <period> <stones>`.
    pub fn kgs_time_settings(args: &[&str]) -> Result<Clock, ClockError> {
        let Some((kind, rest)) = args.split_first() else {
            return Err(ClockError::KgsUsage);
        };
        match (kind.to_ascii_lowercase().as_str(), rest) {
            ("none", []) => Ok(Clock::default()),
            ("absolute", [main]) => Ok(Clock::with(System::Absolute, seconds(main)?)),
            ("byoyomi", [main, period, periods]) => {
                let (period, periods) = (seconds(period)?, count(periods)?);
                let system = if periods == 0 {
                    System::Absolute
                } else {
                    System::Byoyomi { period, periods }
                };
                Ok(Clock::with(system, seconds(main)?))
            }
            ("canadian", [main, period, stones]) => {
                let (period, stones) = (seconds(period)?, count(stones)?);
                let system = if stones == 0 {
                    System::Absolute
                } else {
                    System::Canadian { period, stones }
                };
                Ok(Clock::with(system, seconds(main)?))
            }
            _ => Err(ClockError::KgsUsage),
        }
    }

    /// `time_left <color> <time> <stones>`: what the controller's clock says.
    pub fn time_left(&mut self, color: Color, time: &str, stones: &str) -> Result<(), ClockError> {
        let left = Left {
            time: seconds(time)?,
            stones: count(stones)?,
        };
        self.left[color.index()] = left;
        Ok(())
    }

    /// What the clock allows `color`'s next move, as the limits every search's time manager
    /// plans from ([`crate::search::time::plan`]); `None` without a time limit. In main time
    /// the main time left is shared over `moves_to_go` moves, and what overtime gives each
    /// move comes on top (Canadian: period / stones; Japanese: one period, lost if unused);
    /// in Canadian overtime the time left is shared over the stones left; in Japanese overtime
    /// the move has what is left of its period. A clock too large for milliseconds is none.
    ///
    /// The overtime's part of a move in main time is weighted by `weight` (0 to 1; the
    /// opening's phase weight, `go::search::phase_weight_of`). A move in main time
    /// does not lose its byoyomi by leaving it unused (only moves in overtime do), so the
    /// opening leaves more of the main time to the middle game; in overtime every move still
    /// has its whole period.
    pub fn limits(&self, color: Color, moves_to_go: u64, weight: f64) -> Option<Limits> {
        let left = self.left[color.index()];
        let per_overtime_move = match self.system {
            System::Unlimited => return None,
            System::Absolute => 0.0,
            System::Canadian { period, stones } => period / stones.max(1) as f64,
            System::Byoyomi { period, .. } => period,
        };
        let limits = match (self.system, left.stones) {
            (System::Canadian { .. }, stones) if stones > 0 => Limits {
                time: Some(ms(left.time)?),
                moves_to_go: Some(u64::from(stones)),
                ..Limits::default()
            },
            (System::Byoyomi { .. }, stones) if stones > 0 => Limits {
                time: Some(0),
                byoyomi: Some(ms(left.time)?),
                ..Limits::default()
            },
            _ => Limits {
                time: Some(ms(left.time)?),
                byoyomi: if per_overtime_move > 0.0 {
                    Some(ms(per_overtime_move * weight.clamp(0.0, 1.0))?)
                } else {
                    None
                },
                moves_to_go: Some(moves_to_go),
                ..Limits::default()
            },
        };
        Some(limits)
    }

    /// Charges `spent` seconds to `color` (the controller's `time_left` corrects it later).
    pub fn charge(&mut self, color: Color, spent: f64) {
        let system = self.system;
        let left = &mut self.left[color.index()];
        if system == System::Unlimited {
            return;
        }
        if left.stones == 0 {
            left.time -= spent;
            if left.time <= 0.0 {
                *left = Self::overtime(system).unwrap_or(Left {
                    time: 0.0,
                    stones: 0,
                });
            }
            return;
        }
        match system {
            System::Canadian { .. } => {
                left.time = (left.time - spent).max(0.0);
                left.stones -= 1;
                if left.stones == 0 {
                    *left = Self::overtime(system).unwrap_or(*left);
                }
            }
            System::Byoyomi { period, .. } => {
                if spent > left.time {
                    left.stones = left.stones.saturating_sub(1);
                }
                left.time = period;
            }
            _ => {}
        }
    }
}

/// The time commands: each replaces or updates the clock that `genmove` plans with.
impl super::Gtp {
    pub(super) fn time_settings(&mut self, args: &[&str]) -> Result<String, super::Failure> {
        self.clock = Clock::time_settings(args)?;
        Ok(String::new())
    }

    pub(super) fn kgs_time_settings(&mut self, args: &[&str]) -> Result<String, super::Failure> {
        self.clock = Clock::kgs_time_settings(args)?;
        Ok(String::new())
    }

    /// `time_left <color> <time> <stones>`
    pub(super) fn time_left(&mut self, args: &[&str]) -> Result<String, super::Failure> {
        let color = super::parse_color(args[0])?;
        self.clock.time_left(color, args[1], args[2])?;
        Ok(String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_special_cases() {
        let c = Clock::time_settings(&["300", "0", "0"]).unwrap();
        assert_eq!(c.system, System::Absolute);
        let c = Clock::time_settings(&["0", "1", "0"]).unwrap();
        assert_eq!(c.system, System::Unlimited);
        assert_eq!(c.limits(Color::Black, 27, 1.0), None);
        let c = Clock::time_settings(&["60", "30", "5"]).unwrap();
        assert_eq!(
            c.system,
            System::Canadian {
                period: 30.0,
                stones: 5
            }
        );
        assert!(Clock::time_settings(&["-1", "0", "0"]).is_err());
        assert!(Clock::time_settings(&["1", "x", "0"]).is_err());
    }

    #[test]
    fn limits_follow_the_clock() {
        let limits = |c: &Clock, color, moves| c.limits(color, moves, 1.0).unwrap();
        // Main time: shared over the moves to go.
        let c = Clock::kgs_time_settings(&["absolute", "120"]).unwrap();
        let l = limits(&c, Color::White, 27);
        assert_eq!(
            (l.time, l.byoyomi, l.moves_to_go),
            (Some(120_000), None, Some(27))
        );
        // Canadian overtime: the time left over the stones left.
        let mut c = Clock::time_settings(&["0", "50", "10"]).unwrap();
        assert_eq!(
            c.left[0],
            Left {
                time: 50.0,
                stones: 10
            }
        );
        c.time_left(Color::Black, "20", "4").unwrap();
        let l = limits(&c, Color::Black, 100);
        assert_eq!((l.time, l.moves_to_go), (Some(20_000), Some(4)));
        // Main time with Canadian overtime after it: a period's share per move on top.
        let c = Clock::time_settings(&["60", "30", "5"]).unwrap();
        let l = limits(&c, Color::Black, 12);
        assert_eq!(
            (l.time, l.byoyomi, l.moves_to_go),
            (Some(60_000), Some(6000), Some(12))
        );
        // In main time the period's share follows the phase; in overtime it is whole.
        let l = c.limits(Color::Black, 12, 0.5).unwrap();
        assert_eq!(l.byoyomi, Some(3000));
        let mut over = c.clone();
        over.charge(Color::Black, 61.0);
        let l = over.limits(Color::Black, 12, 0.25).unwrap();
        assert_eq!((l.time, l.moves_to_go), (Some(30_000), Some(5)));
        // Japanese byoyomi: one period per move once main time is gone.
        let mut c = Clock::kgs_time_settings(&["byoyomi", "10", "5", "3"]).unwrap();
        c.charge(Color::White, 11.0);
        assert_eq!(
            c.left[1],
            Left {
                time: 5.0,
                stones: 3
            }
        );
        let l = limits(&c, Color::White, 33);
        assert_eq!((l.time, l.byoyomi), (Some(0), Some(5000)));
        // A clock at zero plans the shortest search, and a huge one is none.
        let mut c = Clock::kgs_time_settings(&["absolute", "1"]).unwrap();
        c.time_left(Color::Black, "0", "0").unwrap();
        assert_eq!(limits(&c, Color::Black, 12).time, Some(0));
        c.time_left(Color::Black, "1e300", "0").unwrap();
        assert_eq!(c.limits(Color::Black, 12, 1.0), None);
        assert!(Clock::kgs_time_settings(&["canadian", "1", "2"]).is_err());
        assert!(Clock::kgs_time_settings(&["fischer", "1", "2", "3"]).is_err());
        assert_eq!(
            Clock::kgs_time_settings(&["none"])
                .unwrap()
                .limits(Color::Black, 12, 1.0),
            None
        );
    }
}
