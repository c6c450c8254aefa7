//! The engine's settings for `ryoshi gtp`, and the live analysis the GUIs read: Leela Zero's
//! `lz-analyze`, KataGo's `kata-analyze` and their `genmove_analyze` forms. See protocol/gtp.md.

use super::Failure;
use crate::go::notation::format_move;
use crate::go::search::fast::PASS;
use crate::go::search::mcts::{Ban, MoveInfo, Snapshot};
use crate::go::{Board, Color};

/// `ryoshi gtp [--threads N] [--playouts N] [--seed N] [--tree-mb N] [--movetime-ms N]`.
#[derive(clap::Args, Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// Search threads sharing one tree.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Playouts per move (with `--threads 1` and a seed, the same move every time); the clock
    /// still bounds the move when time settings are given.
    #[arg(long)]
    pub playouts: Option<u64>,
    /// Seed of the playouts' random generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Megabytes for the search tree (two pools of half each, allocated once).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub tree_mb: u64,
    /// Milliseconds per move when neither time settings nor `--playouts` limit the move.
    #[arg(long, default_value_t = 1000)]
    pub movetime_ms: u64,
    /// Never resign (play until the end).
    #[arg(long)]
    pub no_resign: bool,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            threads: 1,
            playouts: None,
            seed: 0,
            tree_mb: 64,
            movetime_ms: 1000,
            no_resign: false,
        }
    }
}

/// The two output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Leela Zero: win rate and prior in 1/10000.
    Lz,
    /// KataGo: fractions, the score lead, and the ownership on request.
    Kata,
}

/// Leela Zero's `avoid`/`allow`: root moves of `color` kept out of (or alone in) the report,
/// while the search is within `until` plies of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Restriction {
    pub allow: bool,
    pub color: Color,
    /// The points (`None` = pass).
    pub moves: Vec<Option<usize>>,
    pub until: u64,
}

/// A parsed analysis command.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub format: Format,
    pub color: Color,
    /// Milliseconds between reports.
    pub interval_ms: u64,
    pub ownership: bool,
    /// KataGo's `rootInfo true`: a `rootInfo` section after the moves.
    pub root_info: bool,
    /// `avoid`/`allow` clauses (Leela Zero's): the search keeps off those moves, and the
    /// list leaves them out.
    pub restrictions: Vec<Restriction>,
    /// KataGo's `minmoves`: at least this many moves listed, unsearched ones after the others.
    pub min_moves: usize,
    /// KataGo's `maxmoves`: at most this many moves listed (None: all).
    pub max_moves: Option<usize>,
    /// KataGo's `pvVisits true`: each line's `pvVisits` after its `pv`.
    pub pv_visits: bool,
    /// `genmove_analyze`: search under the clock, then play.
    pub genmove: bool,
}

/// The command names and what they ask. Sabaki reads every analysis command whose name does
/// not start with `kata` in Leela Zero's form, so `analyze` and `genmove_analyze` answer in it.
pub fn command(name: &str) -> Option<(Format, bool)> {
    Some(match name {
        "lz-analyze" | "analyze" => (Format::Lz, false),
        "kata-analyze" => (Format::Kata, false),
        "lz-genmove_analyze" | "genmove_analyze" => (Format::Lz, true),
        "kata-genmove_analyze" => (Format::Kata, true),
        _ => return None,
    })
}

/// One argument clause after the colour and the interval.
#[derive(Clone)]
enum Clause {
    Interval(f64),
    Ownership(bool),
    RootInfo(bool),
    MinMoves(u64),
    MaxMoves(u64),
    PvVisits(bool),
    /// KataGo's flags for what ryoshi does not compute: read, no effect (protocol/gtp.md).
    Ignored,
    Restrict {
        allow: bool,
        color: Color,
        moves: Vec<String>,
        until: u64,
    },
}

mod grammar {
    use super::Clause;
    use crate::go::Color;
    use nom::branch::alt;
    use nom::bytes::complete::{tag, tag_no_case, take_till1};
    use nom::character::complete::{digit1, multispace0, multispace1};
    use nom::combinator::{all_consuming, map, map_res, opt, recognize, value};
    use nom::multi::{many0, separated_list1};
    use nom::number::complete::double;
    use nom::sequence::{preceded, terminated, tuple};
    use nom::IResult;

