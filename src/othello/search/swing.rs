//! The side-to-move swing of the Othello evaluation (issue 67): along seeded self-play games,
//! each position is searched to a fixed depth and its score read from black's point of view.
//! An unbiased evaluation gives about the same score whichever side is to move; a biased one
//! alternates from ply to ply. Two figures:
//!
//! - the signed swing: over consecutive plies of opposite sides to move, the mean of the score at
//!   the white-to-move ply minus the score at the black-to-move ply (differences of neighbours,
//!   so a game's trend cancels out);
//! - the mean absolute change of the score from one ply to the next.
//!
//! The static evaluation of the same positions is measured beside the search's, so one run says
//! whether a swing comes from the evaluation or from the search's horizon. `ryoshi bench
//! othello-swing` prints them; before and after a change, the same command measures both.

use crate::othello::search::{pattern, think, Level};
use crate::othello::{position::parse_square, squares, Position};
use crate::rng::{mix, SplitMix64};
use crate::search::{Control, Limits};

/// Random plies opening each game (the range of the Othello match configurations).
const RANDOM_PLIES: (u32, u32) = (4, 8);

/// The figures of one score along the games, in centi-discs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Pairs of consecutive plies with opposite sides to move.
    pub pairs: u64,
    /// Sum over the pairs of (white-to-move score − black-to-move score).
    pub signed: i64,
    /// Sum over the pairs of |later score − earlier score|.
    pub absolute: i64,
    /// Each game's mean signed difference (games without a pair are left out).
    pub per_game: Vec<f64>,
    /// (pairs, signed sum) by the evaluation's phase of the later position.
    pub by_phase: [(u64, i64); pattern::PHASES],
}

impl Figures {
    /// The mean signed swing, in discs.
    pub fn bias(&self) -> f64 {
        self.signed as f64 / self.pairs.max(1) as f64 / 100.0
    }

