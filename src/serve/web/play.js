// Two people, one game: the page shows the room's state and sends `move <m>`; the server decides
// whose turn it is, what is legal and when the game ends (protocol/serve.md).
import { say, sayOver, showMoves, fatal, el, NAME_KEY, playerName, askPromotion, cancelPromotion, promotionOpen, focusedSquare, gridNav, frameBoard, labelFrame, goScore, othelloResult } from "/assets/engine.js";
import { parseQsfen, drawBoard, indexMoves, kingWarning, captureText, candsBySquare, narrowed, rememberPosition, showActions } from "/assets/qboard.js";
import { drawGo } from "/assets/goboard.js";
import { drawLines } from "/assets/lines.js";
import { showClocks } from "/assets/roomclock.js";
import { stepper } from "/assets/review.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let ws;
let state = null;
let sel = { from: null, owner: null, targets: new Set() };

function send(line) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(line);
}

function myTurn() {
  return state && !state.over && state.you === state.turn && viewing === null;
}

// Stepping back through the room's game in place (protocol/serve.md, "Stepping back in a
// room"): `viewing` is the ply shown, null for the live position. The server replays earlier
// plies (`view <k>`, answered to this socket alone); each answer is kept until a takeback
// changes the moves. As on lichess, a move that comes meanwhile joins the list and the view stays where
// it is; the board takes no move until it is back at the live position.
let viewing = null;
let viewFrom = 0;
const views = new Map();
let asked = null;
const live = el("button", { type: "button", id: "live", class: "live", title: "back to the game as it is now" }, "Live");
const steps = stepper({ ply: () => viewing ?? (state ? state.moves.length : 0), length: () => (state ? state.moves.length : 0), goto: viewAt });
steps.nav.append(live);
$("status").before(steps.nav);
live.onclick = () => viewAt(state ? state.moves.length : 0);

function viewAt(k) {
  if (!state) return;
  if (k >= state.moves.length) viewing = null;
  else {
    if (viewing === null) viewFrom = state.moves.length;
    viewing = k;
    if (!views.has(k)) ask(k);
  }
  render();
}

// One `view` on its way at a time: the last ply stepped to is asked for when it comes back.
function ask(k) {
  if (asked !== null) return;
  asked = k;
  send(`view ${k}`);
}

// The state to draw: the live one, or the earlier ply's position with no move to make.
function shown() {
  const v = viewing === null ? null : views.get(viewing);
  if (!v) return state;
  return { ...state, sfen: v.sfen, display: v.display, turn: v.turn, moves: state.moves.slice(0, v.ply), legal: [], warnings: [], over: null, score: null, note: null };
}

// The controls under the board, and what the status line says while an earlier ply is shown.
function showSteps() {
  const n = state.moves.length;
  const fresh = n - viewFrom;
  live.disabled = viewing === null;
  live.classList.toggle("on", viewing === null);
  live.textContent = viewing === null ? (state.over ? "● End of the game" : "● Live") : `Back to ${state.over ? "the end" : "live"}${fresh > 0 ? ` (${fresh} new move${fresh > 1 ? "s" : ""})` : ""}`;
  steps.update();
  if (viewing === null) return;
  const last = state.moves[viewing - 1];
  const yours = !state.over && state.you === state.turn;
  say(
    `Move ${viewing} of ${n}${last ? ` (${last})` : ""}: an earlier position.` +
      (yours ? " It is your move: go back to the live position (▶| or End) to play." : ` The game goes on at move ${n}.`),
    yours ? "warn" : "",
  );
}

