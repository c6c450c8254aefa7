// The Go page: a protocol client (protocol/go.md). The board comes from `d`, the overlay from
// `benson` / `benson classic`, SGF by content through `loadsgftext`, moves from `go`.
import { Engine, errorsIn, say, el, attempt } from "/assets/engine.js";
import { drawGo } from "/assets/goboard.js";

const $ = (id) => document.getElementById(id);
const S = { start: "", moves: [], size: 9, rows: [], side: "b", marks: [], thinking: false, gen: 0 };

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
  for (const l of lines) {
    const m = /^(alive|dead|territory) ([bw])(?: (.*))?$/.exec(l);
    if (m) for (const v of (m[3] || "").split(" ").filter(Boolean)) S.marks.push({ vertex: v, kind: m[1], color: m[2] });
  }
  const count = (k, c) => S.marks.filter((m) => m.kind === k && m.color === c).length;
  $("overlay-text").textContent =
    overlay === "none"
      ? ""
      : `black: ${count("alive", "b")} alive, ${count("dead", "b")} dead, ${count("territory", "b")} territory · white: ${count("alive", "w")} alive, ${count("dead", "w")} dead, ${count("territory", "w")} territory`;
  return errors;
}

function over() {
  const n = S.moves.length;
  return n >= 2 && S.moves[n - 1] === "pass" && S.moves[n - 2] === "pass";
}

function render() {
  drawGo($("board"), { size: S.size, rows: S.rows, marks: S.marks, last: S.moves[S.moves.length - 1], onPoint: play });
  const board = $("board");
  board.dataset.ply = String(S.moves.length);
  board.dataset.side = S.side;
  $("movelist").replaceChildren(...S.moves.map((m) => el("li", {}, m)));
  if (over()) say("Both players passed: the game is over.", "over");
  else if (S.thinking) say("Engine is thinking…");
  else say(`${S.side === "b" ? "Black" : "White"} to move. Click a point to place a stone.`);
}

async function play(vertex) {
  if (S.thinking || over()) return;
  if (!(await attempt(S, () => S.moves.push(vertex), refresh, render))) return;
  render();
  if ($("auto").checked && vertex !== "pass") await genmove();
}

async function genmove() {
  if (S.thinking || over()) return;
  const gen = S.gen;
  S.thinking = true;
  render();
  const best = await engine.go("movetime 450");
  S.thinking = false;
  if (gen !== S.gen || !best || best === "resign") return render();
  S.moves.push(best);
  await refresh();
  render();
}

async function restart(start) {
  S.gen++;
  S.start = start;
  S.moves = [];
  await refresh();
  render();
}

async function loadSgf() {
  const text = $("sgf").value.trim();
  if (!text) return say("Paste an SGF first.", "error");
  // The protocol is line based; SGF treats line breaks as white space outside values.
  const lines = await engine.request([`loadsgftext ${text.replace(/\s*[\r\n]+\s*/g, " ")}`, "d"]);
  const errors = errorsIn(lines || []);
  if (errors.length) {
    await refresh();
    render();
    return say("SGF refused: " + errors.join("; "), "error");
  }
  readPosition(lines);
  S.gen++;
  S.start = `sfen ${S.size} ${S.rows.join("/")} ${S.side}`;
  S.moves = [];
  $("size").value = String(S.size);
  await refresh();
  render();
  say(`SGF loaded (${S.size}×${S.size}); ${S.side === "b" ? "black" : "white"} to move.`);
}

async function main() {
  await engine.connect();
  await engine.request(["setoption name USI_Variant value go", "usinewgame"]);
  S.start = empty(9);
  await refresh();
  render();
  $("size").onchange = () => restart(empty(Number($("size").value)));
  $("new").onclick = () => restart(empty(Number($("size").value)));
  $("undo").onclick = async () => {
    S.gen++;
    S.moves.pop();
    await refresh();
    render();
  };
  $("pass").onclick = () => play("pass");
  $("genmove").onclick = genmove;
  $("overlay").onchange = async () => {
    await refresh();
    render();
  };
  $("load").onclick = loadSgf;
}

main().catch((e) => say(String(e.message || e), "error"));
