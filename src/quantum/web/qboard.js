// Quantum shogi board: QSFEN (protocol/qsfen.md) to pieces with their exact candidate sets, and
// the board and hands drawn from them. A bare `Q` stands for "every type its place allows",
// projected over its origin's twenty pieces (Hall's condition with K1 R1 B1 G2 S2 N2 L2 P9), so
// the page computes that projection to show what such a piece can still be.
import { askPromotion, cancelPromotion, focusedSquare, gridNav, labelFrame, promotionOpen, showMoves } from "/assets/engine.js";

export const TYPES = "KRBGSNLP";
export const NAMES = { K: "king", R: "rook", B: "bishop", G: "gold", S: "silver", N: "knight", L: "lance", P: "pawn" };
const CAPS = [1, 1, 1, 2, 2, 2, 2, 9];
const KANJI = { K: "玉", R: "飛", B: "角", G: "金", S: "銀", N: "桂", L: "香", P: "歩" };
const PROMOTED = { R: "龍", B: "馬", S: "全", N: "圭", L: "杏", P: "と" };
const RANKS = "abcdefghi";

const bit = (t) => 1 << TYPES.indexOf(t);
const maskOf = (letters) => [...letters].reduce((m, t) => m | bit(t), 0);
const lettersOf = (mask) => [...TYPES].filter((t) => mask & bit(t)).join("");
const ALL = 255;

export function squareName(row, col) {
  return `${9 - col}${RANKS[row]}`;
}

export function squareIndex(name) {
  const file = Number(name[0]);
  const row = RANKS.indexOf(name[1]);
  return { row, col: 9 - file };
}

// One piece token at text[i]: [+]letter[set][~]. Returns { piece, next }.
function readPiece(text, i) {
  let promoted = false;
  if (text[i] === "+") {
    promoted = true;
    i++;
  }
  const ch = text[i++];
  if (!ch || !/[A-Za-z]/.test(ch)) throw new Error("bad piece");
  const owner = ch === ch.toUpperCase() ? "b" : "w";
  const letter = ch.toUpperCase();
  let set = null;
  if (text[i] === "[") {
    const end = text.indexOf("]", i);
    if (end < 0) throw new Error("unclosed [");
    set = text.slice(i + 1, end);
    i = end + 1;
  }
  let tilde = false;
  if (text[i] === "~") {
    tilde = true;
    i++;
  }
  const origin = tilde ? (owner === "b" ? "w" : "b") : owner;
  return { piece: { owner, letter, set, tilde, promoted, origin }, next: i };
}

export function parseQsfen(qsfen) {
  const [boardText, side, handText = "-", number = "1"] = qsfen.trim().split(/\s+/);
  const board = [];
  for (const rank of boardText.split("/")) {
    const row = [];
    let i = 0;
    while (i < rank.length) {
      if (/[1-9]/.test(rank[i])) {
        for (let k = 0; k < Number(rank[i]); k++) row.push(null);
        i++;
      } else {
        const { piece, next } = readPiece(rank, i);
        row.push(piece);
        i = next;
      }
    }
    board.push(row);
  }
  const hands = [];
  if (handText !== "-") {
    let i = 0;
    while (i < handText.length) {
      let digits = "";
      while (/[0-9]/.test(handText[i])) digits += handText[i++];
      const start = i;
      const { piece, next } = readPiece(handText, i);
      piece.count = digits ? Number(digits) : 1;
      piece.token = handText.slice(start, next);
      piece.dropToken = piece.token[0].toUpperCase() + piece.token.slice(1);
      hands.push(piece);
      i = next;
    }
  }
  const pos = { board, hands, side, number: Number(number) };
  project(pos);
  return pos;
}

// The types a bare Q allows at its place (before projection).
function placeMask(piece, row) {
  if (piece.count !== undefined) return ALL & ~bit("K");
  if (piece.promoted) return ALL & ~bit("G") & ~bit("K");
  const far = piece.owner === "b" ? row : 8 - row;
  if (far === 0) return ALL & ~bit("P") & ~bit("L") & ~bit("N");
  if (far === 1) return ALL & ~bit("N");
  return ALL;
}

