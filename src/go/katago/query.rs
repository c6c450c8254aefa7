//! One input line of the analysis engine read into what it asks: an action, or a query's
//! positions (one job per turn to analyse), with KataGo's errors and warnings.

use super::rules::KataRules;
use crate::go::notation::{format_move, parse_vertex};
use crate::go::search::fast::PASS;
use crate::go::search::mcts::Ban;
use crate::go::{Board, Color, Position};
use serde_json::{json, Map, Value};

/// The largest board side (ryoshi's boards, as KataGo's own `MAX_LEN` bounds its).
pub const MAX_SIZE: i64 = 25;

/// An error or a warning line: `{"error": ..., "field": ..., "id": ...}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub warning: bool,
    pub id: Option<String>,
    pub field: Option<String>,
    pub text: String,
}

impl Message {
    /// An error with no query to name (the line is not a query at all).
    pub fn general(text: String) -> Message {
        Message {
            warning: false,
            id: None,
            field: None,
            text,
        }
    }

    fn error(id: &str, field: &str, text: impl Into<String>) -> Message {
        Message {
            warning: false,
            id: Some(id.into()),
            field: Some(field.into()),
            text: text.into(),
        }
    }

    fn warning(id: &str, field: &str, text: impl Into<String>) -> Message {
        Message {
            warning: true,
            ..Message::error(id, field, text)
        }
    }

    pub fn to_json(&self) -> String {
        let mut map = Map::new();
        let key = if self.warning { "warning" } else { "error" };
        map.insert(key.into(), Value::String(self.text.clone()));
        if let Some(field) = &self.field {
            map.insert("field".into(), Value::String(field.clone()));
        }
        if let Some(id) = &self.id {
            map.insert("id".into(), Value::String(id.clone()));
        }
        Value::Object(map).to_string()
    }
}

/// Whose point of view the figures take (`reportAnalysisWinratesAs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    Black,
    White,
    SideToMove,
}

impl Perspective {
    /// Whether figures of the side to move `to_move` are turned to the other side's.
    pub fn flips(self, to_move: Color) -> bool {
        match self {
            Perspective::Black => to_move == Color::White,
            Perspective::White => to_move == Color::Black,
            Perspective::SideToMove => false,
        }
    }
}

/// One position to analyse.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: String,
    pub turn: usize,
    /// The position (its board, side to move and ko; no history: nothing needs it).
    pub game: Position,
    /// Passes just played before it (two end the game inside the search).
    pub passes: u8,
    /// The komi, white's handicap bonus included.
    pub komi: f64,
    pub visits: u64,
    pub max_time_ms: Option<u64>,
    pub report_ms: Option<u64>,
    pub ownership: bool,
    pub policy: bool,
    pub pv_visits: bool,
    /// Moves of each pv after its first (`analysisPVLen`).
    pub pv_len: usize,
    pub bans: Vec<Ban>,
    pub perspective: Perspective,
    pub priority: i64,
}

/// What a line asks.
#[derive(Debug)]
pub enum Request {
    /// `query_version`, `query_models`, `clear_cache`: the answer, at once.
    Echo(String),
    /// `terminate` (`id` Some) or `terminate_all`: the jobs to stop, and the echo.
    Terminate {
        id: Option<String>,
        turns: Option<Vec<i64>>,
        echo: String,
    },
    /// The positions of a query, and its warnings (sent before its answers).
    Query {
        jobs: Vec<Job>,
        warnings: Vec<Message>,
    },
}

/// The engine's settings a query may leave out.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub visits: u64,
}

/// The fields ryoshi reads; anything else gets KataGo's "unused field" warning.
const KNOWN: &[&str] = &[
    "id",
    "action",
    "moves",
    "initialStones",
    "initialPlayer",
    "rules",
    "komi",
    "whiteHandicapBonus",
    "boardXSize",
    "boardYSize",
    "analyzeTurns",
    "maxVisits",
    "analysisPVLen",
    "includeOwnership",
    "includeOwnershipStdev",
    "includeMovesOwnership",
    "includeMovesOwnershipStdev",
    "includePolicy",
    "includePVVisits",
    "includeNoResultValue",
    "avoidMoves",
    "allowMoves",
    "overrideSettings",
    "reportDuringSearchEvery",
    "priority",
    "priorities",
    "rootPolicyTemperature",
    "rootFpuReductionMax",
];