function drawOthello(root) {
  const [board] = state.sfen.split(/\s+/);
  const focused = focusedSquare(root);
  const grid = el("div", { class: "oboard", role: "grid", "aria-label": "Othello board" });
  for (let i = 0; i < 64; i++) {
    const name = "abcdefgh"[i % 8] + (Math.floor(i / 8) + 1);
    const c = board[i];
    const legal = myTurn() && state.legal.includes(name);
    const what = c === "X" ? "black" : c === "O" ? "white" : legal ? "legal move" : "empty";
    const cell = el("button", { type: "button", class: "osq" + (legal ? " legal" : ""), "data-square": name, "aria-label": `${name} ${what}` });
    if (state.moves.findLast((m) => m !== "pass") === name) cell.classList.add("last");
    if (c === "X" || c === "O") cell.append(el("span", { class: "disc " + (c === "X" ? "black" : "white") }));
    cell.addEventListener("click", () => viewing === null && send(`move ${name}`));
    grid.append(cell);
  }
  const frame = frameBoard(grid, "left");
  root.replaceChildren(frame);
  labelFrame(frame, [..."abcdefgh"], [1, 2, 3, 4, 5, 6, 7, 8]);
  gridNav(grid, 8, focused);
  const count = (ch) => [...board].filter((x) => x === ch).length;
  return `Black ${count("X")} – White ${count("O")}`;
}

// The pieces whose candidates the shown position's last move narrowed (the yellow ring, as on the
// quantum page), from the candidates `seen` holds for the position one ply before: the same rings
// live and stepped back to. Until that position is known (`fillPositions` asks for it), none.
let rings = { key: null, set: new Set() };

function ringsFor(pos) {
  const moves = state.moves;
  const key = ["", ...moves].join(" ");
  if (rings.key === key) return rings.set;
  const before = moves.length ? seen.get(["", ...moves.slice(0, -1)].join(" ")) : null;
  if (!before) return new Set();
  rings = { key, set: narrowed(before, candsBySquare(pos), moves.at(-1)) };
  return rings.set;
}

// The quantum positions this page was shown (live or stepped back to), to write the move list in
// words (qboard.js's `actionText`); a room's start never changes, so the moves alone key them.
const seen = new Map();

// A position of the list not shown yet (the moves before this page joined) is asked for with
// `view`, one at a time, so that every move is written in words; none for a game of more than
// 1000 moves (each `view` replays the game).
function fillPositions() {
  if (asked !== null || state.moves.length > 1000) return;
  const keys = [""];
  for (const m of state.moves) keys.push(`${keys.at(-1)} ${m}`);
  const k = keys.findIndex((key) => !seen.has(key));
  if (k >= 0) ask(k);
}

// ☗/☖ for the mover of move `i`: the last move's mover is not the side to move now.
function mover(i) {
  const now = state.turn === "sente" ? "☗" : "☖";
  return (state.moves.length - 1 - i) % 2 === 0 ? (now === "☗" ? "☖" : "☗") : now;
}

function drawQuantum(root) {
  const pos = parseQsfen(state.sfen);
  $("quantum-legend").hidden = false;
  const idx = indexMoves(state.legal);
  const grid = el("div", { class: "qboard", role: "grid", "aria-label": "board" });
  root.replaceChildren(frameBoard(grid, "right"));
  $("hand-top").hidden = $("hand-bottom").hidden = false;
  const flipped = state.you === "gote";
  const onSquare = async (name) => {
    if (!myTurn()) return;
    if (promotionOpen()) {
      // A click elsewhere while "Promote?" is open cancels the move.
      cancelPromotion();
      sel = { from: null, owner: null, targets: new Set() };
      render();
      return;
    }
    if (sel.from && sel.targets.has(name)) {
      const list = (sel.owner ? idx.drops.get(sel.from) : idx.byFrom.get(sel.from)).filter((m) => m.to === name);
      let choice = list[0];
      if (list.length > 1) {
        const promote = await askPromotion(name);
        choice = promote === null ? null : list.find((m) => m.promote === promote);
      }
      sel = { from: null, owner: null, targets: new Set() };
      if (choice) send(`move ${choice.text}`);
      else render();
      return;
    }
    sel = idx.byFrom.has(name) ? { from: name, owner: null, targets: new Set(idx.byFrom.get(name).map((m) => m.to)) } : { from: null, owner: null, targets: new Set() };
    render();
  };
  const onHand = (token, owner) => {
    if (promotionOpen()) cancelPromotion();
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
    narrowed: ringsFor(pos),
    attacked: new Set(state.warnings || []),
    last: state.moves[state.moves.length - 1],
    onSquare,
    onHand,
  });
  if (state.over && state.over.endsWith("king capture")) return captureText(pos, state.moves[state.moves.length - 1]);
  // The mover's possible kings under attack: a warning for the player whose king it is.
  return myTurn() && (state.warnings || []).length ? kingWarning(pos, new Set(state.warnings)) : "";
}

