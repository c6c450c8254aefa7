// The review board of every game page (protocol/serve.md, "Review"): the page's game is a line of
// moves the board steps through (buttons, ←/→/Home/End, a click in the move list), played on from
// any ply against the engine; downloaded as its record (`record`), uploaded from one
// (`loadrecordtext`, whose game the server reads back as `info string loaded ...`); and the
// engine's evaluation after every move drawn as a graph under the board, one `go movetime` per
// move in the tab's own session.
//
// The page keeps its own state (`S.start`, `S.moves`: the position on the board) and hands over
// a few hooks; `S.moves` is always a prefix of the review's line. Stepping back sends the page's
// usual `position` with fewer moves, which the server does not take for a takeback until a move
// is played from there.
import { el, say, showMoves, errorsIn } from "/assets/engine.js";

// Longest record accepted for upload: a WebSocket message holds at most 256 KiB with the command.
export const MAX_UPLOAD = 200 * 1024;
const EXT = { othello: "ggf", go: "sgf", quantumshogi: "kifu" };

// The game of a record the session loaded, as the server reads it back:
// `info string loaded <game> position <start> [moves ...]`, or null.
export function loadedGame(lines) {
  const line = lines.find((l) => l.startsWith("info string loaded "));
  if (!line) return null;
  const words = line.split(/\s+/).slice(3);
  const at = words.indexOf("moves");
  return { game: words[0], start: (at < 0 ? words.slice(2) : words.slice(2, at)).join(" "), moves: at < 0 ? [] : words.slice(at + 1) };
}

const positionOf = (start, moves) => `position ${start}${moves.length ? " moves " + moves.join(" ") : ""}`;

// The side to move in `d`'s last line (`sfen ... b ...`): the first field that is `b` or `w`.
function sideIn(lines) {
  const sfen = lines.find((l) => l.startsWith("sfen "));
  return sfen ? sfen.split(/\s+/).slice(2).find((t) => t === "b" || t === "w") || null : null;
}

// How each game's evaluation reads on the graph: `y` in [-1, 1] for the first player (black,
// sente), and its text.
const SCALES = {
  othello: {
    names: ["black", "white"],
    movetime: 100,
    // `score cp` is in centi-discs: the disc difference the engine expects, black's.
    fromCp: (cp) => {
      const discs = Math.round(cp / 100);
      return { y: Math.max(-1, Math.min(1, discs / 32)), text: `${discs > 0 ? "+" : ""}${discs} discs` };
    },
    // A finished position: black's disc difference (`black X n white O m`).
    over: (lines) => {
      const m = lines.map((l) => /^black X (\d+) white O (\d+), game over/.exec(l)).find(Boolean);
      return m ? Number(m[1]) - Number(m[2]) : null;
    },
  },
  go: {
    names: ["black", "white"],
    movetime: 200,
    // `score cp` is 400·log10(w/(1−w)) of the win rate w (protocol/go.md); the score lead is
    // the best move's `scoreLead` in the analysis line (`GoAnalysis`, on in the Go page).
    fromCp: (cp, lead) => {
      const w = 1 / (1 + Math.pow(10, -cp / 400));
      const ahead = lead === null ? "" : lead === 0 ? ", even" : `, ${lead > 0 ? "black" : "white"} leads by ${Math.abs(lead).toFixed(1)}`;
      return { y: 2 * w - 1, text: `black ${Math.round(100 * w)}%${ahead}` };
    },
    over: () => null,
  },
  quantumshogi: {
    names: ["sente", "gote"],
    movetime: 200,
    fromCp: (cp) => ({ y: 2 / (1 + Math.exp(-cp / 400)) - 1, text: `${cp > 0 ? "+" : ""}${cp}` }),
    over: () => null,
  },
};

