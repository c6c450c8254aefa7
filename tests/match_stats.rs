//! Summary arithmetic from known counts against hand-checked values.
//!
//! Expected values were worked out independently (Python's `math.erf`/`math.log10` with the
//! formulas in `src/matches/stats.rs`' header) and spot-checked by hand: for 10 - 5 - 3 the score
//! is 11.5 / 18 = 0.638889, Elo = −400·log10(1/0.638889 − 1) = 99.11, LOS = Φ(5/√15) =
//! ½(1 + erf(5/√30)) = 0.9016.

use ryoshi::matches::config::SprtConfig;
use ryoshi::matches::stats::{Sprt, SprtState, Tally};
use ryoshi::matches::{summary_text, PairScore, Summary};

fn tally(wins: u32, losses: u32, draws: u32) -> Tally {
    Tally {
        wins,
        losses,
        draws,
    }
}

fn close(a: f64, b: f64, eps: f64) {
    assert!(a == b || (a - b).abs() <= eps, "{a} vs {b}");
}

#[test]
fn elo_interval_and_los_from_known_counts() {
    // (W, L, D) → score, Elo, 95% lower, upper, +/-, LOS.
    let cases = [
        (
            (10, 5, 3),
            [
                0.638889, 99.113793, -43.284143, 287.738711, 165.511427, 0.901647,
            ],
        ),
        (
            (30, 20, 50),
            [0.55, 34.860070, -12.929693, 84.010763, 48.470228, 0.921350],
        ),
        (
            (7, 12, 1),
            [
                0.375,
                -88.739500,
                -277.226684,
                57.096643,
                167.161664,
                0.125675,
            ],
        ),
        (
            (120, 100, 80),
            [
                0.533333, 23.196779, -10.406185, 57.240141, 33.823163, 0.911235,
            ],
        ),
    ];
    for ((w, l, d), want) in cases {
        let t = tally(w, l, d);
        let elo = t.elo().unwrap();
        close(t.score().unwrap(), want[0], 1e-6);
        close(elo.diff, want[1], 1e-5);
        close(elo.lower, want[2], 1e-5);
        close(elo.upper, want[3], 1e-5);
        close(elo.error(), want[4], 1e-5);
        close(t.los(), want[5], 1e-6);
    }
}

#[test]
fn cutechess_style_lines() {
    let t = tally(10, 5, 3);
    assert_eq!(
        t.score_line("new", "old"),
        "Score of new vs old: 10 - 5 - 3  [0.639] 18"
    );
    assert_eq!(
        t.elo_line(),
        "Elo difference: 99.1 +/- 165.5 (95% interval -43.3 .. 287.7), LOS: 90.2 %, DrawRatio: 16.7 %"
    );
    let summary = Summary {
        pairs: vec![PairScore {
            a: "new".into(),
            b: "old".into(),
            tally: t,
            ..PairScore::default()
        }],
        finished: 18,
        scheduled: 40,
        interrupted: true,
        stopped: false,
        sprt: None,
    };
    assert_eq!(
        summary_text(&summary, None),
        "Interrupted: summary of the 18 finished games of 40\n\
         Score of new vs old: 10 - 5 - 3  [0.639] 18\n\
         Elo difference: 99.1 +/- 165.5 (95% interval -43.3 .. 287.7), LOS: 90.2 %, DrawRatio: 16.7 %\n"
    );
}

#[test]
fn sprt_bounds_and_decisions() {
    let sprt = Sprt::new(SprtConfig {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    });
    close(sprt.lower_bound(), -2.944439, 1e-6);
    close(sprt.upper_bound(), 2.944439, 1e-6);
    let up = tally(200, 100, 100);
    close(up.llr(0.0, 10.0).unwrap(), 3.944500, 1e-5);
    assert_eq!(sprt.state(&up), SprtState::H1);
    let down = tally(100, 200, 100);
    close(down.llr(0.0, 10.0).unwrap(), -4.426225, 1e-5);
    assert_eq!(sprt.state(&down), SprtState::H0);
    let open = tally(60, 50, 90);
    close(open.llr(0.0, 10.0).unwrap(), 0.374333, 1e-5);
    assert_eq!(sprt.state(&open), SprtState::Continue);
    assert_eq!(
        sprt.line(&up),
        "SPRT (elo0 0, elo1 10, alpha 0.05, beta 0.05): llr 3.945 (134.0%), lbound -2.94, ubound 2.94 - H1 was accepted"
    );

    // Unequal error rates: ln(β/(1−α)) and ln((1−β)/α).
    let skewed = Sprt::new(SprtConfig {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.1,
    });
    close(skewed.lower_bound(), -2.251292, 1e-6);
    close(skewed.upper_bound(), 2.890372, 1e-6);
}

