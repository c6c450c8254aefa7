//! A Go room's end, as KGS and OGS have it: two passes in a row stop the play and open a
//! scoring phase. The server proposes the dead stones (Go's `score` judgement, computed once
//! and outside the room's lock), either player toggles a block dead or alive, and when both
//! accept the same marking the game ends with one verdict: the area score with those stones
//! taken off and the komi, the same numbers the state shows. `resume` goes back to play (two
//! more passes score again). What is agreed is stored, so no finished game is judged twice.

use super::played::Played;
use super::store::{Ending, GoEndRow};
use crate::go::notation::{format_vertex, parse_position, parse_vertex};
use crate::go::rules::KOMI;
use crate::go::score::{area_score, empty_region, format_score, without_dead, Judgement, Life};
use crate::go::{Board, Color};
use crate::protocol::StartSpec;
use crate::registry::Game;
use std::sync::atomic::{AtomicU64, Ordering};

/// End-of-game judgements run by this server (shown by `/status`): a stored end is read
/// back, never judged again.
pub static JUDGEMENTS: AtomicU64 = AtomicU64::new(0);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Play,
    /// Two passes ended play: the players mark the dead stones.
    Scoring,
    /// Both players accepted the marking.
    Agreed,
}

/// Where a Go game stands: scoring once its last two moves, both after the last `resume`, are
/// passes; agreed once both players accepted (the agreed score is stored).
pub fn phase(moves: &[String], end: &GoEndRow) -> Phase {
    let n = moves.len();
    let passed = n >= end.resumed + 2
        && moves[n - 2..]
            .iter()
            .all(|m| m.eq_ignore_ascii_case("pass"));
    match (passed, &end.score) {
        (false, _) => Phase::Play,
        (true, None) => Phase::Scoring,
        (true, Some(_)) => Phase::Agreed,
    }
}

/// The game's board, read from its position (`<size> <rows> <b|w>`).
pub fn board(played: &Played) -> Option<Board> {
    let text = played.game.view(&played.options).position();
    let fields: Vec<String> = text
        .split_whitespace()
        .filter(|w| *w != "sfen")
        .map(str::to_string)
        .collect();
    parse_position(&fields).ok().map(|(board, _)| board)
}

/// Which points `dead` names, as a mask over the board's points (stones only).
fn mask(board: &Board, dead: &[String]) -> Vec<bool> {
    let mut out = vec![false; board.len()];
    for v in dead {
        if let Ok(Some(p)) = parse_vertex(v, board.size()) {
            out[p] = Color::from_cell(board.get(p)).is_some();
        }
    }
    out
}

fn names(board: &Board, mask: &[bool]) -> Vec<String> {
    board
        .points()
        .filter(|&p| mask[p])
        .map(|p| format_vertex(board, p))
        .collect()
}

/// `dead` with the block at `vertex` toggled: all dead when any of it was alive, else alive.
pub fn toggle(board: &Board, dead: &[String], vertex: &str) -> Result<Vec<String>, String> {
    let p = match parse_vertex(vertex, board.size()) {
        Ok(Some(p)) if Color::from_cell(board.get(p)).is_some() => p,
        _ => return Err(format!("no stone at '{}'", crate::text::printable(vertex))),
    };
    let mut marked = mask(board, dead);
    let (stones, _) = board.block(p);
    let now_dead = !stones.iter().all(|&s| marked[s]);
    for s in stones {
        marked[s] = now_dead;
    }
    Ok(names(board, &marked))
}

/// The marking as the scoring code takes it (indexed by point, like the board).
fn judgement(board: &Board, dead: &[String]) -> Judgement {
    let marked = mask(board, dead);
    let mut life = vec![Life::None; board.len()];
    for p in board.points().filter(|&p| marked[p]) {
        life[p] = Life::Dead;
    }
    Judgement { life }
}

/// What a marking gives: black's area minus white's minus the komi, with `dead` taken off.
fn total(board: &Board, dead: &[String]) -> f64 {
    let judgement = judgement(board, dead);
    area_score(board, &judgement, KOMI)
}

/// The `score` line of a marking, as Go's `score` writes it: `score <B+n|W+n|0> komi <k>`.
pub fn score_line(board: &Board, dead: &[String]) -> String {
    format!("score {} komi {KOMI}", format_score(total(board, dead)))
}

/// The lines Go's `score` prints, for this marking: the score, then `dead b ...`, `dead w ...`.
pub fn score_lines(board: &Board, score: String, dead: &[String]) -> Vec<String> {
    let marked = mask(board, dead);
    let of = |colour: Color| -> String {
        board
            .points()
            .filter(|&p| marked[p] && Color::from_cell(board.get(p)) == Some(colour))
            .map(|p| format!(" {}", format_vertex(board, p)))
            .collect()
    };
    vec![
        score,
        format!("dead b{}", of(Color::Black)),
        format!("dead w{}", of(Color::White)),
    ]
}

/// The verdict of an agreed `score` line: `white wins` / `draw` by `area score`.
pub fn ending(score_line: &str) -> Ending {
    let score = score_line.split_whitespace().nth(1).unwrap_or("0");
    let result = match score.as_bytes().first() {
        Some(b'B') => "black wins",
        Some(b'W') => "white wins",
        _ => "draw",
    };
    Ending {
        result: result.into(),
        reason: "area score".into(),
    }
}

