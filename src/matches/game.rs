//! One game between two engine processes, refereed move by move.

use super::clock::Clocks;
use super::config::{Config, TimeControl};
use super::engine::{Engine, Failure};
use super::opening::Opening;
use super::referee::{GameEnd, Referee, RefereeFactory, Side, Verdict};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A game to play: which engines (indices into `[match] engines`), which opening.
#[derive(Debug, Clone)]
pub struct Job {
    /// 1-based game number.
    pub game: usize,
    /// Index of the pair (round robin order) the game belongs to.
    pub pair: usize,
    pub first: usize,
    pub second: usize,
    pub opening_index: usize,
    pub opening: Arc<Opening>,
}

impl Job {
    fn engine(&self, side: Side) -> usize {
        match side {
            Side::First => self.first,
            Side::Second => self.second,
        }
    }
}

#[derive(Debug, Clone)]
pub struct PlayedMove {
    pub mv: String,
    pub side: Side,
    pub ms: u64,
    /// `depth D score cp X` from the engine's last `info` line with a score, for the record.
    pub eval: Option<String>,
}

/// What an engine said while thinking: its last evaluation and its last `info string` message
/// (quoted when it then resigns or errs, which is usually the explanation).
#[derive(Default)]
struct Seen {
    eval: Option<String>,
    message: Option<String>,
}

impl Seen {
    fn note(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.get(1) == Some(&"string") {
            let text: String = line.chars().take(200).collect();
            self.message = Some(text);
            return;
        }
        let value = |key: &str, n: usize| {
            words
                .iter()
                .position(|w| *w == key)
                .and_then(|i| words.get(i + 1..i + 1 + n))
                .map(|v| v.join(" "))
        };
        if let Some(score) = value("score", 2) {
            let depth = value("depth", 1)
                .map(|d| format!("depth {d} "))
                .unwrap_or_default();
            self.eval = Some(format!("{depth}score {score}"));
        }
    }
}

/// A finished game with everything the results file and the game record need.
#[derive(Debug, Clone)]
pub struct FinishedGame {
    pub job: Job,
    pub first: String,
    pub second: String,
    pub end: GameEnd,
    /// More about the end: the illegal move and why, how the engine crashed, the clock.
    pub detail: Option<String>,
    /// The position the opening starts from, in the variant's notation.
    pub start_position: String,
    pub moves: Vec<PlayedMove>,
    pub final_position: String,
    pub diagram: Vec<String>,
}

impl FinishedGame {
    pub fn plies(&self) -> usize {
        self.job.opening.moves.len() + self.moves.len()
    }
}

/// What a worker needs to play games.
pub struct Context {
    pub config: Arc<Config>,
    pub factory: Arc<RefereeFactory>,
    pub stop: Arc<AtomicBool>,
}

/// Engine processes a worker keeps between games, by engine index; `None` = (re)start on use.
pub type Slots = Vec<Option<Engine>>;

/// The runner stopped during the game: it is not counted.
struct Stopped;

