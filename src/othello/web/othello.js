// The Othello page: a protocol client (protocol/othello.md). The board comes from `d`, the
// turned discs from `flips`, hints from `hint`, the exact endgame from `solve`.
import { Engine, errorsIn, say, sayOver, showMoves, el, attempt, freshGame, focusedSquare, gridNav, labelFrame, othelloResult, discsBy } from "/assets/engine.js";
import { attachReview } from "/assets/review.js";

const GAME = "othello";
const $ = (id) => document.getElementById(id);
const FILES = "abcdefgh";
const NAME = { b: "Black", w: "White" };
const SOLVE_EMPTIES = 20;
const S = { start: "startpos", moves: [], human: "b", board: "", side: "b", legal: [], over: null, counts: [2, 2], thinking: false, gen: 0, flips: new Set(), hints: new Map(), hover: null };

let review = null;
const engine = new Engine({
  onError: (e) => say("Engine: " + e, "error"),
  onClose: () => say("The engine connection closed. Reload the page.", "error"),
});

const signed = (n) => (n > 0 ? "+" : "") + n;
const squareName = (i) => FILES[i % 8] + (Math.floor(i / 8) + 1);

function positionCommand() {
  return `position ${S.start}${S.moves.length ? " moves " + S.moves.join(" ") : ""}`;
}

async function refresh() {
  const lines = await engine.request([positionCommand(), "d"]);
  if (!lines) return ["no engine"];
  const errors = errorsIn(lines);
  const sfen = lines.find((l) => l.startsWith("sfen "));
  const status = lines.find((l) => l.startsWith("black X "));
  const legal = lines.find((l) => l.startsWith("moves:"));
  if (!sfen || !status) return errors.length ? errors : ["no position from the engine"];
  const [, board, side] = sfen.split(/\s+/);
  S.board = board;
  S.side = side;
  S.legal = legal.slice(6).trim() ? legal.slice(6).trim().split(/\s+/) : [];
  const m = /^black X (\d+) white O (\d+), (.*)$/.exec(status);
  S.counts = [Number(m[1]), Number(m[2])];
  S.over = m[3].startsWith("game over") ? m[3].replace("game over, ", "") : null;
  S.flips = new Set();
  S.hints = new Map();
  return errors;
}

function empties() {
  return [...S.board].filter((c) => c === "-").length;
}

function render() {
  engine.nameSides(["black", "white"], S.human);
  const root = $("board");
  const focused = focusedSquare(root);
  root.replaceChildren();
  for (let i = 0; i < 64; i++) {
    const name = squareName(i);
    const c = S.board[i];
    const legal = !S.over && S.side === S.human && !S.thinking && S.legal.includes(name);
    const cell = el("button", { type: "button", class: "osq", "data-square": name, "aria-label": `${name} ${c === "X" ? "black" : c === "O" ? "white" : legal ? "legal move" : "empty"}` });
    if (legal) cell.classList.add("legal");
    if (S.flips.has(name)) cell.classList.add("flip");
    if (S.hints.has(name)) {
      // The hint's score on its square, as NBoard and eOthello show it (see the Hints panel).
      const score = S.hints.get(name);
      cell.classList.add("hint");
      cell.append(el("span", { class: "hint-score", title: `hint: ends ${score > 0 ? score + " discs ahead" : score < 0 ? -score + " discs behind" : "in a draw"} with this move` }, signed(score)));
      cell.setAttribute("aria-label", `${cell.getAttribute("aria-label")}, hint ${signed(score)}`);
    }
    if (S.moves.findLast((m) => m !== "pass") === name) cell.classList.add("last");
    if (c === "X" || c === "O") cell.append(el("span", { class: "disc " + (c === "X" ? "black" : "white") }));
    if (legal) {
      const show = () => preview(name);
      cell.addEventListener("mouseenter", show);
      cell.addEventListener("focus", show);
      cell.addEventListener("mouseleave", clearPreview);
      cell.addEventListener("blur", clearPreview);
      cell.addEventListener("click", () => play(name));
    }
    root.append(cell);
  }
  gridNav(root, 8, focused);
  labelFrame($("frame"), [...FILES], [1, 2, 3, 4, 5, 6, 7, 8]);
  root.dataset.ply = String(S.moves.length);
  root.dataset.side = S.side;
  root.dataset.over = S.over || "";
  $("counts").replaceChildren(
    el("span", { id: "count-black" }, el("span", { class: "dot black" }), `Black ${S.counts[0]}`),
    el("span", { id: "count-white" }, el("span", { class: "dot white" }), `White ${S.counts[1]}`),
    el("span", {}, `${empties()} empty`),
  );
  showMoves($("movelist"), S.moves);
  $("solve").disabled = engine.closed || !!S.over || empties() > SOLVE_EMPTIES || S.thinking;
  // A pass announced earlier is about a game going on: under the result it would mislead.
  if (S.over) $("announce").textContent = "";
  if (S.over) sayOver(othelloResult(S.board), NAME[S.human].toLowerCase(), "", ["black", "white"]);
  else if (S.thinking) say(`Engine (${NAME[S.side].toLowerCase()}) is thinking…`);
  else if (S.side === S.human) say(`Your move (${NAME[S.human].toLowerCase()}).`);
  else say(`${NAME[S.side]} to move.`);
  review?.update();
}