// Hall's condition with capacities: every set T of types must hold the pieces confined to it.
function feasible(masks) {
  for (let t = 1; t < 256; t++) {
    let cap = 0;
    for (let k = 0; k < 8; k++) if (t & (1 << k)) cap += CAPS[k];
    let n = 0;
    for (const m of masks) if ((m & ~t) === 0) n++;
    if (n > cap) return false;
  }
  return true;
}

// Sets `cands` (letters, order KRBGSNLP) on every piece.
function project(pos) {
  for (const origin of ["b", "w"]) {
    const items = [];
    pos.board.forEach((row, r) =>
      row.forEach((p) => {
        if (p && p.origin === origin) items.push({ p, row: r, copies: 1 });
      }),
    );
    for (const p of pos.hands) if (p.origin === origin) items.push({ p, row: -1, copies: p.count });
    const masks = [];
    for (const it of items) {
      const { p } = it;
      it.mask = p.letter !== "Q" ? bit(p.letter) : p.set ? maskOf(p.set) : placeMask(p, it.row);
      for (let c = 0; c < it.copies; c++) masks.push(it.mask);
    }
    let index = 0;
    for (const it of items) {
      let exact = it.mask;
      if (it.p.letter === "Q" && !it.p.set && masks.length === 20) {
        exact = 0;
        for (let k = 0; k < 8; k++) {
          if (!(it.mask & (1 << k))) continue;
          const trial = masks.slice();
          trial[index] = 1 << k;
          if (feasible(trial)) exact |= 1 << k;
        }
      }
      it.p.cands = lettersOf(exact);
      index += it.copies;
    }
  }
}

// The face of a piece: kanji when certain, the candidate letters otherwise.
export function pieceFace(p) {
  const face = document.createElement("span");
  face.className = "qpiece" + (p.owner === "w" ? " gote" : "") + (p.origin !== p.owner ? " tilde" : "") + (p.promoted ? " promoted" : "");
  face.dataset.cands = p.cands;
  face.dataset.owner = p.owner;
  face.dataset.origin = p.origin;
  if (p.promoted) face.dataset.promoted = "1";
  const title = `${p.owner === "b" ? "sente" : "gote"}'s piece${p.origin !== p.owner ? ", of the other side's origin (~)" : ""}${p.promoted ? ", promoted" : ""}: ${p.cands.length === 1 ? "certain " + p.cands : "may be " + [...p.cands].join(" ")}`;
  face.title = title;
  face.setAttribute("aria-label", title);
  if (p.cands.length === 1) {
    const t = p.cands;
    face.classList.add("certain");
    face.textContent = p.promoted ? PROMOTED[t] || KANJI[t] : KANJI[t];
  } else {
    face.classList.add("uncertain");
    for (const t of TYPES) {
      const s = document.createElement("i");
      s.textContent = t;
      if (!p.cands.includes(t)) s.className = "off";
      face.append(s);
    }
  }
  if (p.origin !== p.owner) {
    const m = document.createElement("b");
    m.className = "origin-mark";
    m.textContent = "~";
    face.append(m);
  }
  return face;
}

// Candidate sets by square, to find the pieces an action narrowed.
export function candsBySquare(pos) {
  const out = {};
  pos.board.forEach((row, r) =>
    row.forEach((p, c) => {
      if (p) out[squareName(r, c)] = p;
    }),
  );
  return out;
}

// Squares whose piece has fewer candidates after `move` than before it.
export function narrowed(before, after, move) {
  const out = new Set();
  const m = /^(\d[a-i])(\d[a-i])/.exec(move || "");
  for (const [sq, p] of Object.entries(after)) {
    let prev = before[sq];
    if (m && sq === m[2]) prev = before[m[1]];
    if (m && sq === m[1]) continue;
    if (prev && prev.owner === p.owner && prev.origin === p.origin && p.cands.length < prev.cands.length) out.add(sq);
  }
  return out;
}

