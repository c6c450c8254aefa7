// The quantum shogi page: a protocol client. The board is redrawn from `d`'s QSFEN after every
// action, the clickable squares come from `moves`, the engine's reply from `go movetime`.
import { Engine, parseInfo, errorsIn, say, sayOver, attempt, freshGame, cancelPromotion } from "/assets/engine.js";
import { attachReview } from "/assets/review.js";
import { parseQsfen, drawBoard, indexMoves, candsBySquare, narrowed, kingWarning, captureText, rememberPosition, showActions, pieceClicks, narrowingText } from "/assets/qboard.js";

const GAME = "quantumshogi";
const $ = (id) => document.getElementById(id);
const NAME = { b: "sente", w: "gote" };
const S = {
  start: "startpos",
  moves: [],
  human: "b",
  flipped: false,
  demo: false,
  pos: null,
  sfen: "",
  legal: [],
  idx: { byFrom: new Map(), drops: new Map() },
  selected: null,
  selectedOwner: null,
  targets: new Set(),
  narrowed: new Set(),
  attacked: new Set(),
  over: null,
  thinking: false,
  gen: 0,
  info: null,
};

let review = null;
// The positions shown so far, to write the move list in words (qboard.js's `actionText`).
const seen = new Map();
// ☗/☖ for the mover of move `i`, counted from the position shown (a reloaded game's start was
// never shown).
const mark = (i) => (((S.moves.length - i) % 2 === 0) === (S.pos.side === "b") ? "☗" : "☖");
const engine = new Engine({
  onError: (e) => say("Engine: " + e, "error"),
  onClose: (ev) => say("The engine connection closed" + (ev.reason ? ": " + ev.reason : "") + ". Reload the page.", "error"),
});

function positionCommand() {
  return `position ${S.start}${S.moves.length ? " moves " + S.moves.join(" ") : ""}`;
}

// Reads the position back from the engine; returns its error lines (none when all went well).
async function refresh(move) {
  const lines = await engine.request([positionCommand(), "d", "moves"]);
  if (!lines) return ["no engine"];
  const errors = errorsIn(lines);
  const at = lines.findIndex((l) => l.startsWith("sfen "));
  if (at < 0) return errors.length ? errors : ["no position from the engine"];
  const before = S.pos && move ? candsBySquare(S.pos) : null;
  S.sfen = lines[at].slice(5);
  S.pos = parseQsfen(S.sfen);
  rememberPosition(seen, S.start, S.moves, S.pos);
  const list = (lines[at + 1] || "").trim();
  S.legal = list ? list.split(/\s+/) : [];
  S.idx = indexMoves(S.legal);
  S.narrowed = before ? narrowed(before, candsBySquare(S.pos), move) : new Set();
  // Where the opponent could take the mover's king (the engine's own answer, `king attacked:`).
  const attacked = lines.find((l) => l.startsWith("king attacked: "));
  S.attacked = new Set(attacked ? attacked.slice(15).trim().split(/\s+/) : []);
  const winner = lines.find((l) => l.startsWith("winner: "));
  S.over = winner
    ? `${winner[8] === "b" ? "Sente" : "Gote"} wins by king capture`
    : S.legal.length === 0
      ? `${NAME[S.pos.side]} has no legal action and loses`
      : null;
  return errors;
}

function humanToMove() {
  return !S.demo && !S.over && S.pos && S.pos.side === S.human && !S.thinking;
}

const { onSquare, onHand, clearSelection } = pieceClicks(S, { canMove: humanToMove, play, render });

function render() {
  if (!S.pos) return;
  engine.nameSides(["sente", "gote"], S.demo ? "" : S.human);
  const top = S.flipped ? "b" : "w";
  drawBoard($("board"), { [top]: $("hand-top"), [top === "b" ? "w" : "b"]: $("hand-bottom") }, S.pos, {
    flipped: S.flipped,
    selected: S.selected,
    selectedOwner: S.selectedOwner,
    targets: S.targets,
    narrowed: S.narrowed,
    attacked: S.over ? new Set() : S.attacked,
    last: S.moves[S.moves.length - 1],
    onSquare,
    onHand,
  });
  if (S.info) showAnalysis();
  const board = $("board");
  board.dataset.ply = String(S.moves.length);
  board.dataset.side = S.pos.side;
  board.dataset.over = S.over || "";
  showActions($("movelist"), S.start, S.moves, mark, seen);
  $("explained").textContent = "";
  $("explain").disabled = !S.moves.length;
  if (S.over) sayOver(S.over, S.demo ? "spectator" : NAME[S.human], S.over.endsWith("king capture") ? captureText(S.pos, S.moves[S.moves.length - 1]) : "", ["sente", "gote"]);
  else if (S.thinking) say(`Engine (${NAME[S.pos.side]}) is thinking…`);
  else if (S.demo) say("Engine vs engine");
  else if (humanToMove() && S.attacked.size) say(kingWarning(S.pos, S.attacked), "warn");
  else if (humanToMove()) say(`Your move (${NAME[S.human]}). Click a piece, then a highlighted square.`);
  else say(`${NAME[S.pos.side]} to move`);
  review?.update();
  fillPositions();
}