/// Query flags for figures ryoshi's search does not keep: read, and a warning when true.
const NOT_COMPUTED: &[(&str, &str)] = &[
    (
        "includeOwnershipStdev",
        "the search keeps no spread of the ownership",
    ),
    (
        "includeMovesOwnership",
        "the search keeps the ownership of the root only",
    ),
    (
        "includeMovesOwnershipStdev",
        "the search keeps the ownership of the root only",
    ),
    ("includeNoResultValue", "ryoshi's rules have no no-result"),
];

/// Reads one line.
pub fn read(line: &str, defaults: Defaults) -> Result<Request, Message> {
    let input: Value = serde_json::from_str(line).map_err(|e| {
        Message::general(format!(
            "{e} - could not parse input line as json request: {}",
            crate::text::printable(line)
        ))
    })?;
    let Value::Object(input) = input else {
        return Err(Message::general(format!(
            "Request line was valid json but was not an object, ignoring: {}",
            crate::text::printable(line)
        )));
    };
    let Some(Value::String(id)) = input.get("id") else {
        return Err(Message::general(
            "Request must have a string \"id\" field".into(),
        ));
    };
    let id = id.clone();
    match input.get("action") {
        Some(Value::String(action)) => self::action(&id, action, input.clone()),
        _ => query(&id, &input, defaults),
    }
}

fn action(id: &str, action: &str, mut input: Map<String, Value>) -> Result<Request, Message> {
    let turns = |input: &Map<String, Value>| -> Result<Option<Vec<i64>>, Message> {
        match input.get("turnNumbers") {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(Value::as_i64)
                .collect::<Option<Vec<i64>>>()
                .map(Some)
                .ok_or_else(|| turns_error(id)),
            Some(_) => Err(turns_error(id)),
        }
    };
    match action {
        "query_version" => {
            input.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
            input.insert("git_hash".into(), json!("<omitted>"));
            Ok(Request::Echo(Value::Object(input).to_string()))
        }
        "query_models" => {
            input.insert("models".into(), json!([]));
            Ok(Request::Echo(Value::Object(input).to_string()))
        }
        // No cache: every query searches afresh.
        "clear_cache" => Ok(Request::Echo(Value::Object(input).to_string())),
        "terminate" => {
            let Some(Value::String(target)) = input.get("terminateId") else {
                return Err(Message::error(
                    id,
                    "terminateId",
                    "Requests for a terminate action must have a string \"terminateId\" field",
                ));
            };
            Ok(Request::Terminate {
                id: Some(target.clone()),
                turns: turns(&input)?,
                echo: Value::Object(input.clone()).to_string(),
            })
        }
        "terminate_all" => Ok(Request::Terminate {
            id: None,
            turns: turns(&input)?,
            echo: Value::Object(input.clone()).to_string(),
        }),
        _ => Err(Message::general(
            "'action' field must be 'query_version' or 'query_models' or 'clear_cache' or \
             'terminate' or 'terminate_all'"
                .into(),
        )),
    }
}

fn turns_error(id: &str) -> Message {
    Message::error(
        id,
        "turnNumbers",
        "If provided, must be an array of integers indicating turns to terminate",
    )
}

/// A query's fields, read one by one with KataGo's messages.
struct Fields<'a> {
    id: &'a str,
    input: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn integer(&self, field: &str, min: i64, max: i64, why: &str) -> Result<Option<i64>, Message> {
        match self.input.get(field) {
            None => Ok(None),
            Some(v) => match v.as_i64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(Message::error(self.id, field, why)),
            },
        }
    }

    fn number(&self, field: &str, min: f64, max: f64, why: &str) -> Result<Option<f64>, Message> {
        match self.input.get(field) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && x >= min && x <= max => Ok(Some(x)),
                _ => Err(Message::error(self.id, field, why)),
            },
        }
    }

    fn boolean(&self, field: &str) -> Result<bool, Message> {
        match self.input.get(field) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Message::error(self.id, field, "Must be a boolean")),
        }
    }
}

