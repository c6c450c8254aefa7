//! The quantum shogi adapter: protocol notation and output lines over `games::quantum`.

use super::options::Options;
use super::variant::{Out, Variant};
use crate::games::quantum::{perft, qsfen, Position, Record, Rules, Side};
use crate::protocol::StartSpec;
use crate::search::{Job, Limits, Outcome, Report};

pub struct QuantumVariant {
    /// The current position and the keys of the game so far (for repetition).
    record: Record,
}

impl QuantumVariant {
    pub fn new() -> Self {
        QuantumVariant {
            record: Record::new(Position::start(), Rules::default()),
        }
    }

    /// The game record (current position and key history).
    pub fn record(&self) -> &Record {
        &self.record
    }
}

impl Default for QuantumVariant {
    fn default() -> Self {
        Self::new()
    }
}

fn rules(options: &Options) -> Rules {
    Rules {
        kakutei_nifu: options.kakutei_nifu,
    }
}

impl Variant for QuantumVariant {
    fn set_position(
        &mut self,
        start: &StartSpec,
        moves: &[String],
        options: &Options,
    ) -> Result<(), String> {
        let position = match start {
            StartSpec::Startpos => Position::start(),
            StartSpec::Sfen(fields) => qsfen::parse(&fields.join(" "))?,
        };
        let mut record = Record::new(position, rules(options));
        for (k, text) in moves.iter().enumerate() {
            record.play_str(text).map_err(|why| {
                format!("illegal move {text} (move {} of the list): {why}", k + 1)
            })?;
        }
        self.record = record;
        Ok(())
    }

    fn new_game(&mut self) {
        self.record = Record::new(self.record.position().clone(), self.record.rules());
    }

    fn display(&self) -> Vec<String> {
        let pos = self.record.position();
        let mut lines = qsfen::diagram(pos);
        let repeats = self.record.repetitions();
        if repeats > 1 {
            lines.push(format!(
                "repetition: this position occurred {repeats} times"
            ));
        }
        lines.push(format!("sfen {}", qsfen::write(pos)));
        lines
    }

    fn legal_moves(&self, options: &Options) -> Vec<String> {
        let pos = self.record.position();
        let mut names = pos.action_names(&pos.legal_actions(&rules(options)));
        names.sort();
        names
    }

    fn perft(&mut self, depth: u32, options: &Options) -> Result<Vec<(String, u64)>, String> {
        if depth == 0 {
            return Err("perft depth must be at least 1".into());
        }
        let pos = self.record.position();
        let counts = perft::divide(pos, depth, &rules(options));
        let actions: Vec<_> = counts.iter().map(|&(a, _)| a).collect();
        let mut divide: Vec<(String, u64)> = pos
            .action_names(&actions)
            .into_iter()
            .zip(counts.iter().map(|&(_, n)| n))
            .collect();
        divide.sort();
        Ok(divide)
    }

    fn search(&self, _limits: &Limits, _options: &Options) -> Job {
        Box::new(|_, report| {
            report(Report::Text("error: search is not implemented yet".into()));
            Outcome {
                info: Default::default(),
                best: None,
                ponder: None,
            }
        })
    }

    fn first_player_to_move(&self) -> bool {
        self.record.position().side_to_move() == Side::Black
    }

    fn bench(&mut self, _options: &Options, _out: Out) -> Result<(), String> {
        Err("bench is not implemented yet for quantum shogi".into())
    }
}
