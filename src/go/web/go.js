// The Go page: a protocol client (protocol/go.md). The board comes from `d`, the overlay from
// `benson` / `benson classic`, SGF by content through `loadsgftext`, moves from `go`, and the
// end of a game (two passes) from `score`: the area score and the dead stones. The live analysis
// is a `go movetime` of a minute (many tabs share the server's cores) with `GoAnalysis` on: its `info string analysis ...` lines (KataGo's
// kata-analyze form) give the candidate moves with their win rates and the ownership.
import { Engine, errorsIn, say, el, attempt, goScore } from "/assets/engine.js";
import { drawGo } from "/assets/goboard.js";
import { attachReview, loadedGame } from "/assets/review.js";

const GAME = "go";
const $ = (id) => document.getElementById(id);
const S = { start: "", moves: [], size: 9, rows: [], side: "b", marks: [], thinking: false, gen: 0, result: null, analysis: null, analysing: null };
const KOMI = 7.5;
// The live analysis of one position runs until a move or for this long, whichever comes first.
const ANALYSIS_MS = 60000;

let review = null;
const engine = new Engine({
  onError: (e) => say("Engine: " + e, "error"),
  onClose: () => say("The engine connection closed. Reload the page.", "error"),
});

const empty = (n) => `sfen ${n} ${Array(n).fill(".".repeat(n)).join("/")} b`;

function positionCommand() {
  return `position ${S.start}${S.moves.length ? " moves " + S.moves.join(" ") : ""}`;
}

function readPosition(lines) {
  const sfen = lines.find((l) => l.startsWith("sfen "));
  if (!sfen) return false;
  const [, size, rows, side] = sfen.split(/\s+/);
  S.size = Number(size);
  S.rows = rows.split("/");
  S.side = side;
  return true;
}

// Reads the position (and the overlay) back from the engine; returns its error lines.
async function refresh() {
  const overlay = $("overlay").value;
  const lines = await engine.request([positionCommand(), "d", ...(overlay === "none" ? [] : [overlay])]);
  if (!lines) return ["no engine"];
  const errors = errorsIn(lines);
  if (!readPosition(lines)) return errors.length ? errors : ["no position from the engine"];
  S.marks = [];
  S.result = null;
  if (over()) {
    // The game is over: the score and the dead stones, judged by the session (`score`).
    S.result = goScore(await engine.request(["score " + KOMI]));
  }
  for (const l of lines) {
    const m = /^(alive|dead|territory) ([bw])(?: (.*))?$/.exec(l);
    if (m) for (const v of (m[3] || "").split(" ").filter(Boolean)) S.marks.push({ vertex: v, kind: m[1], color: m[2] });
  }
  const count = (k, c) => S.marks.filter((m) => m.kind === k && m.color === c).length;
  const dead = (c) => S.result.dead.filter((m) => m.color === c).length;
  // At the end the board shows the score's dead stones, not the overlay: the text says so.
  $("overlay-text").textContent = S.result
    ? `At the end (the score's judgement): black ${dead("b")} dead, white ${dead("w")} dead.`
    : overlay === "none"
      ? ""
      : `black: ${count("alive", "b")} alive, ${count("dead", "b")} dead, ${count("territory", "b")} territory · white: ${count("alive", "w")} alive, ${count("dead", "w")} dead, ${count("territory", "w")} territory`;
  return errors;
}

function over() {
  const n = S.moves.length;
  return n >= 2 && S.moves[n - 1] === "pass" && S.moves[n - 2] === "pass";
}

// Who moves after `n` moves from the start position (passes are moves in Go).
function sideAfter(n) {
  const first = S.start.trim().split(/\s+/).pop() === "w" ? "w" : "b";
  return n % 2 === 0 ? first : first === "b" ? "w" : "b";
}

// Stones each colour has captured: the opponent's stones placed (start position and moves) that
// are no longer on the board.
function captures() {
  const startRows = S.start.split(/\s+/)[2] || "";
  const onBoard = (rows, ch) => [...rows].filter((c) => c === ch).length;
  const placed = { b: onBoard(startRows, "X"), w: onBoard(startRows, "O") };
  S.moves.forEach((m, i) => {
    if (m !== "pass") placed[sideAfter(i)]++;
  });
  const now = S.rows.join("");
  return { b: placed.w - onBoard(now, "O"), w: placed.b - onBoard(now, "X") };
}