fn player(value: &Value) -> Option<Color> {
    match value.as_str()?.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// A GTP vertex or `pass` (None).
fn location(f: &Fields, field: &str, value: &Value, size: usize) -> Result<Option<usize>, Message> {
    let text = value.as_str().unwrap_or("");
    parse_vertex(text, size).map_err(|_| {
        Message::error(
            f.id,
            field,
            format!(
                "Could not parse board location: {}",
                crate::text::printable(text)
            ),
        )
    })
}

/// `[["B","Q4"],...]`.
fn moves(
    f: &Fields,
    field: &str,
    size: usize,
    required: bool,
) -> Result<Vec<(Color, Option<usize>)>, Message> {
    let shape = "Must be an array of pairs of the form: [\"b\" or \"w\", GTP board vertex]";
    let items = match f.input.get(field) {
        None if required => {
            return Err(Message::error(
                f.id,
                field,
                "Must specify an array of [player,location] pairs",
            ))
        }
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(Message::error(f.id, field, shape)),
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Some((who, at)) = item
            .as_array()
            .filter(|a| a.len() == 2)
            .map(|a| (&a[0], &a[1]))
        else {
            return Err(Message::error(f.id, field, shape));
        };
        let color = player(who).ok_or_else(|| {
            Message::error(f.id, field, format!("Could not parse player: {}", who))
        })?;
        out.push((color, location(f, field, at, size)?));
    }
    Ok(out)
}

/// `avoidMoves`/`allowMoves`: `[{"player":"B","moves":["C3","pass"],"untilDepth":1},...]`.
fn bans(f: &Fields, size: usize) -> Result<Vec<Ban>, Message> {
    let (field, allow) = match (f.input.get("avoidMoves"), f.input.get("allowMoves")) {
        (Some(_), Some(_)) => {
            return Err(Message::error(
                f.id,
                "allowMoves",
                "Cannot specify both allowMoves and avoidMoves",
            ))
        }
        (Some(_), None) => ("avoidMoves", false),
        (None, Some(_)) => ("allowMoves", true),
        (None, None) => return Ok(Vec::new()),
    };
    let shape = || {
        Message::error(
            f.id,
            field,
            "Must be a list of dicts with subfields 'player', 'moves', 'untilDepth'",
        )
    };
    let Some(list) = f.input.get(field).and_then(Value::as_array) else {
        return Err(shape());
    };
    let mut out: Vec<Ban> = Vec::with_capacity(list.len());
    for entry in list {
        let (Some(who), Some(Value::Array(points)), Some(until)) = (
            entry.get("player"),
            entry.get("moves"),
            entry.get("untilDepth"),
        ) else {
            return Err(shape());
        };
        let color =
            player(who).ok_or_else(|| Message::error(f.id, field, "Must be \"b\" or \"w\""))?;
        let until = until
            .as_i64()
            .filter(|n| (1..=1_000_000_000).contains(n))
            .ok_or_else(|| Message::error(f.id, field, "Must be a positive integer"))?;
        if allow && out.iter().any(|b| b.color == color) {
            return Err(Message::error(
                f.id,
                field,
                "Cannot specify allowMoves more than once for the same player",
            ));
        }
        let mut moves = Vec::with_capacity(points.len());
        for p in points {
            moves.push(location(f, field, p, size)?.map_or(PASS, |p| p as u16));
        }
        out.push(Ban {
            color,
            allow,
            moves,
            until: until as u64,
        });
    }
    Ok(out)
}

/// What `overrideSettings` says that ryoshi acts on.
struct Overrides {
    perspective: Perspective,
    max_time_ms: Option<u64>,
    visits: Option<u64>,
    pv_len: Option<usize>,
}

fn overrides(f: &Fields, warnings: &mut Vec<Message>) -> Result<Overrides, Message> {
    let mut out = Overrides {
        perspective: Perspective::Black,
        max_time_ms: None,
        visits: None,
        pv_len: None,
    };
    let field = "overrideSettings";
    let map = match f.input.get(field) {
        None => return Ok(out),
        Some(Value::Object(map)) => map,
        Some(_) => return Err(Message::error(f.id, field, "Must be an object")),
    };
    let bad = |key: &str| {
        Message::error(
            f.id,
            field,
            format!("Could not set settings: bad value for {key}"),
        )
    };
    let mut unused = Vec::new();
    for (key, v) in map {
        match key.as_str() {
            "reportAnalysisWinratesAs" => {
                out.perspective = match v.as_str().map(str::to_ascii_uppercase).as_deref() {
                    Some("BLACK") => Perspective::Black,
                    Some("WHITE") => Perspective::White,
                    Some("SIDETOMOVE") => Perspective::SideToMove,
                    _ => return Err(bad(key)),
                }
            }
            "maxTime" => {
                let seconds = v
                    .as_f64()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| bad(key))?;
                out.max_time_ms = Some((seconds * 1000.0).clamp(1.0, 1e12) as u64);
            }
            "maxVisits" | "maxPlayouts" => {
                let n = v.as_i64().filter(|n| *n >= 1).ok_or_else(|| bad(key))?;
                out.visits = Some(n as u64);
            }
            "analysisPVLen" => {
                let n = v
                    .as_i64()
                    .filter(|n| (0..=1000).contains(n))
                    .ok_or_else(|| bad(key))?;
                out.pv_len = Some(n as usize);
            }
            _ => unused.push(crate::text::printable(key)),
        }
    }
    if !unused.is_empty() {
        warnings.push(Message::warning(
            f.id,
            field,
            format!("Not used by ryoshi's search: {}", unused.join(",")),
        ));
    }
    Ok(out)
}

