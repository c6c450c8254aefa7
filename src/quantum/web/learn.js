// Learn quantum shogi: short lessons, each a position where the player makes the action the
// lesson teaches. A protocol client like the puzzle page: the board is redrawn from `d` after
// every action and the clickable squares come from `moves`; another action than the lesson's is
// explained in one sentence and taken back. Progress is kept in this browser.
import { Engine, errorsIn, say, attempt, cancelPromotion, el } from "/assets/engine.js";
import { parseQsfen, drawBoard, indexMoves, candsBySquare, narrowed, pieceClicks, actionText, narrowingText } from "/assets/qboard.js";

const $ = (id) => document.getElementById(id);
const STORE = "ryoshi.learn.v1";
const CAPS = { K: 1, R: 1, B: 1, G: 2, S: 2, N: 2, L: 2, P: 9 };

// Sente's pieces of sente's origin that are certain, by type.
function certainOf(pos, origin = "b") {
  const out = {};
  const add = (p, n = 1) => {
    if (p.origin === origin && p.cands.length === 1) out[p.cands] = (out[p.cands] || 0) + n;
  };
  pos.board.forEach((row) => row.forEach((p) => p && add(p)));
  pos.hands.forEach((p) => add(p, p.count));
  return out;
}

// Each lesson: its position (`start` and actions `pre` already played), what it teaches, the
// task, whether an action is the one taught (`goal(action, pos)`, `pos` the position after it),
// the sentence for any other action, and what the player has just seen.
const LESSONS = [
  {
    title: "What a candidate set is",
    start: "startpos",
    teach: "No piece starts as a known type. Each of a side's 20 pieces is one of K R B G S N L P, and the letters on it are the types it may still be: its candidate set.",
    task: "Move the piece on 7g one square forward, to 7f.",
    goal: (a) => a === "7g7f",
    other: "that is legal too, but this lesson asks for 7g→7f: a one-square step forward.",
    done: "A step forward could be made by K, R, G, S, L or P, so the piece keeps exactly those: it can no longer be B or N.",
  },
  {
    title: "A move narrows the mover",
    start: "startpos",
    pre: ["7g7f", "3c3d"],
    teach: "After a move the piece keeps only the types that could have made it. One step forward: K R G S L P. A jump: only N. Two or more squares diagonally: only B.",
    task: "Move the piece on 8h two or more squares diagonally (8h→6f, 5e, 4d …).",
    goal: (a) => /^8h(6f|5e|4d|3c|2b)\+?$/.test(a),
    other: "this lesson asks for a long diagonal move from 8h, which only a bishop makes.",
    done: "Only a bishop moves two squares diagonally: the piece is now certainly B, and no other sente piece may be B any more.",
  },
  {
    title: "A move narrows the others: the count",
    start: "sfen 4k4/9/9/9/9/9/9/1Q[RB]5Q[RB]1/4K4 b 17Q19q 1",
    teach: "Each side's twenty pieces must fit exactly K1 R1 B1 G2 S2 N2 L2 P9. Here the pieces on 8h and 2h may each be R or B, and the rook and the bishop are among them.",
    task: "Move either of them diagonally: it becomes the bishop, and the count makes the other the rook.",
    goal: (a, pos) => /^[82]h/.test(a) && certainOf(pos).R === 1 && certainOf(pos).B === 1,
    other: "the count changes nothing here yet: move 8h or 2h diagonally to make one of them the bishop.",
    done: "One bishop per side: once one piece is B, the other R|B piece must be the rook, though it never moved.",
  },
  {
    title: "Captures and the hand",
    start: "sfen 4q4/9/9/9/4q4/4P4/9/9/4K4 b 18Q18q 1",
    teach: "A captured piece goes to the captor's hand with its candidates, but it was not the king: the king would have ended the game. So capturing removes K from it.",
    task: "Capture the piece on 5e with your pawn.",
    goal: (a) => a === "5f5e",
    other: "this lesson is about the capture 5f×5e.",
    done: "The captured piece cannot have been the king, so gote's king must be the piece on 5a: it is certain now.",
  },
  {
    title: "Dropping an uncertain piece",
    start: "sfen 4k4/9/9/9/9/9/9/9/4K4 b 19Q19q 1",
    teach: "A piece in hand is dropped as it is, candidates and all. Where it lands can narrow it: a piece on the last rank cannot be P, L or N, which could never move from there.",
    task: "Drop a piece from your hand on the last rank (rank a).",
    goal: (a) => /\*\da$/.test(a),
    other: "drop a piece on rank a, the far edge, to see what it loses there.",
    done: "Dropped on the last rank the piece can no longer be P, L or N.",
  },
  {
    title: "Promotion",
    start: "sfen 4k4/9/9/4Q4/9/9/9/9/4K4 b 18Q19q 1",
    teach: "As in shogi, a piece may promote when it moves into, within or out of the far three ranks. Golds and kings never promote, so a promoted piece cannot be G or K.",
    task: "Move the piece on 5d into the far three ranks and promote it.",
    goal: (a) => /^5d\d[abc]\+$/.test(a),
    other: "move 5d into ranks a to c and choose Promote.",
    done: "Promoted, the piece can no longer be G or K (and it moved as a promoted piece from now on).",
  },
  {
    title: "Illegal actions and why",
    start: "sfen k8/4Q[PL]4/9/9/9/9/9/9/4K4 b 18Q19q 1",
    teach: "An action is legal only when both sides' twenty pieces can still be given types that fit K1 R1 B1 G2 S2 N2 L2 P9, with every piece able to move again. The page offers only legal actions.",
    task: "The piece on 5b is P or L. Move it to 5a: only the promotion is offered.",
    goal: (a) => a === "5b5a+",
    other: "move the piece on 5b to 5a; unpromoted it would be a P or L that can never move, so only 5b→5a promotes is legal.",
    done: "Unpromoted on the last rank, a P or an L could never move again, so that action is illegal: promoting is the only way.",
  },
  {
    title: "確定二歩禁: no second certain pawn on a file",
    start: "sfen 4k4/9/9/9/9/9/4P4/9/4K4 b P17Q19q 1",
    teach: "You may not drop a piece that is certainly a pawn on a file where you already have an unpromoted certain pawn (確定二歩禁). Uncertain pieces that later turn out to be pawns are allowed.",
    task: "Drop your certain pawn (P in hand): file 5, where your pawn stands on 5g, is not offered.",
    goal: (a) => /^P\*/.test(a),
    other: "drop the certain pawn, the P in your hand, on any file but 5.",
    done: "The certain pawn went to another file: on file 5 it would have been a second certain pawn.",
  },
  {
    title: "Capturing the king",
    start: "sfen 4k4/4R4/9/9/9/9/9/9/4K4 b 18Q19q 1",
    teach: "There is no check and no mate: you win by capturing a piece whose only candidate is K. A piece that may still be something else is captured like any other.",
    task: "Capture gote's king on 5a with your rook.",
    goal: (a, pos, winner) => winner === "b",
    other: "the rook on 5b can take the certain king on 5a: that wins at once.",
    done: "The captured piece could only be the king: sente wins.",
  },
];