// Go's scoring phase (after two passes): the marked dead stones (✕) and the territory they give;
// a player's click on a stone toggles its chain (`dead <vertex>`), and when the rest of its group
// is marked otherwise the page asks before marking that too (`dead <vertex> group`), as OGS.
function drawGoRoom(root) {
  const [size, rows] = state.sfen.split(/\s+/);
  const box = el("div", { class: "gboard" });
  root.replaceChildren(box);
  const score = goScore(state.score);
  const area = (state.scoring && state.scoring.territory) || { b: [], w: [] };
  const marks = ["b", "w"].flatMap((c) => area[c].map((v) => ({ vertex: v, kind: "territory", color: c })));
  const marking = state.phase === "scoring" && state.you !== "spectator";
  drawGo(box, {
    size: Number(size),
    rows: rows.split("/"),
    marks: marks.concat(score ? score.dead : []),
    last: state.moves[state.moves.length - 1],
    onPoint: (v) => (marking ? send(`dead ${v}`) : myTurn() && send(`move ${v}`)),
  });
  box.dataset.phase = state.phase || "";
  if (state.phase === "scoring") return scoringText(score);
  return score ? score.text : "";
}

// What the scoring phase waits for: the server's proposal, then each player's acceptance.
function scoringText(score) {
  const sc = state.scoring;
  if (!score) return "Both players passed: the server is judging the dead stones…";
  const [black, white] = sc.accepted;
  const names = ["black", "white"];
  const waiting = names.filter((n, i) => !sc.accepted[i]);
  const mine = names.indexOf(state.you);
  const todo =
    mine >= 0 && !sc.accepted[mine]
      ? "Click a stone to mark its chain dead or alive, then accept (or resume play)."
      : `Waiting for ${waiting.join(" and ")} to accept.`;
  return `Scoring. If accepted as marked: ${score.text} Accepted: black ${black ? "yes" : "not yet"}, white ${white ? "yes" : "not yet"}. ${todo}`;
}

// A Go game ended by agreement, as one sentence: the winner, the margin, the komi, the dead.
function goEndText(score) {
  const by = score.score.slice(2);
  const who = score.score === "0" ? "draw" : `${score.score[0] === "B" ? "black" : "white"} wins by ${by} point${by === "1" ? "" : "s"}`;
  const dead = score.dead.length ? `Dead stones (✕, counted for the other side): ${score.dead.map((d) => d.vertex).join(" ")}.` : "No dead stones.";
  return [`${who} (area score ${score.score}, komi ${score.komi})`, dead];
}

// A game without a board of its own here: its lines as the engine draws them (`d`, the state's
// `display`), a square clicked where they give coordinates, or a move typed.
function drawGeneric(root) {
  const lines = state.display.filter((l) => !l.startsWith("sfen "));
  const onMove = (m) => viewing === null && send(`move ${m}`);
  drawLines(root, lines, { legal: state.legal, playable: myTurn(), onMove });
  $("typed").hidden = false;
  $("play").disabled = !myTurn();
  return "";
}

// The games drawn by a renderer of their own; every other game is drawn from its lines.
const BOARDS = { othello: drawOthello, go: drawGoRoom, quantumshogi: drawQuantum };

