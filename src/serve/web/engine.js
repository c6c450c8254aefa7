// The page's side of the protocol: one WebSocket, one engine session, protocol lines both ways.
// Requests are serialised: `request(lines)` sends the lines and `isready`, and resolves with every
// line up to `readyok` (analysis commands answer before the next command is read, see usi.md);
// `go(params, onInfo)` resolves with the `bestmove` line.

export class Engine {
  constructor({ onError = () => {}, onLog = () => {}, onClose = () => {} } = {}) {
    this.lastError = null;
    this.onError = onError;
    this.onLog = onLog;
    this.onClose = onClose;
    this.handler = null;
    this.chain = Promise.resolve();
    this.closed = false;
  }

  connect() {
    return new Promise((resolve, reject) => {
      // The page's game is kept by the server: `?game=<id>` goes on with it after a reload or a
      // restart, `?review=<id>` opens a copy of it (protocol/serve.md, "Kept games").
      const asked = new URLSearchParams(location.search);
      const which = ["game", "review"].find((k) => /^[0-9a-f]{1,32}$/.test(asked.get(k) || ""));
      this.mode = which;
      const ws = new WebSocket(`ws://${location.host}/ws${which ? `?${which}=${asked.get(which)}` : ""}`);
      this.ws = ws;
      ws.onopen = () => resolve(this);
      ws.onerror = () => reject(new Error("cannot reach the engine"));
      ws.onclose = (ev) => {
        this.closed = true;
        this.onClose(ev);
        // The page is dead from here on: the status line keeps saying why (the server's own
        // refusal when it gave one) and the board stops taking clicks.
        fatal(
          this.lastError && ev.code !== 1000
            ? `The engine refused this tab: ${this.lastError}`
            : "The engine connection closed" + (ev.reason ? ": " + ev.reason : "") + ". Reload the page.",
        );
        if (this.handler) this.handler(null);
      };
      ws.onmessage = (ev) => this.receive(String(ev.data));
    });
  }

  receive(line) {
    this.onLog("< " + line);
    // `info string game <id> [<game> position <start> [moves ...]]`: the server's id of the game
    // the page plays, and the game itself when the socket goes on with a kept one.
    if (line.startsWith("info string game ")) {
      const words = line.split(/\s+/).slice(3);
      this.gameId = words[0];
      if (words[2] === "position") {
        const at = words.indexOf("moves");
        const start = (at < 0 ? words.slice(3) : words.slice(3, at)).join(" ");
        this.resumed = { game: words[1], start, moves: at < 0 ? [] : words.slice(at + 1) };
      }
      // A game opened for review keeps its address until the page plays on from it (a copy).
      if (!(this.mode === "review" && this.resumed && words[2] === "position")) {
        history.replaceState(null, "", `${location.pathname}?game=${this.gameId}`);
      }
      return;
    }
    // `info string graph <ply>:<score>[:<lead>] ...`: the kept game's evaluation graph, told
    // right after the game itself.
    if (line.startsWith("info string graph ")) {
      this.resumedGraph = line
        .split(/\s+/)
        .slice(3)
        .map((w) => w.split(":").map(Number))
        .map(([ply, score, lead]) => ({ ply, score, lead: lead === undefined ? null : lead }));
      return;
    }
    if (line.startsWith("info string error:")) {
      this.lastError = line.slice(18).trim();
      this.onError(this.lastError);
    }
    if (this.handler) this.handler(line);
  }

  send(line) {
    if (this.closed) return;
    this.onLog("> " + line);
    this.ws.send(line);
  }

