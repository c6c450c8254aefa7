//! The referee: what the runner asks of a game's rules. One implementation, generic over
//! [`Rules`]; the games are those of [`crate::registry`], and the runner itself knows nothing about any.

pub use crate::games::rules::{GameEnd, Reason, Side, Verdict};
use crate::games::rules::{OptionValues, Rules};
pub use crate::games::view::{GameView, MoveError, Played};
use crate::registry::{Game, Visit};
use std::sync::Arc;

/// Why a referee cannot be made or refuses a start position.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// The rules refuse the position text, with their own error (its text is the protocol's).
    #[error(transparent)]
    Position(Box<dyn std::error::Error + Send + Sync>),
    /// The game has no board of a match's `board_size`.
    #[error("no board of size {0}")]
    BoardSize(usize),
}

crate::games::error_text!(derived: RefereeError);

/// The rules of one game in progress as the runner drives it: the [`GameView`] every front end
/// shares, plus a start position and a score.
pub trait Referee: GameView {
    /// Starts a new game: `None` is the variant's standard start (`startpos`), `Some(text)` the
    /// position text that follows `sfen` in a `position` command.
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), RefereeError>;

    /// The first player's lead when the game ended by its rules and has a score (an area or a
    /// count of pieces, as the rules' [`Rules::final_score`] gives it); GTP engines'
    /// `final_score` is checked against it.
    fn score(&self) -> Option<f64> {
        None
    }

    /// The GTP moves that set up the current position (the rules' [`Rules::gtp_setup`]);
    /// `None` when GTP cannot.
    fn gtp_setup(&self) -> Option<Vec<(Side, String)>> {
        None
    }
}

/// Makes a fresh referee for each game (games run on several threads).
pub type RefereeFactory = dyn Fn() -> Box<dyn Referee> + Send + Sync;

/// The referee of every game: the game's own [`Rules`], so the engine and the referee read
/// moves and decide results with the same code.
pub type GameReferee<R> = Played<R>;

impl<R: Rules> Referee for Played<R> {
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), RefereeError> {
        let game = match sfen {
            None => R::start(),
            Some(text) => R::from_text(text).map_err(|e| RefereeError::Position(Box::new(e)))?,
        };
        self.reset(game);
        Ok(())
    }

    fn gtp_setup(&self) -> Option<Vec<(Side, String)>> {
        self.rules().gtp_setup()
    }
}

/// A referee as a match configures it: its own start position (the rules' [`Rules::start_sized`],
/// for a match's board size) and the rules' [`Rules::final_score`] (under the match's values of
/// the game's own options), which also decides the verdict of a scored end.
pub struct MatchReferee<R: Rules> {
    inner: GameReferee<R>,
    start: R,
    options: OptionValues,
}

impl<R: Rules> MatchReferee<R> {
    /// The score of the game when it has ended and the rules score it.
    fn final_score(&self) -> Option<f64> {
        self.inner.game_end()?;
        self.inner.rules().final_score(&self.options)
    }
}

impl<R: Rules> GameView for MatchReferee<R> {
    fn side_to_move(&self) -> Side {
        self.inner.side_to_move()
    }

    fn position(&self) -> String {
        self.inner.position()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.inner.legal_moves()
    }

    fn play(&mut self, mv: &str) -> Result<String, MoveError> {
        self.inner.play(mv)
    }

    fn undo(&mut self) -> bool {
        self.inner.undo()
    }

    fn game_end(&self) -> Option<GameEnd> {
        let end = self.inner.game_end()?;
        match self.final_score() {
            Some(score) => Some(GameEnd {
                verdict: Verdict::from_ordering(score.total_cmp(&0.0)),
                reason: end.reason,
            }),
            None => Some(end),
        }
    }

    fn diagram(&self) -> Vec<String> {
        self.inner.diagram()
    }
}

impl<R: Rules> Referee for MatchReferee<R> {
    fn set_start(&mut self, sfen: Option<&str>) -> Result<(), RefereeError> {
        match sfen {
            None => {
                self.inner.reset(self.start.clone());
                Ok(())
            }
            Some(_) => self.inner.set_start(sfen),
        }
    }

    fn score(&self) -> Option<f64> {
        self.final_score()
    }

    fn gtp_setup(&self) -> Option<Vec<(Side, String)>> {
        self.inner.gtp_setup()
    }
}