// `info string analysis info move D4 visits 12 winrate 0.53 ... pv D4 E5 info move ... ownership
// 0.1 ...`: the moves (win rate of the side to move) and the ownership turned to black's view.
export function parseAnalysis(line, side) {
  const words = line.replace(/^info string analysis\s+/, "").split(/\s+/);
  const moves = [];
  let ownership = null;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "info" && words[i + 1] === "move") {
      moves.push({ vertex: words[i + 2] });
      i += 2;
    } else if (words[i] === "ownership") {
      ownership = words.slice(i + 1).map(Number).map((o) => (side === "b" ? o : -o));
      break;
    } else if (["visits", "winrate", "scoreLead"].includes(words[i]) && moves.length) {
      moves[moves.length - 1][words[i]] = Number(words[i + 1]);
      i++;
    }
  }
  return { moves: moves.filter((m) => m.vertex !== "pass" && m.visits > 0).slice(0, 8), ownership };
}

// Runs the live analysis while it is on and the position waits for a move (a minute at most);
// every second a new picture. `stopAnalysis` ends it (before anything else is asked of the engine).
async function startAnalysis() {
  if (!$("analyze").checked || S.analysing || S.thinking || over() || engine.closed) return;
  const gen = S.gen;
  const side = S.side;
  S.analysing = engine.go(`movetime ${ANALYSIS_MS}`, (line) => {
    if (gen !== S.gen || !line.startsWith("info string analysis ")) return;
    S.analysis = parseAnalysis(line, side);
    render();
  });
  const running = S.analysing;
  await running;
  if (S.analysing === running) S.analysing = null;
}

async function stopAnalysis() {
  const running = S.analysing;
  if (running) {
    engine.stop();
    await running;
    S.analysing = null;
  }
  S.gen++;
  S.analysis = null;
}

function analysisText() {
  const a = S.analysis;
  if (!a || !a.moves.length) return $("analyze").checked && !over() ? "Analysing…" : "";
  const best = a.moves[0];
  const mover = S.side === "b" ? "Black" : "White";
  const lead = best.scoreLead;
  const who = lead >= 0 ? mover : mover === "Black" ? "White" : "Black";
  return `Best for ${mover.toLowerCase()}: ${best.vertex}, ${Math.round(best.winrate * 100)}% to win (${best.visits} playouts)` +
    (Number.isFinite(lead) ? `; ${who} leads by about ${Math.abs(lead).toFixed(1)} points.` : ".");
}

const human = () => $("colour").value;
const againstEngine = () => $("opponent").value === "engine";
const engineTurn = () => againstEngine() && !over() && S.side !== human();

function render() {
  engine.nameSides(["black", "white"], againstEngine() ? human() : "bw");
  const marks = S.result ? S.result.dead : S.marks;
  drawGo($("board"), { size: S.size, rows: S.rows, marks, last: S.moves[S.moves.length - 1], onPoint: play, analysis: S.analysis });
  $("analysis-text").textContent = analysisText();
  const board = $("board");
  board.dataset.ply = String(S.moves.length);
  board.dataset.side = S.side;
  board.dataset.score = S.result ? S.result.score : "";
  const taken = captures();
  board.dataset.captures = `${taken.b} ${taken.w}`;
  $("captures").textContent = `Captures: black ${taken.b}, white ${taken.w}`;
  $("movelist").replaceChildren(...S.moves.map((m) => el("li", {}, m)));
  if (S.result) say(`Game over: ${S.result.text}`, "over");
  else if (over()) say("Both players passed: the game is over.", "over");
  else if (S.thinking) say("Engine is thinking…");
  else say(`${S.side === "b" ? "Black" : "White"} to move. Click a point to place a stone.`);
  review?.update();
}

async function play(vertex) {
  if (S.thinking || S.busy || over()) return;
  await stopAnalysis();
  if (!(await attempt(S, () => S.moves.push(vertex), refresh, render))) return startAnalysis();
  render();
  // The engine answers every move of yours, a pass too (two passes end the game).
  if (engineTurn()) await genmove();
  else startAnalysis();
}

