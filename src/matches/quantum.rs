//! The quantum shogi referee, over `games::quantum`'s `Record`.

use super::referee::{GameEnd, Referee, Side, Verdict};
use crate::games::quantum::{self, qsfen, Ending, Record, Rules};

fn side_of(side: quantum::Side) -> Side {
    match side {
        quantum::Side::Black => Side::First,
        quantum::Side::White => Side::Second,
    }
}

/// Quantum shogi: king capture wins, no legal action loses, fourfold repetition (of the whole
/// state, candidate sets included) is a draw. `KakuteiNifu` is on, as in today's rules.
pub struct QuantumReferee {
    record: Record,
}

impl QuantumReferee {
    pub fn new() -> Self {
        QuantumReferee {
            record: Record::new(quantum::Position::start(), Rules::default()),
        }
    }
}

impl Default for QuantumReferee {
    fn default() -> Self {
        Self::new()
    }
}

impl Referee for QuantumReferee {
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), String> {
        let position = match sfen {
            None => quantum::Position::start(),
            Some(text) => qsfen::parse(text)?,
        };
        self.record = Record::new(position, Rules::default());
        Ok(())
    }

    fn play(&mut self, mv: &str) -> Result<String, String> {
        let before = self.record.position().clone();
        let action = self.record.play_str(mv)?;
        Ok(before.action_name(action))
    }

    fn side_to_move(&self) -> Side {
        side_of(self.record.position().side_to_move())
    }

    fn legal_moves(&self) -> Vec<String> {
        let pos = self.record.position();
        let mut names: Vec<String> = pos
            .legal_actions(&self.record.rules())
            .into_iter()
            .map(|a| pos.action_name(a))
            .collect();
        // Sorted, so random openings depend on the seed alone, not on generation order.
        names.sort();
        names
    }

    fn game_end(&self) -> Option<GameEnd> {
        let (verdict, reason) = match self.record.ending()? {
            Ending::KingCapture { winner } => (Verdict::Win(side_of(winner)), "king capture"),
            Ending::NoLegalAction { loser } => {
                (Verdict::Win(side_of(loser).other()), "no legal action")
            }
            Ending::FourfoldRepetition => (Verdict::Draw, "repetition"),
        };
        Some(GameEnd {
            verdict,
            reason: reason.into(),
        })
    }

    fn position(&self) -> String {
        qsfen::write(self.record.position())
    }

    fn diagram(&self) -> Vec<String> {
        qsfen::diagram(self.record.position())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1";

    #[test]
    fn start_moves_and_illegal_moves() {
        let mut r = QuantumReferee::new();
        r.set_start(None).unwrap();
        assert_eq!(r.position(), START);
        assert_eq!(r.side_to_move(), Side::First);
        assert_eq!(r.legal_moves().len(), 177);
        assert_eq!(r.game_end(), None);
        for bad in ["7g7a", "zz", "", "7g7f7f", "P*5e"] {
            assert!(r.play(bad).is_err(), "{bad}");
            assert_eq!(r.position(), START, "unchanged after {bad}");
        }
        assert_eq!(r.play("7g7f").unwrap(), "7g7f");
        assert_eq!(r.side_to_move(), Side::Second);
        r.set_start(Some(START)).unwrap();
        assert_eq!(r.side_to_move(), Side::First);
        assert!(r.set_start(Some("9/9/9 b - 1")).is_err());
    }

    #[test]
    fn fourfold_repetition_is_a_draw() {
        let mut r = QuantumReferee::new();
        // Each piece's candidates stop narrowing after the first cycle, so the state after
        // plies 4, 8, 12 and 16 is the same one.
        let cycle = ["5i5h", "5a5b", "5h5i", "5b5a"];
        for ply in 1..=16 {
            assert_eq!(r.game_end(), None, "before ply {ply}");
            r.play(cycle[(ply - 1) % 4]).unwrap();
        }
        let end = r.game_end().unwrap();
        assert_eq!(end.verdict, Verdict::Draw);
        assert_eq!(end.reason, "repetition");
        assert!(r.play("5i5h").is_err(), "no moves after the end");
    }

    #[test]
    fn capturing_a_certain_king_wins() {
        let mut r = QuantumReferee::new();
        r.set_start(Some(
            "qqqqkqqqq/1q2Q2q1/qqqqqqqqq/9/9/9/QQQQ1QQQQ/1Q5Q1/QQQQQQQQQ b - 1",
        ))
        .unwrap();
        assert_eq!(r.game_end(), None);
        r.play("5b5a").unwrap();
        let end = r.game_end().unwrap();
        assert_eq!(end.verdict, Verdict::Win(Side::First));
        assert_eq!(end.reason, "king capture");
        assert!(r.legal_moves().is_empty());
    }
}
