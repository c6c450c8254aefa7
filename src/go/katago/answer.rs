//! A job's answer as KataGo writes it: `moveInfos`, `rootInfo`, `ownership`, `policy`, from
//! the point of view the query asked for (protocol/analysis.md lists each field).

use super::query::Job;
use crate::go::gtp::analyze::{lcb, utility};
use crate::go::notation::format_move;
use crate::go::search::fast::PASS;
use crate::go::search::mcts::{MoveInfo, Snapshot};
use crate::go::Color;
use serde_json::{json, Map, Value};

fn vertex(job: &Job, mv: u16) -> String {
    format_move(&job.game.board, (mv != PASS).then_some(mv as usize))
}

/// Figures turned to the asked point of view: a win rate (and its bound) becomes the other
/// side's complement, a lead or an ownership its negation.
struct View {
    flip: bool,
}

impl View {
    fn rate(&self, x: f64) -> f64 {
        if self.flip {
            1.0 - x
        } else {
            x
        }
    }

    fn points(&self, x: f64) -> f64 {
        if self.flip {
            -x
        } else {
            x
        }
    }
}

fn move_info(job: &Job, view: &View, order: usize, m: &MoveInfo) -> Value {
    let bound = lcb(m.winrate, m.visits);
    let pv: Vec<String> =
        m.pv.iter()
            .take(job.pv_len + 1)
            .map(|&mv| vertex(job, mv))
            .collect();
    let mut info = json!({
        "move": vertex(job, m.mv),
        "visits": m.visits,
        "edgeVisits": m.visits,
        "winrate": view.rate(m.winrate),
        "scoreLead": view.points(m.score_lead),
        "scoreMean": view.points(m.score_lead),
        "prior": m.prior,
        "lcb": view.rate(bound),
        "utility": view.points(utility(m.winrate)),
        "utilityLcb": view.points(utility(bound)),
        "order": order,
        "pv": pv,
    });
    if job.pv_visits {
        let visits: Vec<u32> = m.pv_visits.iter().take(job.pv_len + 1).copied().collect();
        info["pvVisits"] = json!(visits);
        info["pvEdgeVisits"] = json!(visits);
    }
    info
}

/// The root's priors per point, top row first, then the pass: -1 where the move is illegal,
/// 0 for a legal move the search never considers (filling an own eye).
fn policy(job: &Job, snap: &Snapshot) -> Vec<f64> {
    let board = &job.game.board;
    let mut prior = vec![0.0; board.len()];
    let mut pass = 0.0;
    let priors = snap
        .moves
        .iter()
        .map(|m| (m.mv, m.prior))
        .chain(snap.unvisited.iter().copied());
    for (mv, p) in priors {
        if mv == PASS {
            pass = p;
        } else if let Some(slot) = prior.get_mut(mv as usize) {
            *slot = p;
        }
    }
    let color = job.game.to_move;
    let mut out: Vec<f64> = board
        .points()
        .map(|p| {
            if board.is_legal(p, color, job.game.ko) {
                prior[p]
            } else {
                -1.0
            }
        })
        .collect();
    out.push(pass);
    out
}

/// The answer to `job` from `snap`; `during` for a report made while the search runs.
pub fn answer(job: &Job, snap: &Snapshot, during: bool) -> String {
    let view = View {
        flip: job.perspective.flips(job.game.to_move),
    };
    let infos: Vec<Value> = snap
        .moves
        .iter()
        .enumerate()
        .map(|(order, m)| move_info(job, &view, order, m))
        .collect();
    let bound = lcb(snap.winrate, snap.root_visits);
    let root = json!({
        "visits": snap.root_visits,
        "winrate": view.rate(snap.winrate),
        "scoreLead": view.points(snap.score_lead),
        "scoreMean": view.points(snap.score_lead),
        "utility": view.points(utility(snap.winrate)),
        "lcb": view.rate(bound),
        "utilityLcb": view.points(utility(bound)),
        "currentPlayer": match job.game.to_move {
            Color::Black => "B",
            Color::White => "W",
        },
    });
    let mut out = Map::new();
    out.insert("id".into(), json!(job.id));
    out.insert("isDuringSearch".into(), json!(during));
    out.insert("turnNumber".into(), json!(job.turn));
    out.insert("moveInfos".into(), Value::Array(infos));
    out.insert("rootInfo".into(), root);
    if job.ownership {
        let own: Vec<f64> = snap.ownership.iter().map(|&o| view.points(o)).collect();
        out.insert("ownership".into(), json!(own));
    }
    if job.policy {
        out.insert("policy".into(), json!(policy(job, snap)));
    }
    Value::Object(out).to_string()
}

/// The answer to a job stopped before its search began.
pub fn no_results(id: &str, turn: usize) -> String {
    json!({"id": id, "isDuringSearch": false, "noResults": true, "turnNumber": turn}).to_string()
}