  // Runs `body(resolve)` after the previous request finished; `handler` sees each line.
  enqueue(start, handler) {
    const run = () =>
      new Promise((resolve) => {
        if (this.closed) return resolve(null);
        this.handler = (line) => {
          if (line === null) {
            this.handler = null;
            resolve(null);
            return;
          }
          const done = handler(line);
          if (done !== undefined) {
            this.handler = null;
            resolve(done);
          }
        };
        start();
      });
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => {});
    return p;
  }

  request(lines) {
    const seen = [];
    return this.enqueue(
      () => {
        for (const l of lines) this.send(l);
        this.send("isready");
      },
      (line) => {
        if (line === "readyok") return seen;
        seen.push(line);
        return undefined;
      },
    );
  }

  go(params, onInfo = () => {}) {
    return this.enqueue(
      () => this.send(("go " + params).trim()),
      (line) => {
        if (line.startsWith("bestmove")) return line.split(/\s+/)[1];
        if (line.startsWith("info ")) onInfo(line);
        return undefined;
      },
    );
  }

  stop() {
    this.send("stop");
  }

  // Names the sides of the page's game for the server, which keeps them with the game for its
  // record and /games (protocol/serve.md, "Kept games"): the player's name (`playerName`) for
  // each side in `human`, the engine's (`usi`'s `id name`: `ryoshi <version>`) for the others.
  // `players` are the game's sides (black/white, sente/gote), `human` holds "b", "w", both or
  // neither. Called at every drawing: only a change is sent, after the requests before it.
  nameSides(players, human) {
    this.sides = { players, human };
    // Not before the socket is open (a drawing before it names the sides at the next one).
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (this.engineName === undefined) {
      this.engineName = null;
      this.request(["usi"]).then((lines) => {
        const id = (lines || []).find((l) => l.startsWith("id name "));
        this.engineName = id ? id.slice(8).trim() : "";
        this.nameSides(this.sides.players, this.sides.human);
      });
    }
    if (this.engineName === null) return;
    const me = playerName();
    const lines = ["b", "w"].map((side, i) => `name ${players[i]} ${human.includes(side) ? me : this.engineName}`);
    if (lines.join("\n") === this.named) return;
    this.named = lines.join("\n");
    this.request(lines);
  }

  // A new game: `usinewgame` tells the server to keep the last game as it is and to give the
  // next one its own id at its first move (protocol/serve.md, "Engine pages' games"); until
  // then the address names no game, so a reload starts afresh.
  newGame() {
    this.mode = "game";
    this.gameId = undefined;
    history.replaceState(null, "", location.pathname);
    return this.request(["usinewgame"]);
  }
}

// The player's name, given once on the room page and kept by this browser ("" when none).
export const NAME_KEY = "ryoshi-name";
export function playerName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch (e) {
    return "";
  }
}

// `refresh` for `attempt` when the change is a new game: the first call sends `usinewgame`
// before the position (the second, putting a refused position back, does not).
export function freshGame(engine, refresh) {
  let first = true;
  return async () => {
    if (first) {
      first = false;
      await engine.newGame();
    }
    return refresh();
  };
}

// `info depth D ... score cp X ... pv ...` as an object.
export function parseInfo(line) {
  const words = line.split(/\s+/);
  const out = {};
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === "pv") {
      out.pv = words.slice(i + 1);
      break;
    }
    if (["depth", "seldepth", "nodes", "nps", "time", "hashfull"].includes(w)) out[w] = Number(words[++i]);
    else if (w === "score") {
      out.scoreKind = words[++i];
      out.score = Number(words[++i]);
    } else if (w === "string") {
      out.string = words.slice(i + 1).join(" ");
      break;
    }
  }
  return out;
}

// Changes the page's game record (`S.start`, `S.moves`) with `change`, reads the position back
// with `refresh` (which returns the engine's error lines), and puts the record back when the engine
// refused it (`position` is all or nothing). True when the change stands. A second action while
// one is still on its way (a double click) is ignored.
export async function attempt(S, change, refresh, render) {
  if (S.busy) return false;
  S.busy = true;
  try {
    const saved = { start: S.start, moves: S.moves.slice() };
    change();
    const errors = await refresh();
    if (!errors.length) return true;
    S.start = saved.start;
    S.moves = saved.moves;
    await refresh();
    render();
    say("Refused: " + errors.join("; "), "error");
    return false;
  } finally {
    S.busy = false;
  }
}

export function errorsIn(lines) {
  return lines.filter((l) => l.startsWith("info string error:")).map((l) => l.slice(18).trim());
}

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) e.append(c);
  return e;
}

// The one promotion question of every page (#promote with #promote-yes / #promote-no): resolves
// true (promote), false (keep) or null when cancelled (`cancelPromotion`: a click elsewhere, a
// take back, a new game). While it is open, `promotionOpen()` is true and no other move starts.
// It opens beside the square the piece goes to (`square`, on #board), where the eyes are, not
// under the board, which may be below the window's edge.
let promotion = null;
export function askPromotion(square) {
  cancelPromotion();
  return new Promise((resolve) => {
    const box = document.getElementById("promote");
    const yes = document.getElementById("promote-yes");
    const no = document.getElementById("promote-no");
    box.hidden = false;
    placeBeside(box, document.querySelector(`#board [data-square="${square}"]`));
    const done = (v) => {
      box.hidden = true;
      yes.onclick = no.onclick = null;
      promotion = null;
      resolve(v);
    };
    promotion = () => done(null);
    yes.onclick = () => done(true);
    no.onclick = () => done(false);
    yes.focus();
  });
}

