//! Go's end agreement (`games::end`), as KGS and OGS have it: two passes in a row stop play
//! for a scoring phase; the proposal is the dead stones (Go's `score` judgement first), a
//! player toggles a chain or its group dead or alive (`dead <vertex> [group]`), and the verdict
//! is the area score with the marked stones off and komi 7.5 (as the rooms play), with the score
//! lines and territory the state shows.

use super::board::EMPTY;
use super::notation::{format_vertex, parse_position, parse_vertex};
use super::rules::KOMI;
use super::score::{area_score, empty_region, without_dead, Judgement, Life};
use super::{Board, Color};
use crate::games::end::{Change, EndAgreement, EndTexts, Refusal, Shown};
use crate::text::gtp_score;

/// Why a block cannot be marked.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum MarkingError {
    /// The position text does not read as Go's.
    #[error("the position does not read")]
    Position,
    /// No stone at the point (as sent).
    #[error("no stone at '{}'", crate::text::printable(.0))]
    NoStone(String),
}

/// Which stones a click on one marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Its chain: its colour's stones joined to it (Go's block), as OGS marks a click.
    Chain,
    /// Its group: its colour's stones reachable through that colour and the empty points that
    /// touch no stone of the other colour (a dead group of several chains inside the other
    /// side's area), which OGS offers after the chain.
    Group,
}

/// Go's marking rules (the one value [`Rules::end_agreement`](crate::games::rules::Rules)
/// gives).
pub struct GoMarking;

pub static GO_MARKING: GoMarking = GoMarking;

