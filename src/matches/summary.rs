//! The accounting of a match: each pair's score and the GTP engines' `final_score` checks as
//! games finish, the line printed per game, the progress bar's message, and the summary.

use super::game::{FinishedGame, Fixture};
use super::referee::{Side, Verdict};
use super::schedule::pairs;
use super::stats::{Penta, Sprt, SprtState, Tally};
use std::collections::BTreeMap;

/// One pair of engines and its score, from `a`'s side: by game, and by game pair (the two
/// games of one opening).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairScore {
    pub a: String,
    pub b: String,
    pub tally: Tally,
    pub penta: Penta,
    /// `a`'s half points in the game of each opening whose other game is still to come.
    pub pending: BTreeMap<usize, usize>,
}

impl PairScore {
    pub fn new(a: &str, b: &str) -> PairScore {
        PairScore {
            a: a.into(),
            b: b.into(),
            ..PairScore::default()
        }
    }

    /// Counts one game from opening `opening`; `a_first` = `a` moved first. The second game of
    /// an opening completes its pair.
    pub fn add(&mut self, verdict: Verdict, a_first: bool, opening: usize) {
        self.tally.add(verdict, a_first);
        let half_points = match verdict {
            Verdict::Draw => 1,
            Verdict::Win(side) if (side == Side::First) == a_first => 2,
            Verdict::Win(_) => 0,
        };
        match self.pending.remove(&opening) {
            Some(first) => self.penta.add(first + half_points),
            None => {
                self.pending.insert(opening, half_points);
            }
        }
    }
}

/// A match's counts so far, kept and played games alike: each pair's score, and per GTP engine
/// its `final_score` checks (the scored games where it agreed with the referee, and all).
pub(super) struct Standing {
    pub(super) pairs: Vec<PairScore>,
    pub(super) checks: std::collections::BTreeMap<String, (usize, usize)>,
}

impl Standing {
    pub(super) fn new(names: &[String]) -> Standing {
        let pairs = pairs(names.len())
            .into_iter()
            .map(|(a, b)| PairScore::new(&names[a], &names[b]));
        Standing {
            pairs: pairs.collect(),
            checks: Default::default(),
        }
    }

    /// Counts one game of `job`: its verdict, and the `final_score` checks (engine, agrees).
    pub(super) fn count<'a>(
        &mut self,
        job: &Fixture,
        names: &[String],
        verdict: Verdict,
        checks: impl Iterator<Item = (&'a str, bool)>,
    ) {
        let score = &mut self.pairs[job.pair];
        let a_first = names[job.first] == score.a;
        score.add(verdict, a_first, job.opening_index);
        for (engine, agrees) in checks {
            let tally = self.checks.entry(engine.to_string()).or_default();
            tally.0 += usize::from(agrees);
            tally.1 += 1;
        }
    }
}

/// What a match ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub pairs: Vec<PairScore>,
    pub finished: usize,
    pub scheduled: usize,
    pub interrupted: bool,
    /// The runner stopped the match (an engine failed too often): no "Finished match".
    pub stopped: bool,
    pub sprt: Option<SprtState>,
}

/// `Finished game 3 (a vs b): 1-0 {a wins by king capture}`.
pub(super) fn finished_line(game: &FinishedGame) -> String {
    let what = match game.end.verdict {
        Verdict::Win(Side::First) => format!("{} wins by {}", game.first, game.end.reason),
        Verdict::Win(Side::Second) => format!("{} wins by {}", game.second, game.end.reason),
        Verdict::Draw => format!("draw by {}", game.end.reason),
    };
    // The engine's own words: its control characters shown escaped, never run by the
    // terminal (`\x1b[2J` would clear it).
    let detail = match &game.detail {
        Some(d) if !d.is_empty() => d.chars().fold(String::from(": "), |mut out, c| {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
            out
        }),
        _ => String::new(),
    };
    format!(
        "Finished game {} ({} vs {}): {} {{{what}{detail}}}",
        game.job.game,
        game.first,
        game.second,
        game.end.verdict.score()
    )
}

pub(super) fn progress_message(pairs: &[PairScore]) -> String {
    let Some(p) = pairs.first() else {
        return String::new();
    };
    let t = &p.tally;
    let elo = t
        .elo()
        .map(|e| match e.columns() {
            (bound, dash) if dash == "-" => bound,
            (diff, err) => format!("{diff} +/- {err}"),
        })
        .unwrap_or_default();
    format!(
        "{} vs {}: {} - {} - {}  Elo {elo}",
        p.a, p.b, t.wins, t.losses, t.draws
    )
}

