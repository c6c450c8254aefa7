"""The toy game of docs/adding-a-game.md (tic-tac-toe, built with the `toy` feature) on the pages
the registry gives a game without a page of its own, in a real (Debian) chromium through
playwright: the index's link and room choice, a whole game against the engine on the generic
page (squares clicked and a move typed), a whole game for two in a room, and the socket's
error for an unknown game naming the registry's games.

Usage: test_toy.py <server url> <ryoshi binary with the toy>
Run by tests/serve_toy_browser.rs, which starts the server. What the board should show is
computed by running the same binary on stdin/stdout.
"""

import subprocess
import sys

from playwright.sync_api import sync_playwright

URL, BIN = sys.argv[1].rstrip("/"), sys.argv[2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
console_errors = []


def protocol(lines):
    out = subprocess.run([BIN], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    return out.stdout.splitlines()


def cells(moves):
    """The nine cells after `moves`, top row first, as the engine's `d` draws them."""
    lines = protocol(["setoption name USI_Variant value tictactoe", "position startpos" + (" moves " + " ".join(moves) if moves else ""), "d"])
    rows = [l.split()[1:] for l in lines if l[:1] in "123"]
    return [c for row in rows for c in row]


def shown(page):
    return page.eval_on_selector_all("#board .lsq", "els => els.map(e => e.textContent)")


def listed(page):
    return page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)")


def watch(page):
    page.on("console", lambda m: m.type == "error" and console_errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda e: console_errors.append(f"{page.url}: {e}"))
    return page


def index(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/")
    link = page.locator('ul.games a[href="/tictactoe"]')
    assert link.inner_text() == "Tic-tac-toe", link.inner_text()
    assert page.locator('select[name=new] option[value="tictactoe"]').inner_text() == "Tic-tac-toe"
    assert "Tic-tac-toe" in page.inner_text("main p")
    link.click()
    page.wait_for_url(URL + "/tictactoe*")
    page.close()
    print("ok index")


def against_the_engine(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/tictactoe")
    page.wait_for_selector('#board[data-ply="0"] .lsq.legal')
    assert page.title() == "ryoshi · Tic-tac-toe"
    assert shown(page) == cells([])
    assert page.locator("#board .lsq.legal").count() == 9
    # Drawn as a board: a row's squares side by side, the next row below.
    a3, b3, a2 = (page.locator(f'#board .lsq[data-square="{s}"]').bounding_box() for s in ("a3", "b3", "a2"))
    assert a3["y"] == b3["y"] and b3["x"] > a3["x"] and a2["y"] > a3["y"], (a3, b3, a2)
    # x (the player) clicks its first legal square each turn, once types it; the engine answers.
    ply, typed = 0, False
    while not page.get_attribute("#board", "data-over"):
        square = page.locator("#board .lsq.legal").first.get_attribute("data-square")
        if ply == 2 and not typed:
            typed = True
            page.fill("#move", square)
            page.click("#play")
        else:
            page.click(f'#board .lsq[data-square="{square}"]')
        ply += 2
        page.wait_for_function(
            f"() => document.querySelector('#board').dataset.over || Number(document.querySelector('#board').dataset.ply) >= {ply}"
        )
        page.wait_for_function("() => !document.getElementById('status').textContent.includes('thinking')")
        assert ply <= 10, "the game did not end"
    moves = listed(page)
    assert shown(page) == cells(moves), (shown(page), moves)
    assert typed and len(moves) >= 5, moves
    # The engine searches the whole tree: x never wins.
    status = page.inner_text("#status")
    assert "You lost" in status or "draw" in status.lower(), status
    assert page.locator("#board .lsq.legal").count() == 0
    # A refused typed move is said, and the game stays.
    page.click("#new")
    page.wait_for_selector('#board[data-ply="0"] .lsq.legal')
    page.fill("#move", "d4")
    page.click("#play")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Refused')")
    assert "d4" in page.inner_text("#status") and shown(page) == cells([])
    page.close()
    print(f"ok engine game {' '.join(moves)}: {status}")


def room_for_two(browser):
    ctxs = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2)]
    x, o = (watch(c.new_page()) for c in ctxs)
    x.goto(URL + "/play?new=tictactoe")
    x.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    o.goto(x.input_value("#invite"))
    for p in (x, o):
        p.wait_for_selector('#board[data-ply="0"]')
        assert p.inner_text("#title") == "Tic-tac-toe for two", p.inner_text("#title")
    assert x.inner_text("#you") == "x" and o.inner_text("#you") == "o"
    assert "Your opponent (o)" in x.inner_text("#presence"), x.inner_text("#presence")
    line = ["a1", "a2", "b1", "b2", "c1"]
    for i, mv in enumerate(line):
        mover = x if i % 2 == 0 else o
        mover.wait_for_selector(f'#board[data-ply="{i}"] .lsq.legal')
        if i == len(line) - 1:
            mover.fill("#move", mv)
            mover.click("#play")
        else:
            mover.click(f'#board .lsq[data-square="{mv}"]')
        for p in (x, o):
            p.wait_for_selector(f'#board[data-ply="{i + 1}"]')
            assert shown(p) == cells(line[: i + 1])
    for p in (x, o):
        p.wait_for_selector('#board[data-over="x wins by three in a row"]')
    assert "You won" in x.inner_text("#status"), x.inner_text("#status")
    assert "You lost" in o.inner_text("#status"), o.inner_text("#status")
    for c in ctxs:
        c.close()
    print("ok room")


def unknown_game(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/play?new=chess")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('unknown game')")
    text = page.inner_text("#status")
    assert "unknown game (quantumshogi, othello, go or tictactoe)" in text, text
    page.close()
    console_errors.clear()  # the refused socket is logged by the browser
    print("ok unknown game")


with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    index(ctx)
    against_the_engine(ctx)
    room_for_two(browser)
    unknown_game(ctx)
    assert not console_errors, console_errors
    browser.close()
print("ok toy")
