//! The go adapter: protocol notation and output lines over `games::go`.
//! (Placeholder until the go rules land.)

use super::options::Options;
use super::variant::{Out, Variant};
use crate::protocol::StartSpec;
use crate::search::{Job, Limits, Outcome};

pub struct GoVariant;

impl GoVariant {
    pub fn new() -> Self {
        GoVariant
    }
}

impl Default for GoVariant {
    fn default() -> Self {
        Self::new()
    }
}

const MISSING: &str = "go is not implemented yet";

impl Variant for GoVariant {
    fn set_position(
        &mut self,
        _start: &StartSpec,
        _moves: &[String],
        _options: &Options,
    ) -> Result<(), String> {
        Err(MISSING.into())
    }

    fn display(&self) -> Vec<String> {
        vec![format!("info string error: {MISSING}")]
    }

    fn legal_moves(&self, _options: &Options) -> Vec<String> {
        Vec::new()
    }

    fn perft(&mut self, _depth: u32, _options: &Options) -> Result<Vec<(String, u64)>, String> {
        Err(MISSING.into())
    }

    fn search(&self, _limits: &Limits, _options: &Options) -> Job {
        Box::new(|_, report| {
            report(crate::search::Report::Text(format!("error: {MISSING}")));
            Outcome {
                info: Default::default(),
                best: None,
                ponder: None,
            }
        })
    }

    fn first_player_to_move(&self) -> bool {
        true
    }

    fn bench(&mut self, _options: &Options, _out: Out) -> Result<(), String> {
        Err(MISSING.into())
    }
}
