//! `go mate`: a depth-first proof-number search (df-pn) for a forced king capture.
//!
//! The attacker is the side to move at the root. At its nodes (OR) it may play a move that
//! captures the king at once, or a *check*: a move after which it could capture the king if it
//! moved again. At the defender's nodes (AND) every legal action is tried; a defender without a
//! legal action has lost, and a defender that captures the attacker's king refutes the line.
//! Quiet (non-checking) attacking moves are not tried, as in a shogi tsume search.
//!
//! The search deepens by two plies at a time (1, 3, 5, ... up to [`MAX_MATE_PLIES`]), so the first
//! line found is a shortest one. Every table entry is keyed by the position *and* the plies left,
//! so a value never depends on the path; a disproof remembers whether the ply limit took part,
//! and a disproof that did not is final (`nomate` at once). Fourfold repetition is not modelled.

use crate::quantum::types::{is_king_candidate, Color};
use crate::quantum::{Action, Position, Ruleset};
use crate::search::Control;
use ahash::AHashMap;

/// The longest forced capture searched for, in plies (odd: the attacker moves first and last).
pub const MAX_MATE_PLIES: u32 = 31;
const INF: u32 = 100_000_000;
/// How often (in nodes) the clock is read.
const CLOCK_EVERY: u64 = 128;

/// What `go mate` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A forced king capture: the attacker's and the defender's actions, ending with the capture.
    Mate(Vec<Action>),
    /// No forced capture by checks within [`MAX_MATE_PLIES`] (or at any length, when the search
    /// could exhaust the checks).
    NoMate,
    /// Stopped (time or `stop`) before an answer.
    Timeout,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    pn: u32,
    dn: u32,
    /// Proven: plies to the capture with best play. Disproven: unused.
    dist: u32,
    /// Disproven only because the ply limit was reached somewhere below.
    bounded: bool,
}

const UNKNOWN: Entry = Entry {
    pn: 1,
    dn: 1,
    dist: 0,
    bounded: false,
};

fn proven(dist: u32) -> Entry {
    Entry {
        pn: 0,
        dn: INF,
        dist,
        bounded: false,
    }
}

fn disproven(bounded: bool) -> Entry {
    Entry {
        pn: INF,
        dn: 0,
        dist: 0,
        bounded,
    }
}

/// An action of `side` that captures the opposing king right now (the position is turned to
/// `side` when the other side is to move).
pub fn king_capture(pos: &Position, side: Color) -> Option<Action> {
    let turned;
    let pos = if pos.side_to_move() == side {
        pos
    } else {
        let mut t = pos.clone();
        t.pass();
        turned = t;
        &turned
    };
    let mut captures = Vec::new();
    pos.generate_captures(&mut captures);
    captures.into_iter().find(|&a| {
        // Only a piece that may still be the king can end the game.
        pos.piece_at(a.to())
            .is_some_and(|i| is_king_candidate(pos.piece(i).mask))
            && pos.after(a).winner() == Some(side)
    })
}

/// The mate search over one root position.
pub struct MateSearch<'a> {
    rules: Ruleset,
    control: &'a Control,
    attacker: Color,
    table: AHashMap<u64, Entry>,
    capacity: usize,
    nodes: u64,
    aborted: bool,
}

