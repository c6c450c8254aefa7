// The puzzle page: a protocol client like the quantum shogi page. The puzzles come from
// /puzzles.txt (data/puzzles/quantum.txt, compiled into the server); the board is redrawn from
// `d` after every action, the clickable squares come from `moves`, and every move of the solver
// is judged by the engine's `defend <plies>` (protocol/quantum.md): the defender's longest
// resistance when the move still forces the capture in time, else the reply that refutes it.
import { Engine, errorsIn, say, attempt, cancelPromotion, el } from "/assets/engine.js";
import { parseQsfen, drawBoard, indexMoves, candsBySquare, narrowed, rememberPosition, showActions, pieceClicks, movesText } from "/assets/qboard.js";

const $ = (id) => document.getElementById(id);
const NAME = { b: "sente", w: "gote" };
const MARK = { b: "☗", w: "☖" };
const STORE = "ryoshi.puzzles.v1";
// The positions shown, for the move list in words (qboard.js `actionText`).
const seen = new Map();
const S = {
  puzzles: [],
  index: 0,
  start: "",
  moves: [],
  pos: null,
  legal: [],
  idx: { byFrom: new Map(), drops: new Map() },
  selected: null,
  selectedOwner: null,
  targets: new Set(),
  narrowed: new Set(),
  // "play" (the solver's turn), "wait" (the engine judges), "solved", "failed", "answer".
  state: "play",
  // Plies left for the capture, the solver's next action included.
  left: 0,
  winner: null,
  gen: 0,
};

const engine = new Engine({
  onError: (e) => say("Engine: " + e, "error"),
  onClose: () => {},
});

// Progress in this browser: the solved puzzles by position, the ones failed at least once,
// and the last one open.
function loadProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(STORE) || "{}");
    return { solved: p.solved || {}, failed: p.failed || {}, last: p.last || null };
  } catch {
    return { solved: {}, failed: {}, last: null };
  }
}
let progress = loadProgress();
function saveProgress() {
  try {
    localStorage.setItem(STORE, JSON.stringify(progress));
  } catch {
    // Storage full or refused: the page still works, it only forgets.
  }
}

// `qsfen | length | first | line | uncertain` lines; `#` lines are comments.
function parsePuzzles(text) {
  const out = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const f = line.split("|").map((s) => s.trim());
    if (f.length !== 5) continue;
    out.push({ qsfen: f[0], length: Number(f[1]), first: f[2], line: f[3].split(/\s+/), uncertain: Number(f[4]) });
  }
  return out;
}

const puzzle = () => S.puzzles[S.index];
const attacker = () => puzzle().qsfen.split(/\s+/)[1];
// ☗/☖ for ply `i` of the puzzle (the attacker moves first).
const markOf = (i) => MARK[i % 2 === 0 ? attacker() : attacker() === "b" ? "w" : "b"];
// Ply `i` of `moves` (the game shown by default) in the page's words (`☗7g→7f`, qboard.js).
const words = (i, moves = S.moves) => movesText(S.start, moves, i, markOf(i), seen);

function positionCommand() {
  return `position ${S.start}${S.moves.length ? " moves " + S.moves.join(" ") : ""}`;
}

async function refresh(move) {
  const lines = await engine.request([positionCommand(), "d", "moves"]);
  if (!lines) return ["no engine"];
  const errors = errorsIn(lines);
  const at = lines.findIndex((l) => l.startsWith("sfen "));
  if (at < 0) return errors.length ? errors : ["no position from the engine"];
  const before = S.pos && move ? candsBySquare(S.pos) : null;
  S.pos = parseQsfen(lines[at].slice(5));
  rememberPosition(seen, S.start, S.moves, S.pos);
  const list = (lines[at + 1] || "").trim();
  S.legal = list ? list.split(/\s+/) : [];
  S.idx = indexMoves(S.legal);
  S.narrowed = before ? narrowed(before, candsBySquare(S.pos), move) : new Set();
  const winner = lines.find((l) => l.startsWith("winner: "));
  S.winner = winner ? winner[8] : null;
  return errors;
}

const { onSquare, onHand, clearSelection } = pieceClicks(S, {
  canMove: () => S.state === "play" && !!S.pos && S.pos.side === attacker(),
  play,
  render,
});

function taskText() {
  const p = puzzle();
  const side = attacker();
  const grade = `${p.length} ${p.length === 1 ? "ply" : "plies"} · ${p.uncertain} uncertain ${p.uncertain === 1 ? "piece" : "pieces"}`;
  const section = p.uncertain === 0 ? " · every piece certain" : "";
  return `${MARK[side]} ${NAME[side][0].toUpperCase() + NAME[side].slice(1)} to move: capture the king in ${p.length} (${grade}${section})`;
}

function render() {
  if (!S.pos) return;
  const flipped = attacker() === "w";
  const top = flipped ? "b" : "w";
  drawBoard($("board"), { [top]: $("hand-top"), [top === "b" ? "w" : "b"]: $("hand-bottom") }, S.pos, {
    flipped,
    selected: S.selected,
    selectedOwner: S.selectedOwner,
    targets: S.targets,
    narrowed: S.narrowed,
    last: S.moves[S.moves.length - 1],
    onSquare,
    onHand,
  });
  const board = $("board");
  board.dataset.ply = String(S.moves.length);
  board.dataset.state = S.state;
  board.dataset.left = String(S.left);
  board.dataset.puzzle = String(S.index);
  $("task").textContent = taskText();
  showActions($("movelist"), S.start, S.moves, markOf, seen);
  renderProgress();
}

