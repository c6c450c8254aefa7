//! Match statistics: score, Elo difference with a 95% interval, likelihood of superiority, SPRT.
//!
//! The formulas are cutechess-cli's: the Elo interval comes from the normal approximation of the
//! mean score (trinomial variance of win/draw/loss), mapped through the logistic Elo curve; the
//! LOS is `Φ((W − L) / √(W + L))`. The SPRT is the generalized SPRT on the trinomial model with
//! logistic Elo (as in fastchess/fishtest's "GSPRT"):
//! `LLR = N (s1 − s0) (2 s̄ − s0 − s1) / (2 σ²)` with `s = 1 / (1 + 10^(−elo/400))` and σ² the
//! per-game variance of the observed results.

use super::config::SprtConfig;
use super::{Side, Verdict};
use std::fmt;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The error rate of the one-sided bound given for a perfect (or perfectly lost) score.
const ONE_SIDED_ALPHA: f64 = 0.05;

/// Wins, losses and draws of one engine against another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Tally {
    /// Counts one game's verdict, from the side of the engine that moved first when `a_first`.
    pub fn add(&mut self, verdict: Verdict, a_first: bool) {
        match verdict {
            Verdict::Draw => self.draws += 1,
            Verdict::Win(side) if (side == Side::First) == a_first => self.wins += 1,
            Verdict::Win(_) => self.losses += 1,
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points per game (a draw is half a point).
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / n as f64)
    }

    /// Per-game variance of the results around the mean score.
    fn variance(&self) -> Option<f64> {
        let n = self.games() as f64;
        let s = self.score()?;
        Some(
            (self.wins as f64 * (1.0 - s).powi(2)
                + self.losses as f64 * s.powi(2)
                + self.draws as f64 * (0.5 - s).powi(2))
                / n,
        )
    }

    /// The Elo difference with its 95% interval; `None` before the first game.
    ///
    /// When every game was won (or every game lost) the estimate is infinite and the normal
    /// approximation has no width; the interval is then the exact one-sided binomial bound: the
    /// smallest score p for which N wins in N games still has probability 5% (`p^N = 0.05`).
    pub fn elo(&self) -> Option<Elo> {
        let s = self.score()?;
        let n = self.games();
        let bound = || elo_from_score(ONE_SIDED_ALPHA.powf(1.0 / n as f64));
        if self.wins == n {
            return Some(Elo {
                diff: f64::INFINITY,
                lower: bound(),
                upper: f64::INFINITY,
            });
        }
        if self.losses == n {
            return Some(Elo {
                diff: f64::NEG_INFINITY,
                lower: f64::NEG_INFINITY,
                upper: -bound(),
            });
        }
        let sd = (self.variance()? / self.games() as f64).sqrt();
        Some(Elo {
            diff: elo_from_score(s),
            lower: elo_from_score(s - Z95 * sd),
            upper: elo_from_score(s + Z95 * sd),
        })
    }

    /// Likelihood of superiority: the probability the first engine is the stronger one.
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
    }

    pub fn draw_ratio(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => self.draws as f64 / n as f64,
        }
    }

    /// The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0); `None` before the first
    /// game. The outcomes not seen yet count half a game each (a pseudo-count): while every
    /// game had the same result the variance would be zero and the formula undefined, and while
    /// few outcomes have been seen the variance is too small to trust (see `unseen_count_half`).
    pub fn llr(&self, elo0: f64, elo1: f64) -> Option<f64> {
        let mut counts = [self.wins as f64, self.losses as f64, self.draws as f64];
        if self.games() == 0 {
            return None;
        }
        unseen_count_half(&mut counts);
        let [w, l, d] = counts;
        let n = w + l + d;
        let s = (w + 0.5 * d) / n;
        let var = (w * (1.0 - s).powi(2) + l * s.powi(2) + d * (0.5 - s).powi(2)) / n;
        let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
        Some(n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var))
    }

    /// `Score of A vs B: W - L - D  [ratio] N` as cutechess-cli prints it.
    pub fn score_line(&self, a: &str, b: &str) -> String {
        format!(
            "Score of {a} vs {b}: {} - {} - {}  [{:.3}] {}",
            self.wins,
            self.losses,
            self.draws,
            self.score().unwrap_or(0.0),
            self.games()
        )
    }

    /// `Elo difference: X +/- E (95% interval L .. U), LOS: P %, DrawRatio: D %`; after a
    /// perfect score `Elo difference: >= L (95% one-sided bound, every game won), ...`.
    pub fn elo_line(&self) -> String {
        let Some(elo) = self.elo() else {
            return "Elo difference: no games".into();
        };
        let estimate = if elo.diff == f64::INFINITY {
            format!(
                ">= {} (95% one-sided bound, every game won)",
                fmt_elo(elo.lower)
            )
        } else if elo.diff == f64::NEG_INFINITY {
            format!(
                "<= {} (95% one-sided bound, every game lost)",
                fmt_elo(elo.upper)
            )
        } else {
            format!(
                "{} +/- {} (95% interval {} .. {})",
                fmt_elo(elo.diff),
                fmt_elo(elo.error()),
                fmt_elo(elo.lower),
                fmt_elo(elo.upper)
            )
        };
        format!(
            "Elo difference: {estimate}, LOS: {:.1} %, DrawRatio: {:.1} %",
            100.0 * self.los(),
            100.0 * self.draw_ratio()
        )
    }
}