/// The referee factory of a match of `game`: its start on a board of `board_size` (the standard
/// start when `None`) and its score under `options` (the game's own), from the game's rules.
/// `Err` when the game has no board of that size.
pub fn factory_for(
    game: Game,
    board_size: Option<usize>,
    options: OptionValues,
) -> Result<Arc<RefereeFactory>, RefereeError> {
    struct Factory {
        board_size: Option<usize>,
        options: OptionValues,
    }
    impl Visit for Factory {
        type Output = Result<Arc<RefereeFactory>, RefereeError>;
        fn visit<R: Rules>(self) -> Self::Output {
            let start = match self.board_size {
                None => R::start(),
                Some(size) => R::start_sized(size).ok_or(RefereeError::BoardSize(size))?,
            };
            let options = self.options;
            // Rules are `Send`, not `Sync`: each referee clones the start under a lock.
            let start = parking_lot::Mutex::new(start);
            Ok(Arc::new(move || {
                Box::new(MatchReferee {
                    inner: GameReferee::<R>::new(),
                    start: start.lock().clone(),
                    options: options.clone(),
                }) as Box<dyn Referee>
            }))
        }
    }
    game.visit(Factory {
        board_size,
        options,
    })
}

/// A referee factory for `game` with its standard start (and no match settings).
pub fn factory(game: Game) -> Arc<RefereeFactory> {
    struct Factory;
    impl Visit for Factory {
        type Output = Arc<RefereeFactory>;
        fn visit<R: Rules>(self) -> Self::Output {
            Arc::new(|| Box::new(GameReferee::<R>::new()) as Box<dyn Referee>)
        }
    }
    game.visit(Factory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    type QuantumReferee = GameReferee<crate::quantum::Record>;
    type OthelloReferee = GameReferee<crate::othello::Position>;

    const START: &str = "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1";

    /// The match factory takes the start and the score from the rules' hooks: Go's 9×9 board,
    /// and its area score with the match's komi deciding the verdict.
    #[test]
    fn match_referees_use_the_rules_start_and_score() {
        let options = Game::Go.settings().options;
        let komi = |k: f64| OptionValues::new(options, move |key| (key == "komi").then_some(k));
        let go = factory_for(Game::Go, Some(9), komi(7.0)).unwrap();
        let mut r = go();
        r.set_start(None).unwrap();
        assert_eq!(r.legal_moves().len(), 81, "a 9×9 board, not 19×19");
        r.play("pass").unwrap();
        r.play("pass").unwrap();
        // An empty board: white's 7 points of komi.
        assert_eq!(r.score(), Some(-7.0));
        assert_eq!(r.game_end().unwrap().verdict, Verdict::Win(Side::Second));
        // Another komi, and the game's default when the match sets none.
        for (values, score) in [
            (komi(-3.0), 3.0),
            (OptionValues::new(options, |_| None), -7.5),
        ] {
            let mut r = factory_for(Game::Go, Some(9), values).unwrap()();
            r.set_start(None).unwrap();
            r.play("pass").unwrap();
            r.play("pass").unwrap();
            assert_eq!(r.score(), Some(score));
        }
        assert!(factory_for(Game::Go, Some(1), komi(7.0)).is_err());
        let quantum = factory_for(Game::QuantumShogi, None, OptionValues::default()).unwrap();
        assert_eq!(quantum().score(), None);
    }

    #[test]
    fn quantum_start_moves_and_illegal_moves() {
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
        assert_eq!(end.reason.as_str(), "repetition");
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
        assert_eq!(end.reason.as_str(), "king capture");
        assert!(r.legal_moves().is_empty());
    }

    #[test]
    fn othello_start_moves_and_illegal_moves() {
        let mut r = OthelloReferee::new();
        r.set_start(None).unwrap();
        assert_eq!(r.legal_moves(), ["d3", "c4", "f5", "e6"]);
        assert_eq!(r.side_to_move(), Side::First);
        let start = r.position();
        for bad in ["a1", "pass", "f55", "z9", "", "f"] {
            assert!(r.play(bad).is_err(), "{bad}");
            assert_eq!(r.position(), start);
        }
        // Moves are read in either case and written lowercase (protocol/othello.md), for the
        // referee as for the engine.
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