    /// A token ends at white space.
    fn end(input: &str) -> IResult<&str, ()> {
        if input.is_empty() {
            Ok((input, ()))
        } else {
            value((), multispace1)(input)
        }
    }

    pub fn color(input: &str) -> IResult<&str, Color> {
        terminated(
            alt((
                value(Color::Black, alt((tag_no_case("black"), tag_no_case("b")))),
                value(Color::White, alt((tag_no_case("white"), tag_no_case("w")))),
            )),
            end,
        )(input)
    }

    /// A non-negative decimal number of centiseconds (`25.5`, as KataGo takes).
    fn number(input: &str) -> IResult<&str, f64> {
        terminated(
            map_res(double, |x: f64| {
                if x.is_finite() && x >= 0.0 {
                    Ok(x)
                } else {
                    Err(())
                }
            }),
            end,
        )(input)
    }

    fn integer(input: &str) -> IResult<&str, u64> {
        terminated(map_res(digit1, str::parse::<u64>), end)(input)
    }

    fn boolean(input: &str) -> IResult<&str, bool> {
        terminated(
            alt((value(true, tag("true")), value(false, tag("false")))),
            end,
        )(input)
    }

    fn key<'a>(name: &'static str) -> impl FnMut(&'a str) -> IResult<&'a str, &'a str> {
        terminated(tag(name), multispace1)
    }

    /// `avoid|allow <color> <vertex>[,<vertex>...] <plies>`.
    fn restrict(input: &str) -> IResult<&str, Clause> {
        map(
            tuple((
                alt((value(false, key("avoid")), value(true, key("allow")))),
                color,
                terminated(
                    separated_list1(
                        tag(","),
                        recognize(take_till1(|c: char| c == ',' || c.is_whitespace())),
                    ),
                    multispace1,
                ),
                integer,
            )),
            |(allow, color, moves, until)| Clause::Restrict {
                allow,
                color,
                moves: moves.into_iter().map(String::from).collect(),
                until,
            },
        )(input)
    }

    fn clause(input: &str) -> IResult<&str, Clause> {
        alt((
            map(preceded(key("interval"), number), Clause::Interval),
            map(preceded(key("ownership"), boolean), Clause::Ownership),
            map(preceded(key("rootInfo"), boolean), Clause::RootInfo),
            map(preceded(key("minmoves"), integer), Clause::MinMoves),
            map(preceded(key("maxmoves"), integer), Clause::MaxMoves),
            map(preceded(key("pvVisits"), boolean), Clause::PvVisits),
            value(
                Clause::Ignored,
                preceded(
                    alt((
                        key("ownershipStdev"),
                        key("pvEdgeVisits"),
                        key("movesOwnership"),
                        key("movesOwnershipStdev"),
                    )),
                    boolean,
                ),
            ),
            restrict,
        ))(input)
    }

    /// The whole argument text: `[color] [interval] clause...`.
    /// The colour, the interval and the clauses.
    pub type Parsed = (Option<Color>, Option<f64>, Vec<Clause>);

    pub fn arguments(input: &str) -> IResult<&str, Parsed> {
        all_consuming(preceded(
            multispace0,
            tuple((opt(color), opt(number), many0(clause))),
        ))(input)
    }
}