/// Plays `job`; `None` when the runner stopped before the game ended.
pub fn play(ctx: &Context, job: &Job, slots: &mut Slots) -> Option<FinishedGame> {
    let config = &ctx.config;
    let names = &config.play.engines;
    let mut referee = (ctx.factory)();
    let mut game = FinishedGame {
        job: job.clone(),
        first: names[job.first].clone(),
        second: names[job.second].clone(),
        end: GameEnd {
            verdict: Verdict::Draw,
            reason: String::new(),
        },
        detail: None,
        start_position: String::new(),
        moves: Vec::new(),
        final_position: String::new(),
        diagram: Vec::new(),
    };
    if let Err(e) = referee.set_start(job.opening.sfen.as_deref()) {
        return Some(finish_early(game, referee.as_ref(), "bad opening", e));
    }
    game.start_position = referee.position();
    if let Err(e) = job.opening.replay(referee.as_mut()) {
        let detail = e.to_string();
        return Some(finish_early(game, referee.as_ref(), "bad opening", detail));
    }
    let result = match prepare(ctx, job, slots) {
        Ok(Ok(())) => run_moves(ctx, job, slots, referee.as_mut(), &mut game),
        Ok(Err(lost)) => Ok(lost),
        Err(Stopped) => Err(Stopped),
    };
    let (end, detail) = match result {
        Ok(x) => x,
        Err(Stopped) => return None,
    };
    for side in [Side::First, Side::Second] {
        if let Some(engine) = slots[job.engine(side)].as_mut() {
            let word = match end.verdict {
                Verdict::Draw => "draw",
                Verdict::Win(winner) if winner == side => "win",
                Verdict::Win(_) => "lose",
            };
            if engine.send(&format!("gameover {word}")).is_err() {
                slots[job.engine(side)] = None;
            }
        }
    }
    game.end = end;
    game.detail = detail;
    game.final_position = referee.position();
    game.diagram = referee.diagram();
    Some(game)
}

fn finish_early(
    mut game: FinishedGame,
    referee: &dyn Referee,
    reason: &str,
    detail: String,
) -> FinishedGame {
    game.end = GameEnd {
        verdict: Verdict::Draw,
        reason: reason.into(),
    };
    game.detail = Some(detail);
    game.final_position = referee.position();
    game
}

type Ending = (GameEnd, Option<String>);

fn loss(side: Side, reason: &str, detail: String) -> Ending {
    (
        GameEnd {
            verdict: Verdict::Win(side.other()),
            reason: reason.into(),
        },
        Some(detail),
    )
}

fn failure_reason(failure: &Failure, on_clock: bool) -> (&'static str, String) {
    match failure {
        Failure::Timeout(d) if on_clock => ("time forfeit", d.clone()),
        Failure::Timeout(d) => ("timeout", d.clone()),
        Failure::Crash(d) => ("crash", d.clone()),
        Failure::Stopped => ("stopped", String::new()),
    }
}