function render() {
  if (!state) return;
  const root = $("board");
  // Stepping back: until the server's answer comes, the board stays as it was.
  if (viewing !== null && !views.has(viewing)) {
    ask(viewing);
    return showSteps();
  }
  // The board functions draw `state`: the shown one while they run.
  const now = state;
  state = shown();
  let extra;
  try {
    extra = (BOARDS[state.game] || drawGeneric)(root);
  } finally {
    state = now;
  }
  root.dataset.view = String(viewing ?? state.moves.length);
  root.dataset.ply = String(state.moves.length);
  root.dataset.turn = state.turn;
  root.dataset.over = state.over || "";
  showClocks($("clocks"), state, state.players);
  $("pass").hidden = state.game !== "go" || !myTurn() || state.phase === "scoring";
  const scoring = state.phase === "scoring" && state.you !== "spectator";
  $("accept").hidden = $("resume").hidden = !scoring;
  $("accept").disabled = !scoring || !state.scoring.dead || state.scoring.accepted[state.players.indexOf(state.you)];
  // The rest of the group the player's last click reached, to mark too on request.
  const spread = scoring && state.scoring.spread && state.scoring.spread.by === state.you ? state.scoring.spread : null;
  $("spread").hidden = !spread;
  if (spread) {
    const n = spread.stones.length;
    $("spread-text").textContent = `${spread.vertex}'s group has ${n} more stone${n > 1 ? "s" : ""} marked otherwise: ${spread.stones.join(" ")}.`;
    $("spread-yes").onclick = () => send(`dead ${spread.vertex} group`);
  }
  $("resign").hidden = !!state.over || state.you === "spectator";
  showOffers();
  showPresence(state.players);
  $("you-line").hidden = false;
  if (state.same_seat > 0 && !state.over) {
    $("announce").textContent = `Your seat is open in ${state.same_seat} other tab${state.same_seat > 1 ? "s" : ""} too: anyone with this seat's link plays for you.`;
  }
  $("you").textContent = state.you;
  showNames(state.players);
  $("title").textContent = `${state.title} for two`;
  if (state.game === "quantumshogi") {
    showActions($("movelist"), "", state.moves, mover, seen);
    fillPositions();
  } else showMoves($("movelist"), state.moves);
  // The room's game on an engine page's review board (a copy: stepping, the graph, play on).
  if (/^[0-9a-f]{1,32}$/.test(params.get("room") || "")) {
    $("review").href = `/${state.game}?review=${params.get("room")}`;
    $("review").hidden = false;
  }
  if (!(state.same_seat > 0 && !state.over)) $("announce").textContent = state.note || "";
  // Othello's end is worded as on the Othello page: the margin, empties to the winner.
  if (state.over && state.game === "othello" && !/ (resigns|time forfeit|agreement)$/.test(state.over)) sayOver(othelloResult(state.sfen.split(/\s+/)[0]), state.you, "", state.players);
  else if (state.over && state.game === "go" && goScore(state.score) && !/ (resigns|time forfeit|agreement)$/.test(state.over)) {
    const [text, dead] = goEndText(goScore(state.score));
    sayOver(text, state.you, dead, state.players);
  }
  else if (state.phase === "scoring") say(extra, "scoring");
  else if (state.over) sayOver(state.over, state.you, extra, state.players);
  else if (state.you === "spectator") say(`Watching. ${state.turn} to move. ${extra}`);
  else if (myTurn() && state.game === "quantumshogi" && extra) say(extra, "warn");
  else say(`${myTurn() ? "Your move" : `Waiting for ${state.turn}`} (you are ${state.you}). ${extra}`);
  showSteps();
}

// What the players offer each other (protocol/serve.md, "Offers"): a draw where the game has
// one (`state.draws`, from the game's rules), a takeback, a rematch once the game is over. The
// server keeps them and says which wait (`state.offers`); the opponent's are answered here.
const OFFERED = { draw: "a draw", takeback: "to take back their last move", rematch: "a rematch" };

function showOffers() {
  const player = state.you !== "spectator";
  const pending = state.offers || [];
  const waits = (kind) => pending.some((o) => o.kind === kind);
  $("offer-draw").hidden = !player || !!state.over || !state.draws || state.phase === "scoring" || waits("draw");
  $("offer-takeback").hidden = !player || !!state.over || state.phase === "scoring" || !state.moves.length || waits("takeback");
  $("offer-rematch").hidden = !player || !state.over || !!state.rematch || waits("rematch");
  $("rematch-link").hidden = !state.rematch;
  if (state.rematch) $("rematch-link").href = rematchLink();
  const button = (text, line) => el("button", { type: "button", onclick: () => send(line) }, text);
  $("offer-list").replaceChildren(
    ...pending.map((o) => {
      const row = el("p", { class: "offer", "data-kind": o.kind, "data-by": o.by });
      const words = o.kind === "takeback" && o.by === state.you ? "to take back your last move" : OFFERED[o.kind];
      if (o.by === state.you) row.append(`You asked ${words}; waiting for the answer. `, button("Withdraw", `withdraw ${o.kind}`));
      else if (player) row.append(`Your opponent (${o.by}) asks ${words}. `, button("Accept", `accept ${o.kind}`), " ", button("Decline", `decline ${o.kind}`));
      else row.append(`${o.by} asks ${words}.`);
      return row;
    }),
  );
}