const S = {
  index: 0,
  start: "startpos",
  moves: [],
  pos: null,
  legal: [],
  idx: { byFrom: new Map(), drops: new Map() },
  selected: null,
  selectedOwner: null,
  targets: new Set(),
  narrowed: new Set(),
  winner: null,
  // "play" (the player's turn) or "done".
  state: "play",
  gen: 0,
};

const engine = new Engine({
  onError: (e) => say("Engine: " + e, "error"),
  onClose: () => {},
});

function loadProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(STORE) || "{}");
    return { done: p.done || {}, last: Number.isInteger(p.last) ? p.last : null };
  } catch {
    return { done: {}, last: null };
  }
}
const progress = loadProgress();
function saveProgress() {
  try {
    localStorage.setItem(STORE, JSON.stringify(progress));
  } catch {
    // Storage full or refused: the page still works, it only forgets.
  }
}

const lesson = () => LESSONS[S.index];

function positionCommand() {
  return `position ${S.start}${S.moves.length ? " moves " + S.moves.join(" ") : ""}`;
}

async function refresh(move) {
  const lines = await engine.request([positionCommand(), "d", "moves"]);
  if (!lines) return ["no engine"];
  const errors = errorsIn(lines);
  const at = lines.findIndex((l) => l.startsWith("sfen "));
  if (at < 0) return errors.length ? errors : ["no position from the engine"];
  const before = S.pos && move ? candsBySquare(S.pos) : null;
  S.pos = parseQsfen(lines[at].slice(5));
  const list = (lines[at + 1] || "").trim();
  S.legal = list ? list.split(/\s+/) : [];
  S.idx = indexMoves(S.legal);
  S.narrowed = before ? narrowed(before, candsBySquare(S.pos), move) : new Set();
  const winner = lines.find((l) => l.startsWith("winner: "));
  S.winner = winner ? winner[8] : null;
  return errors;
}

