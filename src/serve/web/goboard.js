// A Go board in SVG: stones from the rows of `sfen <size> <rows> <side>`, and overlay marks.
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

// `opts`: size, rows (strings of X O .), marks [{vertex, kind, color}], last, onPoint(vertex).
export function drawGo(root, opts) {
  const { size, rows } = opts;
  const s = svg("svg", { viewBox: `-0.5 -0.5 ${size + 1} ${size + 1}`, role: "grid", "aria-label": `${size}×${size} Go board` });
  const lines = svg("g", { stroke: "#3b2a10", "stroke-width": 0.04 });
  for (let i = 0; i < size; i++) {
    lines.append(svg("line", { x1: 0.5, y1: i + 0.5, x2: size - 0.5, y2: i + 0.5 }));
    lines.append(svg("line", { x1: i + 0.5, y1: 0.5, x2: i + 0.5, y2: size - 0.5 }));
  }
  s.append(lines);
  for (const [r, c] of starPoints(size)) s.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.09, fill: "#3b2a10" }));
  for (let i = 0; i < size; i++) {
    const t = svg("text", { x: i + 0.5, y: -0.12, "font-size": 0.32, "text-anchor": "middle", fill: "#3b2a10" });
    t.textContent = LETTERS[i];
    s.append(t);
    const n = svg("text", { x: -0.2, y: i + 0.61, "font-size": 0.3, "text-anchor": "middle", fill: "#3b2a10" });
    n.textContent = String(size - i);
    s.append(n);
  }
  const marks = new Map((opts.marks || []).map((m) => [m.vertex, m]));
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const v = vertexName(size, r, c);
      const ch = rows[r] ? rows[r][c] : ".";
      const g = svg("g", { class: "pt", "data-vertex": v, tabindex: -1 });
      g.append(svg("rect", { x: c, y: r, width: 1, height: 1, fill: "transparent" }));
      if (ch === "X" || ch === "O") {
        g.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.46, fill: ch === "X" ? "#111" : "#f7f7f7", stroke: "#222", "stroke-width": 0.03, class: "stone", "data-color": ch === "X" ? "b" : "w" }));
        if (opts.last === v) g.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.16, fill: "none", stroke: ch === "X" ? "#fff" : "#000", "stroke-width": 0.05 }));
      }
      const m = marks.get(v);
      if (m) {
        const mark = svg("g", { class: "mark", "data-mark": `${m.kind} ${m.color}` });
        if (m.kind === "alive") mark.append(svg("circle", { cx: c + 0.5, cy: r + 0.5, r: 0.42, fill: "none", stroke: "#1fbf4a", "stroke-width": 0.1 }));
        else if (m.kind === "dead")
          mark.append(svg("path", { d: `M${c + 0.22} ${r + 0.22}L${c + 0.78} ${r + 0.78}M${c + 0.78} ${r + 0.22}L${c + 0.22} ${r + 0.78}`, stroke: "#e0262b", "stroke-width": 0.1 }));
        else mark.append(svg("rect", { x: c + 0.32, y: r + 0.32, width: 0.36, height: 0.36, fill: m.color === "b" ? "#111" : "#fff", stroke: "#555", "stroke-width": 0.03 }));
        g.append(mark);
      }
      g.addEventListener("click", () => opts.onPoint && opts.onPoint(v));
      s.append(g);
    }
  }
  root.replaceChildren(s);
}