// The rematch's room: a player's seat token is theirs there too (the colours swapped).
function rematchLink() {
  const seat = params.get("seat");
  return `/play?room=${state.rematch}${seat && state.you !== "spectator" ? `&seat=${encodeURIComponent(seat)}` : ""}`;
}

$("offer-draw").onclick = () => send("offer draw");
$("offer-takeback").onclick = () => send("offer takeback");
$("offer-rematch").onclick = () => send("offer rematch");

// Who has the game open, as the server's last state says; while this page's own connection is
// down that state is old, and the page says it does not know.
function showPresence(names) {
  const [first, second] = state.connected || [false, false];
  const p = $("presence");
  p.dataset.online = String(online);
  if (!online) p.textContent = "You are not connected to the server: reconnecting… (who else is here is unknown until then)";
  else if (state.you === "spectator") p.textContent = `${names[0]}: ${first ? "connected" : "away"} · ${names[1]}: ${second ? "connected" : "away"}`;
  else {
    const theirs = state.you === names[0] ? second : first;
    const who = state.you === names[0] ? names[1] : names[0];
    p.textContent = theirs ? `Your opponent (${who}) has this game open now.` : `Your opponent (${who}) is not connected now.`;
  }
}

// The players' names (`name <text>`, kept with the game for its record): the page asks a player
// for theirs once, keeps it in this browser, and gives it to every room this player sits in,
// once a connection.
let named = false;
function showNames(players) {
  const names = state.names || [null, null];
  $("players").textContent = names.some(Boolean) ? players.map((p, i) => (names[i] ? `${names[i]} (${p})` : p)).join(" – ") : "";
  const seat = players.indexOf(state.you);
  const mine = playerName();
  $("name-form").hidden = seat < 0 || !!mine;
  if (seat >= 0 && mine && names[seat] !== mine && !named) {
    named = true;
    send(`name ${mine}`);
  }
}

$("name-form").onsubmit = (e) => {
  e.preventDefault();
  const name = $("name").value.trim();
  if (!name) return;
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch (err) {
    // No storage (private mode): the name goes to this game only.
  }
  named = true;
  send(`name ${name}`);
  $("name-form").hidden = true;
};

// Reconnection: after a lost connection the page tries again, waiting longer each time; a room
// that refuses the link (a wrong seat token, no such game, an unknown game) is not retried: the
// server's reason stays on screen.
let lastError = null;
let retryIn = 1;
let online = false;

// `clock=600+10` as typed keeps its `+` (a form sends it as %2B; URLSearchParams reads a bare
// `+` as a space, which no time control has).
function newClock() {
  const clock = (params.get("clock") || "").replaceAll(" ", "+");
  return clock ? `&clock=${encodeURIComponent(clock)}` : "";
}