// The stepping controls of a line of moves, the review board's and the rooms' (play.js): the
// buttons |◀ ◀ ▶ ▶| around "Move k of n", then `extra` (more buttons); the keys ←/→/Home/End
// anywhere on the page but on a board square (whose arrows move between squares) or in a text
// field; and a click on a move in #movelist. `ply()` is the ply shown, `length()` the line's,
// `goto(k)` shows ply k (clamped to the line). `update()` marks the buttons and the list's
// moves (`.mv`, but those of class `pass`) after either was redrawn.
export function stepper({ ply, length, goto, extra = [] }) {
  const $ = (id) => document.getElementById(id);
  const button = (id, title, label, text) => el("button", { type: "button", id, title, "aria-label": label }, text);
  const first = button("rv-first", "to the start (Home)", "to the start", "|◀");
  const prev = button("rv-prev", "one move back (←)", "one move back", "◀");
  const next = button("rv-next", "one move forward (→)", "one move forward", "▶");
  const last = button("rv-last", "to the last move (End)", "to the last move", "▶|");
  const at = el("span", { id: "rv-ply", class: "rv-ply" }, "");
  const nav = el("div", { class: "review-nav", role: "toolbar", "aria-label": "step through the game" }, first, prev, at, next, last, ...extra);
  const to = (k) => goto(Math.max(0, Math.min(length(), k)));
  first.onclick = () => to(0);
  prev.onclick = () => to(ply() - 1);
  next.onclick = () => to(ply() + 1);
  last.onclick = () => to(length());
  $("movelist").addEventListener("click", (e) => {
    const mv = e.target.closest("[data-ply]");
    if (mv) to(Number(mv.dataset.ply));
  });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const t = e.target;
    // The board's own arrow keys (moving between squares) and text fields keep their keys.
    if (t.closest && t.closest("#board, textarea, input, select, [role=grid]")) return;
    const k = { ArrowLeft: ply() - 1, ArrowRight: ply() + 1, Home: 0, End: length() }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    to(k);
  });
  return {
    nav,
    update() {
      const spans = [...$("movelist").querySelectorAll(".mv:not(.pass)")];
      spans.forEach((s, i) => {
        s.dataset.ply = String(i + 1);
        s.classList.toggle("current", i + 1 === ply());
        s.classList.toggle("after", i + 1 > ply());
        if (!s.title) s.title = "go to this move";
      });
      const current = spans[ply() - 1];
      if (current && current.scrollIntoView && length() !== ply()) current.scrollIntoView({ block: "nearest" });
      at.textContent = `Move ${ply()} of ${length()}`;
      first.disabled = prev.disabled = ply() === 0;
      next.disabled = last.disabled = ply() === length();
      document.body.dataset.reviewPly = String(ply());
      document.body.dataset.reviewLength = String(length());
    },
  };
}

