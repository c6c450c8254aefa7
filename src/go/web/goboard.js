// A Go board in SVG: stones from the rows of `sfen <size> <rows> <side>`, overlay marks, the live
// analysis (candidate moves with their win rates, ownership as a shading), and the coordinates
// around it (letters without I on top, numbers on the left, as GTP vertices are written).
import { focusedSquare, frameBoard, labelFrame } from "/assets/engine.js";

const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const NS = "http://www.w3.org/2000/svg";

export function vertexName(size, row, col) {
  return LETTERS[col] + (size - row);
}

function svg(tag, attrs) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function starPoints(size) {
  if (size < 7) return [];
  const e = size >= 13 ? 3 : 2;
  const far = size - 1 - e;
  const mid = (size - 1) / 2;
  const pts = [[e, e], [e, far], [far, e], [far, far]];
  if (size % 2 === 1) pts.push([mid, mid]);
  if (size >= 19) pts.push([e, mid], [mid, e], [mid, far], [far, mid]);
  return pts;
}

// `opts`: size, rows (strings of X O .), marks [{vertex, kind, color}], last, onPoint(vertex),
// analysis: { moves: [{vertex, winrate, visits}] (win rates of the side to move, best first),
//             ownership: [per point, top row first; +1 black owns it, -1 white] } or null.
// Keyboard: the arrow keys move between points, Enter or Space plays the focused one.
export function drawGo(root, opts) {
  const { size, rows } = opts;
  const focused = focusedSquare(root);
  const s = svg("svg", { viewBox: `0 0 ${size} ${size}`, role: "grid", "aria-label": `${size}×${size} Go board` });
  const own = opts.analysis && opts.analysis.ownership;
  if (own && own.length === size * size) {
    // Ownership under the lines: black's points darker, white's lighter, by how sure.
    const shade = svg("g", { class: "ownership" });
    for (let i = 0; i < size * size; i++) {
      const o = Math.max(-1, Math.min(1, own[i]));
      const r = Math.floor(i / size);
      const c = i % size;
      shade.append(svg("rect", { class: "own", "data-at": vertexName(size, r, c), "data-own": o.toFixed(2), x: c, y: r, width: 1, height: 1, fill: o > 0 ? "#000" : "#fff", "fill-opacity": (Math.abs(o) * 0.55).toFixed(3) }));
    }
    s.append(shade);
  }
  const lines = svg("g", { stroke: "#3b2a10", "stroke-width": 0.04 });
  for (let i = 0; i < size; i++) {
    lines.append(svg("line", { x1: 0.5, y1: i + 0.5, x2: size - 0.5, y2: i + 0.5 }));
    lines.append(svg("line", { x1: i + 0.5, y1: 0.5, x2: i + 0.5, y2: size - 0.5 }));
  }
  s.append(lines);
  for (const [r, c] of starPoints(size)) s.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.09, fill: "#3b2a10" }));
  const marks = new Map((opts.marks || []).map((m) => [m.vertex, m]));
  const cands = new Map(((opts.analysis && opts.analysis.moves) || []).map((m, i) => [m.vertex, { ...m, order: i }]));
  const points = [];
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const v = vertexName(size, r, c);
      const ch = rows[r] ? rows[r][c] : ".";
      const what = ch === "X" ? "black stone" : ch === "O" ? "white stone" : "empty";
      const g = svg("g", { class: "pt", "data-vertex": v, tabindex: -1, role: "gridcell", "aria-label": `${v}, ${what}` });
      g.append(svg("rect", { class: "hit", x: c, y: r, width: 1, height: 1, fill: "transparent" }));
      if (ch === "X" || ch === "O") {
        g.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.46, fill: ch === "X" ? "#111" : "#f7f7f7", stroke: "#222", "stroke-width": 0.03, class: "stone", "data-color": ch === "X" ? "b" : "w" }));
        if (opts.last === v) g.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.16, fill: "none", stroke: ch === "X" ? "#fff" : "#000", "stroke-width": 0.05 }));
      }
      const cand = ch === "." && cands.get(v);
      if (cand) {
        // A candidate of the analysis: its win rate for the side to move, in percent; the best
        // one in blue, the others in green (as Lizzie and Sabaki draw them).
        const pct = Math.round(cand.winrate * 100);
        const mark = svg("g", { class: "cand", "data-winrate": String(pct), "data-order": String(cand.order) });
        mark.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.44, fill: cand.order === 0 ? "#3f8ee0" : "#5fbf72", "fill-opacity": cand.order === 0 ? 0.95 : 0.8, stroke: "#123", "stroke-width": 0.03 }));
        const t = svg("text", { x: c + 0.5, y: r + 0.63, "font-size": 0.4, "text-anchor": "middle", fill: "#fff", "font-weight": 700 });
        t.textContent = String(pct);
        mark.append(t);
        g.append(mark);
        g.setAttribute("aria-label", `${v}, empty, suggested: ${pct}% to win`);
      }
      const m = marks.get(v);
      if (m) {
        const mark = svg("g", { class: "mark", "data-mark": `${m.kind} ${m.color}` });
        if (m.kind === "alive") mark.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.42, fill: "none", stroke: "#1fbf4a", "stroke-width": 0.1 }));
        else if (m.kind === "dead")
          mark.append(svg("path", { d: `M${c + 0.22} ${r + 0.22}L${c + 0.78} ${r + 0.78}M${c + 0.78} ${r + 0.22}L${c + 0.22} ${r + 0.78}`, stroke: "#e0262b", "stroke-width": 0.1 }));
        else mark.append(svg("rect", { x: c + 0.32, y: r + 0.32, width: 0.36, height: 0.36, fill: m.color === "b" ? "#111" : "#fff", stroke: "#555", "stroke-width": 0.03 }));
        g.append(mark);
        g.setAttribute("aria-label", `${g.getAttribute("aria-label")}, ${m.kind === "territory" ? (m.color === "b" ? "black's" : "white's") + " territory" : m.kind}`);
      }
      g.append(svg("rect", { class: "focus-ring", x: c + 0.06, y: r + 0.06, width: 0.88, height: 0.88, rx: 0.12, fill: "none" }));
      g.addEventListener("click", () => opts.onPoint && opts.onPoint(v));
      s.append(g);
      points.push(g);
    }
  }
  // One point in the tab order (the focused one, else the last move, else the centre); the
  // arrow keys move from there.
  const centre = vertexName(size, Math.floor(size / 2), Math.floor(size / 2));
  const start = [focused, opts.last, centre].find((v) => v && s.querySelector(`[data-vertex="${v}"].pt`));
  s.querySelector(`[data-vertex="${start}"].pt`).setAttribute("tabindex", 0);
  s.addEventListener("keydown", (e) => {
    const at = points.indexOf(e.target);
    if (at < 0) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (opts.onPoint) opts.onPoint(e.target.dataset.vertex);
      return;
    }
    const r = Math.floor(at / size);
    const c = at % size;
    const to = { ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1], ArrowUp: [r - 1, c], ArrowDown: [r + 1, c] }[e.key];
    if (!to) return;
    e.preventDefault();
    if (to[0] < 0 || to[0] >= size || to[1] < 0 || to[1] >= size) return;
    e.target.setAttribute("tabindex", -1);
    const next = points[to[0] * size + to[1]];
    next.setAttribute("tabindex", 0);
    next.focus();
  });
  const frame = frameBoard(s, "left");
  root.replaceChildren(frame);
  labelFrame(frame, [...LETTERS.slice(0, size)], Array.from({ length: size }, (_, i) => size - i));
  if (focused) {
    const again = s.querySelector(`[data-vertex="${focused}"].pt`);
    if (again) again.focus();
  }
}