#[test]
fn properties_over_seeded_random_tallies() {
    use ryoshi::matches::stats::score_from_elo;
    use ryoshi::rng::SplitMix64;
    let mut rng = SplitMix64::new(2024);
    for _ in 0..2000 {
        let t = tally(
            rng.below(60) as u32 + 1,
            rng.below(60) as u32 + 1,
            rng.below(60) as u32,
        );
        let mirror = tally(t.losses, t.wins, t.draws);
        let (e, m) = (t.elo().unwrap(), mirror.elo().unwrap());
        // Swapping the engines mirrors everything.
        close(e.diff, -m.diff, 1e-9);
        close(e.lower, -m.upper, 1e-9);
        close(t.los() + mirror.los(), 1.0, 1e-6);
        // The interval holds the estimate, and one more win raises it.
        assert!(e.lower <= e.diff && e.diff <= e.upper, "{t:?}");
        let better = tally(t.wins + 1, t.losses, t.draws);
        assert!(better.elo().unwrap().diff > e.diff);
        assert!(better.los() >= t.los());
        // The LLR leans to H1 exactly when the score is past the midpoint of the hypotheses.
        let (elo0, elo1) = (-5.0 + rng.below(10) as f64, 5.0 + rng.below(20) as f64);
        let mid = (score_from_elo(elo0) + score_from_elo(elo1)) / 2.0;
        let llr = t.llr(elo0, elo1).unwrap();
        let s = t.score().unwrap();
        if (s - mid).abs() > 1e-12 {
            assert_eq!(llr > 0.0, s > mid, "{t:?} {elo0} {elo1}");
        }
    }
}

/// Pentanomial statistics against values worked out with Python from fastchess's formulas: pair
/// scores 0, ¼, ½, ¾, 1 per game; mean 0.520833 and pair variance 0.067274 for [1, 2, 5, 3, 1].
#[test]
fn pentanomial_elo_los_and_llr_from_known_counts() {
    use ryoshi::matches::stats::{Llr, Penta};
    let p = Penta {
        counts: [1, 2, 5, 3, 1],
    };
    assert_eq!(p.pairs(), 12);
    let elo = p.elo().unwrap();
    close(elo.diff, 14.484869, 1e-5);
    close(elo.lower, -89.420258, 1e-5);
    close(elo.upper, 121.130128, 1e-5);
    close(elo.error(), 105.275193, 1e-5);
    close(p.los().unwrap(), 0.609587, 1e-6);
    close(p.llr(0.0, 10.0).unwrap(), 0.035004, 1e-6);
    assert_eq!(
        p.line(),
        "Ptnml(0-2): [1, 2, 5, 3, 1], Elo: 14.5 +/- 105.3, LOS: 61.0 %, PairsRatio: 1.33"
    );
    assert_eq!(Penta::default().llr(0.0, 10.0), None);
    // Every pair won: the unseen results count half a pair each, so the test can decide.
    let won = Penta {
        counts: [0, 0, 0, 0, 8],
    };
    let sprt = Sprt::new(SprtConfig {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
    });
    assert_eq!(sprt.state(&won), SprtState::H1);
    let seven = Penta {
        counts: [0, 0, 0, 0, 7],
    };
    assert_eq!(sprt.state(&seven), SprtState::Continue);
    assert!(sprt.line(&Penta::default()).contains("no game pairs"));
    // Three pairs of 1½, 2, 2 (a screen stopped there at stop 56): their own variance gave an
    // llr of 5.88 and H1 after six games; with the unseen results at half a pair, 0.42
    // (mean 3.125 / 4.5 and pair variance 0.121914, worked out with Python).
    let three = Penta {
        counts: [0, 0, 0, 1, 2],
    };
    close(three.llr(0.0, 50.0).unwrap(), 0.418653, 1e-5);
    assert_eq!(sprt.state(&three), SprtState::Continue);
}

/// An interval that reaches a 100% score has no upper Elo bound: the lines say `n/a`, never
/// `inf` (3 - 1 - 0: the score 0.75 + 1.96 × 0.2165 is past 1).
#[test]
fn no_infinite_bounds_are_printed() {
    let t = tally(3, 1, 0);
    let line = t.elo_line();
    assert!(!line.contains("inf"), "{line}");
    assert_eq!(
        line,
        "Elo difference: 190.8 +/- n/a (95% interval -126.4 .. n/a), LOS: 84.1 %, DrawRatio: 0.0 %"
    );
    let summary = Summary {
        pairs: vec![PairScore {
            a: "a".into(),
            b: "b".into(),
            tally: t,
            ..PairScore::default()
        }],
        finished: 4,
        scheduled: 4,
        interrupted: false,
        stopped: false,
        sprt: None,
    };
    let text = summary_text(&summary, None);
    assert!(!text.contains("inf"), "{text}");
    let table = ryoshi::matches::standings(&summary.pairs);
    assert!(!table.contains("inf") && table.contains("n/a"), "{table}");
}