/// An Elo difference and its 95% interval (at a 0% or 100% score: an infinite estimate and a
/// one-sided bound).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Elo {
    pub diff: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Elo {
    /// Half the interval's width (cutechess's `+/-`); infinite for a one-sided bound.
    pub fn error(&self) -> f64 {
        if self.diff.is_infinite() {
            return f64::INFINITY;
        }
        (self.upper - self.lower) / 2.0
    }

    /// The estimate and its `+/-` as two short columns (standings, progress bar): `>=137.2` and
    /// `-` for a perfect score, `<=-137.2` and `-` for a perfectly lost one.
    pub fn columns(&self) -> (String, String) {
        if self.diff == f64::INFINITY {
            (format!(">={}", fmt_elo(self.lower)), "-".into())
        } else if self.diff == f64::NEG_INFINITY {
            (format!("<={}", fmt_elo(self.upper)), "-".into())
        } else {
            (fmt_elo(self.diff), fmt_elo(self.error()))
        }
    }
}

pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// One decimal (no `-0.0`); `n/a` for an infinite or undefined value (an interval that reaches
/// a 0% or 100% score has no Elo bound there, as cutechess and fastchess print it).
pub fn fmt_elo(x: f64) -> String {
    if !x.is_finite() {
        "n/a".into()
    } else if x.abs() < 0.05 {
        // No "-0.0".
        "0.0".into()
    } else {
        format!("{x:.1}")
    }
}

/// The error function, from erfc's Chebyshev fit (Numerical Recipes' `erfcc`, relative error
/// below 1.2e-7), which is ample for a percentage printed to one decimal.
pub fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - erfc
    } else {
        erfc - 1.0
    }
}

/// Gives every result not seen yet half a count. Without it a sample variance from a handful of
/// results decides: three pairs that scored 1½, 2, 2 gave σ² = 0.014 and an llr of 5.9 at
/// elo1 = 50, H1 after six games. With it they give 0.42; one-sided matches still decide (eight
/// pairs won at elo1 = 50), and on hundreds of games, where every result has been seen, nothing
/// changes.
fn unseen_count_half(counts: &mut [f64]) {
    if counts.iter().any(|&c| c > 0.0) {
        for c in counts.iter_mut().filter(|c| **c == 0.0) {
            *c = 0.5;
        }
    }
}

/// Counts an SPRT can be run on: games (the trinomial model) or game pairs (the pentanomial).
pub trait Llr {
    /// The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0); `None` before the first
    /// unit.
    fn llr(&self, elo0: f64, elo1: f64) -> Option<f64>;
    /// What is counted, for `no games`.
    fn unit(&self) -> &'static str;
}

impl Llr for Tally {
    fn llr(&self, elo0: f64, elo1: f64) -> Option<f64> {
        Tally::llr(self, elo0, elo1)
    }

    fn unit(&self) -> &'static str {
        "games"
    }
}

/// Game pairs (one opening, colours swapped) by the first engine's points in them, as
/// fastchess's `Ptnml(0-2)`: 0 (two losses), ½, 1 (a win and a loss, or two draws), 1½, 2.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Penta {
    pub counts: [u32; 5],
}