function renderProgress() {
  const solved = S.puzzles.filter((p) => progress.solved[p.qsfen]).length;
  $("progress").textContent = `Solved ${solved} of ${S.puzzles.length} in this browser.`;
  const pick = $("pick");
  for (const opt of pick.options) {
    const i = Number(opt.value);
    const p = S.puzzles[i];
    const mark = progress.solved[p.qsfen] ? " ✓" : progress.failed[p.qsfen] ? " ✗" : "";
    const text = `#${i + 1} · in ${p.length} · ${p.uncertain} uncertain${mark}`;
    if (opt.textContent !== text) opt.textContent = text;
  }
  pick.value = String(S.index);
}

async function open(index) {
  S.gen++;
  cancelPromotion();
  clearSelection();
  S.index = Math.max(0, Math.min(index, S.puzzles.length - 1));
  progress.last = puzzle().qsfen;
  saveProgress();
  S.start = "sfen " + puzzle().qsfen;
  S.moves = [];
  S.left = puzzle().length;
  S.state = "play";
  S.pos = null;
  const errors = await refresh();
  if (errors.length) {
    say("Refused: " + errors.join("; "), "error");
    return;
  }
  render();
  say("Your move. Click a piece, then a highlighted square.");
}

function solved() {
  S.state = "solved";
  progress.solved[puzzle().qsfen] = true;
  saveProgress();
  render();
  say(`Solved: the king is captured in ${S.moves.length} ${S.moves.length === 1 ? "ply" : "plies"}.`, "won");
}

// The solver played `move`: read the position back, then let the engine judge and answer.
async function play(move) {
  clearSelection();
  const gen = S.gen;
  if (!(await attempt(S, () => S.moves.push(move), () => refresh(move), render))) return;
  if (S.winner === attacker()) return solved();
  S.state = "wait";
  render();
  say("The defender thinks…");
  const lines = await engine.request([positionCommand(), `defend ${S.left - 1}`]);
  if (gen !== S.gen || !lines) return;
  const answer = (lines.find((l) => l.startsWith("defence ")) || "").split(/\s+/);
  if (answer[1] === "none") return solved();
  if (answer[1] === "timeout" || answer.length < 3) {
    S.moves.pop();
    await refresh();
    S.state = "play";
    render();
    say("The engine ran out of time judging that move; try it again or another one.", "error");
    return;
  }
  const reply = answer[1];
  S.moves.push(reply);
  await refresh(reply);
  if (gen !== S.gen) return;
  if (answer[2] === "mate") {
    S.left = Number(answer[3]);
    S.state = "play";
    render();
    say(`Good. The defence ${words(S.moves.length - 1)}: capture the king in ${S.left} more ${S.left === 1 ? "ply" : "plies"}.`);
    return;
  }
  S.state = "failed";
  if (!progress.solved[puzzle().qsfen]) progress.failed[puzzle().qsfen] = true;
  saveProgress();
  render();
  const why = S.winner && S.winner !== attacker() ? "it takes your king" : "no capture is forced in time";
  const n = S.moves.length;
  say(`${words(n - 2)} does not work: ${words(n - 1)} refutes it (${why}). Try again, or see the answer.`, "lost");
}

// Plays the main line from the start, one action a second.
async function showAnswer() {
  await open(S.index);
  const gen = S.gen;
  S.state = "answer";
  const line = puzzle().line;
  const answer = () => line.map((_, i) => words(i, line)).join(", ");
  say(`The answer: ${answer()}`);
  for (const move of line) {
    await new Promise((r) => setTimeout(r, 700));
    if (gen !== S.gen) return;
    S.moves.push(move);
    await refresh(move);
    render();
  }
  say(`The answer: ${answer()}. Try the next one.`);
}

function nextUnsolved() {
  const n = S.puzzles.length;
  for (let k = 1; k <= n; k++) {
    const i = (S.index + k) % n;
    if (!progress.solved[S.puzzles[i].qsfen]) return open(i);
  }
  return open((S.index + 1) % n);
}

async function main() {
  const response = await fetch("/puzzles.txt");
  S.puzzles = parsePuzzles(await response.text());
  if (!S.puzzles.length) return say("No puzzles were found.", "error");
  // Two sections, as the file orders them: puzzles with uncertain pieces (easiest first), then
  // those whose every piece is certain (plain shogi).
  const pick = $("pick");
  const groups = [el("optgroup", { label: "Quantum: with uncertain pieces" }), el("optgroup", { label: "Every piece certain (plain shogi)" })];
  S.puzzles.forEach((p, i) => groups[p.uncertain === 0 ? 1 : 0].append(new Option(`#${i + 1}`, String(i))));
  pick.append(...groups.filter((g) => g.children.length));
  await engine.connect();
  await engine.request(["usinewgame"]);
  // A puzzle can be linked: /puzzle#12 opens the twelfth.
  const fromHash = Number(location.hash.slice(1)) - 1;
  const last = S.puzzles.findIndex((p) => p.qsfen === progress.last);
  const first = S.puzzles.findIndex((p) => !progress.solved[p.qsfen]);
  await open(Number.isInteger(fromHash) && fromHash >= 0 ? fromHash : last >= 0 ? last : Math.max(first, 0));
  pick.onchange = () => open(Number(pick.value));
  $("prev").onclick = () => open(S.index - 1);
  $("next").onclick = nextUnsolved;
  $("retry").onclick = () => open(S.index);
  $("answer").onclick = showAnswer;
}

main().catch((e) => say(String(e.message || e), "error"));
