//! A game as the server keeps it, for rooms and engine pages alike: its start, its moves replayed
//! under the game's rules (the sessions' code, so the server and the engine agree), and how it
//! ended; with the conversions to and from what the store holds, and its record.

use super::names::Names;
use super::store::Ending;
use crate::games::record::TimeTerms;
use crate::games::rules::{GameEnd, Reason, Side, Verdict};
use crate::protocol::{Args, StartSpec};
use crate::registry::Game;
use crate::session::options::Options;
use crate::session::variant::{RecordFacts, SessionError, Variant};
use crate::session::{new_variant, Registered};

pub struct Played {
    pub variant: Game,
    pub options: Options,
    pub start: StartSpec,
    pub moves: Vec<String>,
    pub game: Box<dyn Variant>,
    /// The seat (0 or 1) that resigned.
    pub resigned: Option<usize>,
    /// The seat (0 or 1) whose flag fell (rooms' clocks).
    pub flagged: Option<usize>,
    /// The players agreed a draw (a room's draw offer accepted).
    pub drawn: bool,
}

/// `startpos` or `sfen <fields>`, as a `position` command writes it.
pub fn start_text(start: &StartSpec) -> String {
    match start {
        StartSpec::Startpos => "startpos".into(),
        StartSpec::Sfen(fields) => format!("sfen {}", fields.join(" ")),
    }
}

/// The start [`start_text`] wrote.
pub fn parse_start(text: &str) -> Option<StartSpec> {
    let mut words = text.split_whitespace();
    match words.next()? {
        "startpos" => Some(StartSpec::Startpos),
        "sfen" => Some(StartSpec::Sfen(words.map(str::to_string).collect())),
        _ => None,
    }
}

/// The options that change a game's rules (which moves are legal), all of kind check: a game is
/// kept with those it was played under, so that it replays as it was played.
const RULES: &[&str] = &["KakuteiNifu"];