// Parsed legal actions: board moves by origin square, drops by hand token.
export function indexMoves(list) {
  const byFrom = new Map();
  const drops = new Map();
  for (const mv of list) {
    const b = /^(\d[a-i])(\d[a-i])(\+?)$/.exec(mv);
    if (b) {
      if (!byFrom.has(b[1])) byFrom.set(b[1], []);
      byFrom.get(b[1]).push({ to: b[2], promote: b[3] === "+", text: mv });
      continue;
    }
    const d = /^(.+)\*(\d[a-i])$/.exec(mv);
    if (d) {
      if (!drops.has(d[1])) drops.set(d[1], []);
      drops.get(d[1]).push({ to: d[2], promote: false, text: mv });
    }
  }
  return { byFrom, drops };
}

// Draws the board into `root` (a 9x9 grid) and the two hands into `hands.b` / `hands.w`.
// `opts`: flipped, selected (square or hand token), targets (Set of squares), narrowed (Set),
// last (move text), onSquare(name), onHand(token, owner).
export function drawBoard(root, handRoots, pos, opts) {
  const focused = focusedSquare(root);
  root.replaceChildren();
  const last = /^(?:(\d[a-i])|.+\*)(\d[a-i])/.exec(opts.last || "");
  for (let i = 0; i < 81; i++) {
    const r = opts.flipped ? 8 - Math.floor(i / 9) : Math.floor(i / 9);
    const c = opts.flipped ? 8 - (i % 9) : i % 9;
    const name = squareName(r, c);
    const p = pos.board[r][c];
    const cell = document.createElement("button");
    cell.type = "button";
    cell.className = "sq";
    cell.dataset.square = name;
    // Read as the square and what is on it (a piece's owner and what it may be), and whether
    // the selected piece may go there.
    const target = opts.targets && opts.targets.has(name);
    // Where the opponent could take the side to move's king (`d`'s `king attacked:`): a red ring.
    const attacked = opts.attacked && opts.attacked.has(name);
    const notes = (target ? (p ? ", a capture here" : ", a move to here") : "") + (attacked ? ", the king, attacked" : "");
    cell.setAttribute("aria-label", name + (p ? "" : " empty") + notes);
    if (attacked) cell.classList.add("attacked");
    if (target) cell.classList.add("target");
    if (target && p) cell.classList.add("capture");
    if (opts.selected === name) cell.classList.add("selected");
    if (opts.narrowed && opts.narrowed.has(name)) cell.classList.add("narrowed");
    if (last && (last[1] === name || last[2] === name)) cell.classList.add("last");
    if (p) {
      const face = pieceFace(p);
      if (opts.flipped) face.classList.toggle("gote");
      cell.setAttribute("aria-label", `${name}: ${face.getAttribute("aria-label")}${notes}`);
      face.setAttribute("aria-hidden", "true");
      cell.append(face);
    }
    cell.addEventListener("click", () => opts.onSquare && opts.onSquare(name));
    root.append(cell);
  }
  gridNav(root, 9, focused);
  if (root.parentElement && root.parentElement.classList.contains("frame")) {
    const files = [9, 8, 7, 6, 5, 4, 3, 2, 1];
    const ranks = [...RANKS];
    labelFrame(root.parentElement, opts.flipped ? files.reverse() : files, opts.flipped ? ranks.reverse() : ranks);
  }
  for (const owner of ["b", "w"]) {
    const h = handRoots[owner];
    h.replaceChildren();
    const label = document.createElement("span");
    label.className = "hand-label";
    label.textContent = owner === "b" ? "☗ sente" : "☖ gote";
    h.append(label);
    const groups = pos.hands.filter((p) => p.owner === owner);
    if (!groups.length) {
      const none = document.createElement("span");
      none.className = "hand-empty";
      none.textContent = "no pieces in hand";
      h.append(none);
    }
    for (const p of groups) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "hand-piece" + (opts.selected === p.dropToken && opts.selectedOwner === owner ? " selected" : "");
      b.dataset.token = p.dropToken;
      const face = pieceFace(p);
      face.classList.remove("gote");
      b.append(face);
      if (p.count > 1) {
        const n = document.createElement("span");
        n.className = "count";
        n.textContent = "×" + p.count;
        b.append(n);
      }
      b.addEventListener("click", () => opts.onHand && opts.onHand(p.dropToken, owner));
      h.append(b);
    }
  }
}