// Puts `box` (absolutely positioned in its offset parent) just below `cell`, or above it when
// the window has no room below, kept inside the window sideways.
function placeBeside(box, cell) {
  box.classList.toggle("floating", !!cell);
  if (!cell || !box.offsetParent) return;
  const parent = box.offsetParent.getBoundingClientRect();
  const at = cell.getBoundingClientRect();
  const { width, height } = box.getBoundingClientRect();
  const below = at.bottom + 4 + height <= window.innerHeight;
  const top = below ? at.bottom + 4 : Math.max(4, at.top - 4 - height);
  const left = Math.min(Math.max(4, at.left + at.width / 2 - width / 2), window.innerWidth - width - 4);
  box.style.top = `${top - parent.top}px`;
  box.style.left = `${left - parent.left}px`;
}

export function cancelPromotion() {
  if (promotion) promotion();
}

export function promotionOpen() {
  return promotion !== null;
}

// Keyboard play on a board of buttons laid out in rows of `cols` (in visual order): the board is
// one stop in the Tab order (a roving tabindex, as the Go board and the ARIA grid pattern do);
// the arrow keys move the focus, Enter or Space presses the square. `focused` is the square that
// had the focus before the board was redrawn (`focusedSquare`): it gets it back, so that Enter
// does not drop the focus to the page.
export function focusedSquare(root) {
  const a = document.activeElement;
  return a && root.contains(a) ? a.dataset.square || a.dataset.vertex || null : null;
}

// The square of each board (by its number of columns) that holds the Tab stop, kept across
// redraws: the one last focused.
const rovers = new Map();

export function gridNav(root, cols, focused) {
  const cells = [...root.children];
  const named = (name) => name && cells.find((c) => c.dataset.square === name);
  const stop =
    named(focused) || named(rovers.get(cols)) || root.querySelector(".last") || root.querySelector(".legal") || cells[Math.floor(cells.length / 2)];
  const rove = (cell) => {
    for (const c of cells) c.tabIndex = c === cell ? 0 : -1;
    rovers.set(cols, cell.dataset.square);
  };
  if (stop) rove(stop);
  // A click or a script may focus any square: it takes the Tab stop.
  if (root.roving) root.removeEventListener("focusin", root.roving);
  root.roving = (e) => {
    if (cells.includes(e.target)) rove(e.target);
  };
  root.addEventListener("focusin", root.roving);
  root.onkeydown = (e) => {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[e.key];
    if (step === undefined) return;
    const at = cells.indexOf(e.target);
    if (at < 0) return;
    const to = at + step;
    e.preventDefault();
    if (to < 0 || to >= cells.length || (Math.abs(step) === 1 && Math.floor(to / cols) !== Math.floor(at / cols))) return;
    rove(cells[to]);
    cells[to].focus();
  };
  if (focused) {
    const cell = named(focused);
    if (cell) cell.focus();
  }
}

let fatalText = null;

// Shows the message in the page's status line (an aria-live region). After `fatal`, only
// another fatal message replaces it: a click on a dead page must not say "Your move".
export function say(text, kind = "") {
  const s = document.getElementById("status");
  if (!s || (fatalText !== null && kind !== "fatal")) return;
  s.textContent = text;
  s.className = "status " + (kind === "fatal" ? "error" : kind);
}

// The page cannot go on (the connection is gone or was refused): says why, for good, and
// greys out the board and the controls.
export function fatal(text) {
  fatalText = text;
  say(text, "fatal");
  document.body.classList.add("offline");
  for (const b of document.querySelectorAll("main button, main select, main input")) b.disabled = true;
}

// The one move list of every page: numbered rows of a move and its reply, growing downwards
// and scrolled to the last move (never sideways). `label(i)` may prefix a move (☗/☖); `write(i)`
// may write it in words instead (quantum shogi), the move as sent then kept in its title and
// `data-action`.
export function showMoves(list, moves, label = () => "", write = null) {
  const cell = (i) => (write ? el("span", { class: "mv", title: moves[i], "data-action": moves[i] }, write(i)) : el("span", { class: "mv" }, label(i) + moves[i]));
  const rows = [];
  for (let i = 0; i < moves.length; i += 2) {
    const cells = [cell(i)];
    if (i + 1 < moves.length) cells.push(cell(i + 1));
    rows.push(el("li", {}, ...cells));
  }
  list.replaceChildren(...rows);
  list.scrollTop = list.scrollHeight;
}

