//! Scoring and status: `final_score`, `final_status_list` and `unconditional_status`, and the
//! judgements behind them, kept until the position changes (a controller asks for the score and
//! each status list of the same final position in a row).

use super::{Failure, Gtp, Judged};
use crate::go::analysis::{extended, Analysis};
use crate::go::notation::{format_vertex, parse_vertex};
use crate::go::score::{self, Judgement, Life};
use crate::go::search::player;

impl Gtp {
    pub(super) fn final_score(&mut self) -> Result<String, Failure> {
        let komi = self.komi + self.handicap_compensation() as f64;
        let board = self.game.board.clone();
        let j = self.judgement();
        Ok(crate::text::gtp_score(score::area_score(&board, j, komi)))
    }

    pub(super) fn final_status_list(&mut self, status: &str) -> Result<String, Failure> {
        let wanted = match status.to_ascii_lowercase().as_str() {
            "alive" => Life::Alive,
            "dead" => Life::Dead,
            "seki" => Life::Seki,
            _ => return Err(Failure::InvalidStatus),
        };
        let board = self.game.board.clone();
        let j = self.judgement();
        // One line per block, blocks and stones in scanning order, as GNU Go answers.
        let lines: Vec<String> = board
            .blocks()
            .into_iter()
            .filter(|(_, stones, _)| j.life[stones[0]] == wanted)
            .map(|(_, stones, _)| {
                stones
                    .iter()
                    .map(|&p| format_vertex(&board, p))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        Ok(lines.join("\n"))
    }

    pub(super) fn unconditional_status(&mut self, vertex: &str) -> Result<String, Failure> {
        let p = match parse_vertex(vertex, self.game.board.size()) {
            Ok(Some(p)) => p,
            _ => return Err(Failure::InvalidCoordinate),
        };
        Ok(self.analysis().status[p].gtp_name().to_string())
    }

    fn analysis(&mut self) -> &Analysis {
        let key_ok =
            matches!(&self.cache, Some((b, ko, _)) if *b == self.game.board && *ko == self.game.ko);
        if !key_ok {
            let a = extended(&self.game.board, self.game.ko);
            self.cache = Some((self.game.board.clone(), self.game.ko, a));
        }
        match &self.cache {
            Some((_, _, a)) => a,
            None => unreachable!("just filled"),
        }
    }

    /// The end-of-game judgement of the current position under the komi (see [`score::judge`]).
    fn judgement(&mut self) -> &Judgement {
        let g = &self.game;
        let komi = self.settings(g, None).komi;
        let key_ok = matches!(&self.judged, Some(j) if j.board == g.board
            && j.to_move == g.to_move && j.ko == g.ko && j.komi == komi);
        if !key_ok {
            let ownership = self.ownership(komi);
            let g = &self.game;
            self.judged = Some(Judged {
                board: g.board.clone(),
                to_move: g.to_move,
                ko: g.ko,
                komi,
                judgement: player::judge_game(g, komi, &ownership),
            });
        }
        match &self.judged {
            Some(j) => &j.judgement,
            None => unreachable!("just filled"),
        }
    }

    /// The ownership of the current position under `komi` (side to move's view): the last
    /// search's when it was of this position and komi, otherwise a short seeded search's.
    fn ownership(&mut self, komi: f64) -> Vec<f64> {
        let g = &self.game;
        if let Some((game, searched, snap)) = &self.last {
            if game.board == g.board
                && game.to_move == g.to_move
                && *searched == komi
                && snap.playouts >= 500
            {
                return snap.ownership.clone();
            }
        }
        player::fresh_ownership(g, komi)
    }
}