// The positions of the move list the page has not shown (a reloaded game, a loaded record), read
// from the session one at a time, between the page's own requests and ending with its position
// again, so that every move is written in words. Bounded by the game: at most one request per
// move, and none for a game of more than 1000.
let filling = false;
async function fillPositions() {
  if (filling || !review) return;
  filling = true;
  try {
    for (;;) {
      const start = S.start;
      const line = review.line().slice();
      const keys = [start];
      for (const m of line) keys.push(`${keys.at(-1)} ${m}`);
      const k = keys.findIndex((key) => !seen.has(key));
      if (k < 0 || line.length > 1000) return;
      const seenLines = [];
      const got = await engine.enqueue(
        () => {
          for (const l of [`position ${start}${k ? " moves " + line.slice(0, k).join(" ") : ""}`, "d", positionCommand(), "isready"]) engine.send(l);
        },
        (l) => (l === "readyok" ? seenLines : (seenLines.push(l), undefined)),
      );
      const sfen = (got || []).find((l) => l.startsWith("sfen "));
      if (!sfen || errorsIn(got).length) return;
      rememberPosition(seen, start, line.slice(0, k), parseQsfen(sfen.slice(5)));
      review.update();
    }
  } finally {
    filling = false;
  }
}

async function play(move) {
  clearSelection();
  S.movedAt = performance.now();
  if (!(await attempt(S, () => S.moves.push(move), () => refresh(move), render))) return false;
  render();
  await maybeEngine();
  return true;
}

async function maybeEngine() {
  while (!S.over && S.pos && (S.demo || S.pos.side !== S.human) && !S.thinking) {
    const gen = S.gen;
    S.thinking = true;
    render();
    // Lines of a search the page has moved on from (take back, new game) are not shown.
    const best = await engine.go(`movetime ${$("time").value}`, (line) => gen === S.gen && showInfo(line));
    S.thinking = false;
    if (gen !== S.gen || best === null) {
      render();
      return;
    }
    if (!best || best === "resign") {
      S.over = `${NAME[S.pos.side]} resigns`;
      render();
      return;
    }
    S.moves.push(best);
    const errors = await refresh(best);
    render();
    // Click to reply on the board, for the tests and the curious.
    if (S.movedAt) $("board").dataset.replyMs = String(Math.round(performance.now() - S.movedAt));
    S.movedAt = null;
    if (errors.length) return;
  }
}

// The engine's score is for the side to move; the panel always shows it from sente's side, so
// that it does not flip sign from one move to the next. A proved king capture (`mate N`, N plies,
// negative when the side to move's king falls) names the side that captures.
function scoreText(info, side) {
  const toMove = side === "b";
  if (info.scoreKind === "cp") {
    const sente = toMove ? info.score : -info.score;
    return `${sente > 0 ? "+" : ""}${sente} cp (for sente)`;
  }
  if (info.scoreKind === "mate") {
    const plies = Math.abs(info.score);
    const moverWins = !(info.score < 0 || Object.is(info.score, -0));
    const winner = moverWins === toMove ? "Sente" : "Gote";
    return `${winner} takes the king in ${plies} ${plies === 1 ? "ply" : "plies"}`;
  }
  return "–";
}

function showInfo(line) {
  const info = parseInfo(line);
  if (info.depth === undefined) return;
  S.info = { info, side: S.pos.side };
  showAnalysis();
}

// The engine's score and plan (its PV holds your best reply too) would play the game for you:
// hidden while you play against it, shown once the game is over and in Engine vs engine. The
// depth and the nodes show that it thinks.
function planHidden() {
  return !S.demo && !S.over;
}

function showAnalysis() {
  if (!S.info) return clearAnalysis();
  const { info, side } = S.info;
  const hidden = planHidden();
  $("a-depth").textContent = `${info.depth}${info.seldepth ? "/" + info.seldepth : ""}`;
  $("a-score").textContent = hidden ? "hidden while you play" : scoreText(info, side);
  $("a-nodes").textContent = `${info.nodes ?? "–"}${info.nps ? ` (${info.nps} nps)` : ""}`;
  $("a-pv").textContent = hidden ? "hidden while you play" : (info.pv || []).join(" ") || "–";
  $("analysis").dataset.hidden = String(hidden);
}

