// The board of a game without a page of its own, drawn from its lines as the engine draws them
// (`d`, the room state's `display`): where the lines give coordinates (a line of column labels,
// then one line per row: its label, one cell per column, maybe its label again), a grid whose
// squares are clicked; the other lines as text (protocol/serve.md, "The generic page").
import { el } from "/assets/engine.js";

// The grid in `lines`: { files, rows: [{ rank, cells }], before, after }, or null when the lines
// give no coordinates.
export function readGrid(lines) {
  for (let h = 0; h < lines.length; h++) {
    const header = lines[h].trim();
    const files = header.split(/\s+/);
    if (files.length < 2 || !files.every((f) => /^[A-Za-z0-9]{1,2}$/.test(f))) continue;
    const rows = [];
    let i = h + 1;
    for (; i < lines.length; i++) {
      const words = lines[i].trim().split(/\s+/);
      const labelled = words.length === files.length + 1 || (words.length === files.length + 2 && words.at(-1) === words[0]);
      if (!labelled) break;
      rows.push({ rank: words[0], cells: words.slice(1, files.length + 1) });
    }
    if (rows.length < 2) continue;
    // The column labels again under the board (Go's) belong to it.
    if (i < lines.length && lines[i].trim() === header) i++;
    return { files, rows, before: lines.slice(0, h), after: lines.slice(i) };
  }
  return null;
}

// The legal move a square's coordinates name (`b2`, `2b`, any case), or null.
function moveAt(file, rank, legal) {
  const names = [file + rank, rank + file].map((n) => n.toLowerCase());
  return legal.find((m) => names.includes(m.toLowerCase())) ?? null;
}

// Draws `lines` into `root`: a grid of buttons where they give coordinates (a legal square
// calls `onMove` with its move when `playable`), the rest as text.
export function drawLines(root, lines, { legal = [], playable = false, onMove = () => {} } = {}) {
  const grid = readGrid(lines);
  const text = (ls) => (ls.length ? [el("pre", { class: "lines" }, ls.join("\n"))] : []);
  if (!grid) {
    root.replaceChildren(...text(lines));
    return;
  }
  const board = el("div", { class: "lboard", role: "grid", "aria-label": "board" });
  // Through the CSSOM: the pages' Content-Security-Policy refuses style attributes.
  board.style.gridTemplateColumns = `repeat(${grid.files.length + 1}, 2.4em)`;
  board.append(el("span", { class: "label" }), ...grid.files.map((f) => el("span", { class: "label" }, f)));
  for (const { rank, cells } of grid.rows) {
    board.append(el("span", { class: "label" }, rank));
    cells.forEach((cell, c) => {
      const name = grid.files[c] + rank;
      const move = playable ? moveAt(grid.files[c], rank, legal) : null;
      const square = el("button", { type: "button", class: "lsq" + (move ? " legal" : ""), "data-square": name, "aria-label": `${name} ${cell}` }, cell);
      if (move) square.addEventListener("click", () => onMove(move));
      else square.disabled = true;
      board.append(square);
    });
  }
  root.replaceChildren(...text(grid.before), board, ...text(grid.after));
}
