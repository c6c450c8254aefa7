//! One game between two engine processes, refereed move by move.

use super::adjudicate::{self, Adjudicator};
use super::clock::Clocks;
use super::config::{Config, Protocol, TimeControl};
use super::engine::{Engine, Failure};
use super::gtp;
use super::iolog::{IoLog, Tap};
use super::opening::Opening;
use super::referee::{GameEnd, MoveError, Reason, Referee, RefereeFactory, Side, Verdict};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A game to play: which engines (indices into `[match] engines`), which opening.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// 1-based game number.
    pub game: usize,
    /// Index of the pair (round robin order) the game belongs to.
    pub pair: usize,
    pub first: usize,
    pub second: usize,
    pub opening_index: usize,
    pub opening: Arc<Opening>,
}

impl Fixture {
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
    /// The last score, in centipawns from the engine's side (for adjudication).
    cp: Option<i64>,
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
        if let Some(cp) = adjudicate::centipawns(&words) {
            self.cp = Some(cp);
        }
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
    pub job: Fixture,
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
    /// The referee's score (black's lead) when the game ended by its rules with one.
    pub score: Option<f64>,
    /// What each GTP engine's `final_score` said about that score.
    pub engine_scores: Vec<EngineScore>,
    /// By side ([`Side::index`]): the engine's process was lost in this game (it could not
    /// start or get ready, or it crashed); the runner counts these in a row.
    pub lost: [bool; 2],
}

/// A GTP engine's `final_score` at the end of a scored game, checked against the referee's.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineScore {
    pub engine: String,
    /// Its answer (`B+2.5`), `? <error>`, or why there was none.
    pub said: String,
    /// Whether it is the referee's score.
    pub agrees: bool,
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
    /// `--log`: every engine's lines.
    pub log: Option<Arc<IoLog>>,
}

/// Engine processes a worker keeps between games, by engine index; `None` = (re)start on use.
pub type Slots = Vec<Option<Engine>>;

/// The runner stopped during the game: it is not counted.
struct Stopped;