/// `[color] [interval] [interval N] [ownership true|false] [rootInfo true|false] [minmoves N]
/// [maxmoves N] [avoid|allow <color> <vertices> <plies>]...`, as Leela Zero and KataGo read
/// them (interval in centiseconds, a decimal allowed; 0 or none: every second).
pub fn parse(
    format: Format,
    genmove: bool,
    args: &[&str],
    to_move: Color,
    size: usize,
) -> Result<Request, Failure> {
    let text = args.join(" ");
    let (_, (color, interval, clauses)) =
        grammar::arguments(&text).map_err(|_| Failure::AnalyzeArguments)?;
    let mut interval_cs = interval.unwrap_or(0.0);
    let mut ownership = false;
    let mut root_info = false;
    let mut restrictions = Vec::new();
    let (mut min_moves, mut max_moves, mut pv_visits) = (0, None, false);
    // A count beyond the board's moves means all of them.
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    for clause in clauses {
        match clause {
            Clause::Interval(cs) => interval_cs = cs,
            Clause::Ownership(b) => ownership = b,
            Clause::RootInfo(b) => root_info = b,
            Clause::MinMoves(n) => min_moves = count(n),
            // KataGo: 0 is no limit.
            Clause::MaxMoves(n) => max_moves = (n > 0).then(|| count(n)),
            Clause::PvVisits(b) => pv_visits = b,
            Clause::Ignored => {}
            Clause::Restrict {
                allow,
                color,
                moves,
                until,
            } => {
                let mut points = Vec::with_capacity(moves.len());
                for m in &moves {
                    points.push(
                        crate::go::notation::parse_vertex(m, size)
                            .map_err(|_| Failure::AnalyzeArguments)?,
                    );
                }
                restrictions.push(Restriction {
                    allow,
                    color,
                    moves: points,
                    until,
                });
            }
        }
    }
    let interval_ms = if interval_cs <= 0.0 {
        1000
    } else {
        // At most a day; at least 10 ms.
        ((interval_cs * 10.0).round().min(86_400_000.0) as u64).max(10)
    };
    Ok(Request {
        format,
        color: color.unwrap_or(to_move),
        interval_ms,
        ownership: ownership && format == Format::Kata,
        root_info: root_info && format == Format::Kata,
        restrictions,
        min_moves,
        max_moves,
        pv_visits: pv_visits && format == Format::Kata,
        genmove,
    })
}

/// The search's bans for the request's `avoid`/`allow` clauses.
pub fn bans(request: &Request) -> Vec<Ban> {
    request
        .restrictions
        .iter()
        .map(|r| Ban {
            color: r.color,
            allow: r.allow,
            moves: r
                .moves
                .iter()
                .map(|m| m.map_or(PASS, |p| p as u16))
                .collect(),
            until: r.until,
        })
        .collect()
}

fn vertex(board: &Board, mv: u16) -> String {
    format_move(board, (mv != PASS).then_some(mv as usize))
}

/// KataGo's utility of a win rate: ryoshi's search values a win at 1 and a loss at -1, and
/// nothing else (no score term).
pub fn utility(winrate: f64) -> f64 {
    2.0 * winrate - 1.0
}

/// A lower confidence bound of a win rate after `n` playouts (the normal approximation).
pub fn lcb(winrate: f64, n: u32) -> f64 {
    let n = n.max(1) as f64;
    (winrate - 1.96 * (winrate * (1.0 - winrate) / n).sqrt()).max(0.0)
}

/// Whether the root move `mv` of `color` may be listed under the request's `avoid`/`allow`.
pub fn listed(request: &Request, mv: u16) -> bool {
    let point = (mv != PASS).then_some(mv as usize);
    request
        .restrictions
        .iter()
        .filter(|r| r.color == request.color && r.until >= 1)
        .all(|r| r.moves.contains(&point) == r.allow)
}

/// What a listed move's win rate reports, as a client may take it at face value. The first
/// move (the most visited) reports its mean; every other move reports a lower bound: its lower
/// confidence bound, and never more than the first move's (KataGo's practice of trusting
/// visits, so that a move of 7 visits cannot outshine the move of 9151 a client such as Sabaki
/// takes the highest win rate from). The score lead is each move's own mean.
fn shown(first: Option<&MoveInfo>, m: &MoveInfo) -> f64 {
    match first {
        None => m.winrate,
        // A move without playouts has no bound of its own (see `listed_moves`).
        Some(f) if m.visits == 0 => m.winrate.min(f.winrate),
        Some(f) => m.winrate.min(lcb(m.winrate, m.visits)).min(f.winrate),
    }
}

/// The moves a report lists: the searched ones most visited first, then (up to `minmoves`)
/// the unsearched ones by prior, with the root's win rate and lead (no playout has told them
/// apart) and no lower bound; at most `maxmoves`.
pub fn listed_moves(request: &Request, snap: &Snapshot) -> Vec<MoveInfo> {
    let mut moves: Vec<MoveInfo> = snap
        .moves
        .iter()
        .filter(|m| listed(request, m.mv))
        .cloned()
        .collect();
    moves.sort_by_key(|m| std::cmp::Reverse(m.visits));
    let extra = request.min_moves.saturating_sub(moves.len());
    moves.extend(
        snap.unvisited
            .iter()
            .filter(|(mv, _)| listed(request, *mv))
            .take(extra)
            .map(|&(mv, prior)| MoveInfo {
                mv,
                visits: 0,
                winrate: snap.winrate,
                prior,
                score_lead: snap.score_lead,
                pv: vec![mv],
                pv_visits: vec![0],
            }),
    );
    if let Some(max) = request.max_moves {
        moves.truncate(max);
    }
    moves
}