/// The board of a position as the view writes it (`[sfen] <size> <rows> <b|w>`).
fn board(position: &str) -> Option<Board> {
    let fields: Vec<String> = position
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

/// The marking as the scoring code takes it (indexed by point, like the board).
fn judgement(board: &Board, dead: &[String]) -> Judgement {
    let marked = mask(board, dead);
    let mut life = vec![Life::None; board.len()];
    for p in board.points().filter(|&p| marked[p]) {
        life[p] = Life::Dead;
    }
    Judgement { life }
}

/// The group of the stone on `p` ([`Reach::Group`]): its colour's stones reachable from it
/// through that colour's stones and the empty points that touch no stone of the other colour. So
/// it takes a dead group of several blocks inside the other side's area, but never crosses a
/// wall's gap (a point beside the other colour, such as an unfilled dame) into the live stones
/// beyond it.
fn group(board: &Board, p: usize) -> Vec<usize> {
    let colour = board.get(p);
    let touches_other = |q: usize| {
        board
            .neighbors(q)
            .iter()
            .any(|&n| Color::from_cell(board.get(n)).is_some_and(|c| c.cell() != colour))
    };
    let mut seen = vec![false; board.len()];
    let mut stack = vec![p];
    let mut stones = Vec::new();
    seen[p] = true;
    while let Some(q) = stack.pop() {
        if board.get(q) == colour {
            stones.push(q);
        }
        for n in board.neighbors(q) {
            let c = board.get(n);
            if !seen[n] && (c == colour || (c == EMPTY && !touches_other(n))) {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    stones
}

/// The chain (block) of the stone on `p`: its colour's stones joined to it through stones only.
fn chain(board: &Board, p: usize) -> Vec<usize> {
    let colour = board.get(p);
    let mut seen = vec![false; board.len()];
    let mut stack = vec![p];
    let mut stones = Vec::new();
    seen[p] = true;
    while let Some(q) = stack.pop() {
        stones.push(q);
        for n in board.neighbors(q) {
            if !seen[n] && board.get(n) == colour {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    stones
}

/// The stone a vertex names, or the error that names none.
fn stone(board: &Board, vertex: &str) -> Result<usize, MarkingError> {
    match parse_vertex(vertex, board.size()) {
        Ok(Some(p)) if Color::from_cell(board.get(p)).is_some() => Ok(p),
        _ => Err(MarkingError::NoStone(vertex.to_string())),
    }
}

fn toggled(
    board: &Board,
    dead: &[String],
    vertex: &str,
    reach: Reach,
) -> Result<Vec<String>, MarkingError> {
    let p = stone(board, vertex)?;
    let mut marked = mask(board, dead);
    let stones = match reach {
        Reach::Chain => chain(board, p),
        Reach::Group => group(board, p),
    };
    let now_dead = !stones.iter().all(|&s| marked[s]);
    for s in stones {
        marked[s] = now_dead;
    }
    Ok(names(board, &marked))
}

/// The stones of the group of `vertex` ([`group`]) whose mark differs from its own.
fn spread(board: &Board, dead: &[String], vertex: &str) -> Result<Vec<String>, MarkingError> {
    let p = stone(board, vertex)?;
    let marked = mask(board, dead);
    let mut apart = vec![false; board.len()];
    for s in group(board, p) {
        apart[s] = marked[s] != marked[p];
    }
    Ok(names(board, &apart))
}

fn score_line(board: &Board, dead: &[String]) -> String {
    let total = area_score(board, &judgement(board, dead), KOMI);
    format!("score {} komi {KOMI}", gtp_score(total))
}

fn score_lines(board: &Board, score: String, dead: &[String]) -> Vec<String> {
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

fn territory(board: &Board, dead: &[String]) -> [Vec<String>; 2] {
    let b = without_dead(board, &judgement(board, dead));
    let mut seen = vec![false; b.len()];
    let mut owned = [vec![false; b.len()], vec![false; b.len()]];
    for p in b.points() {
        if b.get(p) != EMPTY || seen[p] {
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

impl GoMarking {
    /// `dead` with the stones `reach` takes from `point` toggled: all dead when any of them
    /// was alive, else all alive. An error when no stone is there.
    fn toggle(
        &self,
        position: &str,
        dead: &[String],
        point: &str,
        reach: Reach,
    ) -> Result<Vec<String>, MarkingError> {
        let board = board(position).ok_or(MarkingError::Position)?;
        toggled(&board, dead, point, reach)
    }

    /// The stones of the group at `point` ([`Reach::Group`]) marked otherwise than the stone
    /// there: what a toggle of the group would change after its chain was toggled.
    fn spread(
        &self,
        position: &str,
        dead: &[String],
        point: &str,
    ) -> Result<Vec<String>, MarkingError> {
        spread(&board(position).ok_or(MarkingError::Position)?, dead, point)
    }

    /// The score line of a marking, as Go's `score` writes it (`score <B+n|W+n|0> komi <k>`).
    fn score_line(&self, position: &str, dead: &[String]) -> Option<String> {
        Some(score_line(&board(position)?, dead))
    }

    fn score_lines(&self, position: &str, score: String, dead: &[String]) -> Option<Vec<String>> {
        Some(score_lines(&board(position)?, score, dead))
    }

    fn territory(&self, position: &str, dead: &[String]) -> Option<[Vec<String>; 2]> {
        Some(territory(&board(position)?, dead))
    }
}

/// The dead stones of a proposal (vertices, space-separated).
fn dead_of(proposal: &str) -> Vec<String> {
    proposal.split_whitespace().map(str::to_string).collect()
}

/// The score of a `score <B+n|W+n|0> komi <k>` line: its second word.
fn score_word(score_line: &str) -> Option<&str> {
    score_line.split_whitespace().nth(1)
}

static TEXTS: EndTexts = EndTexts {
    phase: "scoring",
    begins: "two passes in a row begin it",
    change: "mark the dead stones (dead <vertex>)",
    act: "mark dead stones",
    proposal: "the dead stones",
};

impl EndAgreement for GoMarking {
    fn texts(&self) -> &'static EndTexts {
        &TEXTS
    }

    fn verbs(&self) -> &'static [&'static str] {
        &["dead"]
    }

    /// Two passes in a row.
    fn play_stopped(&self, moves: &[String]) -> bool {
        moves.len() >= 2
            && moves[moves.len() - 2..]
                .iter()
                .all(|m| m.eq_ignore_ascii_case("pass"))
    }

    fn judge_command(&self) -> &'static str {
        "score"
    }

    /// The dead stones of the `score` judgement (its `dead b ...` and `dead w ...` lines).
    fn proposal(&self, judgement: &[String]) -> String {
        let dead: Vec<&str> = judgement
            .iter()
            .filter_map(|l| l.strip_prefix("dead "))
            .flat_map(|l| l.split_whitespace().skip(1))
            .collect();
        dead.join(" ")
    }

    /// `dead <vertex>` marks its chain; `dead <vertex> group` its group, which is asked about
    /// (the aside) when the chain's mark left the rest of it otherwise, as OGS asks.
    fn change(&self, position: &str, proposal: &str, words: &[&str]) -> Result<Change, Refusal> {
        let (vertex, reach) = match words {
            ["dead", vertex] => (*vertex, Reach::Chain),
            ["dead", vertex, "group"] => (*vertex, Reach::Group),
            _ => {
                return Err(Refusal(format!(
                    "expected dead <vertex> [group], not '{}'",
                    words.join(" ")
                )))
            }
        };
        let dead = dead_of(proposal);
        let marked = self
            .toggle(position, &dead, vertex, reach)
            .map_err(|e| Refusal(e.to_string()))?;
        let rest = self.spread(position, &marked, vertex).unwrap_or_default();
        let vertex = vertex.to_ascii_uppercase();
        let aside = (reach == Reach::Chain && !rest.is_empty()).then(|| {
            let json = serde_json::json!({ "vertex": vertex, "stones": rest });
            let mut fields = serde_json::Map::new();
            fields.insert("spread".into(), json);
            fields
        });
        let now = if marked.len() > dead.len() {
            "dead"
        } else {
            "alive"
        };
        Ok(Change {
            proposal: marked.join(" "),
            note: format!("marks {vertex} {now}"),
            aside,
        })
    }

    fn verdict(&self, position: &str, proposal: &str) -> Option<String> {
        self.score_line(position, &dead_of(proposal))
    }

    fn ending(&self, verdict: &str) -> (String, String) {
        let result = match score_word(verdict).and_then(|s| s.as_bytes().first()) {
            Some(b'B') => "black wins",
            Some(b'W') => "white wins",
            _ => "draw",
        };
        (result.into(), "area score".into())
    }

    fn lead(&self, verdict: &str) -> Option<f64> {
        crate::text::parse_score(score_word(verdict)?)
    }

    /// The dead stones (null while judged), the score they give, the komi and the territory;
    /// the `score` command's lines.
    fn shown(&self, position: &str, proposal: Option<&str>, verdict: Option<&str>) -> Shown {
        let dead = proposal.map(dead_of);
        let marked = dead.as_ref().and_then(|dead| {
            let line = match verdict {
                Some(line) => line.to_string(),
                None => self.score_line(position, dead)?,
            };
            let score = score_word(&line).map(str::to_string);
            let lines = self.score_lines(position, line, dead)?;
            let [b, w] = self.territory(position, dead)?;
            Some((score, lines, serde_json::json!({ "b": b, "w": w })))
        });
        let (score, lines, territory) = match marked {
            Some((score, lines, territory)) => (score, Some(lines), territory),
            None => (None, None, serde_json::Value::Null),
        };
        let mut fields = serde_json::Map::new();
        fields.insert("dead".into(), serde_json::json!(dead));
        fields.insert("score".into(), serde_json::json!(score));
        fields.insert("komi".into(), serde_json::json!(KOMI));
        fields.insert("territory".into(), territory);
        Shown { fields, lines }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toggle_takes_the_whole_block_and_the_score_follows() {
        // Black's wall on the middle column, two white stones in black's left side.
        let position = "5 ..X../OOX../..X../..X../..X.. b";
        let m = &GO_MARKING;
        let dead = m.toggle(position, &[], "a4", Reach::Chain).unwrap();
        assert_eq!(dead, ["A4", "B4"]);
        // Black: 15 points with the two stones off; white: 0 (the right side is black's too).
        assert_eq!(
            m.score_line(position, &dead).unwrap(),
            "score B+17.5 komi 7.5"
        );
        assert_eq!(m.score_line(position, &[]).unwrap(), "score B+5.5 komi 7.5");
        assert_eq!(
            m.toggle(position, &dead, "B4", Reach::Chain).unwrap(),
            Vec::<String>::new()
        );
        assert!(m.toggle(position, &dead, "A1", Reach::Chain).is_err());
        assert!(m.toggle(position, &dead, "Z9", Reach::Chain).is_err());
        let line = m.score_line(position, &dead).unwrap();
        let lines = m.score_lines(position, line, &dead).unwrap();
        assert_eq!(lines[1..], ["dead b", "dead w A4 B4"]);
        let [b, w] = m.territory(position, &dead).unwrap();
        assert_eq!((b.len(), w.len()), (20, 0));
    }

    #[test]
    fn a_click_marks_its_chain_and_the_group_is_offered_but_not_through_a_gap() {
        // Two white blocks in black's left side, white's live stones right of black's wall, and
        // the wall's gap at D4 (an unfilled dame beside black on both sides).
        let position = "7 ...X.../O..X.../...X.../.O...../...X.../...X.OO/...X.O. b";
        let m = &GO_MARKING;
        // A click marks its chain only, and the rest of its group is what spreading adds.
        let chain = m.toggle(position, &[], "A6", Reach::Chain).unwrap();
        assert_eq!(chain, ["A6"]);
        assert_eq!(m.spread(position, &chain, "A6").unwrap(), ["B4"]);
        let dead = m.toggle(position, &chain, "A6", Reach::Group).unwrap();
        assert_eq!(dead, ["A6", "B4"]);
        assert!(m.spread(position, &dead, "A6").unwrap().is_empty());
        // Again on the other block: both come back to life together.
        assert_eq!(
            m.toggle(position, &dead, "B4", Reach::Group).unwrap(),
            Vec::<String>::new()
        );
        let right = m.toggle(position, &dead, "G2", Reach::Group).unwrap();
        assert_eq!(right, ["A6", "B4", "F2", "G2", "F1"]);
        // A black stone takes black's whole wall with it, but nothing white.
        let wall = m.toggle(position, &[], "D7", Reach::Group).unwrap();
        assert_eq!(wall.len(), 6);
        assert!(wall.iter().all(|v| v.starts_with('D')));
        // Its chain stops at the gap; the group's other chain is offered.
        let top = m.toggle(position, &[], "D7", Reach::Chain).unwrap();
        assert_eq!(top, ["D7", "D6", "D5"]);
        assert_eq!(m.spread(position, &top, "D5").unwrap(), ["D3", "D2", "D1"]);
    }

    #[test]
    fn two_passes_in_a_row_stop_play() {
        let moves: Vec<String> = ["E5", "pass", "PASS"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(GO_MARKING.play_stopped(&moves));
        assert!(!GO_MARKING.play_stopped(&moves[..2]));
        assert!(!GO_MARKING.play_stopped(&moves[2..]));
    }

    #[test]
    fn the_agreement_proposes_changes_and_scores_in_gos_words() {
        // As above: two white stones in black's left side.
        let position = "5 ..X../OOX../..X../..X../..X.. b";
        let m: &dyn EndAgreement = &GO_MARKING;
        let judgement = ["score B+17.5 komi 7.5", "dead b", "dead w A4 B4"].map(String::from);
        assert_eq!(m.proposal(&judgement), "A4 B4");
        assert_eq!(m.proposal(&["score 0 komi 7.5".to_string()]), "");
        // A click on a marked stone brings its chain back to life.
        let change = m.change(position, "A4 B4", &["dead", "b4"]).unwrap();
        assert_eq!(change.proposal, "");
        assert_eq!(change.note, "marks B4 alive");
        assert_eq!(change.aside, None);
        let change = m.change(position, "", &["dead", "A4", "group"]).unwrap();
        assert_eq!(
            (change.proposal.as_str(), change.note.as_str()),
            ("A4 B4", "marks A4 dead")
        );
        let refused = m.change(position, "", &["dead", "A1"]).unwrap_err();
        assert_eq!(refused.to_string(), "no stone at 'A1'");
        assert!(m.change(position, "", &["dead"]).is_err());
        // The verdict is the score line; its ending and lead are black's.
        let verdict = m.verdict(position, "A4 B4").unwrap();
        assert_eq!(verdict, "score B+17.5 komi 7.5");
        let ending = m.ending(&verdict);
        assert_eq!(
            (ending.0.as_str(), ending.1.as_str()),
            ("black wins", "area score")
        );
        assert_eq!(m.lead(&verdict), Some(17.5));
        assert_eq!(m.ending("score W+0.5 komi 7.5").0, "white wins");
        // Shown: the dead stones, the score, the komi and the territory; none while judged.
        let shown = m.shown(position, Some("A4 B4"), None);
        assert_eq!(shown.fields["dead"], serde_json::json!(["A4", "B4"]));
        assert_eq!(shown.fields["score"], "B+17.5");
        assert_eq!(shown.fields["komi"], 7.5);
        let lines = shown.lines.unwrap();
        assert_eq!(lines, ["score B+17.5 komi 7.5", "dead b", "dead w A4 B4"]);
        let judging = m.shown(position, None, None);
        assert!(judging.fields["dead"].is_null() && judging.lines.is_none());
        // An agreed verdict shows as it was agreed.
        let agreed = m.shown(position, Some(""), Some("score W+99 komi 7.5"));
        assert_eq!(agreed.fields["score"], "W+99");
    }

    #[test]
    fn a_click_that_leaves_its_group_split_asks_about_the_rest() {
        let position = "7 ...X.../O..X.../...X.../.O...../...X.../...X.OO/...X.O. b";
        let change = GO_MARKING.change(position, "", &["dead", "a6"]).unwrap();
        assert_eq!(change.proposal, "A6");
        let aside = change.aside.unwrap();
        assert_eq!(
            aside["spread"],
            serde_json::json!({ "vertex": "A6", "stones": ["B4"] })
        );
    }
}