impl Penta {
    /// Counts a pair in which the first engine scored `half_points` (0 to 4) half points.
    pub fn add(&mut self, half_points: usize) {
        self.counts[half_points.min(4)] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// The score per game and the variance of a pair's score per game (0, ¼, ½, ¾ or 1), over
    /// `counts` (pseudo-counts allowed).
    fn moments(counts: [f64; 5]) -> Option<(f64, f64, f64)> {
        let n: f64 = counts.iter().sum();
        if n == 0.0 {
            return None;
        }
        let value = |k: usize| k as f64 / 4.0;
        let mean = (0..5).map(|k| counts[k] * value(k)).sum::<f64>() / n;
        let var = (0..5)
            .map(|k| counts[k] * (value(k) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((n, mean, var))
    }

    fn as_f64(&self) -> [f64; 5] {
        self.counts.map(f64::from)
    }

    /// The Elo difference with its 95% interval, from the pairs' scores as fastchess computes
    /// it: the mean ± 1.96 standard errors of the pair score, through the logistic curve. `None`
    /// before the first pair; the interval's ends are infinite where it reaches a 0% or 100%
    /// score.
    pub fn elo(&self) -> Option<Elo> {
        let (n, mean, var) = Self::moments(self.as_f64())?;
        let sd = (var / n).sqrt();
        Some(Elo {
            diff: elo_from_score(mean),
            lower: elo_from_score(mean - Z95 * sd),
            upper: elo_from_score(mean + Z95 * sd),
        })
    }

    /// Likelihood of superiority from the pairs: `Φ((s − ½) / σ)`, σ the pair score's standard
    /// error (fastchess's pentanomial LOS).
    pub fn los(&self) -> Option<f64> {
        let (n, mean, var) = Self::moments(self.as_f64())?;
        if var == 0.0 {
            return Some(match mean.total_cmp(&0.5) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => 0.5,
            });
        }
        Some(0.5 * (1.0 + erf((mean - 0.5) / (2.0 * var / n).sqrt())))
    }

    /// `Ptnml(0-2): [0, 3, 5, 2, 1], Elo: 12.3 +/- 45.6, LOS: 61.0 %, PairsRatio: 1.00`; the
    /// pairs ratio is the pairs won (1½ or 2 points) over those lost (0 or ½).
    pub fn line(&self) -> String {
        let c = self.counts;
        let elo = match self.elo() {
            Some(e) if e.diff.is_finite() => {
                format!("{} +/- {}", fmt_elo(e.diff), fmt_elo(e.error()))
            }
            _ => "n/a".into(),
        };
        let los = self
            .los()
            .map_or_else(|| "n/a".into(), |l| format!("{:.1} %", 100.0 * l));
        let (won, lost) = (c[3] + c[4], c[0] + c[1]);
        let ratio = if lost == 0 {
            "n/a".into()
        } else {
            format!("{:.2}", won as f64 / lost as f64)
        };
        format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}], Elo: {elo}, LOS: {los}, PairsRatio: {ratio}",
            c[0], c[1], c[2], c[3], c[4]
        )
    }
}

impl Llr for Penta {
    /// fastchess's pentanomial GSPRT with logistic Elo:
    /// `LLR = (s1 − s0)(2s − s0 − s1) / (2σ²/N)`, N pairs of mean score s per game and σ² the
    /// variance of a pair's score. The results not seen yet count half a pair each
    /// (`unseen_count_half`).
    fn llr(&self, elo0: f64, elo1: f64) -> Option<f64> {
        let mut counts = self.as_f64();
        unseen_count_half(&mut counts);
        let (n, mean, var) = Self::moments(counts)?;
        let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
        Some((s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var / n))
    }

    fn unit(&self) -> &'static str {
        "game pairs"
    }
}

/// What the SPRT says after the games so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SprtState {
    Continue,
    /// H0 accepted: the first engine is not `elo1` stronger.
    H0,
    /// H1 accepted: the first engine is at least `elo1` stronger than `elo0`.
    H1,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    pub config: SprtConfig,
}

impl Sprt {
    pub fn new(config: SprtConfig) -> Self {
        Sprt { config }
    }

