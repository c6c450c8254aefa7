// A timed room's two clocks (protocol/serve.md, the state's `clock`): the server keeps the
// time and lets flags fall; the page counts the running clock down from what the last state
// said, until the next state.
let last = null;
let ticker = null;

// 9:58, 1:02:03; tenths under 10 s (as lichess shows them).
function format(ms) {
  const t = Math.max(0, ms);
  if (t < 10000) return `0:0${(Math.floor(t / 100) / 10).toFixed(1)}`;
  const s = Math.ceil(t / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

// One side's clock `elapsed` ms after the state: main time left, the current byoyomi period's
// time left and the periods left.
function face(clock, side, elapsed) {
  let main = clock.left_ms[side] - elapsed;
  let period = clock.period_left_ms[side];
  let periods = clock.periods_left[side];
  if (main < 0) {
    period += main;
    main = 0;
    while (clock.period_ms > 0 && period <= 0 && periods > 1) {
      periods -= 1;
      period += clock.period_ms;
    }
  }
  return { main, period: Math.max(0, period), periods };
}

function draw() {
  const { root, state, at } = last;
  const clock = state.clock;
  const byo = clock.period_ms > 0;
  const running = clock.running ? state.names.indexOf(clock.running) : -1;
  const order = state.you === state.names[0] ? [1, 0] : state.you === state.names[1] ? [0, 1] : [0, 1];
  root.replaceChildren(
    ...order.map((side) => {
      const f = face(clock, side, side === running ? performance.now() - at : 0);
      const inByoyomi = byo && f.main <= 0;
      const name = state.names[side];
      // A fallen flag has no time left, whatever the last state before it said.
      const shown = clock.flagged === name ? 0 : inByoyomi ? f.period : f.main;
      const left = f.main + (byo ? f.period + (f.periods - 1) * clock.period_ms : 0);
      const box = document.createElement("div");
      box.className = "clock";
      box.dataset.side = name;
      box.dataset.ms = String(Math.max(0, Math.round(shown)));
      if (side === running) box.classList.add("running");
      if (clock.flagged === name) box.classList.add("flagged");
      if ((side === running || clock.flagged === name) && left < 10000) box.classList.add("low");
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = name + (state.you === name ? " (you)" : "");
      const time = document.createElement("span");
      time.className = "time";
      time.textContent = format(shown);
      box.append(who, time);
      if (byo && f.periods > 0) {
        const extra = document.createElement("span");
        extra.className = "extra";
        extra.textContent = inByoyomi ? `byoyomi, ${f.periods} left` : `+ ${f.periods} × ${clock.period_ms / 1000} s`;
        box.append(extra);
      }
      box.setAttribute("aria-label", `${name}: ${box.textContent}`);
      return box;
    }),
  );
  root.title = `Time control ${clock.spec}`;
}

// Shows the state's clocks in `root` (hidden for an untimed room); `names`: the two players.
export function showClocks(root, state, names) {
  if (ticker) clearInterval(ticker);
  ticker = null;
  root.hidden = !state.clock;
  if (!state.clock) return;
  last = { root, state: { ...state, names }, at: performance.now() };
  draw();
  if (state.clock.running && !state.over) ticker = setInterval(draw, 100);
}
