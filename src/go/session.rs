//! The go adapter: protocol notation and output lines over `go`. See protocol/go.md.

use crate::games::record::GameRecord;
use crate::games::rules::Rules;
use crate::go::analysis::{classic, extended};
use crate::go::gtp::analyze;
use crate::go::notation::{format_move, parse_vertex, VertexError};
use crate::go::record as go_record;
use crate::go::rules::{Record, RulesError};
use crate::go::search::mcts::{Mcts, Snapshot};
use crate::go::search::{bench as go_bench, player as go_player, policy, usi};
use crate::go::{perft, score, Board, Color, Position};
use crate::protocol::args::unknown_command;
use crate::protocol::{Args, StartSpec};
use crate::search::{Info, Job, Limits, Outcome, Report};
use crate::session::options::{Kind, Options, Spec};
use crate::session::variant::{Adapter, Kept, Out, PerftJob, SessionError, Shared, Variant};
use parking_lot::Mutex;
use std::sync::Arc;

pub struct GoVariant {
    kept: Kept<Record>,
    /// The search and its size in MiB (`USI_Hash`), kept between moves for tree reuse.
    engine: Mutex<Option<(u64, Arc<Mcts>)>>,
}

impl GoVariant {
    pub fn new() -> Self {
        GoVariant {
            kept: Kept::new(Record::start()),
            engine: Mutex::new(None),
        }
    }
}

impl Default for GoVariant {
    fn default() -> Self {
        Self::new()
    }
}

/// Why the Go session refuses a command.
#[derive(Debug, thiserror::Error)]
pub enum GoError {
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// Move `number` (from 1) of a `position` command's list is no vertex.
    #[error("move {number} '{text}': {error}")]
    ListedVertex {
        number: usize,
        text: String,
        error: VertexError,
    },
    /// Move `number` of the list is not legal there.
    #[error("move {number} '{text}' is illegal: {error}")]
    ListedIllegal {
        number: usize,
        text: String,
        error: RulesError,
    },
    #[error("go perft depth must be 1..{max}, got {0}", max = perft::MAX_DEPTH)]
    PerftDepth(u32),
    /// No memory for the bench's search tree.
    #[error("bench: no memory for the search tree")]
    BenchTree,
    #[error("nothing to undo")]
    NothingToUndo,
    /// `score <komi>` with a komi that is not a finite number.
    #[error("score: komi '{0}' is not a number")]
    Komi(String),
}

/// The komi `Komi` sets, in points.
fn komi(options: &Options) -> f64 {
    f64::from(options.halves("Komi")) / 2.0
}

crate::games::error_text!(derived: GoError);

impl From<GoError> for SessionError {
    fn from(e: GoError) -> Self {
        SessionError::game(e)
    }
}