// `showList(list, moves)` draws the move list as the page does (its labels, Othello's passes);
// the review marks its moves (`.mv`, except those of class `pass`) with their plies.
// `beforeGraph()` ends the page's own long work first (Go's minute-long live analysis).
export function attachReview({ engine, S, game, jump, playFrom, load, label = () => "", showList = (list, moves) => showMoves(list, moves, label), beforeGraph = async () => {} }) {
  const R = { line: S.moves.slice(), start: S.start, points: [], computing: false, cancel: false, target: null };
  const $ = (id) => document.getElementById(id);
  const scale = SCALES[game];
  // A point of the graph from what the server keeps of it (`score` for the first player, Go's
  // `lead`): drawn again at once, never computed twice.
  const pointOf = ({ ply, score, lead }) => ({ ply, score, lead, ...scale.fromCp(score, lead) });
  // The kept game's graph, when the page opened a kept game and shows it whole.
  if (engine.resumedGraph && engine.resumed && engine.resumed.moves.length === R.line.length) {
    R.points = engine.resumedGraph.filter((p) => p.ply >= 1 && p.ply <= R.line.length).map(pointOf);
  }

  const graph = el(
    "div",
    { class: "review-graph", id: "rv-graph-box" },
    el(
      "div",
      { class: "controls" },
      el("button", { type: "button", id: "rv-eval" }, "Evaluation graph"),
      el("button", { type: "button", id: "rv-stop", hidden: true }, "Stop"),
      el("span", { id: "rv-progress", class: "rv-progress", role: "status", "aria-live": "polite" }, ""),
    ),
    el("div", { id: "rv-graph", class: "rv-graph" }),
  );
  const file = el("input", { type: "file", id: "rv-file", accept: `.${EXT[game]},.txt,text/plain`, hidden: true });
  const panel = el(
    "details",
    { class: "panel review", open: true },
    el("summary", {}, "Record"),
    el(
      "div",
      { class: "controls" },
      el("button", { type: "button", id: "rv-download" }, "Download record"),
      el("button", { type: "button", id: "rv-upload" }, "Upload record"),
      file,
    ),
    el("p", { class: "note" }, `The game as its record (${EXT[game].toUpperCase()}); an uploaded record opens here to step through and play on. ←/→, Home and End step through the game; a click in the move list goes to that move.`),
  );
  const ply = () => S.moves.length;
  const steps = stepper({
    ply,
    length: () => R.line.length,
    goto,
    extra: [el("button", { type: "button", id: "rv-play", title: "you play the side to move here; the engine answers" }, "Play from here")],
  });
  $("status").before(steps.nav);
  document.querySelector("section.play").append(graph);
  $("movelist").closest("details").before(panel);

  // Goes to ply `k` of the line (the last call wins when steps come faster than the engine).
  // Stepping goes on while the graph is computed: each of its requests restores the page's
  // position, and the page's own requests come between them whole.
  async function goto(k) {
    k = Math.max(0, Math.min(R.line.length, k));
    const first = R.target === null;
    R.target = k;
    if (!first) return;
    try {
      while (R.target !== null && R.target !== ply()) {
        const to = R.target;
        await jump(R.line.slice(0, to), to === R.line.length);
        if (R.target === to) break;
      }
    } finally {
      R.target = null;
    }
  }

  // The page drew itself: the line follows the board, and the list and the graph follow both.
  function update() {
    const prefix = S.start === R.start && S.moves.length <= R.line.length && S.moves.every((m, i) => m === R.line[i]);
    if (!prefix) {
      const common = S.start === R.start ? S.moves.findIndex((m, i) => m !== R.line[i]) : 0;
      const kept = common < 0 ? Math.min(S.moves.length, R.line.length) : common;
      R.points = R.points.filter((p) => p.ply <= kept);
      R.line = S.moves.slice();
      R.start = S.start;
    }
    showList($("movelist"), R.line);
    steps.update();
    $("rv-play").disabled = !!S.thinking;
    $("rv-eval").disabled = R.computing || R.line.length === 0 || engine.closed;
    $("rv-stop").hidden = !R.computing;
    drawGraph();
  }

  function drawGraph() {
    const box = $("rv-graph");
    const n = R.line.length;
    if (!R.points.length || !n) {
      box.replaceChildren();
      return;
    }
    const W = 600;
    const H = 120;
    const x = (p) => (n <= 1 ? W / 2 : 8 + ((W - 16) * (p - 1)) / (n - 1));
    const y = (v) => H / 2 - (v * (H - 16)) / 2;
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    const add = (tag, attrs, parent = svg) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
      parent.append(e);
      return e;
    };
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "rv-svg");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `evaluation after each of ${R.points.length} moves, the first player's above the line`);
    add("rect", { x: 0, y: 0, width: W, height: H / 2, class: "rv-first" });
    add("rect", { x: 0, y: H / 2, width: W, height: H / 2, class: "rv-second" });
    add("line", { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: "rv-axis" });
    add("text", { x: W - 6, y: 14, "text-anchor": "end", class: "rv-name first" }).textContent = `${scale.names[0]} ahead`;
    add("text", { x: W - 6, y: H - 6, "text-anchor": "end", class: "rv-name second" }).textContent = `${scale.names[1]} ahead`;
    if (ply() > 0) add("line", { x1: x(ply()), x2: x(ply()), y1: 0, y2: H, class: "rv-now" });
    const pts = R.points.slice().sort((a, b) => a.ply - b.ply);
    add("polyline", { points: pts.map((p) => `${x(p.ply)},${y(p.y)}`).join(" "), class: "rv-line" });
    for (const p of pts) {
      const c = add("circle", { cx: x(p.ply), cy: y(p.y), r: 4, class: "rv-pt" + (p.ply === ply() ? " now" : ""), "data-ply": p.ply, tabindex: -1 });
      add("title", {}, c).textContent = `after move ${p.ply} (${R.line[p.ply - 1]}): ${p.text}`;
    }
    box.replaceChildren(svg);
  }

  // The evaluation of the position after `moves`, from the first player's side. One request in
  // the engine's queue (so that no other request lands between its lines), ending with the
  // page's own position again.
  function evaluate(moves) {
    let best = null;
    let score = null;
    let lead = null;
    let ready = false;
    const seen = [];
    return engine.enqueue(
      () => {
        for (const l of [positionOf(S.start, moves), "d", `go movetime ${scale.movetime}`, positionOf(S.start, S.moves), "isready"]) engine.send(l);
      },
      (line) => {
        if (line.startsWith("info string analysis ")) {
          const m = / scoreLead (-?[\d.]+)/.exec(line);
          if (m) lead = Number(m[1]);
        } else if (line.startsWith("info ") && / score (cp|mate) /.test(line)) {
          const m = / score (cp|mate) (-?\d+)/.exec(line);
          score = m[1] === "cp" ? Number(m[2]) : Number(m[2]) >= 0 ? 30000 : -30000;
        } else if (line.startsWith("bestmove")) best = line;
        else if (line === "readyok") ready = true;
        else seen.push(line);
        if (best && ready) {
          const discs = scale.over(seen);
          if (discs !== null) return pointOf({ score: discs * 100, lead: null });
          if (score === null) return { y: null, text: "game over" };
          const sign = sideIn(seen) === "w" ? -1 : 1;
          return pointOf({ score: sign * score, lead: lead === null ? null : sign * lead });
        }
        return undefined;
      },
    );
  }

  async function computeGraph() {
    if (R.computing || !R.line.length) return;
    R.computing = true;
    R.cancel = false;
    const line = R.line.slice();
    const start = R.start;
    update();
    try {
      await beforeGraph();
      for (let k = 1; k <= line.length; k++) {
        if (R.cancel || R.start !== start || R.line.slice(0, line.length).join(" ") !== line.join(" ")) break;
        if (R.points.some((p) => p.ply === k)) continue;
        $("rv-progress").textContent = `Evaluating move ${k} of ${line.length}…`;
        const v = await evaluate(line.slice(0, k));
        if (!v) break;
        // A finished position the engine does not score keeps the last value.
        const last = R.points.find((p) => p.ply === k - 1) || { y: 0, score: 0, lead: null };
        const point = v.y === null ? { ply: k, y: last.y, text: v.text, score: last.score, lead: last.lead } : { ...v, ply: k };
        R.points.push(point);
        drawGraph();
        // Kept with the game, for a reload and for whoever opens it from /games.
        if (engine.gameId && R.start === start && R.line.slice(0, k).join(" ") === line.slice(0, k).join(" ")) {
          await engine.request([`graph ${k}:${Math.round(point.score)}${point.lead === null || point.lead === undefined ? "" : ":" + point.lead}`]);
        }
      }
    } finally {
      R.computing = false;
      const done = R.points.length;
      $("rv-progress").textContent = R.cancel ? `Stopped: ${done} of ${line.length} moves evaluated.` : `Evaluated ${done} of ${line.length} moves (${scale.movetime} ms each). Click a point to go to that move.`;
      update();
    }
  }

  // The kept game's record (`/record/<id>`, with the players' names), or, for a game the server
  // does not keep (no move yet), the session's `record`.
  async function recordText() {
    if (engine.gameId && R.line.length) {
      const kept = await fetch(`/record/${engine.gameId}`).catch(() => null);
      if (kept && kept.ok) return await kept.text();
    }
    const lines = await engine.request([positionOf(R.start, R.line), "record", positionOf(S.start, S.moves)]);
    const errors = errorsIn(lines || []);
    if (!lines || errors.length) throw new Error(errors.join("; ") || "no engine");
    return lines.filter((l) => !l.startsWith("info ")).join("\n") + "\n";
  }

  async function download() {
    let text;
    try {
      text = await recordText();
    } catch (e) {
      return say("No record: " + e.message, "error");
    }
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const a = el("a", { href: url, download: `ryoshi-${game}${engine.gameId ? "-" + engine.gameId : ""}.${EXT[game]}`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say(`Record downloaded: ${R.line.length} moves.`);
  }

  async function upload() {
    const f = file.files && file.files[0];
    file.value = "";
    if (!f) return;
    if (f.size > MAX_UPLOAD) return say(`That file is ${Math.ceil(f.size / 1024)} KiB; a record may have at most ${MAX_UPLOAD / 1024} KiB.`, "error");
    const text = (await f.text()).replace(/\s*[\r\n]+\s*/g, " ").trim();
    if (!text) return say("That file is empty.", "error");
    const lines = await engine.request([`loadrecordtext ${text}`]);
    const errors = errorsIn(lines || []);
    const loaded = loadedGame(lines || []);
    if (errors.length || !loaded) {
      // The session kept its game; the page's position is sent again all the same.
      await jump(S.moves.slice(), S.moves.length === R.line.length);
      return say("Record refused: " + (errors.join("; ") || "it holds no game"), "error");
    }
    await load(loaded.start, loaded.moves);
    say(`Record loaded: ${loaded.moves.length} moves. Step through them with ←/→, or play on from any move.`);
  }

  $("rv-play").onclick = () => playFrom();
  $("rv-eval").onclick = computeGraph;
  $("rv-stop").onclick = () => {
    R.cancel = true;
    engine.stop();
  };
  $("rv-download").onclick = download;
  $("rv-upload").onclick = () => file.click();
  file.onchange = upload;
  $("rv-graph").addEventListener("click", (e) => {
    const pt = e.target.closest("[data-ply]");
    if (pt) goto(Number(pt.dataset.ply));
  });

  return {
    update,
    // The whole line is the page's game from here (a new game, a loaded record).
    reset() {
      R.line = S.moves.slice();
      R.start = S.start;
      R.points = [];
      $("rv-progress").textContent = "";
    },
    line: () => R.line,
    viewing: () => ply() < R.line.length,
    computing: () => R.computing,
  };
}
