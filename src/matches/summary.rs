//! The accounting of a match: each pair's score and the GTP engines' `final_score` checks as
//! games finish, the line printed per game, the progress bar's message, and the summary.

use super::game::{FinishedGame, Fixture};
use super::referee::{Side, Verdict};
use super::stats::{Llr, Penta, Sprt, SprtState, Tally};
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
    pub(super) fn new(names: &[String], pairs: &[(usize, usize)]) -> Standing {
        let pairs = pairs
            .iter()
            .map(|&(a, b)| PairScore::new(&names[a], &names[b]));
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

/// One engine's games against the whole field: its tally and its game pairs, from its side.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldScore {
    pub name: String,
    pub tally: Tally,
    pub penta: Penta,
}

/// Each engine of `pairs` against the field, in the order the engines first appear.
pub fn field_scores(pairs: &[PairScore]) -> Vec<FieldScore> {
    let mut field: Vec<FieldScore> = Vec::new();
    for p in pairs {
        for (name, is_a) in [(&p.a, true), (&p.b, false)] {
            let index = match field.iter().position(|f| &f.name == name) {
                Some(i) => i,
                None => {
                    field.push(FieldScore {
                        name: name.clone(),
                        ..FieldScore::default()
                    });
                    field.len() - 1
                }
            };
            let f = &mut field[index];
            let (won, lost) = match is_a {
                true => (p.tally.wins, p.tally.losses),
                false => (p.tally.losses, p.tally.wins),
            };
            f.tally.wins += won;
            f.tally.losses += lost;
            f.tally.draws += p.tally.draws;
            for (k, &n) in p.penta.counts.iter().enumerate() {
                // Counted from `a`'s side: `b` scored the other 4 - k half points.
                f.penta.counts[if is_a { k } else { 4 - k }] += n;
            }
        }
    }
    field
}

/// A duration as a report gives it: `45s`, `3m 20s`, `2h 05m`.
pub(super) fn short_duration(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    }
}

/// The score, Elo and game pairs of one side, for a report line: `6 - 3 - 1 [0.650] Elo 108.4
/// +/- 220.3, Ptnml [0, 1, 2, 1, 1]`.
fn report_score(tally: &Tally, penta: &Penta) -> String {
    let elo = match tally.elo().map(|e| e.columns()) {
        Some((bound, dash)) if dash == "-" => bound,
        Some((diff, err)) => format!("{diff} +/- {err}"),
        None => "n/a".into(),
    };
    let c = penta.counts;
    format!(
        "{} - {} - {} [{:.3}] Elo {elo}, Ptnml [{}, {}, {}, {}, {}]",
        tally.wins,
        tally.losses,
        tally.draws,
        tally.score().unwrap_or(0.0),
        c[0],
        c[1],
        c[2],
        c[3],
        c[4]
    )
}

/// `, LLR 1.23 (-2.94, 2.94)`: an SPRT's log-likelihood ratio beside its bounds, as the report
/// and `--slurm`'s progress line give it.
pub(super) fn llr_text(llr: f64, sprt: &Sprt) -> String {
    format!(
        ", LLR {llr:.2} ({:.2}, {:.2})",
        sprt.lower_bound(),
        sprt.upper_bound()
    )
}

/// The report printed every `report_every` games when stdout is no terminal: one line for two
/// engines (with the SPRT's LLR and bounds), a head line and one line per engine against the
/// field for more. `eta`: the time left at this run's pace (`None` before a game of it).
pub(super) fn report(
    pairs: &[PairScore],
    sprt: Option<&Sprt>,
    finished: usize,
    scheduled: usize,
    eta: Option<std::time::Duration>,
) -> String {
    let eta = eta.map_or_else(|| "n/a".into(), short_duration);
    let head = format!("Report after {finished} of {scheduled} games, ETA {eta}");
    match pairs {
        [p] => {
            let llr = sprt.map_or_else(String::new, |sprt| {
                let c = &sprt.config;
                llr_text(p.penta.llr(c.elo0, c.elo1).unwrap_or(0.0), sprt)
            });
            format!(
                "{head}: {} vs {}: {}{llr}\n",
                p.a,
                p.b,
                report_score(&p.tally, &p.penta)
            )
        }
        _ => {
            let mut s = format!("{head}:\n");
            for f in field_scores(pairs) {
                s.push_str(&format!(
                    "  {} vs field: {}\n",
                    f.name,
                    report_score(&f.tally, &f.penta)
                ));
            }
            s
        }
    }
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
        s.push_str(&crosstable(&summary.pairs));
    }
    if !summary.interrupted && !summary.stopped {
        s.push_str("Finished match\n");
    }
    s
}

