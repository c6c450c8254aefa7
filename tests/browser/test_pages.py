"""Drives `ryoshi serve` in a real (Debian) chromium through playwright.

Usage: test_pages.py <server url> <screenshot dir> <ryoshi binary>
Run by tests/serve_browser.rs, which starts the server. The protocol answers the pages should
show (flips, hints, benson) are computed by running the same binary on stdin/stdout.
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from playwright.sync_api import sync_playwright

URL, SHOTS, BIN = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
HOST = URL.split("//")[1]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CAP_MS = 450
PASS_BOARD = "-OXXXXXX" + "-" * 16 + "---XX------XX---" + "-" * 16 + "-OXXXXXX"
FFO40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- b"
KING_CAPTURE = "4k4/4R4/9/9/9/9/9/9/4K4 b 18Q19q 1"
# Gote's rook on 5h could take sente's king on 5i.
KING_ATTACKED = "4k4/9/9/9/9/9/9/4r4/4K4 b 19Q18q 1"
# Sente drops its gold on 5b: gote's king falls in three plies (the first `go mate` test).
MATE_IN_3 = "4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1"
SGF = "(;GM[1]FF[4]SZ[9]\nAB[ba][bb][bc][bd][be][bf][bg][bh][bi][ac][af]\nAW[ah][ee]PL[W])"
console_errors = []
figures = {}


def protocol(lines):
    """The binary's answer to `lines` on stdin/stdout."""
    out = subprocess.run([BIN], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    return out.stdout.splitlines()


def status():
    with urllib.request.urlopen(URL + "/status", timeout=5) as r:
        return json.loads(r.read())


def watch(page):
    page.on("console", lambda m: m.type == "error" and console_errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda e: console_errors.append(f"{page.url}: {e}"))
    return page


def shoot(page, name):
    for width, tag in ((1200, "desktop"), (375, "375")):
        page.set_viewport_size({"width": width, "height": 900 if width > 400 else 800})
        page.wait_for_timeout(150)
        page.screenshot(path=os.path.join(SHOTS, f"{name}-{tag}.png"), full_page=True)
    page.set_viewport_size({"width": 1200, "height": 900})


def texts(page, selector):
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


def font_px(page, selector):
    """The smallest computed font size (px) of the elements `selector` matches (all visible)."""
    sizes = page.eval_on_selector_all(selector, "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes, f"nothing matches {selector}"
    return min(sizes)


def fits(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def attacked_in_d(position):
    line = next((l for l in protocol(["position sfen " + position, "d"]) if l.startswith("king attacked: ")), "")
    return sorted(line.split()[2:])


def random_game(plies, seed):
    """A QSFEN after `plies` moves of the engine's seeded random player against itself."""
    engine = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    engine.stdin.write(f"setoption name Strategy value random\nsetoption name Seed value {seed}\n")
    moves = []
    for _ in range(plies):
        engine.stdin.write(f"position startpos moves {' '.join(moves)}\ngo\n")
        engine.stdin.flush()
        while not (line := engine.stdout.readline()).startswith("bestmove"):
            pass
        best = line.split()[1]
        if best == "resign":
            break
        moves.append(best)
    engine.stdin.write(f"position startpos moves {' '.join(moves)}\nd\nquit\n")
    engine.stdin.flush()
    sfen = [l for l in engine.stdout.read().splitlines() if l.startswith("sfen ")][-1][5:]
    engine.wait()
    return sfen


def quantum(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] [data-square="7g"] .qpiece')
    # Coordinates as moves are written: files 9..1 on top, ranks a..i on the right.
    assert texts(page, ".frame .files .coord") == [str(n) for n in range(9, 0, -1)], texts(page, ".frame .files .coord")
    assert texts(page, ".frame .ranks .coord") == list("abcdefghi")
    assert page.query_selector("#board .sq.attacked") is None
    start = page.eval_on_selector_all("#board .qpiece", "els => els.map(e => e.dataset.cands)")
    assert len(start) == 40 and set(start) == {"KRBGSNLP"}, start
    page.click('[data-square="7g"]')
    targets = page.eval_on_selector_all("#board .sq.target", "els => els.map(e => e.dataset.square)")
    legal = [l for l in protocol(["position startpos", "moves"])[0].split() if l.startswith("7g")]
    assert sorted(targets) == sorted({m[2:4] for m in legal}), (targets, legal)
    page.click('[data-square="7f"]')
    page.wait_for_selector('#board[data-ply="1"]')
    cands = page.get_attribute('[data-square="7f"] .qpiece', "data-cands")
    assert cands == "KRGSLP", cands
    page.wait_for_selector('#board[data-ply="2"]', timeout=5000)
    reply = int(page.get_attribute("#board", "data-reply-ms"))
    figures["quantum click to reply ms"] = reply
    assert reply <= CAP_MS + 1500, f"reply took {reply} ms"  # generous: CI machines are loaded
    assert page.inner_text("#a-depth") != "–"
    page.click("#takeback")
    page.wait_for_selector('#board[data-ply="0"]')
    again = page.eval_on_selector_all("#board .qpiece", "els => els.map(e => e.dataset.cands)")
    assert again == start
    assert page.query_selector('[data-square="7f"] .qpiece') is None
    # A bad QSFEN is refused and changes nothing.
    page.click("text=Position (QSFEN)")
    page.fill("#qsfen", "qqqqqqqqq/9/9 b - 1")
    page.click("#paste")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Refused')")
    assert page.eval_on_selector_all("#board .qpiece", "els => els.map(e => e.dataset.cands)") == start
    # A middle game (seeded random play), the engine to move: its reply narrows candidate sets.
    midgame = random_game(45, 11)
    page.fill("#qsfen", midgame)
    page.click("#paste")
    page.wait_for_selector('#board[data-ply="1"]', timeout=10000)
    mine = page.eval_on_selector_all('#board .sq .qpiece[data-owner="b"]', "els => els.map(e => e.parentNode.dataset.square)")
    legal = protocol(["position sfen " + midgame + " moves " + page.eval_on_selector("#movelist .mv", "e => e.dataset.action"), "moves"])[-1].split()
    movable = [sq for sq in mine if any(m.startswith(sq) for m in legal)]
    page.click(f'[data-square="{movable[0]}"]')
    page.wait_for_selector("#board .sq.target")
    shoot(page, "quantum")
    # Sente's king can be taken: the red ring on the squares `d` names, and the warning in the
    # status line.
    page.fill("#qsfen", KING_ATTACKED)
    page.click("#paste")
    page.wait_for_selector("#board .sq.attacked")
    want = attacked_in_d(KING_ATTACKED)
    assert want == ["5i"], want
    shown = sorted(page.eval_on_selector_all("#board .sq.attacked", "els => els.map(e => e.dataset.square)"))
    assert shown == want, (shown, want)
    assert page.inner_text("#status").startswith("Your king is in check"), page.inner_text("#status")
    assert "attacked" in page.get_attribute('[data-square="5i"]', "aria-label")
    page.click("#flip")
    assert texts(page, ".frame .files .coord") == [str(n) for n in range(1, 10)]
    assert texts(page, ".frame .ranks .coord") == list("ihgfedcba")
    page.click("#flip")
    # A set-up position, then a king capture by clicking.
    page.fill("#qsfen", KING_CAPTURE)
    page.click("#paste")
    page.wait_for_selector('[data-square="5b"] .qpiece[data-cands="R"]')
    page.click('[data-square="5b"]')
    page.click('[data-square="5a"]')
    page.wait_for_selector("#promote:not([hidden])")
    # A click elsewhere cancels the question (and plays nothing): Keep cannot play a stale move.
    page.click('[data-square="5i"]')
    page.wait_for_selector("#promote[hidden]", state="attached")
    assert page.get_attribute("#board", "data-ply") == "0"
    page.click('[data-square="5b"]')
    page.click('[data-square="5a"]')
    page.wait_for_selector("#promote:not([hidden])")
    page.click("#promote-no")
    page.wait_for_selector('#board[data-over="Sente wins by king capture"]')
    assert page.inner_text("#status").startswith("You won: Sente wins by king capture"), page.inner_text("#status")
    assert page.inner_text("#a-score") == "–", "the analysis of the old position is cleared"
    # The engine's forced capture in the Analysis panel: test_defects.py, "quantum plan hidden".
    page.close()


def othello(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    assert texts(page, "#frame .files .coord") == list("abcdefgh")
    assert texts(page, "#frame .ranks .coord") == [str(n) for n in range(1, 9)]
    # By keyboard: Enter plays the focused square, which keeps the focus; arrows move it.
    page.focus('[data-square="f5"]')
    page.keyboard.press("Enter")
    page.wait_for_selector('#board[data-ply="2"] .osq.legal')
    focused = lambda: page.evaluate("() => document.activeElement.dataset.square || null")
    assert focused() == "f5", focused()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")
    assert focused() == "e4", focused()
    moves = json.loads(page.evaluate("JSON.stringify([...document.querySelectorAll('#movelist .mv')].map(e => e.textContent))"))
    legal = page.eval_on_selector_all("#board .osq.legal", "els => els.map(e => e.dataset.square)")
    base = ["setoption name USI_Variant value othello", "position startpos moves " + " ".join(moves)]
    answers = protocol(base + [f"flips {m}" for m in legal])
    for m in legal:
        page.hover(f'[data-square="{m}"]')
        expected = next(l for l in answers if l.startswith(f"flips {m}")).split()[2:]
        page.wait_for_function(
            "want => { const got = [...document.querySelectorAll('#board .osq.flip')].map(e => e.dataset.square).sort(); return JSON.stringify(got) === JSON.stringify(want); }",
            arg=sorted(expected),
        )
    page.mouse.move(0, 0)
    page.click("#hint")
    page.wait_for_selector("#hints li")
    shown = page.eval_on_selector_all("#hints li", "els => els.map(e => e.textContent)")
    hints = [l for l in protocol(base + ["hint 3"]) if l.startswith("hint ")]
    assert len(shown) == len(hints) and len(hints) > 0, (shown, hints)
    for text, line in zip(shown, hints):
        move, reason = line.split()[1], line.split(" reason ", 1)[1]
        assert text.startswith(move) and text.endswith(reason), (text, line)
    # The hint scores on their squares, as the protocol gives them (+ for the mover's lead).
    on_board = dict(page.eval_on_selector_all("#board .osq.hint", "els => els.map(e => [e.dataset.square, e.querySelector('.hint-score').textContent])"))
    want = {l.split()[1]: ("+" if int(l.split()[3]) > 0 else "") + l.split()[3] for l in hints}
    assert on_board == want, (on_board, want)
    assert "disc difference" in page.inner_text("#hint-note")
    page.hover('[data-square="%s"]' % legal[0])
    page.wait_for_selector("#board .osq.flip")
    shoot(page, "othello")
    page.click("#undo")
    page.wait_for_selector('#board[data-ply="0"]')
    assert page.inner_text("#count-black").strip().endswith("2") and page.inner_text("#count-white").strip().endswith("2")
    # A forced pass: after a1 white has no move and passes; black plays again.
    page.click("text=Position")
    page.fill("#sfen", PASS_BOARD + " b")
    page.click("#paste")
    page.wait_for_selector('[data-square="a1"].legal')
    page.click('[data-square="a1"]')
    page.wait_for_selector('#board[data-ply="2"]')  # a1 and white's pass
    assert "White has no legal move and passes" in page.inner_text("#announce")
    assert page.get_attribute("#board", "data-side") == "b"
    # Few empties: the exact solve, as the protocol's `solve` gives it.
    page.fill("#sfen", FFO40)
    page.click("#paste")
    page.wait_for_selector("#solve:not([disabled])")
    page.click("#solve")
    page.wait_for_function("() => document.getElementById('solved').textContent.startsWith('Exact')")
    line = next(l for l in protocol(["setoption name USI_Variant value othello", "position sfen " + FFO40, "solve"]) if l.startswith("solve "))
    move, score = line.split()[1], int(line.split()[3])
    text = page.inner_text("#solved")
    assert text.startswith(f"Exact: {move} is best") and f"wins by {score}" in text, (text, line)
    page.close()


def go(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/go")
    page.wait_for_selector('#board[data-ply="0"] svg')
    page.select_option("#opponent", "none")  # two players on one board: genmove by hand
    page.fill("#sgf", SGF)
    for overlay in ("benson classic", "benson"):
        lines = protocol(["setoption name USI_Variant value go", "loadsgftext " + SGF.replace("\n", " "), overlay])
        expected = sorted(
            f"{kind} {color} {v}" for kind, color, *vs in (l.split() for l in lines if l.split()[0] in ("alive", "dead", "territory")) for v in vs
        )
        assert expected, lines
        page.select_option("#overlay", overlay)
        page.click("#load")
        page.wait_for_selector('#board .stone[data-color="b"]')
        page.wait_for_function(
            """want => JSON.stringify([...document.querySelectorAll('#board .mark')]
                .map(e => e.dataset.mark + ' ' + e.parentNode.dataset.vertex).sort()) === JSON.stringify(want)""",
            arg=expected,
        )
    page.dblclick('[data-vertex="B5"]')  # occupied: refused (once), nothing changes
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Refused')")
    assert page.get_attribute("#board", "data-ply") == "0", (page.get_attribute("#board", "data-ply"), page.inner_text("#status"), page.inner_text("#movelist"))
    page.click('[data-vertex="E3"]')
    page.wait_for_selector('#board[data-ply="1"]')
    page.click("#genmove")
    page.wait_for_selector('#board[data-ply="2"]')
    shoot(page, "go")
    go_to_the_score(page)
    page.close()


def go_keyboard_and_analysis(ctx):
    """Go points are played with the keyboard and read with what is on them; the live analysis
    draws win rates on candidate points and the ownership as a shading, and goes away when off."""
    page = watch(ctx.new_page())
    page.goto(URL + "/go")
    page.wait_for_selector('#board[data-ply="0"] svg')
    page.select_option("#opponent", "none")
    assert texts(page, "#board .files .coord") == list("ABCDEFGHJ")
    assert texts(page, "#board .ranks .coord") == [str(n) for n in range(9, 0, -1)]
    page.focus('[data-vertex="E5"]')
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowDown")
    focused = lambda: page.evaluate("() => document.activeElement.dataset.vertex || null")
    assert focused() == "D4", focused()
    assert page.get_attribute('[data-vertex="D4"].pt', "aria-label") == "D4, empty"
    page.keyboard.press("Enter")
    page.wait_for_selector('#board[data-ply="1"]')
    assert focused() == "D4", focused()
    assert page.get_attribute('[data-vertex="D4"].pt', "aria-label") == "D4, black stone"
    assert page.eval_on_selector("#movelist", "e => e.textContent") == "D4"
    # Exactly one point is in the tab order.
    assert page.eval_on_selector_all('#board .pt[tabindex="0"]', "els => els.length") == 1
    page.check("#analyze")
    page.wait_for_selector("#board .cand[data-winrate]", timeout=15000)
    page.wait_for_function("() => document.querySelectorAll('#board .own').length === 81")
    cands = page.eval_on_selector_all("#board .cand", "els => els.map(e => [e.parentNode.dataset.vertex, Number(e.dataset.winrate), e.textContent])")
    assert all(0 <= w <= 100 and t == str(w) for _, w, t in cands), cands
    legal = protocol(["setoption name USI_Variant value go", "position sfen 9 " + "/".join(["." * 9] * 9) + " b moves D4", "moves"])[-1].split()
    assert all(v in legal for v, _, _ in cands), (cands, legal)
    own = page.eval_on_selector_all("#board .own", "els => els.map(e => Number(e.dataset.own))")
    assert len(own) == 81 and all(-1 <= o <= 1 for o in own), own
    # The black stone's own point leans black (positive) in the shading.
    d4 = page.get_attribute('#board .own[data-at="D4"]', "data-own")
    assert float(d4) > 0, d4
    assert page.inner_text("#analysis-text").startswith("Best for white: "), page.inner_text("#analysis-text")
    figures["go analysis candidates"] = len(cands)
    shoot(page, "go-analysis")
    # A move while analysing: the analysis stops, the move is played, the analysis resumes.
    free = next(v for v in legal if v not in ("D4", "E5"))
    page.click(f'[data-vertex="{free}"].pt')
    page.wait_for_selector('#board[data-ply="2"]')
    page.wait_for_selector("#board .cand[data-winrate]", timeout=15000)
    page.uncheck("#analyze")
    page.wait_for_function("() => !document.querySelector('#board .cand') && !document.querySelector('#board .own')")
    page.click("#undo")
    page.wait_for_selector('#board[data-ply="1"]')
    page.close()


def phone(browser):
    """At 375x740 with touch: candidate letters, hand pieces and 19x19 Go coordinates are at least
    11 px, and no page overflows sideways."""
    ctx = browser.new_context(viewport={"width": 375, "height": 740}, has_touch=True)
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.click("text=Position (QSFEN)")
    page.fill("#qsfen", KING_CAPTURE)
    page.click("#paste")
    page.wait_for_selector(".hand-piece .qpiece.uncertain")
    sizes = {
        "hand pieces": font_px(page, ".hand-piece .qpiece.uncertain i"),
        "shogi coordinates": font_px(page, ".frame .coord"),
    }
    assert fits(page), "quantum page (pieces in hand) overflows at 375 px"
    page.click("#new")
    page.wait_for_selector('#board[data-ply="0"] [data-square="7g"] .qpiece.uncertain')
    sizes["candidate letters"] = font_px(page, "#board .qpiece.uncertain i")
    shoot(page, "quantum-start")
    assert fits(page), "quantum page overflows at 375 px"
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.click("#hint")
    page.wait_for_selector("#board .hint-score")
    sizes["hint numbers"] = font_px(page, "#board .hint-score")
    sizes["othello coordinates"] = font_px(page, "#frame .coord")
    assert fits(page), "othello page overflows at 375 px"
    page.goto(URL + "/go")
    page.wait_for_selector('#board[data-ply="0"] svg')
    page.select_option("#size", "19")
    page.wait_for_function("() => document.querySelectorAll('#board .pt').length === 361")
    assert texts(page, "#board .files .coord") == list("ABCDEFGHJKLMNOPQRST")
    sizes["go 19x19 coordinates"] = font_px(page, "#board .coord")
    assert fits(page), "go page overflows at 375 px"
    page.goto(URL + "/play?new=quantumshogi&start=" + KING_ATTACKED.replace(" ", "_"))
    page.wait_for_selector("#board .sq.attacked")
    assert fits(page), "room page overflows at 375 px"
    assert page.inner_text("#status").startswith("Your king is in check"), page.inner_text("#status")
    shoot(page, "play-quantum-check")
    for what, px in sizes.items():
        figures[f"{what} px at 375"] = px
        assert px >= 11, f"{what}: {px} px at 375 px"
    ctx.close()


def board_state(page):
    return page.evaluate(
        """() => ({ ply: Number(document.getElementById('board').dataset.ply),
                   side: document.getElementById('board').dataset.side,
                   score: document.getElementById('board').dataset.score,
                   captures: document.getElementById('board').dataset.captures,
                   moves: [...document.querySelectorAll('#movelist .mv')].map(e => e.textContent),
                   dead: [...document.querySelectorAll('#board .mark')].map(e => e.dataset.mark + ' ' + e.parentNode.dataset.vertex).sort() })"""
    )


def go_to_the_score(page):
    """A 5x5 game against the engine, played as white, to its score: the engine opens, answers
    moves and passes, Undo returns to white's turn, and at the end the page shows the score, the
    dead stones and the captures the binary computes for the same moves."""
    page.select_option("#opponent", "engine")
    page.select_option("#size", "5")
    page.wait_for_selector('#board[data-ply="0"]')
    page.select_option("#colour", "w")
    page.wait_for_selector('#board[data-ply="1"][data-side="w"]')  # the engine opened as black
    free = page.evaluate("() => [...document.querySelectorAll('#board .pt')].find(g => !g.querySelector('.stone')).dataset.vertex")
    page.click(f'[data-vertex="{free}"]')
    page.wait_for_selector('#board[data-ply="3"][data-side="w"]')  # it answered
    page.click("#undo")
    page.wait_for_selector('#board[data-ply="1"][data-side="w"]')  # white's turn again
    page.click(f'[data-vertex="{free}"]')
    page.wait_for_selector('#board[data-ply="3"]')
    # White passes until the game ends; the engine answers every pass (a pass too, at the end).
    for _ in range(40):
        state = board_state(page)
        if state["score"]:
            break
        page.click("#pass")
        page.wait_for_function(
            "ply => { const b = document.getElementById('board').dataset; return Number(b.ply) >= ply + 2 || b.score !== ''; }",
            arg=state["ply"],
        )
    state = board_state(page)
    assert state["score"], state
    moves = state["moves"]
    assert moves[-2:] == ["pass", "pass"], moves
    start = "sfen 5 ...../...../...../...../..... b"
    lines = protocol(["setoption name USI_Variant value go", f"position {start} moves {' '.join(moves)}", "d", "score 7.5"])
    score = next(l for l in lines if l.startswith("score ")).split()
    assert state["score"] == score[1], (state, lines)
    dead = sorted(f"dead {c} {v}" for kind, c, *vs in (l.split() for l in lines if l.startswith("dead ")) for v in vs)
    assert state["dead"] == dead, (state, lines)
    # Captures: each colour's stones placed minus those still on the board, from the binary's board.
    rows = next(l for l in lines if l.startswith("sfen ")).split()[2]
    placed = {"X": sum(1 for m in moves[0::2] if m != "pass"), "O": sum(1 for m in moves[1::2] if m != "pass")}
    taken = (placed["O"] - rows.count("O"), placed["X"] - rows.count("X"))
    assert state["captures"] == f"{taken[0]} {taken[1]}", (state, rows)
    text = page.inner_text("#status")
    assert text.startswith("Game over: ") and f"({score[1]}, area scoring, komi 7.5)" in text, text
    assert page.inner_text("#captures") == f"Captures: black {taken[0]}, white {taken[1]}"
    figures["go game plies"] = len(moves)
    figures["go game score"] = score[1]


def two_players(browser):
    ctxs = [browser.new_context() for _ in range(3)]
    a, b, spectator = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + "/play?new=othello&start=" + PASS_BOARD + "_b")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    invite, watch_link = a.input_value("#invite"), a.input_value("#watch")
    b.goto(invite)
    spectator.goto(watch_link)
    for p in (a, b, spectator):
        p.wait_for_selector('#board[data-ply="0"]')
    assert b.inner_text("#you") == "white" and spectator.inner_text("#you") == "spectator"
    room = a.url.split("room=")[1].split("&")[0]
    white_seat = invite.split("seat=")[1]
    probe = """async ([query, line]) => new Promise(resolve => {
        const ws = new WebSocket(`ws://${location.host}/room?${query}`);
        ws.onmessage = ev => {
            const t = String(ev.data);
            if (t.startsWith('state ')) ws.send(line);
            else { ws.close(); resolve(t); }
        };
        ws.onclose = () => resolve('closed');
    })"""
    out_of_turn = b.evaluate(probe, [f"room={room}&seat={white_seat}", "move a8"])
    assert out_of_turn.startswith("info string error: it is black's turn"), out_of_turn
    watcher = spectator.evaluate(probe, [f"room={room}", "move a1"])
    assert watcher == "info string error: a spectator cannot move", watcher
    forged = spectator.evaluate(probe, [f"room={room}&seat={'0' * 32}", "move a1"])
    assert forged.startswith("info string error: this seat token"), forged
    a.click('[data-square="a1"]')
    for p in (a, b, spectator):
        p.wait_for_selector('#board[data-ply="2"]')  # a1 and white's pass
        assert "white has no move and passes" in p.inner_text("#announce"), p.inner_text("#announce")
    b.click('[data-square="a8"]')  # not white's turn: the page does not even send it
    a.click('[data-square="a8"]')
    for p in (a, b, spectator):
        p.wait_for_selector('#board[data-ply="3"]')
        assert p.get_attribute("#board", "data-over") == "black wins by disc count"
    b.reload()  # a reconnecting player gets the game back
    b.wait_for_selector('#board[data-ply="3"][data-over="black wins by disc count"]')
    shoot(a, "play")
    for c in ctxs:
        c.close()


def quantum_room(browser):
    """A quantum shogi game for two in the rooms: clicks, presence, the kept invitation, resign."""
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + "/play?new=quantumshogi")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    invite = a.input_value("#invite")
    assert "not connected" in a.inner_text("#presence"), a.inner_text("#presence")
    b.goto(invite)
    b.wait_for_selector('#board[data-ply="0"] .qpiece')
    assert b.inner_text("#you") == "gote"
    a.wait_for_function("() => document.getElementById('presence').textContent.includes('has this game open')")
    # Sente 7g7f, gote 3c3d, by clicks on the pages (the server referees).
    for page, src, dst, ply in ((a, "7g", "7f", 1), (b, "3c", "3d", 2)):
        page.click(f'[data-square="{src}"]')
        page.click(f'[data-square="{dst}"]')
        for p in (a, b):
            p.wait_for_selector(f'#board[data-ply="{ply}"]')
    # The creator reloads: the invitation is still there.
    a.reload()
    a.wait_for_selector('#board[data-ply="2"]')
    a.wait_for_function("() => document.getElementById('invite').value === %s" % json.dumps(invite))
    # Resign asks again on the page; the second click resigns.
    b.click("#resign")
    assert b.get_attribute("#board", "data-over") == ""
    b.click("#resign")
    for p, said in ((a, "You won: gote resigns"), (b, "You lost: gote resigns")):
        p.wait_for_selector('#board[data-over="gote resigns"]')
        assert p.inner_text("#status").startswith(said), p.inner_text("#status")
    for c in ctxs:
        c.close()


def no_sideways_overflow(browser):
    """60 plies in the move list, at 1280x800 and at 375x740 with touch: nothing hides sideways."""
    for width, height, touch in ((1280, 800, False), (375, 740, True)):
        ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch)
        page = watch(ctx.new_page())
        page.goto(URL + "/othello")
        page.wait_for_selector('#board[data-ply="0"]')
        moves = [f"{'abcdefgh'[i % 8]}{1 + i // 8}" for i in range(60)]
        page.evaluate(
            """moves => { import('/assets/engine.js').then(m => m.showMoves(document.getElementById('movelist'), moves)); }""",
            moves,
        )
        page.wait_for_function("() => document.querySelectorAll('#movelist .mv').length === 60")
        list_ok = page.evaluate("() => { const l = document.getElementById('movelist'); return l.scrollWidth <= l.clientWidth; }")
        page_ok = page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        last = page.evaluate(
            """() => { const l = document.getElementById('movelist'); const r = l.getBoundingClientRect();
               const e = [...l.querySelectorAll('.mv')].pop().getBoundingClientRect(); return e.right <= r.right + 1; }"""
        )
        assert list_ok and last, f"move list overflows sideways at {width}px"
        figures[f"page fits at {width}px"] = page_ok
        ctx.close()


def refused_links(browser):
    """A forged seat token or an unknown game shows the server's refusal and is not retried."""
    ctx = browser.new_context()
    page = watch(ctx.new_page())
    page.goto(URL + "/play?new=othello")
    page.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    room = page.url.split("room=")[1].split("&")[0]
    for link, said in (
        (f"/play?room={room}&seat={'0' * 32}", "this seat token does not belong to the game"),
        ("/play?room=nosuchroom", "no such game"),
        ("/play?new=chess", "unknown game"),
    ):
        other = watch(ctx.new_page())
        sockets = []
        other.on("websocket", lambda ws: sockets.append(ws.url))
        other.goto(URL + link)
        other.wait_for_function("said => document.getElementById('status').textContent.includes(said)", arg=said)
        other.wait_for_timeout(2500)
        assert said in other.inner_text("#status"), other.inner_text("#status")
        assert len(sockets) == 1, f"{link}: retried {len(sockets) - 1} times"
        other.close()
    ctx.close()


def session_cap_is_shown(browser):
    """A tab over the session cap says so, and its board and Solve stay disabled."""
    ctx = browser.new_context()
    # The tabs of the tests before were closed, but a loaded server may still be ending their
    # sessions: counted then, they freed their places while the tabs below opened, and the last
    # tab was not over the cap after all.
    deadline = time.monotonic() + 20
    while status()["sessions"] > 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    before = status()
    # Every tab here comes from one address, which may hold only so many sessions.
    free = before["max_sessions_per_address"] - before["sessions"]
    tabs = []
    for _ in range(free):
        t = ctx.new_page()
        t.goto(URL + "/othello")
        t.wait_for_selector('#board[data-ply="0"]')
        tabs.append(t)
    over = watch(ctx.new_page())
    over.on("console", lambda m: None)
    over.goto(URL + "/othello")
    over.wait_for_function("() => document.getElementById('status').textContent.includes('too many engine sessions')")
    over.wait_for_timeout(500)
    text = over.inner_text("#status")
    assert "too many engine sessions" in text, text
    assert over.evaluate("() => document.body.classList.contains('offline')")
    assert over.get_attribute("#new", "disabled") is not None
    ctx.close()


def hostile(browser):
    # A foreign Origin is refused before any session starts.
    with socket.create_connection(tuple(HOST.rsplit(":", 1)), timeout=5) as s:
        s.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {HOST}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                "Origin: http://evil.example\r\n\r\n"
            ).encode()
        )
        assert s.recv(100).startswith(b"HTTP/1.1 403"), "foreign origin accepted"
    ctx = browser.new_context()
    page = watch(ctx.new_page())
    page.goto(URL + "/")
    # A message over 256 KiB is refused in one line, and its socket closed with 1009 (its rest
    # is never read); the other bad messages each get their line on a socket that goes on.
    oversized = page.evaluate(
        """async () => new Promise(resolve => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            const got = [];
            ws.onopen = () => ws.send('x'.repeat(300 * 1024));
            ws.onmessage = ev => got.push(String(ev.data));
            ws.onclose = ev => resolve([got, ev.code]);
        })"""
    )
    assert oversized[1] == 1009 and any("bytes refused" in r for r in oversized[0]), oversized
    replies = page.evaluate(
        """async () => new Promise(resolve => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            const got = [];
            ws.onopen = () => {
                ws.send(new Uint8Array([0xff, 0x00, 0x17]));
                ws.send('frobnicate the board');
                ws.send('loadsgf /etc/passwd');
                ws.send('isready');
            };
            ws.onmessage = ev => { got.push(String(ev.data)); if (ev.data === 'readyok') { ws.close(); resolve(got); } };
        })"""
    )
    errors = [r for r in replies if r.startswith("info string error:")]
    assert any("UTF-8" in e for e in errors), replies
    assert any("unknown command" in e for e in errors), replies
    assert any("loadsgf reads a file" in e for e in errors), replies
    ctx.close()
    # Twenty tabs, half of them searching, opened and closed: nothing stays behind.
    time.sleep(0.5)
    before = status()
    ctx = browser.new_context()
    tabs = []
    for i in range(20):
        t = watch(ctx.new_page())
        t.goto(URL + ("/quantum" if i % 2 == 0 else "/othello"))
        tabs.append(t)
    for i, t in enumerate(tabs):
        t.wait_for_selector('#board[data-ply="0"]')
        if i % 2 == 0:
            t.click("#demo")
    peak = status()
    assert peak["sessions"] == before["sessions"] + 20, peak
    figures["rss kB with 20 sessions"] = peak["rss_kb"]
    figures["rss kB before"] = before["rss_kb"]
    figures["threads with 20 sessions"] = peak["threads"]
    ctx.close()
    deadline = time.time() + 10
    while time.time() < deadline:
        now = status()
        if now["sessions"] == before["sessions"] and now["threads"] <= before["threads"]:
            break
        time.sleep(0.2)
    assert now["sessions"] == before["sessions"] and now["threads"] <= before["threads"], (before, now)
    figures["threads after closing"] = now["threads"]
    figures["threads before"] = before["threads"]