/// Plays `job`; `None` when the runner stopped before the game ended.
pub fn play(ctx: &Context, job: &Fixture, slots: &mut Slots) -> Option<FinishedGame> {
    let config = &ctx.config;
    let names = &config.play.engines;
    let mut referee = (ctx.factory)();
    let mut game = FinishedGame {
        job: job.clone(),
        first: names[job.first].clone(),
        second: names[job.second].clone(),
        end: GameEnd {
            verdict: Verdict::Draw,
            reason: Reason::Stopped,
        },
        detail: None,
        start_position: String::new(),
        moves: Vec::new(),
        final_position: String::new(),
        diagram: Vec::new(),
        score: None,
        engine_scores: Vec::new(),
        lost: [false; 2],
    };
    let opened = referee
        .set_start(job.opening.sfen.as_deref())
        .map_err(|e| e.to_string())
        .and_then(|()| {
            game.start_position = referee.position();
            job.opening
                .replay(referee.as_mut())
                .map_err(|e| e.to_string())
        });
    if let Err(detail) = opened {
        return Some(finish_early(
            game,
            referee.as_ref(),
            Reason::BadOpening,
            detail,
        ));
    }
    let setup = gtp_setup(ctx, job);
    let result = match prepare(ctx, job, slots, &setup) {
        Ok(Ok(())) => run_moves(ctx, job, slots, referee.as_mut(), &mut game),
        Ok(Err((ending, lost))) => {
            game.lost = lost;
            Ok(ending)
        }
        Err(Stopped) => Err(Stopped),
    };
    let (end, detail) = match result {
        Ok(x) => x,
        Err(Stopped) => return None,
    };
    for side in [Side::First, Side::Second] {
        if protocol(ctx, job.engine(side)) == Protocol::Gtp {
            continue;
        }
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
    if let (Reason::Crash, Verdict::Win(winner)) = (end.reason, end.verdict) {
        game.lost[winner.other().index()] = true;
    }
    game.end = end;
    game.detail = detail;
    game.final_position = referee.position();
    game.diagram = referee.diagram();
    Some(game)
}

/// How engine `idx` of `[match] engines` is spoken to.
fn protocol(ctx: &Context, idx: usize) -> Protocol {
    ctx.config
        .engine(&ctx.config.play.engines[idx])
        .map_or(Protocol::Usi, |e| e.protocol)
}

/// What a GTP engine is told before the game: the moves that set up the start position (the
/// rules' [`Referee::gtp_setup`]) and the opening's moves, each with the colour that plays it.
fn gtp_setup(ctx: &Context, job: &Fixture) -> Vec<(Side, String)> {
    let mut referee = (ctx.factory)();
    let mut setup = Vec::new();
    if referee.set_start(job.opening.sfen.as_deref()).is_err() {
        return setup;
    }
    if job.opening.sfen.is_some() {
        setup = referee.gtp_setup().unwrap_or_default();
    }
    for mv in &job.opening.moves {
        let side = referee.side_to_move();
        match referee.play(mv) {
            Ok(canonical) => setup.push((side, canonical)),
            Err(_) => break,
        }
    }
    setup
}

fn finish_early(
    mut game: FinishedGame,
    referee: &dyn Referee,
    reason: Reason,
    detail: String,
) -> FinishedGame {
    game.end = GameEnd {
        verdict: Verdict::Draw,
        reason,
    };
    game.detail = Some(detail);
    game.final_position = referee.position();
    game
}

type Ending = (GameEnd, Option<String>);

fn loss(side: Side, reason: Reason, detail: String) -> Ending {
    (
        GameEnd {
            verdict: Verdict::Win(side.other()),
            reason,
        },
        Some(detail),
    )
}

pub fn failure_reason(failure: &Failure, on_clock: bool) -> (Reason, String) {
    match failure {
        Failure::Timeout(d) if on_clock => (Reason::TimeForfeit, d.clone()),
        Failure::Timeout(d) => (Reason::Timeout, d.clone()),
        Failure::Crash(d) => (Reason::Crash, d.clone()),
        Failure::Refused(d) => (Reason::RefusedCommand, d.clone()),
        Failure::Stopped => (Reason::Stopped, String::new()),
    }
}

/// Starts engine `idx` of `[match] engines` and runs its handshake: USI's `usi`, the options and
/// `isready`, GTP's `list_commands`.
/// `game` is the number of the game it is started for (0 before the first).
pub fn start_engine(ctx: &Context, idx: usize, game: usize) -> Result<Engine, Failure> {
    let config = &ctx.config;
    let name = &config.play.engines[idx];
    let tap = ctx
        .log
        .as_ref()
        .map(|log| Tap::new(log.clone(), name, game));
    if protocol(ctx, idx) == Protocol::Gtp {
        return Engine::start_gtp(config, name, &ctx.stop, tap);
    }
    let Some(engine_config) = config.engine(name) else {
        return Err(Failure::Crash(format!("no engine `{name}`")));
    };
    let timeout = Duration::from_millis(config.play.timeout_ms);
    let mut first = vec![("USI_Variant", config.play.variant.as_str().to_string())];
    for (option, value) in config.option_values().iter() {
        if let Some(name) = option.usi_option {
            first.push((name, value.to_string()));
        }
    }
    Engine::start(
        engine_config,
        &config.base_dir,
        &first,
        timeout,
        &ctx.stop,
        tap,
    )
}

/// Readies a running engine for a new game: GTP's board, clock and opening (`setup`); USI's
/// `isready` (unless the handshake just did it) and `usinewgame`.
fn ready_for_game(
    ctx: &Context,
    engine: &mut Engine,
    idx: usize,
    setup: &[(Side, String)],
) -> Result<(), Failure> {
    let config = &ctx.config;
    if protocol(ctx, idx) == Protocol::Gtp {
        return engine.gtp_new_game(config, &config.play.engines[idx], setup, &ctx.stop);
    }
    if !std::mem::take(&mut engine.synced) {
        engine.sync(Duration::from_millis(config.play.timeout_ms), &ctx.stop)?;
    }
    engine.send("usinewgame")
}

/// Starts every engine of the match once, before its first game, so that an engine that cannot
/// start or finish its handshake stops the match at once: `Err` names it, with what failed.
/// The engines come back in slots, for the first worker's games.
pub fn start_all(ctx: &Context) -> Result<Slots, (usize, Failure)> {
    let mut slots: Slots = Vec::new();
    for idx in 0..ctx.config.play.engines.len() {
        match start_engine(ctx, idx, 0) {
            Ok(engine) => slots.push(Some(engine)),
            Err(failure) => {
                for engine in slots.into_iter().flatten() {
                    engine.quit();
                }
                return Err((idx, failure));
            }
        }
    }
    Ok(slots)
}

/// Starts (or restarts) both engines and readies them for a new game. The inner `Err` is the
/// game's result when an engine could not get ready, with the sides whose process was lost.
fn prepare(
    ctx: &Context,
    job: &Fixture,
    slots: &mut Slots,
    setup: &[(Side, String)],
) -> Result<Result<(), (Ending, [bool; 2])>, Stopped> {
    let mut failed: Vec<(Side, Failure)> = Vec::new();
    for side in [Side::First, Side::Second] {
        let idx = job.engine(side);
        // A kept process that died or hung since its last game is replaced, not blamed: the
        // game has not started.
        if let Some(engine) = slots[idx].as_mut() {
            engine.set_game(job.game);
            match ready_for_game(ctx, engine, idx, setup) {
                Ok(()) => continue,
                Err(Failure::Stopped) => return Err(Stopped),
                Err(_) => slots[idx] = None,
            }
        }
        let ready = start_engine(ctx, idx, job.game).and_then(|mut engine| {
            ready_for_game(ctx, &mut engine, idx, setup)?;
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
    let mut lost = [false; 2];
    for (side, _) in &failed {
        lost[side.index()] = true;
    }
    Ok(match failed.as_slice() {
        [] => Ok(()),
        [(side, failure)] => Err((before_the_game(ctx, job, *side, failure), lost)),
        _ => Err((both_failed(ctx, job, &failed), lost)),
    })
}

/// The loss of `side`, whose engine could not get ready for the game.
fn before_the_game(ctx: &Context, job: &Fixture, side: Side, failure: &Failure) -> Ending {
    let (reason, detail) = failure_reason(failure, false);
    let name = &ctx.config.play.engines[job.engine(side)];
    loss(side, reason, format!("{name} before the game: {detail}"))
}

/// The draw of a game neither engine could get ready for.
fn both_failed(ctx: &Context, job: &Fixture, failed: &[(Side, Failure)]) -> Ending {
    let names = &ctx.config.play.engines;
    let detail = failed
        .iter()
        .map(|(side, f)| {
            let (reason, detail) = failure_reason(f, false);
            format!("{}: {reason}: {detail}", names[job.engine(*side)])
        })
        .collect::<Vec<_>>()
        .join("; ");
    let end = GameEnd {
        verdict: Verdict::Draw,
        reason: Reason::BothEnginesFailed,
    };
    (end, Some(detail))
}

/// What a game in progress keeps between moves.
struct Moves {
    clocks: Clocks,
    /// The moves the engines played, canonical.
    played: Vec<String>,
    /// The game's moves with who played them, and how many of them each GTP engine has been
    /// told (its own moves it played itself at `genmove`).
    history: Vec<(Side, String)>,
    told: [usize; 2],
    adjudicator: Adjudicator,
}

/// An engine's answer to a move request: its move word (`None`: no move), or the refusal to
/// quote; with the time it took and what it said while thinking.
type Asked = (
    Result<Result<Option<String>, gtp::Refusal>, Failure>,
    Duration,
    Seen,
);

fn run_moves(
    ctx: &Context,
    job: &Fixture,
    slots: &mut Slots,
    referee: &mut dyn Referee,
    game: &mut FinishedGame,
) -> Result<Ending, Stopped> {
    let config = &ctx.config;
    let mut moves = Moves {
        clocks: Clocks::new(config.time_control(), config.play.margin_ms),
        played: Vec::new(),
        history: Vec::new(),
        told: [0; 2],
        adjudicator: Adjudicator::new(config.play.resign, config.play.draw),
    };
    loop {
        if let Some(end) = referee.game_end() {
            game.score = referee.score();
            if let Some(score) = game.score {
                let (history, told) = (&moves.history, &mut moves.told);
                game.engine_scores = final_scores(ctx, job, slots, history, told, score)?;
            }
            return Ok((end, None));
        }
        if job.opening.moves.len() + moves.played.len() >= config.play.max_plies as usize {
            let end = GameEnd {
                verdict: Verdict::Draw,
                reason: Reason::MaxPlies,
            };
            return Ok((end, Some(format!("{} plies", config.play.max_plies))));
        }
        if let Some(ending) = one_move(ctx, job, slots, referee, game, &mut moves)? {
            return Ok(ending);
        }
    }
}

/// The side to move's engine plays one move; `Some` when that ends the game.
fn one_move(
    ctx: &Context,
    job: &Fixture,
    slots: &mut Slots,
    referee: &mut dyn Referee,
    game: &mut FinishedGame,
    moves: &mut Moves,
) -> Result<Option<Ending>, Stopped> {
    let config = &ctx.config;
    let on_clock = !matches!(config.time_control(), TimeControl::Nodes(_));
    let side = referee.side_to_move();
    let idx = job.engine(side);
    let gtp = protocol(ctx, idx) == Protocol::Gtp;
    let untimed = config
        .engine(&config.play.engines[idx])
        .is_some_and(|e| e.untimed);
    let Some(engine) = slots[idx].as_mut() else {
        return Ok(Some(loss(side, Reason::Crash, "not running".into())));
    };
    let (reply, elapsed, seen) = if gtp {
        match ask_gtp(ctx, engine, side, untimed, moves) {
            Ok(asked) => asked,
            Err(Failure::Stopped) => return Err(Stopped),
            Err(Failure::Refused(refused)) => {
                return Ok(Some(loss(side, Reason::RefusedMove, refused)))
            }
            Err(failure) => {
                slots[idx] = None;
                let (reason, detail) = failure_reason(&failure, false);
                return Ok(Some(loss(side, reason, detail)));
            }
        }
    } else {
        ask_usi(ctx, engine, job, side, moves)
    };
    let token = match reply {
        Ok(Ok(token)) => token,
        Ok(Err(refused)) => return Ok(Some(loss(side, Reason::IllegalMove, refused.to_string()))),
        Err(Failure::Stopped) => return Err(Stopped),
        Err(failure) => {
            // A hung or crashed engine is replaced before its next game.
            slots[idx] = None;
            let (reason, detail) = failure_reason(&failure, on_clock && !untimed);
            return Ok(Some(loss(side, reason, detail)));
        }
    };
    // An untimed engine's moves are not charged to its clock.
    if let Some(flag) = (!untimed)
        .then(|| moves.clocks.charge(side, elapsed).err())
        .flatten()
    {
        return Ok(Some(loss(side, Reason::TimeForfeit, flag.to_string())));
    }
    Ok(judge(
        job, referee, game, moves, side, gtp, token, elapsed, seen,
    ))
}

/// Asks a GTP engine for its move: it is told the moves since its last one (a refused one is
/// [`Failure::Refused`]), its clock (`time_left`), then `genmove` (or its configured cleanup
/// command).
fn ask_gtp(
    ctx: &Context,
    engine: &mut Engine,
    side: Side,
    untimed: bool,
    moves: &mut Moves,
) -> Result<Asked, Failure> {
    let config = &ctx.config;
    let timeout = Duration::from_millis(config.play.timeout_ms);
    let told = &mut moves.told[side.index()];
    if let Err(refused) = tell(engine, &moves.history, told, timeout, &ctx.stop)? {
        return Err(Failure::Refused(refused.to_string()));
    }
    let control = config.time_control();
    let allowance = if untimed {
        None
    } else {
        moves.clocks.allowance(side)
    };
    let asked = match gtp::time_left(control, side, moves.clocks.left(side)) {
        Some(command) if engine.knows("time_left") && !untimed => engine
            .gtp(&command, Instant::now() + timeout, &ctx.stop)
            .map(|_| ()),
        _ => Ok(()),
    };
    let t0 = Instant::now();
    let deadline = t0 + allowance.unwrap_or(timeout);
    let command = format!("{} {}", engine.genmove, gtp::colour(side));
    let reply = asked
        .and_then(|_| engine.gtp(&command, deadline, &ctx.stop))
        .map(|answer| match answer {
            Ok(text) => Ok(text
                .split_whitespace()
                .next()
                .map(|w| w.to_ascii_lowercase())),
            Err(answer) => Err(gtp::Refusal {
                command: command.clone(),
                answer,
            }),
        });
    Ok((reply, t0.elapsed(), Seen::default()))
}

/// Asks a USI engine for its move: `position`, `go`, then its `info` lines until `bestmove`.
fn ask_usi(ctx: &Context, engine: &mut Engine, job: &Fixture, side: Side, moves: &Moves) -> Asked {
    let timeout = Duration::from_millis(ctx.config.play.timeout_ms);
    let allowance = moves.clocks.allowance(side);
    let mut seen = Seen::default();
    let asked = engine
        .drain()
        .and_then(|_| engine.send(&job.opening.position_command(&moves.played)))
        .and_then(|_| engine.send(&moves.clocks.go_command()));
    let t0 = Instant::now();
    let reply = asked.and_then(|_| {
        let deadline = t0 + allowance.unwrap_or(timeout);
        loop {
            let line = engine.recv(deadline, &ctx.stop, "bestmove")?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("bestmove") => return Ok(Ok(words.next().map(str::to_string))),
                Some("info") => seen.note(&line),
                _ => {}
            }
        }
    });
    (reply, t0.elapsed(), seen)
}

/// Judges the move word `token` of `side`: a resignation, an illegal move, or a move played
/// (which the scores may then adjudicate); `Some` when the game ends.
#[allow(clippy::too_many_arguments)] // The move's parts, each needed; a struct would only rename them.
fn judge(
    job: &Fixture,
    referee: &mut dyn Referee,
    game: &mut FinishedGame,
    moves: &mut Moves,
    side: Side,
    gtp: bool,
    token: Option<String>,
    elapsed: Duration,
    seen: Seen,
) -> Option<Ending> {
    let Some(token) = token else {
        let what = if gtp {
            "`genmove` answered no move"
        } else {
            "`bestmove` without a move"
        };
        return Some(loss(side, Reason::IllegalMove, what.into()));
    };
    match token.as_str() {
        "resign" => {
            let said = seen
                .message
                .map(|m| format!(" after `{m}`"))
                .unwrap_or_default();
            let word = if gtp { "genmove" } else { "bestmove" };
            return Some(loss(side, Reason::Resign, format!("{word} resign{said}")));
        }
        "win" if !gtp => {
            return Some(loss(
                side,
                Reason::IllegalMove,
                "`bestmove win`: this match has no declaration rule".into(),
            ))
        }
        _ => {}
    }
    // A panic in the rules on an engine's odd move must not take the runner down.
    let judged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| referee.play(&token)))
        .unwrap_or_else(|_| Err(MoveError::Rules("the referee failed on this move".into())));
    let canonical = match judged {
        Ok(canonical) => canonical,
        Err(e) => {
            let said = seen
                .message
                .map(|m| format!(" (after `{m}`)"))
                .unwrap_or_default();
            let detail = format!("`{token}`: {e}{said}");
            return Some(loss(side, Reason::IllegalMove, detail));
        }
    };
    game.moves.push(PlayedMove {
        mv: canonical.clone(),
        side,
        ms: elapsed.as_millis().min(u64::MAX as u128) as u64,
        eval: seen.eval,
    });
    moves.played.push(canonical.clone());
    moves.history.push((side, canonical));
    if gtp {
        // The engine played its own move at `genmove`.
        moves.told[side.index()] = moves.history.len();
    }
    // A move that ends the game by the rules is judged by them, not by the scores.
    if referee.game_end().is_some() {
        return None;
    }
    let plies = job.opening.moves.len() + moves.played.len();
    moves
        .adjudicator
        .after_move(side, seen.cp, plies)
        .map(|(end, why)| (end, Some(why)))
}

/// Tells a GTP engine the moves of `history` it has not been told yet, as `play <colour> <move>`.
/// The inner `Err` says which move it refused (a move the referee accepted).
fn tell(
    engine: &mut Engine,
    history: &[(Side, String)],
    told: &mut usize,
    timeout: Duration,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Result<(), gtp::Refusal>, Failure> {
    for (side, mv) in history.iter().skip(*told) {
        let command = format!("play {} {mv}", gtp::colour(*side));
        if let Err(why) = engine.gtp(&command, Instant::now() + timeout, stop)? {
            return Ok(Err(gtp::Refusal {
                command,
                answer: why,
            }));
        }
        *told += 1;
    }
    Ok(Ok(()))
}

/// Each GTP engine's `final_score` (when it has the command), after it has been told the last
/// moves, checked against the referee's `score`.
fn final_scores(
    ctx: &Context,
    job: &Fixture,
    slots: &mut Slots,
    history: &[(Side, String)],
    told: &mut [usize; 2],
    score: f64,
) -> Result<Vec<EngineScore>, Stopped> {
    let timeout = Duration::from_millis(ctx.config.play.timeout_ms);
    let mut scores = Vec::new();
    for side in [Side::First, Side::Second] {
        let idx = job.engine(side);
        if protocol(ctx, idx) != Protocol::Gtp {
            continue;
        }
        let Some(engine) = slots[idx].as_mut() else {
            continue;
        };
        if !engine.knows("final_score") {
            continue;
        }
        let asked =
            tell(engine, history, &mut told[side.index()], timeout, &ctx.stop).and_then(|told| {
                match told {
                    Ok(()) => engine.gtp("final_score", Instant::now() + timeout, &ctx.stop),
                    // Quoted whole, after the `?` of the answer that never came.
                    Err(refused) => Ok(Err(gtp::Refused(refused.to_string()))),
                }
            });
        let (said, agrees) = match asked {
            Ok(Ok(text)) => {
                let agrees =
                    crate::text::parse_score(&text).is_some_and(|s| (s - score).abs() < 1e-6);
                (text, agrees)
            }
            Ok(Err(why)) => (format!("? {why}"), false),
            Err(Failure::Stopped) => return Err(Stopped),
            Err(failure) => {
                slots[idx] = None;
                let (reason, detail) = failure_reason(&failure, false);
                (format!("no answer: {reason}: {detail}"), false)
            }
        };
        scores.push(EngineScore {
            engine: ctx.config.play.engines[idx].clone(),
            said,
            agrees,
        });
    }
    Ok(scores)
}