function connect() {
  lastError = null;
  const q = params.get("new")
    ? `new=${encodeURIComponent(params.get("new"))}${params.get("start") ? "&start=" + encodeURIComponent(params.get("start")) : ""}${newClock()}`
    : `room=${encodeURIComponent(params.get("room") || "")}&seat=${encodeURIComponent(params.get("seat") || "")}`;
  ws = new WebSocket(`ws://${location.host}/room?${q}`);
  ws.onopen = () => {
    online = true;
    named = false;
  };
  ws.onmessage = (ev) => {
    const line = String(ev.data);
    if (line.startsWith("room ")) {
      const [, id, , seat, , invite] = line.split(/\s+/);
      history.replaceState(null, "", `/play?room=${id}&seat=${seat}`);
      params.delete("new");
      params.delete("start");
      params.delete("clock");
      params.set("room", id);
      params.set("seat", seat);
      showLinks(`${location.origin}/play?room=${id}&seat=${invite}`, `${location.origin}/play?room=${id}`);
      try {
        localStorage.setItem(`ryoshi-room-${id}`, JSON.stringify({ invite: $("invite").value, watch: $("watch").value }));
      } catch (e) {
        // No storage (private mode): the links are on the page until it is closed.
      }
    } else if (line.startsWith("state ")) {
      retryIn = 1;
      const before = state;
      state = JSON.parse(line.slice(6));
      // A rematch agreed while this page watches: everyone in the room moves to it, as on
      // lichess (a page that comes later shows the link).
      if (before && !before.rematch && state.rematch) {
        location.assign(rematchLink());
        return;
      }
      // A takeback changes the game's moves: the positions kept for the plies it replaced go.
      if (before && !before.moves.every((m, i) => state.moves[i] === m)) {
        views.clear();
        if (viewing !== null && viewing >= state.moves.length) viewing = null;
      }
      if (state.game === "quantumshogi") rememberPosition(seen, "", state.moves, parseQsfen(state.sfen));
      // The creator gets the invitation back after a reload (this browser kept it).
      if ($("links").hidden && state.you !== "spectator") {
        try {
          const kept = JSON.parse(localStorage.getItem(`ryoshi-room-${params.get("room")}`) || "null");
          if (kept) showLinks(kept.invite, kept.watch);
        } catch (e) {
          // Nothing kept.
        }
      }
      sel = { from: null, owner: null, targets: new Set() };
      render();
    } else if (line.startsWith("view ")) {
      const v = JSON.parse(line.slice(5));
      // A long game stepped through from end to end: the answers kept stay bounded.
      if (views.size >= 512) views.clear();
      views.set(v.ply, v);
      if (state.game === "quantumshogi") rememberPosition(seen, "", state.moves.slice(0, v.ply), parseQsfen(v.sfen));
      asked = null;
      if (viewing !== null && !views.has(viewing)) ask(viewing);
      else render();
    } else if (line.startsWith("info string error:")) {
      lastError = line.slice(18).trim();
      say("Refused: " + lastError, "error");
    }
  };
  ws.onclose = (ev) => {
    online = false;
    asked = null;
    // 1008: the room refused this link. An error before any state: the same (an unknown game).
    if (ev.code === 1008 || (lastError && !state)) {
      const gone = lastError === "no such game" && state;
      $("presence").textContent = "";
      fatal(
        gone
          ? "This game no longer exists on the server. Start a new game from the home page."
          : lastError === "no such game"
            ? "There is no such game: this room does not exist. Check the link, or start a new game from the home page."
            : `Cannot open this game: ${lastError || ev.reason || "refused"}.`,
      );
      return;
    }
    if (state) showPresence(state.players);
    say(`Disconnected; reconnecting in ${retryIn} s…`, "error");
    setTimeout(connect, retryIn * 1000);
    retryIn = Math.min(retryIn * 2, 30);
  };
}

function showLinks(invite, watch) {
  $("links").hidden = false;
  $("invite").value = invite;
  $("watch").value = watch;
}

function copy(id) {
  const field = $(id);
  field.select();
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).catch(() => {});
  say("Link copied.");
  setTimeout(render, 1500);
}

// Resigning asks once more on the page itself (no browser dialog): a second click within 4 s.
let resignArmed = null;
$("resign").onclick = () => {
  if (resignArmed) {
    clearTimeout(resignArmed);
    resignArmed = null;
    $("resign").textContent = "Resign";
    send("resign");
    return;
  }
  $("resign").textContent = "Click again to resign";
  resignArmed = setTimeout(() => {
    resignArmed = null;
    $("resign").textContent = "Resign";
  }, 4000);
};
$("copy-invite").onclick = () => copy("invite");
$("copy-watch").onclick = () => copy("watch");
$("pass").onclick = () => send("move pass");
// With the marking's version: a marking that changed before this click reached the server is
// not accepted unseen.
$("accept").onclick = () => state && state.scoring && send(`accept ${state.scoring.version}`);
$("resume").onclick = () => send("resume");
$("typed").onsubmit = (e) => {
  e.preventDefault();
  const move = $("move").value.trim();
  $("move").value = "";
  if (move && myTurn()) send(`move ${move}`);
};
connect();