fn query(id: &str, input: &Map<String, Value>, defaults: Defaults) -> Result<Request, Message> {
    let f = Fields { id, input };
    let mut warnings = Vec::new();
    let size = board_size(&f)?;
    let rules = rules(&f, &mut warnings)?;
    let default_komi = if rules.scoring == "TERRITORY" {
        6.5
    } else {
        7.5
    };
    let komi = f
        .number("komi", -400.0, 400.0, "Must be a number from -400 to 400")?
        .unwrap_or(default_komi);
    let stones = moves(&f, "initialStones", size, false)?;
    let played = moves(&f, "moves", size, true)?;
    let initial_player = match input.get("initialPlayer") {
        None => None,
        Some(v) => Some(
            player(v)
                .ok_or_else(|| Message::error(id, "initialPlayer", "Must be \"b\" or \"w\""))?,
        ),
    };
    let analyze = analyze_turns(&f, played.len())?;
    let (priority, priorities) = priorities(&f, analyze.len())?;
    let visits = f.integer(
        "maxVisits",
        1,
        1_000_000_000,
        "Must be an integer from 1 to 1000000000",
    )?;
    let pv_len = f.integer(
        "analysisPVLen",
        0,
        1000,
        "Must be an integer from 0 to 1000",
    )?;
    let report_every = f.number(
        "reportDuringSearchEvery",
        0.001,
        1e6,
        "Must be number of seconds from 0.001 to 1000000",
    )?;
    let ownership = f.boolean("includeOwnership")?;
    let policy = f.boolean("includePolicy")?;
    let pv_visits = f.boolean("includePVVisits")?;
    unused_fields(&f, &mut warnings)?;
    let bans = bans(&f, size)?;
    let settings = overrides(&f, &mut warnings)?;
    unknown_fields(&f, &mut warnings);

    let (board, handicap) = start_board(&f, size, &stones)?;
    let komi = komi + rules.handicap_bonus(handicap);
    let first = initial_player.unwrap_or(match played.first() {
        Some((c, _)) => *c,
        None if handicap > 0 => Color::White,
        None => Color::Black,
    });
    let mut wanted = vec![None; played.len() + 1];
    for (k, &turn) in analyze.iter().enumerate() {
        wanted[turn] = Some(priorities.as_ref().map_or(priority, |p| p[k]));
    }
    let job = |turn, game, passes, priority| Job {
        id: id.into(),
        turn,
        game,
        passes,
        komi,
        visits: settings
            .visits
            .or(visits.map(|v| v as u64))
            .unwrap_or(defaults.visits),
        max_time_ms: settings.max_time_ms,
        report_ms: report_every.map(|s| ((s * 1000.0) as u64).max(1)),
        ownership,
        policy,
        pv_visits,
        pv_len: settings.pv_len.or(pv_len.map(|n| n as usize)).unwrap_or(15),
        bans: bans.clone(),
        perspective: settings.perspective,
        priority,
    };
    let jobs = replay(id, Position::new(board, first), &played, &wanted, job)?;
    Ok(Request::Query { jobs, warnings })
}