// The analysis panel belongs to one position: emptied when the game changes under it.
function clearAnalysis() {
  S.info = null;
  for (const id of ["a-depth", "a-score", "a-nodes", "a-pv"]) $(id).textContent = "–";
}

async function restart(start) {
  S.gen++;
  if (S.thinking) engine.stop();
  cancelPromotion();
  clearSelection();
  clearAnalysis();
  const change = () => {
    S.start = start;
    S.moves = [];
  };
  if (!(await attempt(S, change, freshGame(engine, () => refresh()), render))) return;
  review.reset();
  render();
  await maybeEngine();
}

// Stops whatever the page was doing (the engine's search, the demo, a half-made move, the
// analysis) before the game is taken back or stepped through.
function quiet() {
  S.gen++;
  if (S.thinking) engine.stop();
  S.demo = false;
  $("demo").setAttribute("aria-pressed", "false");
  cancelPromotion();
  clearSelection();
  clearAnalysis();
}

// Takes back your last move and the engine's reply: back to your turn. With no move of yours
// to take back (you play gote and the engine has just opened) nothing is taken back, and the
// engine keeps its move (or makes it again).
async function takeBack() {
  quiet();
  const saved = S.moves.slice();
  let mine = false;
  while (S.moves.length && !mine) {
    S.moves.pop();
    await refresh();
    mine = S.pos.side === S.human;
  }
  if (!mine) {
    S.moves = saved;
    await refresh();
  }
  render();
  if (!mine) say("Nothing of yours to take back yet.");
  await maybeEngine();
}

async function main() {
  await engine.connect();
  await engine.request(["usinewgame"]);
  if (engine.resumed?.game === GAME) {
    S.start = engine.resumed.start;
    S.moves = engine.resumed.moves;
  }
  await refresh();
  // The review board: stepping shows an earlier position; playing from it is a takeback.
  review = attachReview({
    engine,
    S,
    game: GAME,
    showList: (list, moves) => showActions(list, S.start, moves, mark, seen),
    jump: async (moves, atEnd) => {
      quiet();
      S.moves = moves;
      await refresh();
      render();
      if (atEnd && engine.mode !== "review") await maybeEngine();
    },
    playFrom: async () => {
      quiet();
      S.human = S.pos.side;
      $("side").value = S.human;
      render();
    },
    load: async (start, moves) => {
      quiet();
      S.start = start;
      S.moves = moves;
      await refresh();
      review.reset();
      render();
    },
  });
  render();
  // Reloaded in the middle of its game while the engine was to move: it moves now (a game
  // opened for review waits for the player).
  if (engine.resumed?.game === GAME && engine.mode === "game") maybeEngine();
  $("new").onclick = () => restart("startpos");
  // On request: why the last move narrowed the pieces it did (the moved one and the others).
  $("explain").onclick = () => {
    const n = S.moves.length;
    const at = (k) => seen.get([S.start, ...S.moves.slice(0, k)].join(" "));
    if (!n || !at(n - 1) || !at(n)) return;
    $("explained").textContent = narrowingText(S.moves[n - 1], at(n - 1), at(n), mark(n - 1));
  };
  $("takeback").onclick = takeBack;
  $("flip").onclick = () => {
    S.flipped = !S.flipped;
    render();
  };
  $("demo").onclick = async () => {
    S.demo = !S.demo;
    $("demo").setAttribute("aria-pressed", String(S.demo));
    render();
    await maybeEngine();
  };
  $("side").onchange = async () => {
    S.human = $("side").value;
    S.flipped = S.human === "w";
    clearSelection();
    render();
    await maybeEngine();
  };
  $("strategy").onchange = () => engine.request([`setoption name Strategy value ${$("strategy").value}`]);
  $("nifu").onchange = async () => {
    await engine.request([`setoption name KakuteiNifu value ${$("nifu").checked}`]);
    await refresh();
    render();
  };
  $("copy").onclick = () => {
    $("qsfen").value = S.sfen;
    if (navigator.clipboard) navigator.clipboard.writeText(S.sfen).catch(() => {});
  };
  $("paste").onclick = () => {
    const text = $("qsfen").value.trim().replace(/^sfen\s+/, "");
    if (!text) return say("Paste a QSFEN first.", "error");
    if (/[\r\n]/.test(text)) return say("A QSFEN is one line.", "error");
    restart("sfen " + text);
  };
}

main().catch((e) => say(String(e.message || e), "error"));
