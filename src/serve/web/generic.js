// The page of a game without one of its own (protocol/serve.md, "The generic page"): the engine's
// `d` drawn by lines.js, moves clicked where the lines give coordinates or typed, the engine
// answering for the other side. The game and its players' names come from the server (the
// registry), on the page's body. The sides alternate from the game's start.
import { Engine, errorsIn, say, sayOver, showMoves, attempt, freshGame, el } from "/assets/engine.js";
import { drawLines } from "/assets/lines.js";

const $ = (id) => document.getElementById(id);
const GAME = document.body.dataset.game;
const PLAYERS = document.body.dataset.players.split(" ");
const S = { start: "startpos", moves: [], lines: [], legal: [], human: 0, thinking: false, gen: 0, over: null };

const engine = new Engine({ onError: (e) => say("Engine: " + e, "error") });

const turn = () => S.moves.length % 2;

function positionCommand() {
  return `position ${S.start}${S.moves.length ? " moves " + S.moves.join(" ") : ""}`;
}

// `d`'s lines up to `sfen ...`, then `moves`' one line: the board, and the legal moves (none: the
// game is over, and `d`'s lines say how).
async function refresh() {
  const lines = await engine.request([positionCommand(), "d", "moves"]);
  if (!lines) return ["no engine"];
  const errors = errorsIn(lines);
  const shown = lines.filter((l) => !l.startsWith("info "));
  const at = shown.findIndex((l) => l.startsWith("sfen "));
  if (at < 0) return errors.length ? errors : ["no position from the engine"];
  S.lines = shown.slice(0, at);
  const legal = (shown[at + 1] || "").trim();
  S.legal = legal ? legal.split(/\s+/) : [];
  S.over = S.legal.length ? null : S.lines.at(-1) || "no legal move";
  return errors;
}

function myTurn() {
  return !S.over && !S.thinking && turn() === S.human;
}

function render() {
  engine.nameSides(PLAYERS, S.human === 0 ? "b" : "w");
  const root = $("board");
  drawLines(root, S.lines, { legal: S.legal, playable: myTurn(), onMove: play });
  root.dataset.ply = String(S.moves.length);
  root.dataset.over = S.over || "";
  showMoves($("movelist"), S.moves);
  $("play").disabled = !myTurn();
  if (S.over) sayOver(S.over, PLAYERS[S.human], "", PLAYERS);
  else if (S.thinking) say(`The engine (${PLAYERS[turn()]}) is thinking…`);
  else if (myTurn()) say(`Your move (${PLAYERS[S.human]}): click a square or type a move.`);
  else say(`${PLAYERS[turn()]} to move.`);
}

async function play(move) {
  if (!myTurn() || !move) return;
  $("announce").textContent = "";
  if (!(await attempt(S, () => S.moves.push(move), refresh, render))) return;
  render();
  await maybeEngine();
}

async function maybeEngine() {
  while (!S.over && turn() !== S.human && !S.thinking) {
    const gen = S.gen;
    S.thinking = true;
    render();
    const best = await engine.go("movetime 300");
    S.thinking = false;
    if (gen !== S.gen || !best || best === "resign") break;
    S.moves.push(best);
    await refresh();
  }
  render();
}

async function restart() {
  S.gen++;
  if (S.thinking) engine.stop();
  S.thinking = false;
  $("announce").textContent = "";
  const change = () => {
    S.start = "startpos";
    S.moves = [];
  };
  if (!(await attempt(S, change, freshGame(engine, refresh), render))) return;
  render();
  await maybeEngine();
}

$("side").replaceChildren(...PLAYERS.map((p, i) => el("option", { value: String(i) }, i === 0 ? `${p} (first)` : p)));
$("side").onchange = () => {
  S.human = Number($("side").value);
  render();
  maybeEngine();
};
$("new").onclick = restart;
$("typed").onsubmit = (e) => {
  e.preventDefault();
  const move = $("move").value.trim();
  $("move").value = "";
  play(move);
};

(async () => {
  await engine.connect();
  const errors = errorsIn(await engine.request([`setoption name USI_Variant value ${GAME}`]));
  if (errors.length) return say(`This server cannot play ${GAME}: ${errors.join("; ")}`, "error");
  // A kept game of this page's (after a reload, or opened for review) goes on where it was.
  const kept = engine.resumed;
  if (kept && kept.game === GAME) {
    S.start = kept.start;
    S.moves = kept.moves;
  }
  await refresh();
  render();
})();
