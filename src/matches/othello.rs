//! The Othello referee, over `games::othello`'s `Position`.

use super::referee::{GameEnd, Referee, Side, Verdict};
use crate::games::othello;

/// Othello: a side with no move passes automatically; when neither can move the game is over
/// and the disc count decides.
pub struct OthelloReferee {
    position: othello::Position,
}

impl OthelloReferee {
    pub fn new() -> Self {
        OthelloReferee {
            position: othello::Position::START,
        }
    }

    /// Makes the automatic pass, so the side to move always has a move until the game ends.
    fn settle(&mut self) {
        if let Some(next) = self.position.forced_pass() {
            self.position = next;
        }
    }
}

impl Default for OthelloReferee {
    fn default() -> Self {
        Self::new()
    }
}

impl Referee for OthelloReferee {
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), String> {
        self.position = match sfen {
            None => othello::Position::START,
            Some(text) => {
                let fields: Vec<&str> = text.split_whitespace().collect();
                othello::Position::from_fields(&fields)?
            }
        };
        self.settle();
        Ok(())
    }

    fn play(&mut self, mv: &str) -> Result<String, String> {
        if self.position.board.is_game_over() {
            return Err("the game is over".into());
        }
        if mv == "pass" {
            // Passes are automatic: by the time an engine is asked, it has a move.
            return Err("pass while a move is available".into());
        }
        let sq = othello::position::parse_square(mv)
            .filter(|_| mv.len() == 2)
            .ok_or_else(|| format!("not a square: `{mv}`"))?;
        let next = self
            .position
            .play(sq)
            .ok_or_else(|| format!("{} is not a legal move here", othello::square_name(sq)))?;
        self.position = next;
        self.settle();
        Ok(othello::square_name(sq))
    }

    fn side_to_move(&self) -> Side {
        if self.position.black_to_move {
            Side::First
        } else {
            Side::Second
        }
    }

    fn legal_moves(&self) -> Vec<String> {
        othello::squares(self.position.board.moves())
            .map(othello::square_name)
            .collect()
    }

    fn game_end(&self) -> Option<GameEnd> {
        if !self.position.board.is_game_over() {
            return None;
        }
        let (black, white) = (
            self.position.black().count_ones(),
            self.position.white().count_ones(),
        );
        let verdict = match black.cmp(&white) {
            std::cmp::Ordering::Greater => Verdict::Win(Side::First),
            std::cmp::Ordering::Less => Verdict::Win(Side::Second),
            std::cmp::Ordering::Equal => Verdict::Draw,
        };
        Some(GameEnd {
            verdict,
            reason: "disc count".into(),
        })
    }

    fn position(&self) -> String {
        self.position.to_text()
    }

    fn diagram(&self) -> Vec<String> {
        let text = self.position.board_text();
        let mut lines = vec!["  a b c d e f g h".to_string()];
        for (row, chunk) in text.as_bytes().chunks(8).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|&c| (c as char).to_string()).collect();
            lines.push(format!("{} {}", row + 1, cells.join(" ")));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn start_moves_and_illegal_moves() {
        let mut r = OthelloReferee::new();
        r.set_start(None).unwrap();
        assert_eq!(r.legal_moves(), ["d3", "c4", "f5", "e6"]);
        assert_eq!(r.side_to_move(), Side::First);
        let start = r.position();
        for bad in ["a1", "pass", "f55", "z9", "", "f"] {
            assert!(r.play(bad).is_err(), "{bad}");
            assert_eq!(r.position(), start);
        }
        assert_eq!(r.play("F5").unwrap(), "f5");
        assert_eq!(r.side_to_move(), Side::Second);
        assert_eq!(r.game_end(), None);
    }

    #[test]
    fn disc_count_decides_when_neither_side_can_move() {
        let mut r = OthelloReferee::new();
        // Black's only disc sits in a corner and White's four in the centre: nobody can move.
        let board = format!("X{}OO{}OO{}", "-".repeat(26), "-".repeat(6), "-".repeat(27));
        r.set_start(Some(&format!("{board} b"))).unwrap();
        let end = r.game_end().unwrap();
        assert_eq!(
            (end.verdict, end.reason.as_str()),
            (Verdict::Win(Side::Second), "disc count")
        );
        let full = format!("{}{} w", "X".repeat(32), "O".repeat(32));
        r.set_start(Some(&full)).unwrap();
        assert_eq!(r.game_end().unwrap().verdict, Verdict::Draw);
        assert!(r.play("a1").is_err());
    }

    #[test]
    fn random_games_pass_automatically_and_end_by_the_count() {
        let mut rng = SplitMix64::new(5);
        let mut passes = 0;
        for _ in 0..200 {
            let mut r = OthelloReferee::new();
            r.set_start(None).unwrap();
            let mut placements = 0;
            while r.game_end().is_none() {
                let legal = r.legal_moves();
                assert!(!legal.is_empty(), "the side to move always has a move");
                let mover = r.side_to_move();
                r.play(&legal[rng.index(legal.len())]).unwrap();
                placements += 1;
                if r.game_end().is_none() && r.side_to_move() == mover {
                    passes += 1;
                }
            }
            assert!(placements <= 60);
            let board = r.position();
            let black = board.chars().filter(|&c| c == 'X').count();
            let white = board.chars().filter(|&c| c == 'O').count();
            let want = match black.cmp(&white) {
                std::cmp::Ordering::Greater => Verdict::Win(Side::First),
                std::cmp::Ordering::Less => Verdict::Win(Side::Second),
                std::cmp::Ordering::Equal => Verdict::Draw,
            };
            assert_eq!(r.game_end().unwrap().verdict, want);
        }
        assert!(passes > 0, "some random game had a forced pass");
    }
}