/// One report line (`info move ... info move ... [rootInfo ...] [ownership ...]`), side to
/// move's view, most visited move first.
pub fn line(request: &Request, board: &Board, snap: &Snapshot) -> String {
    let mut out = String::new();
    let moves = listed_moves(request, snap);
    let best = moves.first();
    for (order, m) in moves.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        let winrate = shown((order > 0).then_some(best).flatten(), m);
        let lower = if m.visits == 0 {
            0.0
        } else {
            lcb(m.winrate, m.visits).min(winrate)
        };
        let pv: Vec<String> = m.pv.iter().map(|&mv| vertex(board, mv)).collect();
        match request.format {
            Format::Lz => out.push_str(&format!(
                "info move {} visits {} winrate {} prior {} lcb {} order {order} pv {}",
                vertex(board, m.mv),
                m.visits,
                (winrate * 10000.0).round() as i64,
                (m.prior * 10000.0).round() as i64,
                (lower * 10000.0).round() as i64,
                pv.join(" ")
            )),
            Format::Kata => {
                out.push_str(&format!(
                    "info move {} visits {} edgeVisits {} utility {:.6} winrate {:.6} \
                     scoreMean {:.3} scoreLead {:.3} prior {:.6} lcb {:.6} utilityLcb {:.6} \
                     order {order} pv {}",
                    vertex(board, m.mv),
                    m.visits,
                    m.visits,
                    utility(winrate),
                    winrate,
                    m.score_lead,
                    m.score_lead,
                    m.prior,
                    lower,
                    utility(lower),
                    pv.join(" ")
                ));
                if request.pv_visits {
                    let visits: Vec<String> = m.pv_visits.iter().map(u32::to_string).collect();
                    out.push_str(&format!(" pvVisits {}", visits.join(" ")));
                }
            }
        }
    }
    if request.root_info {
        out.push_str(&format!(
            " rootInfo visits {} winrate {:.6} scoreMean {:.3} scoreLead {:.3} currentPlayer {}",
            snap.root_visits,
            snap.winrate,
            snap.score_lead,
            snap.score_lead,
            match request.color {
                Color::Black => "B",
                Color::White => "W",
            }
        ));
    }
    if request.ownership {
        out.push_str(" ownership");
        for o in &snap.ownership {
            out.push_str(&format!(" {o:.4}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::notation::parse_vertex;

    fn request(format: Format, args: &[&str]) -> Result<Request, Failure> {
        parse(format, false, args, Color::Black, 9)
    }

    fn info(board: &Board, vertex: &str, visits: u32, winrate: f64, lead: f64) -> MoveInfo {
        let mv = parse_vertex(vertex, board.size())
            .ok()
            .flatten()
            .map_or(PASS, |p| p as u16);
        MoveInfo {
            mv,
            visits,
            winrate,
            prior: 0.01,
            score_lead: lead,
            pv: vec![mv],
            pv_visits: vec![visits],
        }
    }

    /// The case: the best move has 9151 visits at 49.15%, a move of 7 visits 71.43%.
    fn snapshot(board: &Board) -> Snapshot {
        Snapshot {
            playouts: 9200,
            root_visits: 9200,
            winrate: 0.4915,
            score_lead: -0.4,
            moves: vec![
                info(board, "J7", 7, 5.0 / 7.0, 6.0),
                info(board, "E5", 9151, 0.4915, -0.4),
                info(board, "D4", 42, 0.40, -2.0),
            ],
            unvisited: vec![(PASS, 0.02)],
            ownership: vec![0.0; board.len()],
            time_ms: 1000,
            nodes: 9200,
            threads: 1,
        }
    }

    #[test]
    fn arguments_as_leela_zero_and_katago_take_them() {
        let r = request(Format::Kata, &["B", "25.5"]).unwrap();
        assert_eq!((r.color, r.interval_ms), (Color::Black, 255));
        let r = request(Format::Kata, &["w", "interval", "10", "rootInfo", "true"]).unwrap();
        assert!(r.root_info && r.color == Color::White && r.interval_ms == 100);
        let r = request(Format::Lz, &["10", "avoid", "b", "D4,E5", "1"]).unwrap();
        assert_eq!(r.restrictions.len(), 1);
        assert_eq!(r.restrictions[0].moves.len(), 2);
        assert!(!r.restrictions[0].allow && r.restrictions[0].until == 1);
        let r = request(Format::Lz, &["b", "10", "allow", "w", "pass", "3"]).unwrap();
        assert_eq!(r.restrictions[0].moves, vec![None]);
        let r = request(
            Format::Kata,
            &[
                "20",
                "ownership",
                "true",
                "minmoves",
                "3",
                "pvVisits",
                "true",
            ],
        )
        .unwrap();
        assert!(r.ownership);
        assert_eq!(request(Format::Kata, &[]).unwrap().interval_ms, 1000);
        for bad in [
            &["B", "-1"][..],
            &["B", "nan"],
            &["B", "inf"],
            &["interval"],
            &["rootInfo", "yes"],
            &["avoid", "b", "Z99", "1"],
            &["avoid", "b", "D4"],
            &["frobnicate", "1"],
            &["B", "10", "x"],
        ] {
            assert_eq!(
                request(Format::Kata, bad),
                Err(Failure::AnalyzeArguments),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn low_visit_moves_never_outshine_the_best() {
        let board = Board::new(9).unwrap();
        let snap = snapshot(&board);
        let lz = request(Format::Lz, &[]).unwrap();
        // Leela Zero's line, byte for byte (as Lizzie's MoveData reads it).
        assert_eq!(
            line(&lz, &board, &snap),
            "info move E5 visits 9151 winrate 4915 prior 100 lcb 4813 order 0 pv E5 \
             info move D4 visits 42 winrate 2518 prior 100 lcb 2518 order 1 pv D4 \
             info move J7 visits 7 winrate 3796 prior 100 lcb 3796 order 2 pv J7"
        );
        let kata = request(Format::Kata, &["rootInfo", "true"]).unwrap();
        let text = line(&kata, &board, &snap);
        assert!(text.starts_with(
            "info move E5 visits 9151 edgeVisits 9151 utility -0.017000 winrate 0.491500 \
             scoreMean -0.400 scoreLead -0.400 prior 0.010000 lcb 0.481257 utilityLcb -0.037486 \
             order 0 pv E5 info move D4 "
        ));
        // Each move's own score lead, even above the first move's.
        assert!(text.contains(
            "info move J7 visits 7 edgeVisits 7 utility -0.240757 winrate 0.379622 \
             scoreMean 6.000 scoreLead 6.000 "
        ));
        assert!(
            text.ends_with(
                " rootInfo visits 9200 winrate 0.491500 scoreMean -0.400 scoreLead -0.400 \
                 currentPlayer B"
            ),
            "{text}"
        );
        // minmoves lists the unsearched pass after the searched moves, maxmoves cuts the list,
        // pvVisits follows each pv.
        let more = request(Format::Kata, &["minmoves", "5", "pvVisits", "true"]).unwrap();
        let text = line(&more, &board, &snap);
        assert_eq!(text.matches("info move").count(), 4, "{text}");
        assert!(
            text.ends_with(
                "info move pass visits 0 edgeVisits 0 utility -0.017000 winrate 0.491500 \
                 scoreMean -0.400 scoreLead -0.400 prior 0.020000 lcb 0.000000 \
                 utilityLcb -1.000000 order 3 pv pass pvVisits 0"
            ),
            "{text}"
        );
        assert!(
            text.contains("order 0 pv E5 pvVisits 9151 info move D4"),
            "{text}"
        );
        let fewer = request(Format::Kata, &["maxmoves", "2", "minmoves", "9"]).unwrap();
        assert_eq!(line(&fewer, &board, &snap).matches("info move").count(), 2);
        // avoid: the avoided moves are not listed.
        let avoid = request(Format::Lz, &["avoid", "b", "E5,J7", "1"]).unwrap();
        assert_eq!(
            line(&avoid, &board, &snap),
            "info move D4 visits 42 winrate 4000 prior 100 lcb 2518 order 0 pv D4"
        );
    }
}
