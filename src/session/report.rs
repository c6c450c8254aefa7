//! The `info` lines of a search, as USI GUIs read them.

use crate::search::game::{WIN, WIN_BOUND};
use crate::search::Info;

/// Whether `last` already said what `info` says (the time, and so nps, aside).
pub(super) fn same_report(last: Option<&Info>, info: &Info) -> bool {
    last.is_some_and(|last| {
        Info {
            time_ms: info.time_ms,
            ..last.clone()
        } == *info
    })
}

/// `cp X`, or for a score the search proved a forced win or loss, `mate N`: the plies to the
/// king capture, negative when the side to move is the one captured (as USI engines write it;
/// `mate -0` when it already has been).
pub fn score_text(score: i32) -> String {
    if score.abs() > WIN_BOUND {
        let plies = WIN - score.abs();
        format!("mate {}{plies}", if score < 0 { "-" } else { "" })
    } else {
        format!("cp {score}")
    }
}

/// `info depth D seldepth S [multipv K] score cp X|mate N nodes N nps P [hashfull H] time T [pv ...]`.
pub fn info_line(info: &Info) -> String {
    let nps = info.nodes.saturating_mul(1000) / info.time_ms.max(1);
    let mut line = format!(
        "info depth {} seldepth {}",
        info.depth,
        info.seldepth.max(info.depth)
    );
    if let Some(k) = info.multipv {
        line.push_str(&format!(" multipv {k}"));
    }
    line.push_str(&format!(
        " score {} nodes {} nps {}",
        score_text(info.score),
        info.nodes,
        nps
    ));
    if let Some(h) = info.hashfull {
        line.push_str(&format!(" hashfull {h}"));
    }
    line.push_str(&format!(" time {}", info.time_ms));
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}