/// The engines of `pairs` against the field, best score first (ties keep the listed order).
fn ranked(pairs: &[PairScore]) -> Vec<FieldScore> {
    let mut rows = field_scores(pairs);
    rows.sort_by(|x, y| {
        let (a, b) = (
            x.tally.score().unwrap_or(0.0),
            y.tally.score().unwrap_or(0.0),
        );
        b.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal)
    });
    rows
}

/// A tournament's table: each engine's games against the whole field, best score first (ties
/// keep the listed order), with the Elo of that score and its 95% `+/-`.
pub fn standings(pairs: &[PairScore]) -> String {
    let rows = ranked(pairs);
    let width = rows.iter().map(|f| f.name.len()).max().unwrap_or(4).max(4);
    let mut s = format!(
        "Rank {:<width$} {:>7} {:>7} {:>6} {:>7} {:>6}\n",
        "Name", "Elo", "+/-", "Games", "Score", "Draw"
    );
    for (rank, f) in rows.iter().enumerate() {
        let t = &f.tally;
        let (elo, err) = t.elo().map(|e| e.columns()).unwrap_or_default();
        s.push_str(&format!(
            "{:>4} {:<width$} {elo:>7} {err:>7} {:>6} {:>6.1}% {:>5.1}%\n",
            rank + 1,
            f.name,
            t.games(),
            100.0 * t.score().unwrap_or(0.0),
            100.0 * t.draw_ratio()
        ));
    }
    s
}

