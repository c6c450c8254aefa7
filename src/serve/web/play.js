// Two people, one game: the page shows the room's state and sends `move <m>`; the server decides
// whose turn it is, what is legal and when the game ends (protocol/serve.md).
import { say, sayOver, showMoves, fatal, el } from "/assets/engine.js";
import { parseQsfen, drawBoard, indexMoves } from "/assets/qboard.js";
import { drawGo } from "/assets/goboard.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let ws;
let state = null;
let sel = { from: null, owner: null, targets: new Set() };

function send(line) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(line);
}

function myTurn() {
  return state && !state.over && state.you === state.turn;
}

function drawOthello(root) {
  const [board] = state.sfen.split(/\s+/);
  const grid = el("div", { class: "oboard", role: "grid", "aria-label": "Othello board" });
  for (let i = 0; i < 64; i++) {
    const name = "abcdefgh"[i % 8] + (Math.floor(i / 8) + 1);
    const c = board[i];
    const legal = myTurn() && state.legal.includes(name);
    const cell = el("button", { type: "button", class: "osq" + (legal ? " legal" : ""), "data-square": name, "aria-label": name });
    if (state.moves[state.moves.length - 1] === name) cell.classList.add("last");
    if (c === "X" || c === "O") cell.append(el("span", { class: "disc " + (c === "X" ? "black" : "white") }));
    cell.addEventListener("click", () => send(`move ${name}`));
    grid.append(cell);
  }
  root.replaceChildren(grid);
  const count = (ch) => [...board].filter((x) => x === ch).length;
  return `Black ${count("X")} – White ${count("O")}`;
}

function drawQuantum(root) {
  const pos = parseQsfen(state.sfen);
  const idx = indexMoves(state.legal);
  const grid = el("div", { class: "qboard", role: "grid", "aria-label": "board" });
  root.replaceChildren(grid);
  $("hand-top").hidden = $("hand-bottom").hidden = false;
  const flipped = state.you === "gote";
  const onSquare = (name) => {
    if (!myTurn()) return;
    if (sel.from && sel.targets.has(name)) {
      const list = (sel.owner ? idx.drops.get(sel.from) : idx.byFrom.get(sel.from)).filter((m) => m.to === name);
      let choice = list[0];
      if (list.length > 1) choice = list.find((m) => m.promote === window.confirm("Promote?")) || list[0];
      sel = { from: null, owner: null, targets: new Set() };
      send(`move ${choice.text}`);
      return;
    }
    sel = idx.byFrom.has(name) ? { from: name, owner: null, targets: new Set(idx.byFrom.get(name).map((m) => m.to)) } : { from: null, owner: null, targets: new Set() };
    render();
  };
  const onHand = (token, owner) => {
    if (!myTurn() || !idx.drops.has(token) || owner !== pos.side) return;
    sel = { from: token, owner, targets: new Set(idx.drops.get(token).map((m) => m.to)) };
    render();
  };
  const top = flipped ? "b" : "w";
  drawBoard(grid, { [top]: $("hand-top"), [top === "b" ? "w" : "b"]: $("hand-bottom") }, pos, {
    flipped,
    selected: sel.from,
    selectedOwner: sel.owner,
    targets: sel.targets,
    last: state.moves[state.moves.length - 1],
    onSquare,
    onHand,
  });
  return "";
}

function drawGoRoom(root) {
  const [size, rows] = state.sfen.split(/\s+/);
  const box = el("div", { class: "gboard" });
  root.replaceChildren(box);
  drawGo(box, { size: Number(size), rows: rows.split("/"), marks: [], last: state.moves[state.moves.length - 1], onPoint: (v) => myTurn() && send(`move ${v}`) });
  return "";
}

function render() {
  if (!state) return;
  const root = $("board");
  const extra = state.game === "othello" ? drawOthello(root) : state.game === "go" ? drawGoRoom(root) : drawQuantum(root);
  root.dataset.ply = String(state.moves.length);
  root.dataset.turn = state.turn;
  root.dataset.over = state.over || "";
  $("pass").hidden = state.game !== "go" || !myTurn();
  $("you").textContent = state.you;
  $("title").textContent = { othello: "Othello", go: "Go", quantumshogi: "Quantum shogi" }[state.game] + " for two";
  showMoves($("movelist"), state.moves);
  $("announce").textContent = state.note || "";
  if (state.over) sayOver(state.over, state.you, extra);
  else if (state.you === "spectator") say(`Watching. ${state.turn} to move. ${extra}`);
  else say(`${myTurn() ? "Your move" : `Waiting for ${state.turn}`} (you are ${state.you}). ${extra}`);
}

// Reconnection: after a lost connection the page tries again, waiting longer each time; a room
// that refuses the link (a wrong seat token, no such game, an unknown game) is not retried: the
// server's reason stays on screen.
let lastError = null;
let retryIn = 1;

function connect() {
  lastError = null;
  const q = params.get("new")
    ? `new=${encodeURIComponent(params.get("new"))}${params.get("start") ? "&start=" + encodeURIComponent(params.get("start")) : ""}`
    : `room=${encodeURIComponent(params.get("room") || "")}&seat=${encodeURIComponent(params.get("seat") || "")}`;
  ws = new WebSocket(`ws://${location.host}/room?${q}`);
  ws.onmessage = (ev) => {
    const line = String(ev.data);
    if (line.startsWith("room ")) {
      const [, id, , seat, , invite] = line.split(/\s+/);
      history.replaceState(null, "", `/play?room=${id}&seat=${seat}`);
      params.delete("new");
      params.delete("start");
      params.set("room", id);
      params.set("seat", seat);
      $("links").hidden = false;
      $("invite").value = `${location.origin}/play?room=${id}&seat=${invite}`;
      $("watch").value = `${location.origin}/play?room=${id}`;
    } else if (line.startsWith("state ")) {
      retryIn = 1;
      state = JSON.parse(line.slice(6));
      sel = { from: null, owner: null, targets: new Set() };
      render();
    } else if (line.startsWith("info string error:")) {
      lastError = line.slice(18).trim();
      say("Refused: " + lastError, "error");
    }
  };
  ws.onclose = (ev) => {
    // 1008: the room refused this link. An error before any state: the same (an unknown game).
    if (ev.code === 1008 || (lastError && !state)) {
      const gone = lastError === "no such game" && state;
      fatal(
        gone
          ? "This game no longer exists on the server (was it restarted?). Start a new game from the home page."
          : `Cannot open this game: ${lastError || ev.reason || "refused"}.`,
      );
      return;
    }
    say(`Disconnected; reconnecting in ${retryIn} s…`, "error");
    setTimeout(connect, retryIn * 1000);
    retryIn = Math.min(retryIn * 2, 30);
  };
}

$("pass").onclick = () => send("move pass");
connect();