/// Starts (or restarts) both engines and readies them for a new game. The inner `Err` is the
/// game's result when an engine could not get ready.
fn prepare(ctx: &Context, job: &Job, slots: &mut Slots) -> Result<Result<(), Ending>, Stopped> {
    let config = &ctx.config;
    let timeout = Duration::from_millis(config.play.timeout_ms);
    let variant = config.play.variant.as_str().to_string();
    let mut failed: Vec<(Side, Failure)> = Vec::new();
    for side in [Side::First, Side::Second] {
        let idx = job.engine(side);
        // A kept process that died or hung since its last game is replaced, not blamed: the
        // game has not started.
        if let Some(engine) = slots[idx].as_mut() {
            match engine
                .sync(timeout, &ctx.stop)
                .and_then(|_| engine.send("usinewgame"))
            {
                Ok(()) => continue,
                Err(Failure::Stopped) => return Err(Stopped),
                Err(_) => slots[idx] = None,
            }
        }
        let name = &config.play.engines[idx];
        let Some(engine_config) = config.engine(name) else {
            return Ok(Err(loss(side, "crash", format!("no engine `{name}`"))));
        };
        let ready = Engine::start(
            engine_config,
            &config.base_dir,
            &[("USI_Variant", variant.clone())],
            timeout,
            &ctx.stop,
        )
        .and_then(|mut engine| {
            engine.send("usinewgame")?;
            slots[idx] = Some(engine);
            Ok(())
        });
        if let Err(failure) = ready {
            if failure == Failure::Stopped {
                return Err(Stopped);
            }
            slots[idx] = None;
            failed.push((side, failure));
        }
    }
    let names = &config.play.engines;
    Ok(match failed.as_slice() {
        [] => Ok(()),
        [(side, failure)] => {
            let (reason, detail) = failure_reason(failure, false);
            Err(loss(
                *side,
                reason,
                format!("{} before the game: {detail}", names[job.engine(*side)]),
            ))
        }
        _ => Err((
            GameEnd {
                verdict: Verdict::Draw,
                reason: "both engines failed".into(),
            },
            Some(
                failed
                    .iter()
                    .map(|(side, f)| {
                        let (reason, detail) = failure_reason(f, false);
                        format!("{}: {reason}: {detail}", names[job.engine(*side)])
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        )),
    })
}

fn run_moves(
    ctx: &Context,
    job: &Job,
    slots: &mut Slots,
    referee: &mut dyn Referee,
    game: &mut FinishedGame,
) -> Result<Ending, Stopped> {
    let config = &ctx.config;
    let control = config.time_control();
    let on_clock = !matches!(control, TimeControl::Nodes(_));
    let mut clocks = Clocks::new(control, config.play.margin_ms);
    let timeout = Duration::from_millis(config.play.timeout_ms);
    let mut played: Vec<String> = Vec::new();
    loop {
        if let Some(end) = referee.game_end() {
            return Ok((end, None));
        }
        if job.opening.moves.len() + played.len() >= config.play.max_plies as usize {
            let end = GameEnd {
                verdict: Verdict::Draw,
                reason: "max plies".into(),
            };
            return Ok((end, Some(format!("{} plies", config.play.max_plies))));
        }
        let side = referee.side_to_move();
        let idx = job.engine(side);
        let Some(engine) = slots[idx].as_mut() else {
            return Ok(loss(side, "crash", "not running".into()));
        };
        let allowance = clocks.allowance(side);
        let asked = engine
            .drain()
            .and_then(|_| engine.send(&job.opening.position_command(&played)))
            .and_then(|_| engine.send(&clocks.go_command()));
        let t0 = Instant::now();
        let mut seen = Seen::default();
        let reply = asked.and_then(|_| {
            let deadline = t0 + allowance.unwrap_or(timeout);
            loop {
                let line = engine.recv(deadline, &ctx.stop, "bestmove")?;
                let mut words = line.split_whitespace();
                match words.next() {
                    Some("bestmove") => return Ok(words.next().map(str::to_string)),
                    Some("info") => seen.note(&line),
                    _ => {}
                }
            }
        });
        let elapsed = t0.elapsed();
        let token = match reply {
            Ok(token) => token,
            Err(Failure::Stopped) => return Err(Stopped),
            Err(failure) => {
                // A hung or crashed engine is replaced before its next game.
                slots[idx] = None;
                let (reason, detail) = failure_reason(&failure, on_clock);
                return Ok(loss(side, reason, detail));
            }
        };
        if let Err(flag) = clocks.charge(side, elapsed) {
            return Ok(loss(side, "time forfeit", flag.to_string()));
        }
        let Some(token) = token else {
            return Ok(loss(
                side,
                "illegal move",
                "`bestmove` without a move".into(),
            ));
        };
        match token.as_str() {
            "resign" => {
                let said = seen
                    .message
                    .map(|m| format!(" after `{m}`"))
                    .unwrap_or_default();
                return Ok(loss(side, "resign", format!("bestmove resign{said}")));
            }
            "win" => {
                return Ok(loss(
                    side,
                    "illegal move",
                    "`bestmove win`: this match has no declaration rule".into(),
                ))
            }
            _ => {}
        }
        // A panic in the rules on an engine's odd move must not take the runner down.
        let judged =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| referee.play(&token)))
                .unwrap_or_else(|_| Err("the referee failed on this move".into()));
        match judged {
            Ok(canonical) => {
                game.moves.push(PlayedMove {
                    mv: canonical.clone(),
                    side,
                    ms: elapsed.as_millis().min(u64::MAX as u128) as u64,
                    eval: seen.eval,
                });
                played.push(canonical);
            }
            Err(e) => {
                let said = seen
                    .message
                    .map(|m| format!(" (after `{m}`)"))
                    .unwrap_or_default();
                return Ok(loss(side, "illegal move", format!("`{token}`: {e}{said}")));
            }
        }
    }
}