impl Adapter for GoVariant {
    const COMMANDS: &'static [&'static str] =
        &["benson", "loadsgf", "loadsgftext", "undo", "score"];
    const RECORD_TEXT_ALIASES: &'static [&'static str] = &["loadsgftext"];
    const OPTIONS: &'static [Spec] = &[
        // Each report of `go` also carries the KataGo analysis line.
        Spec::game("GoAnalysis", Kind::Check(false)),
        // In half points, declared as a USI string: shogi GUIs have no decimal kind.
        Spec::game(
            "Komi",
            Kind::Halves {
                default: 15,
                min: -2000,
                max: 2000,
            },
        ),
    ];
    const IGNORED_OPTIONS: &'static [&'static str] = &["MultiPV"];
    type Rules = Record;
    type Record = Record;

    type Error = GoError;

    fn served_refusal(name: &str, _args: &str) -> Option<String> {
        (name == "loadsgf").then(|| {
            "loadsgf reads a file, which a served session may not do; send the SGF itself with loadsgftext"
                .into()
        })
    }

    fn kept(&self) -> &Kept<Record> {
        &self.kept
    }

    fn kept_mut(&mut self) -> &mut Kept<Record> {
        &mut self.kept
    }

    /// A GTP vertex or `pass`; a bad one is named with its number.
    fn play_listed(record: &mut Record, number: usize, text: &str) -> Result<(), GoError> {
        let mv = parse_vertex(text, record.game.board.size()).map_err(|error| {
            GoError::ListedVertex {
                number,
                text: text.into(),
                error,
            }
        })?;
        record.play(mv).map_err(|error| GoError::ListedIllegal {
            number,
            text: text.into(),
            error,
        })
    }

    fn status(&self) -> Vec<String> {
        let game = &self.kept.record.game;
        let ko = match game.ko {
            Some(p) => format!(", ko at {}", format_move(&game.board, Some(p))),
            None => String::new(),
        };
        vec![format!(
            "{} to move{ko}",
            match game.to_move {
                Color::Black => "black",
                Color::White => "white",
            }
        )]
    }

    /// The kept tags, with the `Komi` option's komi unless the record gave one, and the result
    /// of a game ended by two passes: the referee's area count (every stone alive) with the
    /// record's komi.
    fn game_record(&self, options: &Options) -> GameRecord<Record> {
        let Kept { record, tags, .. } = &self.kept;
        let mut tags = tags.clone();
        if tags.get("KM").is_none() {
            tags.set("KM", komi(options).to_string());
        }
        let komi = tags
            .get("KM")
            .and_then(|k| k.parse().ok())
            .unwrap_or(komi(options));
        // The referee's count takes every stone as alive (Tromp-Taylor): the result of a game
        // under those rules only. A loaded record under others (GNU Go's `RU[Chinese]`, dead
        // stones left on the board) would get the wrong winner: it gets none.
        let our_rules = tags
            .get("RU")
            .is_none_or(|ru| ru.to_ascii_lowercase().contains("tromp"));
        if tags.result.is_none() && record.outcome().is_some() && our_rules {
            let board = &record.game.board;
            let all_alive = score::Judgement {
                life: vec![score::Life::None; board.len()],
            };
            let total = score::area_score(board, &all_alive, komi);
            tags.result = Some(crate::text::gtp_score(total));
        }
        go_record::from_position(&record.game, tags)
    }
}

impl GoVariant {
    /// Drops the search's tree: the next `go` starts afresh (after `undo`, a loaded game, a
    /// new one). Positions sent by `position` need none: the tree is kept only for a position
    /// that follows from its root's by moves, under the same komi (`Tree::reroot`).
    fn forget_tree(&self) {
        if let Some((_, engine)) = self.engine.lock().as_ref() {
            engine.forget();
        }
    }

    /// `score [komi]`: the area score with the dead stones taken off, judged as GTP's
    /// `final_score` and `final_status_list` judge them (`score::judge`, Benson first); the
    /// komi is the `Komi` option's unless given.
    fn score_report(&self, komi: Option<&str>, option: f64) -> Result<Vec<String>, GoError> {
        let komi = match komi {
            None => option,
            Some(text) => text
                .parse::<f64>()
                .ok()
                .filter(|k| k.is_finite())
                .ok_or_else(|| GoError::Komi(text.into()))?,
        };
        let game = &self.kept.record.game;
        // The judgement GTP's final_score and final_status_list give: the search's ownership,
        // with Benson's unconditional status over it.
        let ownership = go_player::fresh_ownership(game, komi);
        let judgement = go_player::judge_game(game, komi, &ownership);
        let total = score::area_score(&game.board, &judgement, komi);
        let dead = |colour: Color| -> String {
            game.board
                .points()
                .filter(|&p| {
                    judgement.life[p] == score::Life::Dead
                        && Color::from_cell(game.board.get(p)) == Some(colour)
                })
                .map(|p| format!(" {}", format_move(&game.board, Some(p))))
                .collect()
        };
        Ok(vec![
            format!("score {} komi {komi}", crate::text::gtp_score(total)),
            format!("dead b{}", dead(Color::Black)),
            format!("dead w{}", dead(Color::White)),
        ])
    }
}

/// `GoAnalysis`: the line GTP's `kata-analyze ownership true` prints for the snapshot (every
/// searched root move with its visits, win rate, score lead, prior and pv, then the ownership
/// per point), after `analysis `, from the side to move's point of view.
fn analysis_line(game: &Position, snap: &Snapshot) -> String {
    let request = analyze::Request {
        format: analyze::Format::Kata,
        color: game.to_move,
        interval_ms: 0,
        ownership: true,
        root_info: false,
        restrictions: Vec::new(),
        min_moves: 0,
        max_moves: None,
        pv_visits: false,
        genmove: false,
    };
    format!("analysis {}", analyze::line(&request, &game.board, snap))
}

