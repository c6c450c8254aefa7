//! The time manager: a soft deadline (do not start another iteration) and a hard one (stop now).

use super::limits::{Limits, DEFAULT_MOVETIME_MS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    pub soft_ms: u64,
    pub hard_ms: u64,
}

impl Deadlines {
    pub const UNLIMITED: Deadlines = Deadlines {
        soft_ms: u64::MAX,
        hard_ms: u64::MAX,
    };
}

/// Plans the time for one move. `overhead_ms` is kept back for the GUI's and the pipe's delays.
/// Infinite and ponder searches get no deadline here (ponderhit plans again).
pub fn plan(limits: &Limits, overhead_ms: u64) -> Deadlines {
    if limits.infinite || limits.ponder {
        return Deadlines::UNLIMITED;
    }
    if let Some(movetime) = limits.movetime {
        let t = movetime.saturating_sub(overhead_ms).max(1);
        return Deadlines {
            soft_ms: t,
            hard_ms: t,
        };
    }
    if limits.time.is_none() && limits.byoyomi.is_none() && limits.inc.is_none() {
        if limits.depth.is_some() || limits.nodes.is_some() {
            return Deadlines::UNLIMITED;
        }
        // As `movetime 450`: the answer must reach the client within the 450 ms.
        let t = DEFAULT_MOVETIME_MS.saturating_sub(overhead_ms).max(1);
        return Deadlines {
            soft_ms: t,
            hard_ms: t,
        };
    }
    let time = limits.time.unwrap_or(0);
    let inc = limits.inc.unwrap_or(0);
    let byoyomi = limits.byoyomi.unwrap_or(0);
    // The most this move may take without losing on time.
    // Saturating throughout: a client may send any u64 (`btime 18446744073709551615`).
    let available = time
        .saturating_add(byoyomi)
        .saturating_sub(overhead_ms)
        .max(1);
    // A share of the main time, most of the increment, and all of the byoyomi (it is lost if unused).
    let moves = limits.moves_to_go.unwrap_or(MOVES_TO_GO).max(1);
    let target = (time / moves)
        .saturating_add(inc / 4 * 3 + inc % 4 * 3 / 4)
        .saturating_add(byoyomi);
    if byoyomi > 0 {
        if time / moves == 0 {
            // Byoyomi only: all of it, less the overhead.
            return Deadlines {
                soft_ms: target.min(available).max(1),
                hard_ms: available,
            };
        }
        // Main time and byoyomi: the target is the move's whole share (the byoyomi is in it),
        // so no iteration starts in its second half and none runs past it. (Starting one up
        // to the target and stopping at 3x took 3.77 s of a 1.25 s share: cshogi's `go btime
        // 10000 wtime 10000 byoyomi 1000`.)
        let hard = target.min(available).max(1);
        return Deadlines {
            soft_ms: (target / 2).min(hard).max(1),
            hard_ms: hard,
        };
    }
    // Sudden death or increment: an iteration costs several times the one before, so one is
    // started only in the first half of the target, and none runs past twice the target. The
    // move then takes about the target, never the 3x of an iteration started just before it.
    let hard = target.saturating_mul(2).min(available).max(1);
    let soft = (target / 2).min(hard).max(1);
    Deadlines {
        soft_ms: soft,
        hard_ms: hard,
    }
}

