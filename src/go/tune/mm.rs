//! Minorization–maximization for the generalised Bradley–Terry model of Coulom (2007): each
//! competition is a position, its participants the legal moves, each a team of features whose
//! strength is the product of their gammas, and the winner the move played. One group of
//! features is updated at a time (Coulom's schedule), with his prior: every gamma has played one
//! virtual win and one virtual loss against a gamma of 1.

/// A feature slot a candidate leaves empty.
pub const ABSENT: u32 = u32::MAX;

/// Competitions with `width` feature slots per candidate; feature `f` belongs to group
/// `group[f]` (one feature per group and candidate at most).
#[derive(Clone, Debug, Default)]
pub struct Competitions {
    pub width: usize,
    /// Per candidate, `width` features (or [`ABSENT`]).
    pub features: Vec<u32>,
    /// Per competition, its first candidate; a last entry closes the list.
    pub starts: Vec<usize>,
    /// Per competition, the winner's index among its candidates.
    pub winners: Vec<u32>,
}

impl Competitions {
    pub fn new(width: usize) -> Competitions {
        Competitions {
            width,
            features: Vec::new(),
            starts: vec![0],
            winners: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.winners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.winners.is_empty()
    }

    /// Adds one competition: its candidates' features, `width` each, and the winner.
    pub fn push(&mut self, candidates: &[u32], winner: usize) {
        debug_assert_eq!(candidates.len() % self.width, 0);
        self.features.extend_from_slice(candidates);
        self.starts.push(self.features.len() / self.width);
        self.winners.push(winner as u32);
    }

    fn candidate(&self, c: usize) -> &[u32] {
        &self.features[c * self.width..(c + 1) * self.width]
    }

    fn strength(&self, c: usize, gammas: &[f64]) -> f64 {
        self.candidate(c)
            .iter()
            .filter(|&&f| f != ABSENT)
            .map(|&f| gammas[f as usize])
            .product()
    }

    /// Mean log-likelihood of the winners, and the share of competitions where the winner is
    /// the strongest candidate (ties share the credit).
    pub fn evaluate(&self, gammas: &[f64]) -> (f64, f64) {
        if self.is_empty() {
            return (0.0, 0.0);
        }
        let mut log_l = 0.0;
        let mut top = 0.0;
        for j in 0..self.len() {
            let (a, b) = (self.starts[j], self.starts[j + 1]);
            let winner = a + self.winners[j] as usize;
            let w = self.strength(winner, gammas);
            let mut total = 0.0;
            let mut above = 0;
            let mut level = 0;
            for c in a..b {
                let s = self.strength(c, gammas);
                total += s;
                if s > w {
                    above += 1;
                } else if s == w {
                    level += 1;
                }
            }
            log_l += (w / total).ln();
            if above == 0 {
                top += 1.0 / level as f64;
            }
        }
        (log_l / self.len() as f64, top / self.len() as f64)
    }
}

/// Fits gammas (`features` of them, all starting at 1) by `rounds` rounds of MM over the
/// groups; `group[f]` is feature f's group, `groups` their count. `report` hears each round's
/// training log-likelihood.
pub fn fit(
    data: &Competitions,
    group: &[usize],
    groups: usize,
    rounds: usize,
    report: &mut dyn FnMut(usize, f64),
) -> Vec<f64> {
    let n = group.len();
    let mut gammas = vec![1.0f64; n];
    // Wins: how often each feature is in the winner's team.
    let mut wins = vec![0.0f64; n];
    for j in 0..data.len() {
        let winner = data.starts[j] + data.winners[j] as usize;
        for &f in data.candidate(winner) {
            if f != ABSENT {
                wins[f as usize] += 1.0;
            }
        }
    }
    let mut strengths = vec![0.0f64; data.features.len() / data.width.max(1)];
    let mut below = vec![0.0f64; n];
    for round in 0..rounds {
        for g in 0..groups {
            for (c, s) in strengths.iter_mut().enumerate() {
                *s = data.strength(c, &gammas);
            }
            below.iter_mut().for_each(|b| *b = 0.0);
            for j in 0..data.len() {
                let (a, b) = (data.starts[j], data.starts[j + 1]);
                let total: f64 = strengths[a..b].iter().sum();
                for (c, &s) in strengths.iter().enumerate().take(b).skip(a) {
                    for &f in data.candidate(c) {
                        if f != ABSENT && group[f as usize] == g {
                            // The team's strength without f: C_ij of Coulom's paper.
                            below[f as usize] += s / gammas[f as usize] / total;
                        }
                    }
                }
            }
            for f in 0..n {
                if group[f] == g {
                    let prior = 2.0 / (gammas[f] + 1.0);
                    gammas[f] = (wins[f] + 1.0) / (below[f] + prior);
                }
            }
        }
        report(round + 1, data.evaluate(&gammas).0);
    }
    gammas
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Competitions drawn from known gammas (each candidate one feature of each of two groups,
    /// the winner drawn in proportion to strength): the fit finds the gammas again.
    #[test]
    fn mm_recovers_the_gammas_synthetic_data_were_drawn_from() {
        let mut rng = SplitMix64::new(2007);
        // Group 0: features 0..6; group 1: features 6..10.
        let truth = [1.0, 0.2, 3.0, 8.0, 0.5, 1.5, 1.0, 4.0, 0.3, 2.0];
        let group: Vec<usize> = (0..10).map(|f| usize::from(f >= 6)).collect();
        let mut data = Competitions::new(2);
        for _ in 0..20_000 {
            let k = 2 + rng.index(8);
            let mut cands = Vec::with_capacity(2 * k);
            for _ in 0..k {
                cands.push(rng.index(6) as u32);
                // Now and then a candidate without a group-1 feature.
                cands.push(if rng.index(5) == 0 {
                    ABSENT
                } else {
                    6 + rng.index(4) as u32
                });
            }
            let strength = |c: usize| {
                cands[2 * c..2 * c + 2]
                    .iter()
                    .filter(|&&f| f != ABSENT)
                    .map(|&f| truth[f as usize])
                    .product::<f64>()
            };
            let total: f64 = (0..k).map(strength).sum();
            let mut x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let mut winner = k - 1;
            for c in 0..k {
                x -= strength(c);
                if x < 0.0 {
                    winner = c;
                    break;
                }
            }
            data.push(&cands, winner);
        }
        let mut last = f64::NEG_INFINITY;
        let gammas = fit(&data, &group, 2, 40, &mut |_, ll| {
            // MM never lowers the (prior-penalised) likelihood by much.
            assert!(ll > last - 1e-3, "{ll} after {last}");
            last = ll;
        });
        // Each group is known up to a common factor; the prior pins it near the data's scale,
        // so compare ratios to the group's first feature.
        for f in 0..10 {
            let base = if f < 6 { 0 } else { 6 };
            let want = truth[f] / truth[base];
            let got = gammas[f] / gammas[base];
            assert!(
                (got / want).ln().abs() < 0.12,
                "feature {f}: {got:.3} for {want:.3} ({gammas:?})"
            );
        }
        let (ll_fit, top_fit) = data.evaluate(&gammas);
        let (ll_one, _) = data.evaluate(&[1.0; 10]);
        assert!(ll_fit > ll_one + 0.1, "{ll_fit} {ll_one}");
        assert!(top_fit > 0.3, "{top_fit}");
    }
}