/// The crosstable: per row engine (in the standings' order) its points against each column
/// engine out of the games they played (`2.5/4`); `-` on the diagonal, `.` for engines that
/// do not meet (a gauntlet's).
pub fn crosstable(pairs: &[PairScore]) -> String {
    let rows = ranked(pairs);
    let cell = |row: &str, column: &str| -> String {
        if row == column {
            return "-".into();
        }
        let found = pairs.iter().find_map(|p| {
            let t = &p.tally;
            if p.a == row && p.b == column {
                Some((t.wins, t.losses, t.games()))
            } else if p.b == row && p.a == column {
                Some((t.losses, t.wins, t.games()))
            } else {
                None
            }
        });
        match found {
            Some((won, lost, games)) if games > 0 => {
                let draws = games - won - lost;
                format!("{}/{games}", f64::from(won) + f64::from(draws) / 2.0)
            }
            _ => ".".into(),
        }
    };
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| rows.iter().map(|c| cell(&r.name, &c.name)).collect())
        .collect();
    let head = "Crosstable";
    let name_width = rows
        .iter()
        .map(|f| f.name.len())
        .max()
        .unwrap_or(0)
        .max(head.len());
    let width = cells
        .iter()
        .flatten()
        .map(String::len)
        .chain(rows.iter().map(|f| f.name.len()))
        .max()
        .unwrap_or(1);
    let mut s = format!("{head:<name_width$}");
    for c in &rows {
        s.push_str(&format!(" {:>width$}", c.name));
    }
    s.push('\n');
    for (r, line) in rows.iter().zip(&cells) {
        s.push_str(&format!("{:<name_width$}", r.name));
        for c in line {
            s.push_str(&format!(" {c:>width$}"));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standings_add_each_engines_games() {
        let pairs = [
            pair("a", "b", 1, 2, 1, [0; 5]),
            pair("a", "c", 3, 0, 1, [0; 5]),
            pair("b", "c", 2, 2, 0, [0; 5]),
        ];
        let table = standings(&pairs);
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
        // protocol/match.md shows these tables.
        let doc = include_str!("../../protocol/match.md");
        for line in table.lines().chain(crosstable(&pairs).lines()) {
            assert!(doc.contains(&format!("\n    {line}\n")), "{line}");
        }
    }

    fn pair(a: &str, b: &str, wins: u32, losses: u32, draws: u32, penta: [u32; 5]) -> PairScore {
        PairScore {
            a: a.into(),
            b: b.into(),
            tally: Tally {
                wins,
                losses,
                draws,
            },
            penta: Penta { counts: penta },
            ..PairScore::default()
        }
    }

    #[test]
    fn each_engine_against_the_field_counts_from_its_own_side() {
        let pairs = [
            pair("a", "b", 3, 1, 0, [0, 1, 0, 1, 0]),
            pair("a", "c", 0, 2, 2, [1, 0, 1, 0, 0]),
        ];
        let field = field_scores(&pairs);
        let names: Vec<&str> = field.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let t = |f: &FieldScore| (f.tally.wins, f.tally.losses, f.tally.draws);
        assert_eq!(t(&field[0]), (3, 3, 2));
        assert_eq!(t(&field[1]), (1, 3, 0));
        assert_eq!(t(&field[2]), (2, 0, 2));
        assert_eq!(field[0].penta.counts, [1, 1, 1, 1, 0]);
        // b's pairs mirrored: a's ½ is b's 1½, a's 1½ is b's ½.
        assert_eq!(field[1].penta.counts, [0, 1, 0, 1, 0]);
        assert_eq!(field[2].penta.counts, [0, 0, 1, 0, 1]);
        // The points add up: every game's point goes to one side or is shared.
        let points: f64 = field
            .iter()
            .map(|f| f.tally.score().unwrap() * f64::from(f.tally.games()))
            .sum();
        assert_eq!(points, 8.0);
    }

    #[test]
    fn reports_give_score_elo_pairs_llr_and_eta() {
        let p = pair("new", "old", 6, 3, 1, [0, 1, 2, 1, 1]);
        let sprt = Sprt::new(crate::matches::config::SprtConfig {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        });
        let eta = Some(std::time::Duration::from_secs(200));
        let text = report(std::slice::from_ref(&p), Some(&sprt), 10, 100, eta);
        let (elo, err) = p.tally.elo().unwrap().columns();
        let llr = p.penta.llr(0.0, 10.0).unwrap();
        assert_eq!(
            text,
            format!(
                "Report after 10 of 100 games, ETA 3m 20s: new vs old: 6 - 3 - 1 [0.650] Elo \
                 {elo} +/- {err}, Ptnml [0, 1, 2, 1, 1], LLR {llr:.2} (-2.94, 2.94)\n"
            )
        );
        let plain = report(std::slice::from_ref(&p), None, 10, 100, None);
        assert!(
            plain.starts_with("Report after 10 of 100 games, ETA n/a: "),
            "{plain}"
        );
        assert!(!plain.contains("LLR"), "{plain}");
        let q = pair("new", "other", 2, 2, 0, [0, 0, 2, 0, 0]);
        let text = report(&[p, q], None, 14, 200, eta);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Report after 14 of 200 games, ETA 3m 20s:");
        assert!(
            lines[1].starts_with("  new vs field: 8 - 5 - 1 [0.607] Elo "),
            "{text}"
        );
        assert!(
            lines[2].starts_with("  old vs field: 3 - 6 - 1 [0.350] Elo "),
            "{text}"
        );
        assert!(lines[2].ends_with("Ptnml [1, 1, 2, 1, 0]"), "{text}");
        assert!(
            lines[3].starts_with("  other vs field: 2 - 2 - 0 [0.500]"),
            "{text}"
        );
        assert_eq!(lines.len(), 4);
        for (secs, want) in [
            (0, "0s"),
            (59, "59s"),
            (60, "1m 00s"),
            (3599, "59m 59s"),
            (7500, "2h 05m"),
        ] {
            assert_eq!(short_duration(std::time::Duration::from_secs(secs)), want);
        }
    }

    #[test]
    fn the_crosstable_gives_points_of_each_meeting() {
        // A gauntlet: g meets x and y, who do not meet.
        let pairs = [
            pair("g", "x", 3, 1, 2, [0; 5]),
            pair("g", "y", 0, 1, 1, [0; 5]),
        ];
        let table = crosstable(&pairs);
        let rows: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        // Standings order: y 1.5/2 (75%), g 4.5/8, x 2/6.
        assert_eq!(rows[0], ["Crosstable", "y", "g", "x"]);
        assert_eq!(rows[1], ["y", "-", "1.5/2", "."]);
        assert_eq!(rows[2], ["g", "0.5/2", "-", "4/6"]);
        assert_eq!(rows[3], ["x", ".", "2/6", "-"]);
        assert_eq!(rows.len(), 4);
    }
}