const { onSquare, onHand, clearSelection } = pieceClicks(S, {
  canMove: () => S.state === "play" && !!S.pos && S.pos.side === "b",
  play,
  render,
});

// The fit every side's pieces must keep, and how much of it is certain now.
function fitText() {
  const certain = certainOf(S.pos);
  const parts = Object.entries(CAPS).map(([t, n]) => `${t}${n}${certain[t] ? ` (${certain[t]} certain)` : ""}`);
  return `Sente's 20 pieces must fit ${parts.join(" ")}.`;
}

function render() {
  if (!S.pos) return;
  drawBoard($("board"), { w: $("hand-top"), b: $("hand-bottom") }, S.pos, {
    flipped: false,
    selected: S.selected,
    selectedOwner: S.selectedOwner,
    targets: S.targets,
    narrowed: S.narrowed,
    last: S.moves.slice((lesson().pre || []).length).at(-1),
    onSquare,
    onHand,
  });
  const board = $("board");
  board.dataset.lesson = String(S.index);
  board.dataset.state = S.state;
  board.dataset.ply = String(S.moves.length);
  $("task").textContent = `Lesson ${S.index + 1} of ${LESSONS.length}: ${lesson().title}. ${lesson().task}`;
  $("fit").textContent = fitText();
  const done = LESSONS.filter((l) => progress.done[l.title]).length;
  $("progress").textContent = `Done ${done} of ${LESSONS.length} lessons in this browser.`;
  for (const opt of $("pick").options) {
    const l = LESSONS[Number(opt.value)];
    const text = `${Number(opt.value) + 1}. ${l.title}${progress.done[l.title] ? " ✓" : ""}`;
    if (opt.textContent !== text) opt.textContent = text;
  }
  $("pick").value = String(S.index);
}

async function open(index) {
  S.gen++;
  cancelPromotion();
  clearSelection();
  S.index = Math.max(0, Math.min(index, LESSONS.length - 1));
  progress.last = S.index;
  saveProgress();
  S.start = lesson().start;
  S.moves = (lesson().pre || []).slice();
  S.state = "play";
  S.pos = null;
  const errors = await refresh();
  if (errors.length) return say("Refused: " + errors.join("; "), "error");
  $("lesson").replaceChildren(el("h2", {}, lesson().title), el("p", {}, lesson().teach));
  $("changed").textContent = "";
  render();
  say(lesson().task);
}

async function play(action) {
  clearSelection();
  const gen = S.gen;
  const before = candsBySquare(S.pos);
  if (!(await attempt(S, () => S.moves.push(action), () => refresh(action), render))) return;
  if (gen !== S.gen) return;
  const after = candsBySquare(S.pos);
  const text = actionText(action, { mark: "☗", before, after });
  $("changed").textContent = narrowingText(action, before, after, "☗");
  if (lesson().goal(action, S.pos, S.winner)) {
    S.state = "done";
    progress.done[lesson().title] = true;
    saveProgress();
    render();
    return say(`Done: ${text}. ${lesson().done}`, "won");
  }
  // Another action: what it did, why it is not the lesson's, and the position back.
  S.moves.pop();
  await refresh();
  render();
  say(`${text}: ${lesson().other}`, "warn");
}

async function main() {
  const pick = $("pick");
  LESSONS.forEach((l, i) => pick.append(new Option(`${i + 1}. ${l.title}`, String(i))));
  await engine.connect();
  await engine.request(["setoption name USI_Variant value quantumshogi", "usinewgame"]);
  const fromHash = Number(location.hash.slice(1)) - 1;
  const first = LESSONS.findIndex((l) => !progress.done[l.title]);
  await open(Number.isInteger(fromHash) && fromHash >= 0 ? fromHash : progress.last ?? Math.max(first, 0));
  pick.onchange = () => open(Number(pick.value));
  $("prev").onclick = () => open(S.index - 1);
  $("next").onclick = () => open(S.index + 1);
  $("retry").onclick = () => open(S.index);
}

main().catch((e) => say(String(e.message || e), "error"));