    /// `ln(β / (1 − α))`: at or below it, H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.config.beta / (1.0 - self.config.alpha)).ln()
    }

    /// `ln((1 − β) / α)`: at or above it, H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.config.beta) / self.config.alpha).ln()
    }

    pub fn state(&self, counts: &impl Llr) -> SprtState {
        match counts.llr(self.config.elo0, self.config.elo1) {
            Some(llr) if llr >= self.upper_bound() => SprtState::H1,
            Some(llr) if llr <= self.lower_bound() => SprtState::H0,
            _ => SprtState::Continue,
        }
    }

    /// `SPRT: llr 0.43 (14.5%), lbound -2.94, ubound 2.94 - H1 was accepted`.
    pub fn line(&self, counts: &impl Llr) -> String {
        let c = &self.config;
        let head = format!(
            "SPRT (elo0 {}, elo1 {}, alpha {}, beta {}):",
            c.elo0, c.elo1, c.alpha, c.beta
        );
        let (lo, hi) = (self.lower_bound(), self.upper_bound());
        let Some(llr) = counts.llr(c.elo0, c.elo1) else {
            return format!(
                "{head} no {}, lbound {lo:.2}, ubound {hi:.2}",
                counts.unit()
            );
        };
        let share = if llr >= 0.0 { llr / hi } else { -llr / lo };
        let verdict = match self.state(counts) {
            SprtState::Continue => "",
            SprtState::H0 => " - H0 was accepted",
            SprtState::H1 => " - H1 was accepted",
        };
        format!(
            "{head} llr {llr:.3} ({:.1}%), lbound {lo:.2}, ubound {hi:.2}{verdict}",
            100.0 * share
        )
    }
}

impl fmt::Display for SprtState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtState::Continue => "continue",
            SprtState::H0 => "H0",
            SprtState::H1 => "H1",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn erf_matches_known_values() {
        // Values from tables (Abramowitz & Stegun 7.1).
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (2.0, 0.995_322_265_0),
            (-1.0, -0.842_700_792_9),
        ] {
            assert!(close(erf(x), want, 2e-7), "erf({x}) = {}", erf(x));
        }
    }

    #[test]
    fn elo_curve_round_trips() {
        for elo in [-300.0, -50.0, 0.0, 10.0, 400.0] {
            assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
        }
        assert!(close(elo_from_score(0.75), 190.848_501_887_865, 1e-9));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn empty_and_one_sided_tallies() {
        let t = Tally::default();
        assert_eq!(t.elo(), None);
        assert_eq!(t.los(), 0.5);
        assert_eq!(t.elo_line(), "Elo difference: no games");
        let t = Tally {
            wins: 3,
            losses: 0,
            draws: 0,
        };
        assert_eq!(t.elo().unwrap().diff, f64::INFINITY);
        assert_eq!(Tally::default().llr(0.0, 5.0), None);
        // Pseudo-counts: 3 wins, 0.5 loss, 0.5 draw.
        let (n, s) = (4.0, 3.25 / 4.0);
        let var = (3.0 * (1.0 - s) * (1.0 - s) + 0.5 * s * s + 0.5 * (0.5 - s) * (0.5 - s)) / n;
        let s1 = score_from_elo(5.0);
        let want = n * (s1 - 0.5) * (2.0 * s - 0.5 - s1) / (2.0 * var);
        assert!(close(t.llr(0.0, 5.0).unwrap(), want, 1e-12));
        assert_eq!(
            t.elo_line(),
            "Elo difference: >= -93.6 (95% one-sided bound, every game won), \
             LOS: 95.8 %, DrawRatio: 0.0 %"
        );
    }

    /// The bound of a perfect score is the score p with p^N = 5%, and it grows with N.
    #[test]
    fn perfect_scores_give_a_one_sided_bound() {
        let mut last = f64::NEG_INFINITY;
        for n in [1u32, 2, 8, 50] {
            let won = Tally {
                wins: n,
                losses: 0,
                draws: 0,
            };
            let e = won.elo().unwrap();
            let p = score_from_elo(e.lower);
            assert!(close(p.powi(n as i32), 0.05, 1e-9), "{n}: {p}");
            assert!(e.lower > last && e.lower.is_finite());
            last = e.lower;
            assert_eq!((e.diff, e.upper), (f64::INFINITY, f64::INFINITY));
            let lost = Tally {
                wins: 0,
                losses: n,
                draws: 0,
            };
            let f = lost.elo().unwrap();
            assert_eq!(f.upper, -e.lower);
            assert_eq!(
                f.columns(),
                (format!("<={}", fmt_elo(-e.lower)), "-".into())
            );
            assert!(!won.elo_line().contains("nan") && !won.elo_line().contains("inf"));
        }
        // 8 wins: p = 0.05^(1/8) = 0.6877, 137.1 Elo (3 wins only bound it at -93.6).
        let eight = Tally {
            wins: 8,
            losses: 0,
            draws: 0,
        };
        assert_eq!(eight.elo().unwrap().columns().0, ">=137.1");
    }
}