async function preview(name) {
  S.hover = name;
  const lines = await engine.request([`flips ${name}`]);
  if (S.hover !== name || !lines) return;
  const line = lines.find((l) => l.startsWith("flips "));
  S.flips = new Set(line ? line.split(/\s+/).slice(2) : []);
  for (const cell of $("board").children) cell.classList.toggle("flip", S.flips.has(cell.dataset.square));
}

function clearPreview() {
  S.hover = null;
  S.flips = new Set();
  for (const cell of $("board").children) cell.classList.remove("flip");
}

// A side without a move passes automatically (protocol/othello.md); the page writes the pass
// into the game as `pass` (which the engine accepts right after one), so that the move list
// shows it and its rows pair black's move with white's. The announcement stays until the
// player's next action: the engine's next move does not wipe it.
async function confirmPass(mover) {
  if (S.over || S.side !== mover) return;
  const passer = mover === "b" ? "w" : "b";
  S.moves.push("pass");
  await refresh();
  $("announce").textContent = `${NAME[passer]} has no legal move and passes; ${NAME[mover].toLowerCase()} plays again.`;
}

async function play(name) {
  if (S.thinking || S.over || S.side !== S.human) return;
  $("announce").textContent = "";
  S.hover = null;
  const mover = S.side;
  if (!(await attempt(S, () => S.moves.push(name), refresh, render))) return;
  await confirmPass(mover);
  $("hints").replaceChildren();
  $("solved").textContent = "";
  render();
  await maybeEngine();
}

async function maybeEngine() {
  while (!S.over && S.side !== S.human && !S.thinking) {
    const gen = S.gen;
    S.thinking = true;
    render();
    const best = await engine.go("movetime 450");
    S.thinking = false;
    if (gen !== S.gen || !best || best === "resign") {
      render();
      return;
    }
    const mover = S.side;
    S.moves.push(best);
    await refresh();
    await confirmPass(mover);
    render();
  }
}

async function restart(start) {
  S.gen++;
  if (S.thinking) engine.stop();
  S.hints = new Map();
  $("announce").textContent = "";
  $("hints").replaceChildren();
  $("solved").textContent = "";
  const change = () => {
    S.start = start;
    S.moves = [];
  };
  if (!(await attempt(S, change, freshGame(engine, () => refresh()), render))) return;
  review.reset();
  const given = /\s([bw])\s*$/.exec(start);
  if (given && given[1] !== S.side && !S.over) {
    S.moves.push("pass");
    await refresh();
    $("announce").textContent = `${NAME[given[1]]} has no legal move and passes.`;
  }
  render();
  await maybeEngine();
}