/// The empty points each side owns once `dead` is taken off: [black's, white's].
pub fn territory(board: &Board, dead: &[String]) -> [Vec<String>; 2] {
    let judgement = judgement(board, dead);
    let b = without_dead(board, &judgement);
    let mut seen = vec![false; b.len()];
    let mut owned = [vec![false; b.len()], vec![false; b.len()]];
    for p in b.points() {
        if b.get(p) != crate::go::board::EMPTY || seen[p] {
            continue;
        }
        let (region, touches) = empty_region(&b, p, &mut seen);
        if touches[0] != touches[1] {
            let side = usize::from(touches[1]);
            for q in region {
                owned[side][q] = true;
            }
        }
    }
    [names(board, &owned[0]), names(board, &owned[1])]
}

/// The server's proposal: the dead stones of Go's `score` judgement for the game (it searches:
/// call it without holding a lock). None when the game does not replay or has no judgement.
pub fn judge(variant: Game, start: StartSpec, moves: Vec<String>) -> Option<Vec<String>> {
    JUDGEMENTS.fetch_add(1, Ordering::SeqCst);
    let mut played = Played::new(variant, Some(start), moves).ok()?;
    let lines = played.score_report()?;
    Some(
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("dead "))
            .flat_map(|l| l.split_whitespace().skip(1).map(str::to_string))
            .collect(),
    )
}

/// A Go room's SGF with its agreed result: `RE[<score>]` of the agreed marking in place of the
/// rules' count (every stone alive), and no `RE` while the dead stones are not agreed. Other
/// games' records (no `end`) are left as they are.
pub fn agreed_record(end: Option<&GoEndRow>, sgf: String) -> String {
    let Some(end) = end else {
        return sgf;
    };
    let Some(at) = sgf.find("RE[") else {
        return sgf;
    };
    let Some(len) = sgf[at..].find(']') else {
        return sgf;
    };
    let result = end
        .score
        .as_deref()
        .and_then(|line| line.split_whitespace().nth(1))
        .map(|score| format!("RE[{score}]"))
        .unwrap_or_default();
    format!("{}{result}{}", &sgf[..at], &sgf[at + len + 1..])
}

/// The `scoring` field of a room's state: null in play; else the dead stones (null while the
/// proposal is judged), the acceptances, the score they give, the komi and the territory.
pub fn state(played: &Played, end: &GoEndRow) -> (serde_json::Value, Option<Vec<String>>) {
    if phase(&played.moves, end) == Phase::Play {
        return (serde_json::Value::Null, None);
    }
    let board = board(played);
    let (score, lines, territory) = match (&board, &end.dead) {
        (Some(board), Some(dead)) => {
            let line = end.score.clone().unwrap_or_else(|| score_line(board, dead));
            let score = line.split_whitespace().nth(1).map(str::to_string);
            let lines = score_lines(board, line, dead);
            let [b, w] = territory(board, dead);
            (score, Some(lines), serde_json::json!({ "b": b, "w": w }))
        }
        _ => (None, None, serde_json::Value::Null),
    };
    let json = serde_json::json!({
        "dead": end.dead,
        "accepted": end.accepted,
        "score": score,
        "komi": KOMI,
        "territory": territory,
    });
    (json, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board_of(rows: &str) -> Board {
        let fields: Vec<String> = ["5", rows, "b"].iter().map(|s| s.to_string()).collect();
        parse_position(&fields).unwrap().0
    }

    #[test]
    fn a_toggle_takes_the_whole_block_and_the_score_follows() {
        // Black's wall on the middle column, two white stones in black's left side.
        let board = board_of("..X../OOX../..X../..X../..X..");
        let dead = toggle(&board, &[], "a4").unwrap();
        assert_eq!(dead, ["A4", "B4"]);
        // Black: 15 points with the two stones off; white: 0 (the right side is black's too).
        assert_eq!(score_line(&board, &dead), "score B+17.5 komi 7.5");
        assert_eq!(score_line(&board, &[]), "score B+5.5 komi 7.5");
        assert_eq!(toggle(&board, &dead, "B4").unwrap(), Vec::<String>::new());
        assert!(toggle(&board, &dead, "A1").is_err());
        assert!(toggle(&board, &dead, "Z9").is_err());
        let lines = score_lines(&board, score_line(&board, &dead), &dead);
        assert_eq!(lines[1..], ["dead b", "dead w A4 B4"]);
        assert_eq!(ending(&lines[0]).result, "black wins");
        assert_eq!(ending("score 0 komi 7.5").result, "draw");
        let [b, w] = territory(&board, &dead);
        assert_eq!((b.len(), w.len()), (20, 0));
    }

    #[test]
    fn passes_after_a_resume_score_again() {
        let moves: Vec<String> = ["E5", "pass", "pass", "D4", "pass", "pass"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut end = GoEndRow::default();
        assert_eq!(phase(&moves[..3], &end), Phase::Scoring);
        end.resumed = 3;
        assert_eq!(phase(&moves[..3], &end), Phase::Play);
        assert_eq!(phase(&moves[..5], &end), Phase::Play);
        assert_eq!(phase(&moves, &end), Phase::Scoring);
        end.resumed = 5;
        assert_eq!(phase(&moves, &end), Phase::Play);
        end.resumed = 3;
        end.score = Some("score W+7.5 komi 7.5".into());
        assert_eq!(phase(&moves, &end), Phase::Agreed);
    }
}