// The status line when the opponent could take the mover's king (`attacked`: squares). A piece
// that is not yet certainly the king becomes it through the capturing move's restriction.
export function kingWarning(pos, attacked) {
  const squares = [...attacked].join(", ");
  const certain = [...attacked].every((sq) => {
    const { row, col } = squareIndex(sq);
    const p = pos.board[row][col];
    return p && p.cands === "K";
  });
  return certain
    ? `Your king is in check: it can be captured on ${squares} (ringed in red).`
    : `Your king may be in check: a capture on ${squares} would take it (ringed in red).`;
}

// After a king capture (`lastMove` took it), the sentence that says which piece took it: "The
// rook (R) on 5a took the king.", or what the piece may still be when that is not known.
export function captureText(pos, lastMove) {
  const to = /(\d[a-i])\+?$/.exec(lastMove || "");
  if (!to) return "";
  const { row, col } = squareIndex(to[1]);
  const p = pos.board[row] && pos.board[row][col];
  if (!p || !p.cands) return "";
  const kind = (t) => `${p.promoted ? "promoted " : ""}${NAMES[t]} (${p.promoted ? "+" : ""}${t})`;
  const what = p.cands.length === 1 ? `The ${kind(p.cands)}` : `The piece that may be a ${[...p.cands].map(kind).join(" or ")}`;
  // The move as the move list writes it (a capture, as it took the king).
  const move = actionText(lastMove, { mark: p.owner === "b" ? "☗" : "☖", before: { [to[1]]: p } });
  return `${what} on ${to[1]} took the king: ${move}.`;
}

// A quantum shogi action as a newcomer reads it, in the page's letters (the legend ties them to
// the pieces' names) and the kifu's ☗/☖: `☗7g→7f`, a capture `☗8h×2b`, a promotion `☗8h→2b
// promotes`, a drop `☖ drop R|L at 5i` (`~`: of the other side's origin; `any` for a bare Q);
// then what the moved piece may be now, `now R or L`, `now rook (R)`. `before` and `after` are
// the positions around the action by square (`candsBySquare`), null when the page has not seen
// them: without `before` a board move is written `7g-7f` (capture or not is unknown), without
// `after` the piece's candidates are left out. The raw action (protocol/quantum.md, "Actions")
// goes in the move list's titles.
export function actionText(action, { mark = "", before = null, after = null } = {}) {
  const now = (sq, shown = "") => {
    const p = after && after[sq];
    if (!p || !p.cands || p.cands === shown) return "";
    const kinds = [...p.cands].map((t) => (p.promoted ? "+" : "") + t);
    const what = kinds.length === 1 ? `${p.promoted ? "promoted " : ""}${NAMES[p.cands]} (${kinds[0]})` : `${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}`;
    return `, now ${what}`;
  };
  const board = /^(\d[a-i])(\d[a-i])(\+?)$/.exec(action);
  if (board) {
    const [, from, to, promote] = board;
    const sep = !before ? "-" : before[to] ? "×" : "→";
    return `${mark}${from}${sep}${to}${promote ? " promotes" : ""}${now(to)}`;
  }
  // `Q[RL]~*5i`, `P*5e`, or a bare `Q` (any type its place allows).
  const drop = /^(?:Q\[([A-Z]+)\]|([A-PR-Z])|Q)(~?)\*(\d[a-i])$/.exec(action);
  if (drop) {
    const [, within, one, tilde, to] = drop;
    const set = within || one || "";
    return `${mark} drop ${set ? [...set].join("|") : "any"}${tilde} at ${to}${now(to, set)}`;
  }
  return mark + action;
}

// The positions a page has shown, by the line that led to them (`start` and the moves), for
// `actionText`: a Map the page keeps, of at most `limit` positions.
export function rememberPosition(memo, start, moves, pos, limit = 2048) {
  if (memo.size >= limit) memo.clear();
  memo.set([start, ...moves].join(" "), candsBySquare(pos));
}