/// The end-of-match text: per pair the score line and the Elo line, then the SPRT line.
pub fn summary_text(summary: &Summary, sprt: Option<&Sprt>) -> String {
    let mut s = String::new();
    if summary.interrupted {
        s.push_str(&format!(
            "Interrupted: summary of the {} finished games of {}\n",
            summary.finished, summary.scheduled
        ));
    } else if summary.stopped {
        s.push_str(&format!(
            "Stopped: summary of the {} finished games of {}\n",
            summary.finished, summary.scheduled
        ));
    }
    for p in &summary.pairs {
        s.push_str(&p.tally.score_line(&p.a, &p.b));
        s.push('\n');
        s.push_str(&p.tally.elo_line());
        s.push('\n');
        if p.penta.pairs() > 0 {
            s.push_str(&p.penta.line());
            s.push('\n');
        }
    }
    if let (Some(sprt), Some(p)) = (sprt, summary.pairs.first()) {
        s.push_str(&sprt.line(&p.penta));
        s.push('\n');
    }
    if summary.pairs.len() > 1 {
        s.push_str(&standings(&summary.pairs));
    }
    if !summary.interrupted && !summary.stopped {
        s.push_str("Finished match\n");
    }
    s
}

/// A round robin's table: each engine's games against the whole field, best score first
/// (ties keep the listed order), with the Elo of that score and its 95% `+/-`.
pub fn standings(pairs: &[PairScore]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for p in pairs {
        for n in [p.a.as_str(), p.b.as_str()] {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let mut rows: Vec<(&str, Tally)> = names
        .iter()
        .map(|&name| {
            let mut t = Tally::default();
            for p in pairs {
                let (w, l) = if p.a == name {
                    (p.tally.wins, p.tally.losses)
                } else if p.b == name {
                    (p.tally.losses, p.tally.wins)
                } else {
                    continue;
                };
                t.wins += w;
                t.losses += l;
                t.draws += p.tally.draws;
            }
            (name, t)
        })
        .collect();
    rows.sort_by(|x, y| {
        let (a, b) = (x.1.score().unwrap_or(0.0), y.1.score().unwrap_or(0.0));
        b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal)
    });
    let width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    let mut s = format!(
        "Rank {:<width$} {:>7} {:>7} {:>6} {:>7} {:>6}\n",
        "Name", "Elo", "+/-", "Games", "Score", "Draw"
    );
    for (rank, (name, t)) in rows.iter().enumerate() {
        let (elo, err) = t.elo().map(|e| e.columns()).unwrap_or_default();
        s.push_str(&format!(
            "{:>4} {name:<width$} {elo:>7} {err:>7} {:>6} {:>6.1}% {:>5.1}%\n",
            rank + 1,
            t.games(),
            100.0 * t.score().unwrap_or(0.0),
            100.0 * t.draw_ratio()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standings_add_each_engines_games() {
        let pair = |a: &str, b: &str, wins, losses, draws| PairScore {
            a: a.into(),
            b: b.into(),
            tally: Tally {
                wins,
                losses,
                draws,
            },
            ..PairScore::default()
        };
        let table = standings(&[
            pair("a", "b", 1, 2, 1),
            pair("a", "c", 3, 0, 1),
            pair("b", "c", 2, 2, 0),
        ]);
        let rows: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            rows[0],
            ["Rank", "Name", "Elo", "+/-", "Games", "Score", "Draw"]
        );
        // a: 4 - 2 - 2 (62.5%, +88.7 Elo), b: 4 - 3 - 1 (56.25%), c: 2 - 5 - 1 (31.25%).
        assert_eq!(rows[1], ["1", "a", "88.7", "261.9", "8", "62.5%", "25.0%"]);
        assert_eq!(rows[2][..2], ["2", "b"]);
        assert_eq!(rows[2][4..], ["8", "56.2%", "12.5%"]);
        assert_eq!(rows[3][..2], ["3", "c"]);
        assert_eq!(rows[3][4..], ["8", "31.2%", "12.5%"]);
        assert_eq!(rows.len(), 4);
    }
}