def reload_keeps_the_game(ctx):
    """An engine page's game is kept by the server: a reload goes on with it, the archive lists
    it, and its record downloads as a GGF file."""
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.click('[data-square="f5"]')
    page.wait_for_selector('#board[data-ply="2"] .osq.legal')
    page.wait_for_function("() => location.search.startsWith('?game=')")
    game = page.evaluate("() => new URLSearchParams(location.search).get('game')")
    moves = page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)")
    page.reload()
    page.wait_for_selector('#board[data-ply="2"] .osq.legal')
    assert page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)") == moves
    page.goto(URL + "/games")
    assert page.locator(f'table.archive a[href="/othello?review={game}"]').count() == 1, game
    assert page.locator(f'table.archive a[href="/record/{game}"]').count() == 1, game
    record = page.request.get(URL + "/record/" + game)
    assert record.ok and record.headers["content-type"].startswith("text/plain"), record.headers
    assert record.headers["content-disposition"].endswith('.ggf"'), record.headers
    page.close()


def click_move(page, move):
    """Plays `move` on a quantum board by clicks: a drop from the mover's hand, or a board move
    (answering "Promote?" as the move says)."""
    if "*" in move:
        token, to = move.split("*")
        # The mover's hand is the bottom one (the other may hold the same token).
        page.click(f'#hand-bottom .hand-piece[data-token="{token}"]')
        page.click(f'[data-square="{to}"]')
        return
    page.click(f'[data-square="{move[0:2]}"]')
    page.click(f'[data-square="{move[2:4]}"]')
    if page.is_visible("#promote"):
        page.click("#promote-yes" if move.endswith("+") else "#promote-no")