    /// The standard error of the bias over games (games are independent, plies are not), discs.
    pub fn standard_error(&self) -> f64 {
        let n = self.per_game.len() as f64;
        if n < 2.0 {
            return f64::NAN;
        }
        let mean = self.per_game.iter().sum::<f64>() / n;
        let var = self
            .per_game
            .iter()
            .map(|x| (x - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        (var / n).sqrt() / 100.0
    }

    /// The mean absolute change from one ply to the next, in discs.
    pub fn change(&self) -> f64 {
        self.absolute as f64 / self.pairs.max(1) as f64 / 100.0
    }

    /// Adds one game's scores: (black to move, phase, score for black) by ply.
    fn add_game(&mut self, plies: &[(bool, usize, i32)]) {
        let (mut pairs, mut signed) = (0u64, 0i64);
        for w in plies.windows(2) {
            let ((black0, _, s0), (black1, phase, s1)) = (w[0], w[1]);
            if black0 == black1 {
                continue;
            }
            let d = if black1 { s0 - s1 } else { s1 - s0 } as i64;
            pairs += 1;
            signed += d;
            self.absolute += (s1 - s0).abs() as i64;
            self.by_phase[phase].0 += 1;
            self.by_phase[phase].1 += d;
        }
        self.pairs += pairs;
        self.signed += signed;
        if pairs > 0 {
            self.per_game.push(signed as f64 / pairs as f64);
        }
    }
}

/// A measurement: the search's figures and the static evaluation's on the same positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Swing {
    pub games: u64,
    pub depth: u32,
    /// Positions searched.
    pub plies: u64,
    pub nodes: u64,
    pub searched: Figures,
    pub evaluated: Figures,
}

/// Plays `games` seeded games (game g's opening from `seed` and g) where every move is the
/// level-3 search's at `depth` (no exact solve), each position scored as it is searched. A game
/// stops once the search could reach its end (at most `depth` empties): from there the scores
/// are exact and say nothing of the evaluation.
pub fn measure(games: u64, depth: u32, seed: u64) -> Swing {
    let depth = depth.max(1);
    let level = Level::fixed_depth(depth);
    let mut out = Swing {
        games,
        depth,
        ..Swing::default()
    };
    for game in 0..games {
        let mut rng = SplitMix64::new(seed ^ mix(game.wrapping_add(1)));
        let (lo, hi) = RANDOM_PLIES;
        let random = lo + rng.below((hi - lo + 1) as u64) as u32;
        let mut pos = Position::START;
        let (mut searched, mut evaluated) = (Vec::new(), Vec::new());
        let mut ply = 0;
        loop {
            if let Some(passed) = pos.forced_pass() {
                pos = passed;
            }
            let board = pos.board;
            if board.is_game_over() || board.empties().count_ones() <= depth {
                break;
            }
            let sq = if ply < random {
                let list: Vec<u32> = squares(board.moves()).collect();
                list[rng.index(list.len())]
            } else {
                let limits = Limits {
                    depth: Some(depth),
                    ..Default::default()
                };
                let control = Control::new(limits, 0);
                let outcome = think(&board, level, game, &control, &mut |_| {});
                out.nodes += outcome.info.nodes;
                out.plies += 1;
                let black = pos.black_to_move;
                let view = |s: i32| if black { s } else { -s };
                let phase = pattern::phase((board.player | board.opponent).count_ones());
                searched.push((black, phase, view(outcome.info.score)));
                let e = pattern::evaluate(board.player, board.opponent);
                evaluated.push((black, phase, view(e)));
                let Some(sq) = outcome.best.as_deref().and_then(parse_square) else {
                    break;
                };
                sq
            };
            let Some(next) = pos.play(sq) else { break };
            pos = next;
            ply += 1;
        }
        out.searched.add_game(&searched);
        out.evaluated.add_game(&evaluated);
    }
    out
}

impl Swing {
    /// The report's lines.
    pub fn lines(&self) -> Vec<String> {
        let line = |name: &str, f: &Figures| {
            format!(
                "{name}: white-to-move minus black-to-move {:+.2} discs (standard error {:.2} over games), mean change a ply {:.2} discs, {} pairs",
                f.bias(),
                f.standard_error(),
                f.change(),
                f.pairs
            )
        };
        let phases = |f: &Figures| {
            f.by_phase
                .iter()
                .map(|&(n, s)| format!("{:+.2}", s as f64 / n.max(1) as f64 / 100.0))
                .collect::<Vec<_>>()
                .join(" ")
        };
        vec![
            format!(
                "othello-swing: {} games from seeded openings of {}-{} random plies, level 3 at depth {}, {} positions, {} nodes",
                self.games, RANDOM_PLIES.0, RANDOM_PLIES.1, self.depth, self.plies, self.nodes
            ),
            line(&format!("depth {}", self.depth), &self.searched),
            line("static evaluation", &self.evaluated),
            format!(
                "signed swing by phase (disc count 4-64 in {}): depth {}: {}; static: {}",
                pattern::PHASES,
                self.depth,
                phases(&self.searched),
                phases(&self.evaluated)
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_the_differences_of_neighbours() {
        let mut f = Figures::default();
        // Black, white, black (after a pass: white again, then black): scores for black.
        f.add_game(&[
            (true, 0, 100),
            (false, 0, 300),
            (true, 1, 50),
            (true, 1, 70),
            (false, 2, 170),
        ]);
        // Pairs: (b100, w300) +200; (w300, b50) +250; (b50, b70) skipped; (b70, w170) +100.
        assert_eq!((f.pairs, f.signed, f.absolute), (3, 550, 200 + 250 + 100));
        assert_eq!(f.by_phase[0], (1, 200));
        assert_eq!(f.by_phase[1], (1, 250));
        assert_eq!(f.by_phase[2], (1, 100));
        assert!((f.bias() - 550.0 / 3.0 / 100.0).abs() < 1e-12);
        f.add_game(&[(true, 3, 0), (false, 3, -100)]);
        assert_eq!(f.per_game.len(), 2);
        assert!((f.bias() - 4.5 / 4.0).abs() < 1e-12);
        // Per-game means 550/3 and -100: their spread over games.
        let mean: f64 = (550.0 / 3.0 - 100.0) / 2.0;
        let var = (550.0 / 3.0 - mean).powi(2) + (-100.0 - mean).powi(2);
        assert!((f.standard_error() - (var / 2.0).sqrt() / 100.0).abs() < 1e-12);
    }

    #[test]
    fn a_measurement_is_seeded_and_scores_every_searched_ply() {
        let a = measure(3, 2, 7);
        assert_eq!(a, measure(3, 2, 7));
        assert_ne!(a.searched, measure(3, 2, 8).searched);
        assert!(a.plies > 3 * 30, "{}", a.plies);
        // Passes aside, every searched ply but a game's first pairs with the one before.
        assert!(a.searched.pairs + 3 * 3 >= a.plies, "{a:?}");
        assert_eq!(a.searched.pairs, a.evaluated.pairs);
        assert_eq!(a.lines().len(), 4);
    }

    #[test]
    fn the_tempo_keeps_the_depth_8_swing_under_half_a_disc() {
        // Issue 67: before the fitted tempo these 12 games read +2.94 discs (standard error 0.12)
        // and a mean change of 3.11 discs a ply; with it, +0.10 (0.13) and 1.74.
        let s = measure(12, 8, 1);
        assert!(s.searched.bias().abs() < 0.5, "{:?}", s.lines());
        assert!(s.searched.change() < 2.5, "{:?}", s.lines());
    }
}