// Who won, seen from `you` (one of `players`, the game's two sides: "black", "sente", ...):
// "won", "lost", "draw", or null when the text names no winner (or `you` is a spectator). Reads
// the game-over texts of protocol/serve.md and of the pages: "<side> wins ...", "<side> has no
// legal action and loses", "<side> resigns", "draw".
export function verdict(over, you, players) {
  if (!over) return null;
  const text = over.toLowerCase();
  if (text.startsWith("draw")) return "draw";
  const side = text.split(/\s+/)[0];
  const other = players.includes(side) ? players.find((p) => p !== side) : undefined;
  if (!other || (you !== side && you !== other)) return null;
  const winner = /\bwins\b/.test(text) ? side : /\b(loses|resigns)\b/.test(text) ? other : null;
  if (!winner) return null;
  return winner === you ? "won" : "lost";
}

// The status line for a finished game: "You won: ..." / "You lost: ..." when `you` (one of
// `players`) played.
export function sayOver(over, you, extra, players) {
  const v = verdict(over, you, players);
  const why = over.charAt(0).toUpperCase() + over.slice(1);
  if (v === "won") say(`You won: ${over}. ${extra}`.trim(), "won");
  else if (v === "lost") say(`You lost: ${over}. ${extra}`.trim(), "lost");
  else say(`Game over: ${why}. ${extra}`.trim(), "over");
}

// Coordinates around a board, as the games' GUIs draw them and as moves are written: `frame`
// holds a `.files` row and a `.ranks` column beside the board (protocol notation: `7g7f`, `e7`,
// `D4`). `files` and `ranks` are the labels in visual order, left to right and top to bottom.
export function frameBoard(board, side = "right") {
  const frame = el("div", { class: `frame ranks-${side}` });
  frame.append(el("div", { class: "files", "aria-hidden": "true" }), board, el("div", { class: "ranks", "aria-hidden": "true" }));
  return frame;
}

export function labelFrame(frame, files, ranks) {
  const f = frame.querySelector(":scope > .files");
  const r = frame.querySelector(":scope > .ranks");
  f.style.gridTemplateColumns = `repeat(${files.length}, 1fr)`;
  r.style.gridTemplateRows = `repeat(${ranks.length}, 1fr)`;
  f.replaceChildren(...files.map((t) => el("span", { class: "coord" }, String(t))));
  r.replaceChildren(...ranks.map((t) => el("span", { class: "coord" }, String(t))));
}

// Go's `score` lines (`score W+8.5 komi 7.5`, `dead b ...`, `dead w ...`; protocol/go.md) as
// the pages show them: the score, the dead stones as board marks, and the sentence that says
// both. Null without a `score` line.
export function goScore(lines) {
  const line = (lines || []).find((l) => l.startsWith("score "));
  if (!line) return null;
  const [, score, , komi] = line.split(/\s+/);
  const dead = (lines || []).flatMap((l) => {
    const m = /^dead ([bw])((?: \S+)*)$/.exec(l);
    return m ? m[2].split(" ").filter(Boolean).map((v) => ({ vertex: v, kind: "dead", color: m[1] })) : [];
  });
  const [who, by] = score === "0" ? ["", ""] : [score[0] === "B" ? "Black" : "White", score.slice(2)];
  const text =
    `${who ? `${who} wins by ${by}` : "A draw"} (${score}, area scoring, komi ${komi}). ` +
    (dead.length ? `Dead stones (marked ✕, counted for the other side): ${dead.map((d) => d.vertex).join(" ")}.` : "No dead stones.");
  return { score, komi, dead, text };
}

// A finished Othello game as every page words it (the Othello page, its Solve, the rooms): the
// winner's margin with the empty squares counted for the winner, the rule of the WOF that
// `solve` scores by, then the discs on the board. `board` is the 64 squares (X, O, -).
export function othelloResult(board) {
  const count = (ch) => [...board].filter((c) => c === ch).length;
  const [black, white, empty] = [count("X"), count("O"), count("-")];
  const discs = `${black}–${white}`;
  const empties = empty ? `, and the ${empty} empty square${empty > 1 ? "s go" : " goes"} to the winner` : "";
  if (black === white) return `draw (${discs})`;
  const winner = black > white ? "black" : "white";
  return `${winner} wins by ${discsBy(Math.abs(black - white) + empty)} (${discs}${empties})`;
}

// "64 discs", "1 disc": a margin as the Othello texts write it.
export function discsBy(n) {
  return `${n} disc${n === 1 ? "" : "s"}`;
}