/// The moves the main time is shared over when the limits name none (a game of 60 to 80 moves
/// a side; a game that can tell how many it has left says so: `Variant::moves_to_go`).
const MOVES_TO_GO: u64 = 40;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_limit_means_default_movetime() {
        let b = plan(&Limits::default(), 50);
        assert_eq!(b.hard_ms, DEFAULT_MOVETIME_MS - 50);
        assert_eq!(b.soft_ms, b.hard_ms);
        assert_eq!(plan(&Limits::default(), 0).hard_ms, DEFAULT_MOVETIME_MS);
    }

    #[test]
    fn movetime_keeps_the_overhead() {
        let b = plan(
            &Limits {
                movetime: Some(450),
                ..Default::default()
            },
            50,
        );
        assert_eq!(b.hard_ms, 400);
    }

    #[test]
    fn byoyomi_only_uses_it_all_but_the_margin() {
        let b = plan(
            &Limits {
                time: Some(0),
                byoyomi: Some(1000),
                ..Default::default()
            },
            50,
        );
        assert_eq!(b.hard_ms, 950);
        assert!(b.soft_ms <= b.hard_ms);
    }

    #[test]
    fn main_time_and_byoyomi_keep_to_the_share() {
        // cshogi's clock: 10 s each and 1 s byoyomi. The share is 10000 / 40 + 1000 ms.
        let b = plan(
            &Limits {
                time: Some(10_000),
                byoyomi: Some(1000),
                ..Default::default()
            },
            50,
        );
        assert_eq!(
            b,
            Deadlines {
                soft_ms: 625,
                hard_ms: 1250
            }
        );
    }

    #[test]
    fn never_plans_past_the_clock() {
        for time in [0u64, 1, 10, 49, 50, 51, 100, 1000, 60_000, 3_600_000] {
            for inc in [0u64, 10, 1000] {
                let b = plan(
                    &Limits {
                        time: Some(time),
                        inc: Some(inc),
                        ..Default::default()
                    },
                    50,
                );
                assert!(
                    b.hard_ms <= time.saturating_sub(50).max(1),
                    "time {time} inc {inc}: {b:?}"
                );
                assert!(b.soft_ms <= b.hard_ms);
            }
        }
    }

    #[test]
    fn huge_clocks_saturate() {
        let max = u64::MAX;
        let b = plan(
            &Limits {
                time: Some(max),
                inc: Some(max),
                byoyomi: Some(max),
                ..Default::default()
            },
            50,
        );
        assert!(b.soft_ms >= max / MOVES_TO_GO, "{b:?}");
        assert!(b.soft_ms <= b.hard_ms);
        // A lone huge byoyomi behaves as a long one, not a wrapped-around short one.
        let b = plan(
            &Limits {
                time: Some(1),
                byoyomi: Some(max),
                ..Default::default()
            },
            50,
        );
        assert!(b.hard_ms > 1 << 40, "{b:?}");
        // A huge clock without byoyomi too.
        let b = plan(
            &Limits {
                time: Some(max),
                inc: Some(max),
                ..Default::default()
            },
            50,
        );
        assert!(b.hard_ms > 1 << 40 && b.soft_ms <= b.hard_ms, "{b:?}");
    }

    #[test]
    fn sudden_death_spends_a_share_not_a_tenth() {
        // One minute alone: about 1.5 s a move, never 6 s.
        let b = plan(
            &Limits {
                time: Some(60_000),
                ..Default::default()
            },
            50,
        );
        assert_eq!((b.soft_ms, b.hard_ms), (750, 3000));
        // With an increment most of it is spent too.
        let b = plan(
            &Limits {
                time: Some(10_000),
                inc: Some(1000),
                ..Default::default()
            },
            50,
        );
        assert_eq!((b.soft_ms, b.hard_ms), (500, 2000));
        // Nearly flagged: the hard limit stays inside the clock.
        let b = plan(
            &Limits {
                time: Some(120),
                inc: Some(1000),
                ..Default::default()
            },
            50,
        );
        assert!(b.hard_ms <= 70, "{b:?}");
    }

    #[test]
    fn moves_to_go_sets_the_share() {
        // A minute over 12 moves, not over 40; one move to go may take all but the overhead.
        let b = plan(
            &Limits {
                time: Some(60_000),
                moves_to_go: Some(12),
                ..Default::default()
            },
            50,
        );
        assert_eq!((b.soft_ms, b.hard_ms), (2500, 10_000));
        let b = plan(
            &Limits {
                time: Some(1000),
                moves_to_go: Some(1),
                ..Default::default()
            },
            50,
        );
        assert_eq!((b.soft_ms, b.hard_ms), (500, 950));
        // Zero is read as one.
        let zero = Limits {
            time: Some(1000),
            moves_to_go: Some(0),
            ..Default::default()
        };
        assert_eq!(plan(&zero, 50), b);
    }

    #[test]
    fn depth_or_nodes_alone_have_no_deadline() {
        assert_eq!(
            plan(
                &Limits {
                    depth: Some(5),
                    ..Default::default()
                },
                50
            ),
            Deadlines::UNLIMITED
        );
        assert_eq!(
            plan(
                &Limits {
                    infinite: true,
                    ..Default::default()
                },
                50
            ),
            Deadlines::UNLIMITED
        );
    }
}