async function genmove() {
  if (S.thinking || over()) return;
  await stopAnalysis();
  const gen = S.gen;
  S.thinking = true;
  render();
  const best = await engine.go("movetime 450");
  S.thinking = false;
  if (gen !== S.gen || !best || best === "resign") return render();
  S.moves.push(best);
  await refresh();
  render();
  startAnalysis();
}

async function restart(start) {
  await stopAnalysis();
  await engine.newGame();
  S.start = start;
  S.moves = [];
  await refresh();
  review.reset();
  render();
  // Playing white against the engine: it opens.
  if (engineTurn()) await genmove();
  else startAnalysis();
}

// Takes back moves until it is your turn again (with the engine answering: its reply and your
// move), as OGS and Sabaki do.
async function undo() {
  if (S.thinking || !S.moves.length) return;
  await stopAnalysis();
  S.moves.pop();
  if (againstEngine() && S.moves.length && sideAfter(S.moves.length) !== human()) S.moves.pop();
  await refresh();
  render();
  startAnalysis();
}

async function loadSgf() {
  const text = $("sgf").value.trim();
  if (!text) return say("Paste an SGF first.", "error");
  await stopAnalysis();
  // The protocol is line based; SGF treats line breaks as white space outside values.
  const lines = await engine.request([`loadsgftext ${text.replace(/\s*[\r\n]+\s*/g, " ")}`, "d"]);
  const errors = errorsIn(lines || []);
  if (errors.length) {
    await refresh();
    render();
    return say("SGF refused: " + errors.join("; "), "error");
  }
  readPosition(lines);
  // The whole game, to step through (the server reads the record back); else its last position.
  const loaded = loadedGame(lines);
  S.start = loaded ? loaded.start : `sfen ${S.size} ${S.rows.join("/")} ${S.side}`;
  S.moves = loaded ? loaded.moves : [];
  $("size").value = String(S.size);
  await refresh();
  review.reset();
  render();
  say(`SGF loaded (${S.size}×${S.size}); ${S.side === "b" ? "black" : "white"} to move.`);
  startAnalysis();
}

async function main() {
  await engine.connect();
  await engine.request(["setoption name USI_Variant value go", "setoption name GoAnalysis value true", "usinewgame"]);
  S.start = empty(9);
  if (engine.resumed?.game === GAME) {
    S.start = engine.resumed.start;
    S.moves = engine.resumed.moves;
  }
  await refresh();
  // The review board: stepping shows an earlier position; playing from it is a takeback.
  const quiet = async () => {
    S.gen++;
    if (S.thinking) engine.stop();
    await stopAnalysis();
  };
  review = attachReview({
    engine,
    S,
    game: GAME,
    beforeGraph: stopAnalysis,
    jump: async (moves) => {
      await quiet();
      S.moves = moves;
      await refresh();
      render();
      // The live analysis follows the board, but never holds up the graph's searches.
      if (!review.computing()) startAnalysis();
    },
    playFrom: async () => {
      await quiet();
      $("colour").value = S.side;
      $("auto").checked = true;
      render();
    },
    load: async (start, moves) => {
      await quiet();
      S.start = start;
      S.moves = moves;
      await refresh();
      $("size").value = String(S.size);
      review.reset();
      render();
    },
  });
  render();
  $("size").onchange = () => restart(empty(Number($("size").value)));
  $("new").onclick = () => restart(empty(Number($("size").value)));
  $("undo").onclick = undo;
  $("colour").onchange = () => restart(empty(Number($("size").value)));
  $("opponent").onchange = async () => {
    if (engineTurn()) await genmove();
  };
  $("analyze").onchange = async () => {
    if ($("analyze").checked) startAnalysis();
    else {
      await stopAnalysis();
      render();
    }
  };
  $("pass").onclick = () => play("pass");
  $("genmove").onclick = genmove;
  $("overlay").onchange = async () => {
    await stopAnalysis();
    await refresh();
    render();
    startAnalysis();
  };
  $("load").onclick = loadSgf;
}

main().catch((e) => say(String(e.message || e), "error"));