/// The rules of `variant` that `options` set apart from the defaults, as `<name> <value> ...`
/// (None: the defaults).
pub fn rules_text(variant: Game, options: &Options) -> Option<String> {
    let defaults = Options::default();
    let words: Vec<String> = RULES
        .iter()
        .filter(|name| crate::session::options::find(name).is_some_and(|s| s.acts_on(variant)))
        .filter(|name| options.check(name) != defaults.check(name))
        .map(|name| format!("{name} {}", options.check(name)))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The options of the rules [`rules_text`] wrote; None when they do not read.
pub fn rules_options(text: Option<&str>) -> Option<Options> {
    let mut options = Options::default();
    let words: Vec<&str> = text.unwrap_or_default().split_whitespace().collect();
    for pair in words.chunks(2) {
        let [name, value] = pair else { return None };
        if !RULES.contains(name) {
            return None;
        }
        options.set(name, Some(value)).ok()?;
    }
    Some(options)
}

impl Played {
    /// Whether the game goes on or ends on the board: no one resigned, no flag fell, no draw
    /// was agreed.
    pub fn on_the_board(&self) -> bool {
        self.resigned.is_none() && self.flagged.is_none() && !self.drawn
    }

    /// The game from `start` (the variant's own start when None) after `moves`, each checked.
    pub fn new(
        variant: Game,
        start: Option<StartSpec>,
        moves: Vec<String>,
    ) -> Result<Played, SessionError> {
        Played::under(variant, Options::default(), start, moves)
    }

    /// [`Played::new`] under the rules `options` set (an engine page's game is played under
    /// its session's).
    pub fn under(
        variant: Game,
        mut options: Options,
        start: Option<StartSpec>,
        moves: Vec<String>,
    ) -> Result<Played, SessionError> {
        options.variant = variant;
        let mut game = new_variant(variant);
        let start = start.unwrap_or_else(|| game.casual_start());
        game.set_position(&start, &moves, &options)?;
        Ok(Played {
            variant,
            options,
            start,
            moves,
            game,
            resigned: None,
            flagged: None,
            drawn: false,
        })
    }

    /// This game with one more move (replayed from the start: the rules keep no undo here).
    pub fn with_move(&self, mv: &str) -> Result<Played, SessionError> {
        let mut moves = self.moves.clone();
        moves.push(mv.to_string());
        let options = self.options.clone();
        let mut played = Played::under(self.variant, options, Some(self.start.clone()), moves)?;
        played.resigned = self.resigned;
        played.flagged = self.flagged;
        played.drawn = self.drawn;
        Ok(played)
    }

    /// This game with the rules' automatic pass at its end written as a `pass` move, which a
    /// game with automatic passes accepts right after one: a move list
    /// that shows every pass pairs each side's moves. Itself when the side to move did not just
    /// pass (a `pass` the player chose hands over the turn, so it is never written here).
    pub fn with_automatic_pass(self) -> Played {
        if self.over().is_some() {
            return self;
        }
        match self.with_move("pass") {
            Ok(passed) if passed.turn() == self.turn() => passed,
            _ => self,
        }
    }

    /// Whose turn it is (0 or 1).
    pub fn turn(&self) -> usize {
        self.game.view(&self.options).side_to_move().index()
    }

    /// How the game ended (the rules' own verdict and reason, the referee's too), or None.
    pub fn ending(&self) -> Option<Ending> {
        let names = self.variant.players();
        let end = match self.end_off_the_board() {
            Some(end) => end,
            None => self.game.view(&self.options).game_end()?,
        };
        // A resignation is `resignation` in the archive (match.md's `resign` is the runner's).
        let reason = match end.reason {
            Reason::Resign => "resignation".to_string(),
            other => other.to_string(),
        };
        Some(match end.verdict {
            Verdict::Win(side) => Ending {
                result: format!("{} wins", names[side.index()]),
                reason,
            },
            Verdict::Draw => Ending {
                result: "draw".into(),
                reason,
            },
        })
    }

    /// The end the rules do not see: a resignation, or a fallen flag (the opponent wins), or a
    /// draw by agreement.
    fn end_off_the_board(&self) -> Option<GameEnd> {
        if self.drawn && self.resigned.is_none() && self.flagged.is_none() {
            return Some(GameEnd {
                verdict: Verdict::Draw,
                reason: Reason::Agreement,
            });
        }
        let (seat, reason) = match (self.resigned, self.flagged) {
            (Some(seat), _) => (seat, Reason::Resign),
            (None, Some(seat)) => (seat, Reason::TimeForfeit),
            (None, None) => return None,
        };
        let winner = if seat == 0 { Side::Second } else { Side::First };
        Some(GameEnd {
            verdict: Verdict::Win(winner),
            reason,
        })
    }

    /// Why the game is over as the rooms say it (`black resigns`, `white wins by <reason>`),
    /// or None.
    pub fn over(&self) -> Option<String> {
        if let Some(seat) = self.resigned {
            return Some(format!("{} resigns", self.variant.players()[seat.min(1)]));
        }
        self.ending()
            .map(|e| format!("{} by {}", e.result, e.reason))
    }

    /// The lines of the game's own judgement `command` at the end (its end agreement's
    /// [`judge_command`](crate::games::end::EndAgreement::judge_command)), for the rooms to
    /// propose as the game's engine page shows it; None for a game without it, a game on or a
    /// resignation. The judgement may search (a few seconds): the rooms keep what it says.
    pub fn judgement(&mut self, command: &str) -> Option<Vec<String>> {
        if !self.variant.commands().contains(&command)
            || self.resigned.is_some()
            || self.flagged.is_some()
            || self.drawn
            || self.over().is_none()
        {
            return None;
        }
        let mut lines = Vec::new();
        self.game
            .extension(
                command,
                Args::new(command, ""),
                &self.options,
                &crate::stop::Budget::default(),
                &mut |line: &str| lines.push(line.to_string()),
            )
            .ok()?;
        Some(lines)
    }

    /// The game's record in its format (the session's `record`, written by the game's
    /// `Recordable`), with the players' names where they gave them, the end the rules do not
    /// see (a resignation, a fallen flag, the `agreed` score as the first player's lead), and
    /// the clock's terms. `unsettled`: over on the board, the score not agreed yet.
    pub fn record(
        &self,
        names: &Names,
        agreed: Option<f64>,
        unsettled: bool,
        time: Option<TimeTerms>,
    ) -> Result<String, SessionError> {
        let mut game = new_variant(self.variant);
        game.set_position(&self.start, &self.moves, &self.options)?;
        let end = match (self.end_off_the_board(), agreed) {
            (Some(end), _) => Some((end, None)),
            (None, Some(lead)) => {
                let verdict = match lead.partial_cmp(&0.0) {
                    Some(std::cmp::Ordering::Greater) => Verdict::Win(Side::First),
                    Some(std::cmp::Ordering::Less) => Verdict::Win(Side::Second),
                    _ => Verdict::Draw,
                };
                Some((GameEnd::by_rule(verdict, "area score"), Some(lead)))
            }
            _ => None,
        };
        game.set_record_facts(RecordFacts {
            players: names.clone(),
            unsettled: unsettled && end.is_none(),
            end,
            time,
        });
        let mut text = String::new();
        game.record_command(
            "record",
            Args::new("record", ""),
            &self.options,
            &mut |line: &str| {
                text.push_str(line);
                text.push('\n');
            },
        )?;
        Ok(text)
    }
}

/// The content type and file extension of a game's records, from its format's name (SGF has
/// its own type; the others are plain text).
pub fn record_kind(variant: Game) -> (&'static str, String) {
    match variant.record_format() {
        Some("SGF") => ("application/x-go-sgf; charset=utf-8", "sgf".into()),
        Some(other) => ("text/plain; charset=utf-8", other.to_ascii_lowercase()),
        None => ("text/plain; charset=utf-8", "txt".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_read_back_and_records_are_written() {
        for start in [
            StartSpec::Startpos,
            StartSpec::Sfen(vec![
                "5".into(),
                "...../...../...../...../.....".into(),
                "b".into(),
            ]),
        ] {
            assert_eq!(parse_start(&start_text(&start)), Some(start));
        }
        let played = Played::new(Game::Go, None, vec!["E5".into(), "pass".into()]).unwrap();
        let sgf = played.record(&[None, None], None, false, None).unwrap();
        assert!(sgf.starts_with("(;") && sgf.contains("B[ee]"), "{sgf}");
        assert!(!sgf.contains("PB[") && !sgf.contains("PW["), "{sgf}");
        let named = played
            .record(
                &[Some("A]l\\ice".into()), Some("ryoshi 0.1".into())],
                None,
                false,
                None,
            )
            .unwrap();
        assert!(named.contains("PB[A\\]l\\\\ice]PW[ryoshi 0.1]"), "{named}");
        let done = played.with_move("pass").unwrap();
        assert!(done.over().is_some_and(|o| o.contains(" wins by ")));
        assert!(played.with_move("Z99").is_err());
    }

    /// The ends the rules do not see and the clocks, in each format's own words.
    #[test]
    fn records_carry_resignations_flags_agreed_scores_and_clocks() {
        let byoyomi = super::super::clock::ClockSpec::parse("600b30x5").ok();
        let fischer = super::super::clock::ClockSpec::parse("180+2").ok();
        let none = [None, None];
        let mut go = Played::new(Game::Go, None, vec!["E5".into()]).unwrap();
        go.flagged = Some(1);
        let sgf = go.record(&none, None, false, byoyomi).unwrap();
        assert!(
            sgf.contains("TM[600]OT[5x30 byo-yomi]") && sgf.contains("RE[B+T]"),
            "{sgf}"
        );
        go.flagged = None;
        go.resigned = Some(0);
        let sgf = go.record(&none, None, false, fischer).unwrap();
        assert!(
            sgf.contains("OT[2 fischer]") && sgf.contains("RE[W+R]"),
            "{sgf}"
        );
        let passed = Played::new(Game::Go, None, vec!["pass".into(), "pass".into()]).unwrap();
        let agreed = passed.record(&none, Some(-1.5), false, None).unwrap();
        assert!(agreed.contains("RE[W+1.5]"), "{agreed}");
        let open = passed.record(&none, None, true, None).unwrap();
        assert!(open.contains("RE[?]") && !open.contains("RE[W+"), "{open}");
        let mut quantum = Played::new(Game::QuantumShogi, None, vec![]).unwrap();
        quantum.resigned = Some(0);
        let kifu = quantum.record(&none, None, false, fischer).unwrap();
        for tag in [
            "[Result \"0-1\"]",
            "[Reason \"resign\"]",
            "[TimeControl \"180+2\"]",
        ] {
            assert!(kifu.contains(tag), "{tag} in {kifu}");
        }
        // A draw agreed, in the kifu's and GGF's words, and SGF's (Go has no such draw in
        // rooms, but its record says it as SGF does).
        quantum.resigned = None;
        quantum.drawn = true;
        assert_eq!(quantum.over().as_deref(), Some("draw by agreement"));
        let kifu = quantum.record(&none, None, false, None).unwrap();
        for tag in ["[Result \"1/2-1/2\"]", "[Reason \"agreement\"]"] {
            assert!(kifu.contains(tag), "{tag} in {kifu}");
        }
        let mut drawn = Played::new(Game::Othello, None, vec!["f5".into()]).unwrap();
        drawn.drawn = true;
        let ggf = drawn.record(&none, None, false, None).unwrap();
        assert!(ggf.contains("RE[0.00]"), "{ggf}");
        let mut go = Played::new(Game::Go, None, vec!["E5".into()]).unwrap();
        go.drawn = true;
        let sgf = go.record(&none, None, false, None).unwrap();
        assert!(sgf.contains("RE[Draw]"), "{sgf}");
        let mut othello = Played::new(Game::Othello, None, vec![]).unwrap();
        othello.flagged = Some(0);
        let ggf = othello.record(&none, None, false, byoyomi).unwrap();
        assert!(
            ggf.contains("RE[-64.00:t]") && !ggf.contains("TM["),
            "{ggf}"
        );
    }
}
