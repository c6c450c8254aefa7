//! Time controls (`time_settings`, `kgs-time_settings`, `time_left`) and the time budget of one
//! `genmove`.

use crate::games::go::Color;

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

    /// Seconds `color` may spend on its next move with `empty_points` empty points on the
    /// board; `None` without a time limit. A tenth and 50 ms are kept back for the reply to
    /// reach the controller.
    pub fn budget(&self, color: Color, empty_points: usize) -> Option<f64> {
        let left = self.left[color.index()];
        let per_overtime_move = match self.system {
            System::Unlimited => return None,
            System::Absolute => 0.0,
            System::Canadian { period, stones } => period / stones.max(1) as f64,
            System::Byoyomi { period, .. } => period,
        };
        let raw = if left.stones > 0 {
            match self.system {
                System::Canadian { .. } => left.time / left.stones as f64,
                _ => left.time,
            }
        } else {
            // Main time spread over the moves still to come (about a third of the empty points,
            // at least 12), plus what overtime will give each move anyway.
            left.time / (empty_points / 3).max(12) as f64 + per_overtime_move
        };
        Some((raw * 0.9 - 0.05).max(0.01))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_special_cases() {
        let c = Clock::time_settings(&["300", "0", "0"]).unwrap();
        assert_eq!(c.system, System::Absolute);
        let c = Clock::time_settings(&["0", "1", "0"]).unwrap();
        assert_eq!(c.system, System::Unlimited);
        assert_eq!(c.budget(Color::Black, 81), None);
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
    fn budgets_follow_the_clock() {
        // Main time: spread over at least 12 moves.
        let c = Clock::kgs_time_settings(&["absolute", "120"]).unwrap();
        let b = c.budget(Color::White, 81).unwrap();
        assert!((b - (120.0 / 27.0 * 0.9 - 0.05)).abs() < 1e-9, "{b}");
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
        let b = c.budget(Color::Black, 300).unwrap();
        assert!((b - (5.0 * 0.9 - 0.05)).abs() < 1e-9, "{b}");
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
        let b = c.budget(Color::White, 100).unwrap();
        assert!((b - (5.0 * 0.9 - 0.05)).abs() < 1e-9, "{b}");
        // Never below 10 ms.
        let mut c = Clock::kgs_time_settings(&["absolute", "1"]).unwrap();
        c.time_left(Color::Black, "0", "0").unwrap();
        assert_eq!(c.budget(Color::Black, 10), Some(0.01));
        assert!(Clock::kgs_time_settings(&["canadian", "1", "2"]).is_err());
        assert!(Clock::kgs_time_settings(&["fischer", "1", "2", "3"]).is_err());
        assert_eq!(
            Clock::kgs_time_settings(&["none"])
                .unwrap()
                .budget(Color::Black, 9),
            None
        );
    }
}