impl Variant for GoVariant {
    fn new_game(&mut self) {
        self.forget_tree();
    }

    fn casual_start(&self) -> StartSpec {
        let size = 9;
        StartSpec::Sfen(vec![
            size.to_string(),
            vec![".".repeat(size); size].join("/"),
            "b".into(),
        ])
    }

    fn perft(&self, depth: u32, _options: &Options, _out: Out) -> Result<PerftJob, SessionError> {
        if depth == 0 || depth > perft::MAX_DEPTH {
            return Err(GoError::PerftDepth(depth).into());
        }
        let mut game = self.kept.record.game.clone();
        Ok(Box::new(move |stop| {
            let divide = perft::divide_until(&mut game, depth, &stop)?;
            Some(
                divide
                    .into_iter()
                    .map(|(p, n)| (format_move(&game.board, Some(p)), n))
                    .collect(),
            )
        }))
    }

    fn prepare(&mut self, options: &Options) -> Option<String> {
        usi::prepare(&self.engine, options.hash_mb)
    }

    fn search(&self, _limits: &Limits, options: &Options) -> Job {
        let game = self.kept.record.game.clone();
        if let Some((_, engine)) = self.engine.lock().as_ref() {
            let analysis = options
                .check("GoAnalysis")
                .then_some(analysis_line as fn(&Position, &Snapshot) -> String);
            return usi::job(
                engine.clone(),
                game,
                options.threads as usize,
                options.seed,
                komi(options),
                analysis,
            );
        }
        // No memory for a tree: the simple move chooser answers (in infinite and ponder modes
        // the session holds its bestmove until `stop` or `ponderhit`, as for any early answer).
        let seed = options.seed;
        Box::new(move |control, report| {
            let (mv, examined) = policy::choose(&game, game.to_move, seed);
            let best = format_move(&game.board, mv);
            report(Report::Text(format!(
                "go policy examined {examined} points"
            )));
            Outcome {
                info: Info {
                    depth: 1,
                    seldepth: 1,
                    score: 0,
                    nodes: examined,
                    time_ms: control.elapsed_ms(),
                    pv: vec![best.clone()],
                    multipv: None,
                    hashfull: None,
                },
                best: Some(best),
                ponder: None,
            }
        })
    }

    fn bench(&mut self, _options: &Options, out: Out) -> Result<(), SessionError> {
        // The search's signature: the fixed search `ryoshi bench go-playouts` ends with.
        let (nodes, best) = go_bench::signature().ok_or(GoError::BenchTree)?;
        out(&format!(
            "go search signature: 9x9, seed 1, {} playouts: best {best}",
            go_bench::SIGNATURE_PLAYOUTS
        ));
        out(&format!("Nodes searched: {nodes}"));
        Ok(())
    }

    fn moves_to_go(&self) -> Option<u64> {
        Some(crate::go::search::moves_to_go(&self.kept.record.game.board))
    }

    fn extension(
        &mut self,
        name: &str,
        args: Args,
        options: &Options,
        _budget: &crate::stop::Budget,
        out: Out,
    ) -> Result<(), SessionError> {
        match name {
            "benson" => {
                let board: &Board = &self.kept.record.game.board;
                let report = if args.flag("classic")? {
                    classic(board).report(board)
                } else {
                    extended(board, self.kept.record.game.ko).report(board)
                };
                for line in report {
                    out(&line);
                }
                Ok(())
            }
            // The record commands' old names, kept as aliases.
            "loadsgf" => {
                self.forget_tree();
                self.record_command("loadrecord", args, options, out)
            }
            "loadsgftext" => {
                self.forget_tree();
                self.record_command("loadrecordtext", args, options, out)
            }
            "undo" => {
                args.none()?;
                self.forget_tree();
                if self.kept.record.undo() {
                    let plies = self.kept.record.game.moves().len();
                    self.kept.undone(plies);
                    Ok(())
                } else {
                    Err(GoError::NothingToUndo.into())
                }
            }
            "score" => {
                for line in self.score_report(args.optional_word()?, komi(options))? {
                    out(&line);
                }
                Ok(())
            }
            _ => Err(SessionError::Parse(unknown_command(name))),
        }
    }
}