// Takes back your last move, with what the engine played after it (and the passes between):
// back to your turn. With no move of yours to take back (you play second and the engine has
// just opened) nothing is taken back, and the engine keeps its move (or makes it again).
async function undo() {
  S.gen++;
  if (S.thinking) engine.stop();
  // Hints and the exact result were about the position being taken back.
  $("hints").replaceChildren();
  $("solved").textContent = "";
  $("announce").textContent = "";
  const saved = S.moves.slice();
  let mine = false;
  while (S.moves.length && !mine) {
    const taken = S.moves.pop();
    await refresh();
    mine = taken !== "pass" && S.side === S.human;
  }
  if (!mine) {
    S.moves = saved;
    await refresh();
    $("announce").textContent = "Nothing of yours to take back yet.";
  }
  render();
  await maybeEngine();
}

async function hint() {
  if (S.over) return;
  const lines = await engine.request(["hint 3"]);
  const hints = (lines || []).filter((l) => l.startsWith("hint "));
  const parsed = hints.map((l) => /^hint (\S+) score (-?\d+) reason (.*)$/.exec(l)).filter(Boolean);
  S.hints = new Map(parsed.map((m) => [m[1], Number(m[2])]));
  $("hints").replaceChildren(...parsed.map((m) => el("li", { "data-move": m[1] }, el("b", {}, m[1]), ` (${signed(Number(m[2]))}): ${m[3]}`)));
  render();
}

async function solve() {
  const lines = await engine.request(["solve"]);
  const line = (lines || []).find((l) => l.startsWith("solve "));
  if (!line) return;
  const [, move, , score, , nodes, , time] = line.split(/\s+/);
  const s = Number(score);
  $("solved").textContent = `Exact: ${move} is best; with perfect play ${NAME[S.side].toLowerCase()} ${s > 0 ? "wins by " + discsBy(s) : s < 0 ? "loses by " + discsBy(-s) : "draws"} (${nodes} nodes, ${time} ms).`;
}

async function main() {
  await engine.connect();
  await engine.request(["setoption name USI_Variant value othello", "usinewgame"]);
  if (engine.resumed?.game === GAME) {
    S.start = engine.resumed.start;
    S.moves = engine.resumed.moves;
  }
  await refresh();
  // The review board: stepping shows an earlier position; playing from it is a takeback.
  const quiet = () => {
    S.gen++;
    if (S.thinking) engine.stop();
    for (const id of ["hints", "solved", "announce"]) $(id).replaceChildren();
  };
  review = attachReview({
    engine,
    S,
    game: GAME,
    jump: async (moves, atEnd) => {
      quiet();
      S.moves = moves;
      await refresh();
      render();
      if (atEnd && engine.mode !== "review") await maybeEngine();
    },
    playFrom: async () => {
      quiet();
      S.human = S.side;
      $("side").value = S.side;
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
  $("undo").onclick = undo;
  $("hint").onclick = hint;
  $("solve").onclick = solve;
  $("level").onchange = () => engine.request([`setoption name Level value ${$("level").value}`]);
  $("side").onchange = async () => {
    S.human = $("side").value;
    render();
    await maybeEngine();
  };
  $("copy").onclick = () => {
    $("sfen").value = `${S.board} ${S.side}`;
    if (navigator.clipboard) navigator.clipboard.writeText($("sfen").value).catch(() => {});
  };
  $("paste").onclick = () => {
    const text = $("sfen").value.trim().replace(/^sfen\s+/, "");
    if (!/^[XO-]{64}\s+[bw]$/.test(text)) return say("A position is 64 characters (X, O, -) and a side, b or w.", "error");
    restart("sfen " + text);
  };
}

main().catch((e) => say(String(e.message || e), "error"));