// What an action narrowed, in one sentence: the moved (or dropped) piece's lost types, then
// every other piece whose candidates shrank, and why (the count K1 R1 B1 G2 S2 N2 L2 P9).
// `before` and `after` are the positions around it by square (`candsBySquare`).
export function narrowingText(action, before, after, mark = "") {
  const lost = (was, now) => [...was].filter((t) => !now.includes(t));
  const m = /^(\d[a-i])(\d[a-i])\+?$/.exec(action) || /\*(\d[a-i])$/.exec(action);
  const to = m && (m[2] || m[1]);
  const from = m && m[2] ? m[1] : null;
  const parts = [];
  const moved = to && after[to];
  const was = from ? before[from] : null;
  if (moved && was) {
    const gone = lost(was.cands, moved.cands);
    parts.push(gone.length ? `the piece now on ${to} cannot be ${gone.join(", ")} (no such piece makes that move)` : `the piece now on ${to} keeps ${[...moved.cands].join(", ")}`);
  } else if (moved) parts.push(`the dropped piece on ${to} may be ${[...moved.cands].join(", ")}`);
  const others = [];
  for (const [sq, p] of Object.entries(after)) {
    const prev = before[sq];
    if (sq === to || !prev || prev.owner !== p.owner || prev.origin !== p.origin) continue;
    const gone = lost(prev.cands, p.cands);
    if (gone.length) others.push(`${sq} cannot be ${gone.join(", ")}`);
  }
  if (others.length) parts.push(`${others.join("; ")}, since each side's 20 pieces must still fit K1 R1 B1 G2 S2 N2 L2 P9`);
  else parts.push("no other piece narrowed");
  return `${actionText(action, { mark, before, after })}: ${parts.join("; ")}.`;
}

// The move list of a quantum game in words (`label(i)`: the mover's ☗/☖), each move's raw
// action its title and `data-action`.
export function showActions(list, start, moves, label, memo) {
  showMoves(list, moves, label, (i) => movesText(start, moves, i, label(i), memo));
}

// Move `i` of `moves` from `start` in words, with the positions around it that `memo` holds.
export function movesText(start, moves, i, mark, memo) {
  const at = (k) => memo.get([start, ...moves.slice(0, k)].join(" ")) || null;
  return actionText(moves[i], { mark, before: at(i), after: at(i + 1) });
}

// The clicks of a page where one side plays quantum shogi by selecting a piece (or a hand token)
// and then a target square. `S` holds the page's `pos`, `idx` (`indexMoves`), `selected`,
// `selectedOwner` and `targets`; `canMove()` says whether the side to move may move now, and
// `play(text)` plays a chosen action. A click elsewhere while "Promote?" is open cancels the
// move, as on lichess.
export function pieceClicks(S, { canMove, play, render }) {
  const clearSelection = () => {
    S.selected = null;
    S.selectedOwner = null;
    S.targets = new Set();
  };
  const cancelled = () => {
    if (!promotionOpen()) return false;
    cancelPromotion();
    clearSelection();
    render();
    return true;
  };
  async function onSquare(name) {
    if (!canMove() || cancelled()) return;
    if (S.selected && S.targets.has(name)) {
      const from = S.selectedOwner ? S.idx.drops.get(S.selected) : S.idx.byFrom.get(S.selected);
      const options = from.filter((m) => m.to === name);
      let choice = options[0];
      if (options.length > 1) {
        const promote = await askPromotion(name);
        if (promote === null) return;
        choice = options.find((m) => m.promote === promote);
        if (!choice) return;
      }
      await play(choice.text);
      return;
    }
    if (S.idx.byFrom.has(name)) {
      S.selected = name;
      S.selectedOwner = null;
      S.targets = new Set(S.idx.byFrom.get(name).map((m) => m.to));
    } else clearSelection();
    render();
  }
  function onHand(token, owner) {
    if (cancelled() || !canMove() || owner !== S.pos.side || !S.idx.drops.has(token)) return;
    S.selected = token;
    S.selectedOwner = owner;
    S.targets = new Set(S.idx.drops.get(token).map((m) => m.to));
    render();
  }
  return { onSquare, onHand, clearSelection };
}