/// `boardXSize` and `boardYSize`: ryoshi's boards are square.
fn board_size(f: &Fields) -> Result<usize, Message> {
    let id = f.id;
    let size_error = format!("Must provide an integer from 2 to {MAX_SIZE}");
    let mut sizes = [0usize; 2];
    for (field, size) in ["boardXSize", "boardYSize"].into_iter().zip(&mut sizes) {
        *size = f
            .integer(field, 2, MAX_SIZE, &size_error)?
            .ok_or_else(|| Message::error(id, field, size_error.as_str()))?
            as usize;
    }
    let [size, height] = sizes;
    if height != size {
        return Err(Message::error(
            id,
            "boardYSize",
            format!(
                "ryoshi's boards are square: boardYSize must equal boardXSize ({size}), not {height}"
            ),
        ));
    }
    Ok(size)
}

/// `rules` (and `whiteHandicapBonus`), with a warning where ryoshi plays others.
fn rules(f: &Fields, warnings: &mut Vec<Message>) -> Result<KataRules, Message> {
    let (id, input) = (f.id, f.input);
    let rules_hint =
        "Must specify rules string, such as \"chinese\" or \"tromp-taylor\", or a JSON \
                      object with detailed rules parameters.";
    let rules_value = input
        .get("rules")
        .ok_or_else(|| Message::error(id, "rules", rules_hint))?;
    let mut rules =
        KataRules::parse(rules_value).map_err(|e| Message::error(id, "rules", e.to_string()))?;
    if let Some(v) = input.get("whiteHandicapBonus") {
        rules.white_handicap_bonus = v
            .as_str()
            .filter(|w| ["0", "N-1", "N"].contains(w))
            .ok_or_else(|| {
                Message::error(id, "whiteHandicapBonus", "Must be \"0\", \"N-1\" or \"N\"")
            })?
            .into();
    }
    let differences = rules.differences();
    if !differences.is_empty() {
        let name = match rules_value {
            Value::String(s) => crate::text::printable(s),
            other => crate::text::printable(&other.to_string()),
        };
        warnings.push(Message::warning(
            id,
            "rules",
            format!(
                "Rules {name} not supported by ryoshi, using {} instead: {}",
                KataRules::ours().to_json(),
                differences.join(", ")
            ),
        ));
    }
    Ok(rules)
}

/// `analyzeTurns`: the turns to analyse, each at most `played` (the last by default).
fn analyze_turns(f: &Fields, played: usize) -> Result<Vec<usize>, Message> {
    let id = f.id;
    let turns = match f.input.get("analyzeTurns") {
        None => return Ok(vec![played]),
        Some(Value::Array(turns)) => turns,
        Some(_) => {
            return Err(Message::error(
                id,
                "analyzeTurns",
                "Must specify an array of integers indicating turns to analyze",
            ))
        }
    };
    let mut out = Vec::with_capacity(turns.len());
    for t in turns {
        match t.as_i64() {
            Some(n) if n >= 0 && n as usize <= played => out.push(n as usize),
            _ => {
                return Err(Message::error(
                    id,
                    "analyzeTurns",
                    format!("Invalid turn number: {t}"),
                ))
            }
        }
    }
    Ok(out)
}