def puzzles(ctx):
    """The puzzle page: a wrong first move is refuted by `defend`'s reply, the main line solves
    the puzzle (the defender answering as `defend` does), and the progress survives a reload."""
    with urllib.request.urlopen(URL + "/puzzles.txt", timeout=5) as r:
        listed = [l.split("|") for l in r.read().decode().splitlines() if l.strip() and not l.startswith("#")]
    # The first puzzle of three plies whose first move and one wrong move are board moves.
    for index, fields in enumerate(listed):
        qsfen, length, first, line = (f.strip() for f in fields[:4])
        if length != "3":
            continue
        legal = protocol(["position sfen " + qsfen, "moves"])[-1].split()
        wrong = [m for m in legal if "*" not in m and m != first and m.rstrip("+") + "+" not in legal]
        if wrong:
            break
    else:
        raise AssertionError("no puzzle of three plies with a board move to try")
    line = line.split()
    page = watch(ctx.new_page())
    page.goto(f"{URL}/puzzle#{index + 1}")
    page.wait_for_selector(f'#board[data-puzzle="{index}"][data-state="play"] .qpiece')
    assert "capture the king in 3" in page.inner_text("#task"), page.inner_text("#task")
    # A wrong move: the engine's refutation is the reply `defend 2` gives.
    click_move(page, wrong[0])
    page.wait_for_selector('#board[data-state="failed"]', timeout=20000)
    answer = protocol([f"position sfen {qsfen} moves {wrong[0]}", "defend 2"])[-1].split()
    assert answer[2] == "escape", answer
    shown = page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.dataset.action)")
    assert shown == [wrong[0], answer[1]], (shown, answer)
    # The list is in words, as on the quantum page: the wrong board move as `☗7g→7f` (or `×`).
    words = page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)")
    assert words[0][1:].startswith(wrong[0][:2]) and words[0][3] in "→×" and wrong[0][2:4] in words[0], words
    assert "refutes" in page.inner_text("#status"), page.inner_text("#status")
    shoot(page, "puzzle-refuted")
    # Again, with the answer: the defence is the line's, then the capture.
    page.click("#retry")
    page.wait_for_selector('#board[data-state="play"][data-ply="0"]')
    click_move(page, line[0])
    page.wait_for_selector('#board[data-state="play"][data-ply="2"]', timeout=20000)
    shown = page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.dataset.action)")
    assert shown == line[:2], (shown, line)
    click_move(page, line[2])
    page.wait_for_selector('#board[data-state="solved"]', timeout=20000)
    assert page.inner_text("#status").startswith("Solved"), page.inner_text("#status")
    shoot(page, "puzzle-solved")
    page.reload()
    page.wait_for_selector(f'#board[data-puzzle="{index}"] .qpiece')
    assert page.inner_text("#progress").startswith("Solved 1 of"), page.inner_text("#progress")
    assert page.eval_on_selector("#pick", f"e => e.options[{index}].textContent").endswith("✓")
    page.close()


def main():
    os.makedirs(SHOTS, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        ctx = browser.new_context(viewport={"width": 1200, "height": 900})
        for name, test in (("quantum", quantum), ("othello", othello), ("go", go), ("go keyboard and analysis", go_keyboard_and_analysis), ("reload", reload_keeps_the_game), ("puzzles", puzzles)):
            test(ctx)
            print("ok", name, flush=True)
        ctx.close()
        two_players(browser)
        print("ok two players", flush=True)
        quantum_room(browser)
        print("ok quantum room", flush=True)
        no_sideways_overflow(browser)
        print("ok move list", flush=True)
        phone(browser)
        print("ok phone", flush=True)
        refused_links(browser)
        print("ok refused links", flush=True)
        hostile(browser)
        print("ok hostile", flush=True)
        session_cap_is_shown(browser)
        print("ok session cap", flush=True)
        browser.close()
    assert not console_errors, console_errors
    print("figures", json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