/// The table key of a position with `left` plies to go.
fn slot(pos: &Position, left: u32) -> u64 {
    pos.key() ^ (left as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl<'a> MateSearch<'a> {
    /// A search whose table holds about `hash_mb` MiB.
    pub fn new(rules: Ruleset, control: &'a Control, hash_mb: u64) -> Self {
        // At most 16 M entries (under 1 GiB), whatever USI_Hash says: the map grows as it fills.
        let capacity = ((hash_mb.max(1) << 20) / 48).clamp(1 << 12, 1 << 24) as usize;
        MateSearch {
            rules,
            control,
            attacker: Color::Black,
            table: AHashMap::default(),
            capacity,
            nodes: 0,
            aborted: false,
        }
    }

    /// Searches `root` for a forced king capture by its side to move, to at most `max_plies`.
    pub fn run(&mut self, root: &Position, max_plies: u32) -> MateResult {
        self.attacker = root.side_to_move();
        if root.winner().is_some() {
            return MateResult::NoMate;
        }
        let mut plies = 1;
        while plies <= max_plies {
            let e = self.prove(root, plies);
            if self.aborted {
                return MateResult::Timeout;
            }
            if e.pn == 0 {
                return match self.line(root, plies) {
                    Some(line) => MateResult::Mate(line),
                    None => MateResult::Timeout,
                };
            }
            if !e.bounded {
                return MateResult::NoMate;
            }
            plies += 2;
        }
        MateResult::NoMate
    }

    /// Runs df-pn at `pos` with `left` plies until it is proven or disproven (or aborted).
    fn prove(&mut self, pos: &Position, left: u32) -> Entry {
        loop {
            let e = self.mid(pos, left, INF, INF);
            if self.aborted || e.pn == 0 || e.dn == 0 {
                return e;
            }
            if e.pn >= INF || e.dn >= INF {
                // Numbers too large to go on with: give up rather than loop.
                self.aborted = true;
                return e;
            }
        }
    }

    fn lookup(&self, key: u64) -> Entry {
        self.table.get(&key).copied().unwrap_or(UNKNOWN)
    }

    fn store(&mut self, key: u64, e: Entry) {
        if self.aborted {
            return;
        }
        if self.table.len() >= self.capacity {
            // Keep what is settled; drop the rest (it is found again if needed).
            self.table.retain(|_, e| e.pn == 0 || e.dn == 0);
            if self.table.len() >= self.capacity * 3 / 4 {
                self.table.clear();
            }
        }
        self.table.insert(key, e);
    }

    fn poll(&mut self) -> bool {
        self.nodes += 1;
        if self.control.is_stopped()
            || (self.nodes.is_multiple_of(CLOCK_EVERY) && self.control.hard_expired())
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// The children of `pos` with `left` plies to go, or its settled value.
    fn expand(&self, pos: &Position, left: u32) -> Result<Vec<(Action, u64)>, Entry> {
        if pos.side_to_move() == self.attacker {
            if king_capture(pos, self.attacker).is_some() {
                return Err(proven(1));
            }
            if left < 3 {
                return Err(disproven(true));
            }
            let mut children = Vec::new();
            for a in pos.legal_actions(&self.rules) {
                let child = pos.after(a);
                if king_capture(&child, self.attacker).is_some() {
                    children.push((a, slot(&child, left - 1)));
                }
            }
            if children.is_empty() {
                return Err(disproven(false));
            }
            Ok(children)
        } else {
            let defender = pos.side_to_move();
            let moves = pos.legal_actions(&self.rules);
            if moves.is_empty() {
                return Err(proven(0));
            }
            let mut children = Vec::with_capacity(moves.len());
            for a in moves {
                let child = pos.after(a);
                if child.winner() == Some(defender) {
                    return Err(disproven(false));
                }
                children.push((a, slot(&child, left - 1)));
            }
            if left < 2 {
                return Err(disproven(true));
            }
            Ok(children)
        }
    }

    /// One df-pn visit: works below `pos` until its proof or disproof number reaches a threshold.
    fn mid(&mut self, pos: &Position, left: u32, th_pn: u32, th_dn: u32) -> Entry {
        let key = slot(pos, left);
        if self.poll() {
            return UNKNOWN;
        }
        let children = match self.expand(pos, left) {
            Ok(children) => children,
            Err(settled) => {
                self.store(key, settled);
                return settled;
            }
        };
        let or_node = pos.side_to_move() == self.attacker;
        loop {
            let values: Vec<Entry> = children.iter().map(|&(_, k)| self.lookup(k)).collect();
            let e = combine(or_node, &values);
            if e.pn == 0 || e.dn == 0 || e.pn >= th_pn || e.dn >= th_dn || self.aborted {
                self.store(key, e);
                return e;
            }
            // The most promising child: least proof number (OR) or disproof number (AND).
            let rank = |v: &Entry| if or_node { v.pn } else { v.dn };
            let (mut best, mut second) = (0, INF);
            for i in 1..values.len() {
                if rank(&values[i]) < rank(&values[best]) {
                    second = rank(&values[best]);
                    best = i;
                } else {
                    second = second.min(rank(&values[i]));
                }
            }
            let v = values[best];
            let (c_pn, c_dn) = if or_node {
                (
                    th_pn.min(second.saturating_add(1)),
                    (th_dn - e.dn).saturating_add(v.dn).min(INF),
                )
            } else {
                (
                    (th_pn - e.pn).saturating_add(v.pn).min(INF),
                    th_dn.min(second.saturating_add(1)),
                )
            };
            let child = pos.after(children[best].0);
            self.mid(&child, left - 1, c_pn, c_dn);
            if self.aborted {
                return UNKNOWN;
            }
        }
    }

    /// The proven line from `pos` (`left` plies to go): the attacker's fastest capture against the
    /// defender's longest resistance.
    fn line(&mut self, root: &Position, left: u32) -> Option<Vec<Action>> {
        let mut pos = root.clone();
        let mut left = left;
        let mut line = Vec::new();
        loop {
            if pos.side_to_move() == self.attacker {
                if let Some(a) = king_capture(&pos, self.attacker) {
                    line.push(a);
                    return Some(line);
                }
            }
            let children = self.expand(&pos, left).ok()?;
            let mut pick: Option<(Action, u32)> = None;
            for (a, key) in children {
                let mut e = self.lookup(key);
                if e.pn != 0 && e.dn != 0 {
                    // Forgotten (the table was full): prove it again.
                    e = self.prove(&pos.after(a), left - 1);
                    if self.aborted {
                        return None;
                    }
                }
                if e.pn != 0 {
                    continue;
                }
                let better = match pick {
                    None => true,
                    Some((_, d)) if pos.side_to_move() == self.attacker => e.dist < d,
                    Some((_, d)) => e.dist > d,
                };
                if better {
                    pick = Some((a, e.dist));
                }
            }
            let (a, _) = pick?;
            line.push(a);
            if !pos.apply(a) {
                return None; // never for an expanded (generated) action
            }
            left -= 1;
            if pos.side_to_move() != self.attacker && pos.legal_actions(&self.rules).is_empty() {
                return Some(line); // the defender cannot move: it has lost
            }
        }
    }
}

/// A node's numbers from its children's (OR: the attacker chooses; AND: the defender does).
fn combine(or_node: bool, values: &[Entry]) -> Entry {
    let sum = |f: fn(&Entry) -> u32| {
        values
            .iter()
            .fold(0u32, |s, v| s.saturating_add(f(v)))
            .min(INF)
    };
    let min = |f: fn(&Entry) -> u32| values.iter().map(f).min().unwrap_or(INF);
    let (pn, dn) = if or_node {
        (min(|v| v.pn), sum(|v| v.dn))
    } else {
        (sum(|v| v.pn), min(|v| v.dn))
    };
    let mut e = Entry {
        pn,
        dn,
        dist: 0,
        bounded: false,
    };
    if pn == 0 {
        let dists = values.iter().filter(|v| v.pn == 0).map(|v| v.dist);
        e.dist = 1 + if or_node {
            dists.min().unwrap_or(0)
        } else {
            dists.max().unwrap_or(0)
        };
    } else if dn == 0 {
        let mut refutations = values.iter().filter(|v| v.dn == 0);
        e.bounded = if or_node {
            refutations.any(|v| v.bounded)
        } else {
            refutations.all(|v| v.bounded)
        };
    }
    e
}

/// `go mate`'s answer line: `checkmate <actions>`, `checkmate nomate` or `checkmate timeout`.
pub fn answer(pos: &Position, result: &MateResult) -> String {
    match result {
        MateResult::Mate(line) => {
            let mut p = pos.clone();
            let mut names = Vec::with_capacity(line.len());
            for &a in line {
                names.push(p.action_name(a));
                let consistent = p.apply(a);
                debug_assert!(consistent, "mate line {a:?}");
            }
            format!("checkmate {}", names.join(" "))
        }
        MateResult::NoMate => "checkmate nomate".into(),
        MateResult::Timeout => "checkmate timeout".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantum::qsfen;
    use crate::quantum::search::QGame;
    use crate::rng::SplitMix64;
    use crate::search::game::{WIN, WIN_BOUND};
    use crate::search::{Limits, Report, Searcher};
    use std::collections::HashMap;

    /// The exhaustive AND/OR search the df-pn must agree with, written from the definitions
    /// alone: every legal action, checks found by trying every action of the turned position.
    /// With `quiet`, the attacker may play any action, not only checks: the shortest forced
    /// capture of all, which a full-width search finds and a tsume search may not.
    struct Oracle {
        rules: Ruleset,
        attacker: Color,
        quiet: bool,
        memo: HashMap<(u64, u32), bool>,
    }

    impl Oracle {
        fn new(attacker: Color) -> Oracle {
            Oracle {
                rules: Ruleset::default(),
                attacker,
                quiet: false,
                memo: HashMap::new(),
            }
        }

        fn full_width(attacker: Color) -> Oracle {
            Oracle {
                quiet: true,
                ..Oracle::new(attacker)
            }
        }

        fn captures_king_now(&self, pos: &Position) -> bool {
            let mut turned = pos.clone();
            if turned.side_to_move() != self.attacker {
                turned.pass();
            }
            turned
                .legal_actions(&self.rules)
                .iter()
                .any(|&a| turned.after(a).winner() == Some(self.attacker))
        }

        /// Can the attacker (to move) force a king capture within `left` plies, by checks?
        fn wins(&mut self, pos: &Position, left: u32) -> bool {
            if let Some(&v) = self.memo.get(&(pos.key(), left)) {
                return v;
            }
            let v = if pos.side_to_move() == self.attacker {
                left >= 1 && self.captures_king_now(pos)
                    || left >= 3
                        && pos.legal_actions(&self.rules).iter().any(|&a| {
                            let child = pos.after(a);
                            (self.quiet || self.captures_king_now(&child))
                                && self.wins(&child, left - 1)
                        })
            } else {
                let defender = pos.side_to_move();
                let moves = pos.legal_actions(&self.rules);
                moves.is_empty()
                    || moves.iter().all(|&b| {
                        let child = pos.after(b);
                        child.winner() != Some(defender) && left >= 2 && self.wins(&child, left - 1)
                    })
            };
            self.memo.insert((pos.key(), left), v);
            v
        }

        /// The shortest forced capture (in plies) up to `max`, if any.
        fn shortest(&mut self, pos: &Position, max: u32) -> Option<u32> {
            (1..=max).step_by(2).find(|&n| self.wins(pos, n))
        }
    }

    fn mate(text: &str) -> (Position, MateResult) {
        mate_within(text, None)
    }

    fn mate_within(text: &str, ms: Option<u64>) -> (Position, MateResult) {
        let pos = qsfen::read(text).unwrap();
        let control = Control::new(
            Limits {
                infinite: ms.is_none(),
                movetime: ms,
                ..Default::default()
            },
            0,
        );
        let result = MateSearch::new(Ruleset::default(), &control, 16).run(&pos, MAX_MATE_PLIES);
        (pos, result)
    }

    /// Replays a claimed line: legal, the defender's moves are forced to lose, and it ends with
    /// the attacker capturing the king.
    fn check_line(pos: &Position, line: &[Action]) {
        let rules = Ruleset::default();
        let attacker = pos.side_to_move();
        let mut p = pos.clone();
        for &a in line {
            assert!(p.is_legal(a, &rules), "{} illegal", p.action_name(a));
            assert!(p.apply(a));
        }
        assert_eq!(p.winner(), Some(attacker));
        assert_eq!(line.len() % 2, 1);
    }

    /// A random sparse position: gote's certain king with up to two certain defenders near it,
    /// sente's attackers (board or hand), sente's other pieces in a block on its own side, and
    /// gote's remaining pieces in sente's hand (so the defender has no drops).
    fn random_position(rng: &mut SplitMix64, most_defenders: usize) -> Option<String> {
        let mut grid = [['.'; 9]; 9]; // [rank][file index 0 = file 9]
        grid[6] = ['P'; 9];
        grid[8] = ['L', 'N', 'S', 'G', 'K', 'G', 'S', 'N', 'L'];
        let mut hand = String::new();
        let mut attackers = vec!['R', 'B'];
        if rng.index(2) == 0 {
            grid[8][3] = '.';
            attackers.push('G');
        }
        if rng.index(2) == 0 {
            grid[8][2] = '.';
            attackers.push('S');
        }
        let (kr, kf) = (rng.index(2), rng.index(9));
        grid[kr][kf] = 'k';
        let defenders = rng.index(most_defenders);
        let mut placed = 0;
        for _ in 0..40 {
            if placed == defenders {
                break;
            }
            let r = (kr + rng.index(3)).min(4);
            let f = (kf + rng.index(5)).saturating_sub(2).min(8);
            if grid[r][f] == '.' {
                grid[r][f] = ['g', 's', 'p', 'l', 'n'][rng.index(5)];
                placed += 1;
            }
        }
        for &a in &attackers {
            if rng.index(2) == 0 {
                hand.push(a);
                continue;
            }
            let (r, f) = (rng.index(5), rng.index(9));
            if grid[r][f] != '.' {
                hand.push(a);
            } else {
                grid[r][f] = a;
            }
        }
        let board: Vec<String> = grid
            .iter()
            .map(|rank| {
                let mut s = String::new();
                let mut empty = 0;
                for &c in rank {
                    if c == '.' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                        }
                        empty = 0;
                        s.push(c);
                    }
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                }
                s
            })
            .collect();
        let text = format!("{} b {hand}{}Q~ 1", board.join("/"), 19 - placed);
        let pos = qsfen::read(&text).ok()?;
        (pos.winner().is_none()).then_some(text)
    }

    /// Constructed positions with a shortest forced capture by checks of 1, 3, 5 and 7 plies.
    const MATES: &[(&str, u32)] = &[
        ("9/2k1B4/2G1g4/9/9/9/PPPPPPPPP/9/LN2KGSNL b RS18Q~ 1", 1),
        ("4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1", 3),
        ("2k4B1/9/9/9/9/9/PPPPPPPPP/9/LNSGKGSNL b R19Q~ 1", 3),
        ("9/k8/9/9/8B/9/PPPPPPPPP/9/LNSGKGSNL b R19Q~ 1", 5),
        ("k8/9/g2G2R2/9/9/9/PPPPPPPPP/9/LNS1KGSNL b B18Q~ 1", 5),
        ("4B4/5Gl1k/S7g/8n/9/9/PPPPPPPPP/9/LN2KGSNL b R16Q~ 1", 7),
        ("9/kp7/g8/llG6/9/9/PPPPPPPPP/9/LNS1KGSNL b RB15Q~ 1", 7),
    ];

    #[test]
    fn finds_shortest_forced_captures_at_1_3_5_and_7_plies() {
        for &(text, plies) in MATES {
            let (pos, result) = mate(text);
            let MateResult::Mate(line) = &result else {
                panic!("{text}: {result:?}");
            };
            check_line(&pos, line);
            assert_eq!(
                line.len() as u32,
                plies,
                "{text}: {}",
                answer(&pos, &result)
            );
            // The oracle: a forced capture by checks at this length, none shorter.
            let mut oracle = Oracle::new(Color::Black);
            assert_eq!(oracle.shortest(&pos, plies), Some(plies), "{text}");
        }
    }

    /// The forced capture of tests/quantum_mate.rs that the table above does not hold.
    const SESSION_MATE: &str = "9/2k6/s2g5/9/9/9/PPPPPPPPP/9/LN1GKGSNL b RBS17Q~ 1";

    /// The first iteration of the search whose score is a forced capture: (depth, plies to the
    /// capture). The search stops there. Without pruning it is the exact search (full width to
    /// its depth, then captures).
    fn first_mate(pos: &Position, max_depth: u32, pruning: bool) -> Option<(u32, u32)> {
        let mut searcher = Searcher::<QGame>::new(16);
        searcher.set_pruning(pruning);
        let limits = Limits {
            depth: Some(max_depth),
            ..Default::default()
        };
        let control = Control::new(limits, 0);
        let game = QGame::new(pos.clone(), Ruleset::default());
        let mut first = None;
        searcher.run(&game, &[], &control, max_depth, &mut |report| {
            if let Report::Info(info) = report {
                if first.is_none() && info.score > WIN_BOUND {
                    first = Some((info.depth, (WIN - info.score) as u32));
                    control.stop();
                }
            }
        });
        first
    }

    /// Over the positions of the `go mate` tests: the first mate the search reports (with the
    /// pruning or without) comes at the depth its length implies, and that length is no longer
    /// than df-pn's line; then `more(text, position, df-pn's length, depth, plies)`.
    fn for_each_mate(pruning: bool, mut more: impl FnMut(&str, &Position, u32, u32, u32)) {
        let texts = MATES.iter().map(|&(text, _)| text).chain([SESSION_MATE]);
        for text in texts {
            let (pos, result) = mate(text);
            let MateResult::Mate(line) = &result else {
                panic!("{text}: {result:?}");
            };
            let dfpn = line.len() as u32;
            let Some((depth, plies)) = first_mate(&pos, dfpn, pruning) else {
                panic!("{text}: no forced capture reported by depth {dfpn}");
            };
            assert_eq!(
                depth,
                plies.saturating_sub(1).max(1),
                "{text}: mate {plies}"
            );
            assert!(plies <= dfpn, "{text}: mate {plies}, df-pn {dfpn}");
            more(text, &pos, dfpn, depth, plies);
        }
    }

    /// On the positions of the `go mate` tests the exact search reports each forced capture first
    /// at the depth its length implies (the last ply, the capture, is quiescence's), and that
    /// length is the shortest of all, by the full-width oracle. df-pn tries checks only, as a
    /// tsume solver does: its line is never shorter, and is longer only where every shortest
    /// capture begins with a quiet move (the oracle restricted to checks has none that short).
    #[test]
    fn the_exact_search_reports_each_forced_capture_at_the_depth_of_its_length() {
        for_each_mate(false, |text, pos, dfpn, depth, plies| {
            if plies <= 5 {
                // Past five plies the full-width oracle takes minutes; there df-pn's length and
                // the exact search's, found by different means, stand for each other.
                let shortest = Oracle::full_width(Color::Black).shortest(pos, plies);
                assert_eq!(shortest, Some(plies), "{text}");
            }
            if plies < dfpn {
                let by_checks = Oracle::new(Color::Black).shortest(pos, plies);
                assert_eq!(by_checks, None, "{text}");
            }
            eprintln!("{text}: mate {plies} first at depth {depth}, df-pn {dfpn}");
        });
    }

    /// The search as shipped (pruned and reduced) reports each of them first at the depth its
    /// length implies, that length no longer than df-pn's: a node whose certain king is attacked
    /// is not cut on its evaluation, and a quiet move that attacks the opponent's certain king
    /// is not pruned; a bare king's node is not cut either, so the 3-ply zugzwang of `9/k8/...`
    /// (a quiet drop, then every king step walks into capture) comes at depth 2 as in the exact
    /// search, though df-pn, trying checks only, needs 5.
    #[test]
    fn the_pruned_search_reports_each_forced_capture_at_the_depth_of_df_pns_length() {
        for_each_mate(true, |text, _, _, depth, plies| {
            if text.starts_with("9/k8/") {
                assert_eq!((depth, plies), (2, 3), "{text}");
            }
        });
    }

    #[test]
    fn the_defender_to_move_is_the_attacker_too() {
        // Gote to move with sente's king en prise: gote is the attacker.
        let (pos, result) = mate("4k4/9/9/9/9/9/9/4r4/4K4 w 19Q18q 1");
        assert_eq!(answer(&pos, &result), "checkmate 5h5i");
    }

    #[test]
    fn answers_nomate_without_checks_and_when_every_check_is_answered() {
        let (_, result) = mate(qsfen::write(&Position::start()).as_str());
        assert_eq!(result, MateResult::NoMate);
        // Checks exist, but the defender escapes them all (the search exhausts them).
        let text = "7pk/BS6s/6s1p/9/6G2/9/PPPPPPPPP/9/LN2KGSNL b R15Q~ 1";
        let (pos, result) = mate(text);
        assert_eq!(result, MateResult::NoMate);
        let mut oracle = Oracle::new(Color::Black);
        assert_eq!(oracle.shortest(&pos, 5), None);
    }

    #[test]
    fn agrees_with_the_exhaustive_search_on_random_small_cases() {
        let mut rng = SplitMix64::new(12);
        let (mut found, mut none, mut tried) = (0, 0, 0);
        while tried < 24 {
            let Some(text) = random_position(&mut rng, 5) else {
                continue;
            };
            tried += 1;
            let pos = qsfen::read(&text).unwrap();
            let control = Control::new(
                Limits {
                    infinite: true,
                    ..Default::default()
                },
                0,
            );
            let result = MateSearch::new(Ruleset::default(), &control, 16).run(&pos, 5);
            let expected = Oracle::new(Color::Black).shortest(&pos, 5);
            match (&result, expected) {
                (MateResult::Mate(line), Some(n)) => {
                    check_line(&pos, line);
                    assert_eq!(line.len() as u32, n, "{text}");
                    found += 1;
                }
                (MateResult::NoMate, None) => none += 1,
                _ => panic!("{text}: df-pn {result:?}, oracle {expected:?}"),
            }
        }
        assert!(found > 0 && none > 0, "{found} mates, {none} without");
    }

    #[test]
    fn a_stopped_search_times_out() {
        let text = "9/kp7/g8/llG6/9/9/PPPPPPPPP/9/LNS1KGSNL b RB15Q~ 1";
        let (_, result) = mate_within(text, Some(1));
        assert_eq!(result, MateResult::Timeout);
    }
}