/// `priority`, or `priorities` (one per turn of `analyzeTurns`, of which there are `turns`).
fn priorities(f: &Fields, turns: usize) -> Result<(i64, Option<Vec<i64>>), Message> {
    let (id, input) = (f.id, f.input);
    let limit = i64::from(i32::MAX);
    let priority = f
        .integer(
            "priority",
            -limit,
            limit,
            "Must be a number between -2^31 and 2^31",
        )?
        .unwrap_or(0);
    let priorities = match input.get("priorities") {
        None => None,
        Some(_) if input.contains_key("priority") => {
            return Err(Message::error(
                id,
                "priority",
                "Cannot specify both priority and priorities",
            ))
        }
        Some(Value::Array(list)) if input.contains_key("analyzeTurns") => {
            if list.len() != turns {
                return Err(Message::error(
                    id,
                    "priorities",
                    "Must be of matching length to analyzeTurns",
                ));
            }
            let read: Option<Vec<i64>> = list.iter().map(Value::as_i64).collect();
            Some(read.ok_or_else(|| {
                Message::error(
                    id,
                    "priorities",
                    "Must specify an array of integers indicating priorities",
                )
            })?)
        }
        Some(Value::Array(_)) => {
            return Err(Message::error(
                id,
                "priorities",
                "Can only specify when also specifying analyzeTurns",
            ))
        }
        Some(_) => {
            return Err(Message::error(
                id,
                "priorities",
                "Must specify an array of integers indicating priorities",
            ))
        }
    };
    Ok((priority, priorities))
}

/// Fields ryoshi reads but does not act on: a warning each.
fn unused_fields(f: &Fields, warnings: &mut Vec<Message>) -> Result<(), Message> {
    let (id, input) = (f.id, f.input);
    for (field, why) in NOT_COMPUTED {
        if f.boolean(field)? {
            warnings.push(Message::warning(id, field, format!("Not computed: {why}")));
        }
    }
    for field in ["rootPolicyTemperature", "rootFpuReductionMax"] {
        if input.contains_key(field) {
            f.number(field, -1e9, 1e9, "Must be a number")?;
            warnings.push(Message::warning(id, field, "Not used by ryoshi's search"));
        }
    }
    Ok(())
}

/// Fields no query has: a warning each.
fn unknown_fields(f: &Fields, warnings: &mut Vec<Message>) {
    let (id, input) = (f.id, f.input);
    for key in input.keys() {
        if !KNOWN.contains(&key.as_str()) {
            warnings.push(Message::warning(
                id,
                &crate::text::printable(key),
                "Unexpected or unused field, do you have a typo?",
            ));
        }
    }
}

/// The board with the initial stones (every block with a liberty), and the handicap they
/// make.
fn start_board(
    f: &Fields,
    size: usize,
    stones: &[(Color, Option<usize>)],
) -> Result<(Board, usize), Message> {
    let id = f.id;
    let mut board =
        Board::new(size).map_err(|e| Message::error(id, "boardXSize", e.to_string()))?;
    for &(color, point) in stones {
        let Some(p) = point else {
            return Err(Message::error(
                id,
                "initialStones",
                "Could not parse board location: pass",
            ));
        };
        board.set(p, color.cell());
    }
    if board.blocks().iter().any(|(_, _, libs)| libs.is_empty()) {
        return Err(Message::error(
            id,
            "initialStones",
            "A block of stones has no liberties",
        ));
    }
    // Black stones alone are handicap stones (two or more), as KataGo counts them.
    let black = stones.iter().filter(|(c, _)| *c == Color::Black).count();
    let handicap = if black >= 2 && black == stones.len() {
        black
    } else {
        0
    };
    Ok((board, handicap))
}

/// The moves `played` from `game`, a job (made by `job` from the turn, the position, the passes
/// just played and the priority) at each turn `wanted` gives a priority.
fn replay(
    id: &str,
    mut game: Position,
    played: &[(Color, Option<usize>)],
    wanted: &[Option<i64>],
    job: impl Fn(usize, Position, u8, i64) -> Job,
) -> Result<Vec<Job>, Message> {
    let mut jobs = Vec::new();
    let mut passes = 0u8;
    for (turn, &asked) in wanted.iter().enumerate() {
        if let Some(priority) = asked {
            let mut bare = Position::new(game.board.clone(), game.to_move);
            bare.ko = game.ko;
            jobs.push(job(turn, bare, passes, priority));
        }
        let Some(&(color, point)) = played.get(turn) else {
            break;
        };
        game.play_as(color, point).map_err(|_| {
            Message::error(
                id,
                "moves",
                format!("Illegal move {turn}: {}", format_move(&game.board, point)),
            )
        })?;
        passes = if point.is_none() {
            passes.saturating_add(1).min(2)
        } else {
            0
        };
    }
    Ok(jobs)
}
