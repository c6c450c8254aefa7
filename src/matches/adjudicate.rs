//! Adjudication by the engines' scores, as cutechess-cli's `-resign movecount=N score=S` and
//! `-draw movenumber=M movecount=N score=S` do it: a side whose own score has been at or below
//! −S centipawns for N of its moves in a row loses; a game of at least M moves (each side's) in
//! which both sides' scores have stayed within S of zero for N moves each in a row is drawn. A
//! move without a score (GTP engines send none) breaks the runs. Off unless configured.

use super::config::{DrawAdjudication, ResignAdjudication};
use super::referee::{GameEnd, Reason, Side, Verdict};

/// A mate score as centipawns: beyond any evaluation.
const MATE_CP: i64 = 100_000;

/// The score of an `info` line's `score cp X` / `score mate N` (from the engine's side), in
/// centipawns; `None` for anything else.
pub fn centipawns(words: &[&str]) -> Option<i64> {
    let at = words.iter().position(|w| *w == "score")?;
    let value: i64 = words.get(at + 2)?.parse().ok()?;
    match *words.get(at + 1)? {
        "cp" => Some(value),
        "mate" if value > 0 || words[at + 2].starts_with('+') => Some(MATE_CP - value),
        "mate" => Some(-MATE_CP - value),
        _ => None,
    }
}

/// The runs of one game.
pub struct Adjudicator {
    resign: Option<ResignAdjudication>,
    draw: Option<DrawAdjudication>,
    /// By side: its moves in a row with a losing score.
    losing: [u32; 2],
    /// Moves in a row (both sides') with a score near zero.
    level: u32,
}

impl Adjudicator {
    pub fn new(resign: Option<ResignAdjudication>, draw: Option<DrawAdjudication>) -> Self {
        Adjudicator {
            resign,
            draw,
            losing: [0; 2],
            level: 0,
        }
    }

    /// After `side`'s move, with the score it gave (its own view) and the plies of the game so
    /// far (the opening's included): the end, when the scores decide it.
    pub fn after_move(
        &mut self,
        side: Side,
        score: Option<i64>,
        plies: usize,
    ) -> Option<(GameEnd, String)> {
        if let Some(r) = self.resign {
            let lost = score.is_some_and(|cp| cp <= -r.score);
            let run = &mut self.losing[side.index()];
            *run = if lost { *run + 1 } else { 0 };
            if *run >= r.movecount {
                let end = GameEnd {
                    verdict: Verdict::Win(side.other()),
                    reason: Reason::Adjudication,
                };
                let why = format!(
                    "resign adjudication: its score was -{} cp or lower for {} moves",
                    r.score, r.movecount
                );
                return Some((end, why));
            }
        }
        if let Some(d) = self.draw {
            let level = score.is_some_and(|cp| cp.abs() <= d.score);
            self.level = if level { self.level + 1 } else { 0 };
            let moves = plies / 2;
            if self.level >= 2 * d.movecount && moves >= d.movenumber as usize {
                let end = GameEnd {
                    verdict: Verdict::Draw,
                    reason: Reason::Adjudication,
                };
                let why = format!(
                    "draw adjudication: both scores within {} cp for {} moves each, after move {}",
                    d.score, d.movecount, moves
                );
                return Some((end, why));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn scores_read_as_centipawns() {
        assert_eq!(
            centipawns(&words("info depth 3 score cp -35 pv x")),
            Some(-35)
        );
        assert_eq!(centipawns(&words("info score mate 3")), Some(99_997));
        assert_eq!(centipawns(&words("info score mate -2")), Some(-99_998));
        assert_eq!(centipawns(&words("info depth 3 nodes 9")), None);
        assert_eq!(centipawns(&words("info score cp x")), None);
    }

    #[test]
    fn resign_after_n_losing_moves_in_a_row_and_draw_after_level_moves() {
        let resign = ResignAdjudication {
            movecount: 3,
            score: 500,
        };
        let mut a = Adjudicator::new(Some(resign), None);
        let second = Side::Second;
        assert!(a.after_move(second, Some(-600), 10).is_none());
        assert!(
            a.after_move(second, Some(-499), 12).is_none(),
            "the run breaks"
        );
        assert!(a.after_move(second, Some(-500), 14).is_none());
        assert!(a.after_move(Side::First, Some(600), 15).is_none());
        assert!(
            a.after_move(second, None, 16).is_none(),
            "no score breaks it too"
        );
        assert!(a.after_move(second, Some(-900), 18).is_none());
        assert!(a.after_move(second, Some(-900), 20).is_none());
        let (end, why) = a.after_move(second, Some(-900), 22).unwrap();
        assert_eq!(end.verdict, Verdict::Win(Side::First));
        assert_eq!(end.reason, Reason::Adjudication);
        assert!(why.starts_with("resign adjudication"), "{why}");

        let draw = DrawAdjudication {
            movenumber: 10,
            movecount: 2,
            score: 20,
        };
        let mut d = Adjudicator::new(None, Some(draw));
        // Four level plies, but only 9 moves played: not yet.
        for (ply, cp) in [(15, 5), (16, -20), (17, 0), (18, 3)] {
            let side = if ply % 2 == 1 {
                Side::First
            } else {
                Side::Second
            };
            assert!(d.after_move(side, Some(cp), ply).is_none(), "{ply}");
        }
        let (end, _) = d.after_move(Side::First, Some(1), 20).unwrap();
        assert_eq!(end.verdict, Verdict::Draw);
        let mut d = Adjudicator::new(None, Some(draw));
        for ply in 30..33 {
            assert!(d.after_move(Side::First, Some(0), ply).is_none());
        }
        assert!(
            d.after_move(Side::First, Some(21), 33).is_none(),
            "the run breaks"
        );
    }
}
