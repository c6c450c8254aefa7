"""The page defects players hit (issue 43), each pinned in a real (Debian) chromium.

Usage: test_defects.py <server url> <screenshot dir> <ryoshi binary> [test name ...]
Run by tests/serve_browser.rs, which starts the server; with names, only those tests run. The
answers the pages should show are computed by running the same binary on stdin/stdout
(test_pages.py's helpers).
"""

import sys

from playwright.sync_api import sync_playwright

import test_pages as T
from test_pages import URL, protocol, texts, watch

# White to move; after white's a8 black has no move and passes (issue 43's repro).
BLACK_PASSES = "OOOOOXOOOOOOXXOOOXOOXXOOOXXOOXOOOXOOXOOOOOOOOXOOOXXXXXX--XXXXXX- w"
OTHELLO = "setoption name USI_Variant value othello"


def cells(page):
    """The move list as rows of cells (move, reply)."""
    return page.eval_on_selector_all("#movelist li", "els => els.map(li => [...li.querySelectorAll('.mv')].map(e => e.textContent))")


def movers(start, moves):
    """Who plays each move of `moves` from the Othello position `start` (the side `d` gives
    before it; None for a `pass`, which only confirms the automatic pass before it)."""
    lines = [OTHELLO]
    for i in range(len(moves)):
        lines += [f"position sfen {start}" + (f" moves {' '.join(moves[:i])}" if i else ""), "d"]
    sides = [l.split()[2] for l in protocol(lines) if l.startswith("sfen ")]
    return [None if m == "pass" else sides[i] for i, m in enumerate(moves)]


def pairs_alternate(start, moves):
    """Whether the list alternates the sides from `start`'s side on, passes included."""
    first = start.split()[1]
    who = movers(start, moves)
    other = {"b": "w", "w": "b"}
    for i, side in enumerate(who):
        want = first if i % 2 == 0 else other[first]
        if side is not None and side != want:
            return False
        # A pass is the side that was to move and could not (the next move is the other's).
        if side is None and (i + 1 < len(moves) and who[i + 1] not in (None, other[want])):
            return False
    return True


def undo_when_second(ctx):
    """Undo before your first move, playing second: nothing of yours to take back, so the engine
    keeps its opening move and it is your turn (Othello's Undo and quantum's Take back), also
    when Undo comes while the engine is still thinking; a real undo goes back to your turn."""
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.select_option("#side", "w")
    page.click("#undo")  # the engine is thinking on its first move
    page.wait_for_selector('#board[data-ply="1"][data-side="w"] .osq.legal', timeout=10000)
    page.click("#undo")
    page.wait_for_timeout(1500)
    assert page.get_attribute("#board", "data-ply") == "1" and page.get_attribute("#board", "data-side") == "w"
    assert page.locator("#board .osq.legal").count() > 0
    assert "Nothing of yours to take back" in page.inner_text("#announce"), page.inner_text("#announce")
    assert page.inner_text("#status").startswith("Your move"), page.inner_text("#status")
    page.click("#board .osq.legal")
    page.wait_for_selector('#board[data-ply="3"][data-side="w"] .osq.legal', timeout=10000)
    page.click("#undo")
    page.wait_for_selector('#board[data-ply="1"][data-side="w"] .osq.legal', timeout=10000)
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.select_option("#side", "w")
    page.click("#takeback")
    page.wait_for_selector('#board[data-ply="1"][data-side="w"]', timeout=10000)
    page.click("#takeback")
    page.wait_for_timeout(1500)
    assert page.get_attribute("#board", "data-ply") == "1" and page.get_attribute("#board", "data-side") == "w"
    assert page.inner_text("#status").startswith(("Your move", "Nothing of yours")), page.inner_text("#status")
    # A pawn-rank piece's step forward: the first file whose c-rank piece the engine's opening
    # move left in place (its move depends on its weights and its time).
    for f in "123456789":
        page.click(f'[data-square="{f}c"]')
        step = page.locator(f'[data-square="{f}d"].target')
        if step.count() > 0:
            step.click()
            break
    else:
        raise AssertionError("no c-rank piece can step forward")
    page.wait_for_selector('#board[data-ply="3"][data-side="w"]', timeout=10000)
    page.click("#takeback")
    page.wait_for_selector('#board[data-ply="1"][data-side="w"]', timeout=10000)
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Your move')")
    page.close()


def othello_passes_listed(browser):
    """Issue 43's position: the engine (white) plays, black passes, white plays again. The pass
    stays announced after white's next move, and the list shows it, so that each row is one
    move of each side; in a room too."""
    ctx = browser.new_context()
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"]')
    page.click("text=Position")
    page.fill("#sfen", BLACK_PASSES)
    page.click("#paste")
    # The engine plays on until black can move or the game ends.
    page.wait_for_function(
        """() => [...document.querySelectorAll('#movelist .mv')].some(e => e.textContent === 'pass')
            && (document.getElementById('board').dataset.over !== '' || document.querySelectorAll('#board .osq.legal').length > 0)""",
        timeout=20000,
    )
    moves = page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)")
    assert "pass" in moves and moves.index("pass") >= 1, moves
    assert pairs_alternate(BLACK_PASSES, moves), (moves, cells(page))
    assert moves.index("pass") < len(moves) - 1, f"white moved again after the pass: {moves}"
    assert "Black has no legal move and passes" in page.inner_text("#announce"), page.inner_text("#announce")
    # The engine's game accepts the list as it stands (passes included).
    lines = protocol([OTHELLO, f"position sfen {BLACK_PASSES} moves {' '.join(moves)}", "d"])
    assert not any(l.startswith("info string error") for l in lines), lines
    # Black has not moved yet: Undo has nothing of black's to take back, and changes nothing.
    if page.get_attribute("#board", "data-over") == "":
        page.click("#undo")
        page.wait_for_function("() => document.getElementById('announce').textContent.includes('Nothing of yours')")
        assert page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)") == moves
    ctx.close()
    # A room: white plays a8, black passes, and both lists show it.
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + "/play?new=othello&start=" + BLACK_PASSES.replace(" ", "_"))
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    b.click('[data-square="a8"]')
    for p in (a, b):
        p.wait_for_selector('#board[data-ply="2"]')
        assert cells(p) == [["a8", "pass"]], cells(p)
        assert "black has no move and passes" in p.inner_text("#announce"), p.inner_text("#announce")
    b.click('[data-square="h8"]')
    for p in (a, b):
        p.wait_for_selector('#board[data-ply="3"]')
        assert cells(p) == [["a8", "pass"], ["h8"]], cells(p)
    for c in ctxs:
        c.close()


# White walls off columns A-E, black F-J; white's stone on H3 is dead (Go's `score` says so).
GO_DEAD_ROWS = "/".join("....OX.O." if r == 6 else "....OX..." for r in range(9))
GO_DEAD_SGF = "(;GM[1]FF[4]SZ[9]AB" + "".join(f"[f{r}]" for r in "abcdefghi") + "AW" + "".join(f"[e{r}]" for r in "abcdefghi") + "[hg]PL[B])"


def go_score_shown(browser):
    """A Go game ended by two passes shows the score the Go page shows, with its komi and the
    dead stones marked, in a room as on the engine page, and the overlay's text counts the same
    dead stones as the status line."""
    want = next(l for l in protocol(["setoption name USI_Variant value go", f"position sfen 9 {GO_DEAD_ROWS} b moves pass pass", "score"]) if l.startswith("score "))
    score, komi = want.split()[1], want.split()[3]
    dead = [l.split()[2:] for l in protocol(["setoption name USI_Variant value go", f"position sfen 9 {GO_DEAD_ROWS} b moves pass pass", "score"]) if l.startswith("dead w")][0]
    assert dead, "the test position has a dead white stone"
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + f"/play?new=go&start=9_{GO_DEAD_ROWS}_b")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click("#pass")
    b.wait_for_selector('#board[data-ply="1"]')
    b.click("#pass")
    # Two passes open the scoring phase; the server's proposal is Go's `score`.
    for p in (a, b):
        p.wait_for_function("s => document.getElementById('status').textContent.includes(s)", arg=f"({score}, area scoring, komi {komi})", timeout=20000)
        text = p.inner_text("#status")
        assert all(v in text for v in dead), text
        assert dead_marks(p) == sorted(f"dead w {v}" for v in dead), dead_marks(p)
    for c in ctxs:
        c.close()
    # The engine page, two players on one board: the overlay text agrees with the status.
    ctx = browser.new_context()
    page = watch(ctx.new_page())
    page.goto(URL + "/go")
    page.wait_for_selector('#board[data-ply="0"] svg')
    page.select_option("#opponent", "none")
    page.fill("#sgf", GO_DEAD_SGF)
    page.click("#load")
    page.wait_for_selector('#board .stone[data-color="b"]')
    page.click("#pass")
    page.wait_for_selector('#board[data-ply="1"]')
    page.click("#pass")
    page.wait_for_selector(f'#board[data-score="{score}"]', timeout=20000)
    assert all(v in page.inner_text("#status") for v in dead), page.inner_text("#status")
    overlay = page.inner_text("#overlay-text")
    assert f"white {len(dead)} dead" in overlay and "black 0 dead" in overlay, overlay
    ctx.close()


def dead_marks(page):
    return page.eval_on_selector_all("#board .mark[data-mark^='dead']", "els => els.map(e => e.dataset.mark + ' ' + e.parentNode.dataset.vertex).sort()")


def go_room_scoring(browser):
    """A short 9×9 room game to the scoring phase, as on KGS and OGS: the proposal's dead stone
    is marked, white's click on it marks it alive (and back), both accept, and the end names one
    winner with the margin, the komi and the dead stones."""
    go = ["setoption name USI_Variant value go", f"position sfen 9 {GO_DEAD_ROWS} b moves J1 A1 pass pass", "score"]
    lines = protocol(go)
    score = next(l for l in lines if l.startswith("score ")).split()[1]
    dead = next(l for l in lines if l.startswith("dead w")).split()[2:]
    assert dead == ["H3"], lines
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + f"/play?new=go&start=9_{GO_DEAD_ROWS}_b")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click('#board [data-vertex="J1"].pt')
    b.wait_for_selector('#board[data-ply="1"]')
    b.click('#board [data-vertex="A1"].pt')
    a.wait_for_selector('#board[data-ply="2"]')
    a.click("#pass")
    b.wait_for_selector('#board[data-ply="3"]')
    b.click("#pass")
    for p in (a, b):
        p.wait_for_selector('#board .gboard[data-phase="scoring"]')
        p.wait_for_function("() => document.getElementById('status').textContent.includes('If accepted as marked')", timeout=20000)
        assert dead_marks(p) == ["dead w H3"], dead_marks(p)
        assert p.is_visible("#accept") and p.is_visible("#resume") and not p.is_visible("#pass")
    # White says H3 lives: both boards drop the mark; then marks it dead again.
    b.click('#board [data-vertex="H3"].pt')
    for p in (a, b):
        p.wait_for_function("() => !document.querySelector(\"#board .mark[data-mark^='dead']\")")
    assert "white marks H3 alive" in a.inner_text("#announce"), a.inner_text("#announce")
    b.click('#board [data-vertex="H3"].pt')
    a.wait_for_function("() => document.querySelector(\"#board .mark[data-mark^='dead']\")")
    a.click("#accept")
    b.wait_for_function("() => document.getElementById('status').textContent.includes('Accepted: black yes')")
    assert "Waiting for" not in b.inner_text("#status"), b.inner_text("#status")
    assert "Waiting for white to accept" in a.inner_text("#status"), a.inner_text("#status")
    b.click("#accept")
    for p in (a, b):
        p.wait_for_selector('#board:not([data-over=""])')
        text = p.inner_text("#status")
        winner = "white" if score.startswith("W") else "black"
        loser = "black" if winner == "white" else "white"
        assert f"{winner} wins by {score[2:]} points (area score {score}, komi 7.5)" in text, text
        assert f"{loser} wins" not in text.lower() and "H3" in text, text
        assert p.get_attribute("#board", "data-over") == f"{winner} wins by area score"
        assert not p.is_visible("#accept")
    black, white = ("You lost", "You won") if score.startswith("W") else ("You won", "You lost")
    assert a.inner_text("#status").startswith(black) and b.inner_text("#status").startswith(white)
    for c in ctxs:
        c.close()


def go_engine_by_default(ctx):
    """The Go page opens against the engine, chosen with a labelled control: a click is answered;
    "two players on this board" plays both colours by clicks."""
    page = watch(ctx.new_page())
    page.goto(URL + "/go")
    page.wait_for_selector('#board[data-ply="0"] svg')
    opponent = page.get_by_label("Opponent")
    assert opponent.input_value() == "engine", opponent.input_value()
    assert "engine" in opponent.evaluate("e => e.selectedOptions[0].textContent")
    page.click('[data-vertex="E5"]')
    page.wait_for_selector('#board[data-ply="2"][data-side="b"]', timeout=10000)
    opponent.select_option(label="none: two players on this board")
    page.click("#new")
    page.wait_for_selector('#board[data-ply="0"]')
    page.click('[data-vertex="E5"]')
    page.wait_for_selector('#board[data-ply="1"][data-side="w"]')
    page.wait_for_timeout(1000)
    assert page.get_attribute("#board", "data-ply") == "1", "nobody answers in two-player mode"
    page.close()


def room_presence(browser):
    """A room says whether the opponent has the game open as it is now (joined, gone, back), and
    a forged room link says the room does not exist, without "You are ..."."""
    ctxs = [browser.new_context() for _ in range(2)]
    a = watch(ctxs[0].new_page())
    a.goto(URL + "/play?new=othello")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    invite = a.input_value("#invite")
    presence = lambda: a.inner_text("#presence")
    assert presence() == "Your opponent (white) is not connected now.", presence()
    for _ in range(2):
        b = watch(ctxs[1].new_page())
        b.goto(invite)
        b.wait_for_selector('#board[data-ply="0"]')
        a.wait_for_function("() => document.getElementById('presence').textContent === 'Your opponent (white) has this game open now.'")
        assert b.inner_text("#presence") == "Your opponent (black) has this game open now.", b.inner_text("#presence")
        b.goto(URL + "/")  # the opponent leaves the page
        a.wait_for_function("() => document.getElementById('presence').textContent === 'Your opponent (white) is not connected now.'")
        b.close()
    room = a.url.split("room=")[1].split("&")[0]
    for c in ctxs:
        c.close()
    ctx = browser.new_context()
    forged = watch(ctx.new_page())
    forged.on("console", lambda m: None)
    forged.goto(URL + f"/play?room={room[::-1]}&seat={'0' * 32}")
    forged.wait_for_function("() => document.body.classList.contains('offline')")
    text = forged.inner_text("main")
    assert "this room does not exist" in forged.inner_text("#status"), forged.inner_text("#status")
    assert "You are" not in text and "connected" not in text, text
    ctx.close()


def quantum_plan_hidden(ctx):
    """Playing gote against the engine, which has a gold drop that takes the king in three plies:
    while the game is on, the Analysis panel hides the engine's score and plan (its PV holds
    your reply); once the engine has taken the king it names the side and the plies of the
    binary's last `info` for that position ("in 1 ply", singular)."""
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.select_option("#side", "w")
    page.click("text=Position (QSFEN)")
    page.fill("#qsfen", T.MATE_IN_3)
    page.click("#paste")
    # Choosing gote set the engine going on the starting position; its move there can still be
    # on the board (ply 1, gote to move) while the pasted game's first search runs, so wait for
    # the pasted position's few pieces and the engine's move in it.
    page.wait_for_function(
        """() => document.querySelectorAll('#board .sq .qpiece').length < 10
            && document.getElementById('board').dataset.ply === '1'
            && document.querySelector('#movelist .mv') !== null""",
        timeout=10000,
    )
    page.wait_for_function("() => document.getElementById('a-depth').textContent !== '–'")
    for field in ("#a-score", "#a-pv"):
        assert page.inner_text(field) == "hidden while you play", (field, page.inner_text(field))
    first = page.eval_on_selector("#movelist .mv", "e => e.dataset.action")
    legal = protocol([f"position sfen {T.MATE_IN_3} moves {first}", "moves"])[-1].split()
    reply = next(m for m in legal if "*" not in m and m.rstrip("+") + "+" not in legal and not m.endswith("+"))
    T.click_move(page, reply)
    page.wait_for_selector('#board:not([data-over=""])', timeout=10000)
    moves = page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.dataset.action)")
    assert page.inner_text("#status").startswith("You lost: Sente wins by king capture"), page.inner_text("#status")
    info = [l for l in protocol([f"position sfen {T.MATE_IN_3} moves {' '.join(moves[:2])}", "go depth 3"]) if l.startswith("info depth")][-1].split()
    plies = int(info[info.index("mate") + 1])
    assert page.inner_text("#a-score") == f"Sente takes the king in {plies} {'ply' if plies == 1 else 'plies'}", (page.inner_text("#a-score"), info)
    assert page.inner_text("#a-pv").split()[0] == moves[2], (page.inner_text("#a-pv"), moves)
    page.close()


# Black's a1 ends the game with two squares empty that nobody can fill.
ENDS_WITH_EMPTIES = "-OXXXXXX" + "X" * 32 + "X-XXXX-X" + "X" * 16 + " b"


def othello_end_wording(browser):
    """Solve and the end of the game say the same margin, the `solve` score, with the empty
    squares counted for the winner; on the Othello page and in a room."""
    line = next(l for l in protocol([OTHELLO, "position sfen " + ENDS_WITH_EMPTIES, "solve"]) if l.startswith("solve "))
    move, score = line.split()[1], int(line.split()[3])
    board = ENDS_WITH_EMPTIES.split()[0]
    black, empty = board.count("X") + 2, board.count("-") - 1  # a1 is played and turns b1
    end = f"black wins by {score} discs ({black}–0, and the {empty} empty squares go to the winner)"
    ctx = browser.new_context()
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"]')
    page.click("text=Position")
    page.fill("#sfen", ENDS_WITH_EMPTIES)
    page.click("#paste")
    page.wait_for_selector("#solve:not([disabled])")
    page.click("#solve")
    page.wait_for_function("() => document.getElementById('solved').textContent.startsWith('Exact')")
    assert f"{move} is best; with perfect play black wins by {score} discs" in page.inner_text("#solved"), page.inner_text("#solved")
    page.click(f'[data-square="{move}"]')
    page.wait_for_selector('#board:not([data-over=""])')
    assert page.inner_text("#status") == f"You won: {end}.", page.inner_text("#status")
    ctx.close()
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + "/play?new=othello&start=" + ENDS_WITH_EMPTIES.replace(" ", "_"))
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click(f'[data-square="{move}"]')
    for p, said in ((a, "You won"), (b, "You lost")):
        p.wait_for_selector('#board[data-ply="1"][data-over="black wins by disc count"]')
        assert p.inner_text("#status") == f"{said}: {end}.", p.inner_text("#status")
    for c in ctxs:
        c.close()


def tab_stops(page, limit=40):
    """The board squares Tab reaches from the page's first link (`limit` presses go round the
    page more than once)."""
    page.focus("header a.home")
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        square = page.evaluate("() => document.getElementById('board').contains(document.activeElement) ? document.activeElement.dataset.square || '?' : null")
        if square and square not in seen:
            seen.append(square)
    return seen


def one_tab_stop_per_board(browser):
    """Othello's 64 and quantum shogi's 81 squares are one stop in the Tab order (on the engine
    pages and in a room); the arrow keys move the stop."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    page = watch(ctx.new_page())
    for path, ready in (("/othello", '#board[data-ply="0"] .osq.legal'), ("/quantum", '#board[data-ply="0"] .qpiece'), ("/play?new=othello", '#board[data-ply="0"] .osq')):
        page.goto(URL + path)
        page.wait_for_selector(ready)
        stops = tab_stops(page)
        assert len(stops) == 1, (path, stops)
        page.focus(f'#board [data-square="{stops[0]}"]')
        page.keyboard.press("ArrowRight")
        moved = page.evaluate("() => document.activeElement.dataset.square")
        assert moved and moved != stops[0], (path, stops, moved)
        assert tab_stops(page) == [moved], (path, moved)
        count = page.eval_on_selector_all("#board button", "els => els.filter(e => e.tabIndex >= 0).length")
        assert count == 1, (path, count)
    ctx.close()


def promotion_beside_the_square(browser):
    """At 1280x800 "Promote?" opens beside the square the piece goes to, inside the window, on
    the quantum page and in a room; Keep still plays the move."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = watch(ctx.new_page())
    for path in ("/quantum", "/play?new=quantumshogi&start=" + T.KING_CAPTURE.replace(" ", "_")):
        page.goto(URL + path)
        page.wait_for_selector('#board[data-ply="0"] .qpiece')
        if path == "/quantum":
            page.click("text=Position (QSFEN)")
            page.fill("#qsfen", T.KING_CAPTURE)
            page.click("#paste")
        page.wait_for_selector('[data-square="5b"] .qpiece[data-cands="R"]')
        page.click('[data-square="5b"]')
        page.click('[data-square="5a"]')
        page.wait_for_selector("#promote:not([hidden])")
        box = page.locator("#promote").bounding_box()
        cell = page.locator('#board [data-square="5a"]').bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= 800 and 0 <= box["x"] and box["x"] + box["width"] <= 1280, (path, box)
        gap = min(abs(box["y"] - (cell["y"] + cell["height"])), abs(cell["y"] - (box["y"] + box["height"])))
        assert gap <= 8, (path, box, cell)
        assert box["x"] <= cell["x"] + cell["width"] and cell["x"] <= box["x"] + box["width"], (path, box, cell)
        page.click("#promote-no")
        page.wait_for_selector('#board[data-ply="1"]')
    ctx.close()


def quantum_newcomer_help(browser):
    """The quantum page ties K R B G S N L P to the pieces' names in its legend, open from the
    start, has a short rules text, and the end of a game names the piece that took the king (as
    the board shows it), on the page and in a room."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    assert page.locator("details.legend").get_attribute("open") is not None, "the legend starts open"
    key = texts(page, "#letter-key li")
    names = ["king", "rook", "bishop", "gold", "silver", "knight", "lance", "pawn"]
    assert [k.split()[:2] for k in key] == [[t, n] for t, n in zip("KRBGSNLP", names)], key
    # The rules start open (issue 68: a newcomer should not have to find them).
    assert page.locator("#rules").get_attribute("open") is not None, "the rules start open"
    rules = page.inner_text("#rules")
    assert all(n in rules for n in names) and "capturing a piece that can only be the king" in rules, rules
    for path in ("/quantum", "/play?new=quantumshogi&start=" + T.KING_CAPTURE.replace(" ", "_")):
        page.goto(URL + path)
        page.wait_for_selector('#board[data-ply="0"] .qpiece')
        if path == "/quantum":
            page.click("text=Position (QSFEN)")
            page.fill("#qsfen", T.KING_CAPTURE)
            page.click("#paste")
        page.wait_for_selector('[data-square="5b"] .qpiece[data-cands="R"]')
        T.click_move(page, "5b5a")
        page.wait_for_selector('#board:not([data-over=""])')
        cands = page.get_attribute('#board [data-square="5a"] .qpiece', "data-cands")
        assert cands == "R", cands
        status = page.inner_text("#status")
        assert status.startswith("You won: ") and status.endswith("The rook (R) on 5a took the king: ☗5b×5a."), status
    ctx.close()


def quantum_room_rings_and_legend(browser):
    """A quantum room shows the letter key and, after a move, the same narrowing rings as the
    quantum page after the same move."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    page = watch(ctx.new_page())
    ringed = lambda p: sorted(p.eval_on_selector_all("#board .sq.narrowed", "els => els.map(e => e.dataset.square)"))
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.select_option("#time", "3000")  # the rings are read before the engine's reply
    T.click_move(page, "7g7f")
    page.wait_for_selector('#board[data-ply="1"]')
    want = ringed(page)
    assert "7f" in want, want
    room = watch(ctx.new_page())
    room.goto(URL + "/play?new=quantumshogi")
    room.wait_for_selector('#board[data-ply="0"] .qpiece')
    assert room.is_visible("#quantum-legend") and len(texts(room, "#letter-key li")) == 8
    assert ringed(room) == []
    T.click_move(room, "7g7f")
    room.wait_for_selector('#board[data-ply="1"]')
    assert ringed(room) == want, (ringed(room), want)
    room.goto(URL + "/play?new=othello")
    room.wait_for_selector('#board[data-ply="0"] .osq')
    assert not room.is_visible("#quantum-legend")
    ctx.close()


def quantum_captures_visible(ctx):
    """A capture target on a piece is framed round the piece (a dot among its letters was hard
    to see) and read as a capture; an empty target keeps its dot."""
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.click("text=Position (QSFEN)")
    page.fill("#qsfen", T.KING_CAPTURE)
    page.click("#paste")
    page.wait_for_selector('[data-square="5b"] .qpiece[data-cands="R"]')
    page.click('[data-square="5b"]')
    page.wait_for_selector("#board .sq.target")
    frame = """sq => { const e = document.querySelector(`#board [data-square="${sq}"]`); const a = getComputedStyle(e, '::after');
        const border = parseFloat(a.borderLeftWidth);
        return [e.getBoundingClientRect().width, parseFloat(a.width) + 2 * border, border]; }"""
    cell, width, border = page.evaluate(frame, "5a")
    assert page.get_attribute('[data-square="5a"]', "class").split().count("capture") == 1
    assert width >= 0.8 * cell and border >= 3, (cell, width, border)
    assert "a capture here" in page.get_attribute('[data-square="5a"]', "aria-label")
    cell, width, border = page.evaluate(frame, "5c")
    assert width < 0.5 * cell and border == 0, (cell, width, border)
    page.close()


def room_clocks(browser):
    """A timed room made from the home page shows two clocks, yours nearer the board's edge you
    see last; the running one is marked and counts down between states; low time is marked, and
    the flag falls with nobody moving. An untimed room shows none."""
    ctxs = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + "/")
    a.select_option("select[name=new]", "othello")
    a.select_option("#new-clock", "180+2")
    a.click(".new-room button[type=submit]")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    a.wait_for_selector('#board[data-ply="0"]')
    clocks = "els => els.map(e => [e.dataset.side, e.querySelector('.time').textContent, e.classList.contains('running')])"
    # The first move is not timed: nothing runs yet.
    assert a.eval_on_selector_all("#clocks .clock", clocks) == [["white", "3:00", False], ["black", "3:00", False]]
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click('[data-square="f5"]')
    white = '#clocks .clock[data-side="white"]'
    b.wait_for_selector(white + ".running")
    first = int(b.get_attribute(white, "data-ms"))
    b.wait_for_timeout(1500)
    later = int(b.get_attribute(white, "data-ms"))
    assert 1000 <= first - later <= 3000, (first, later)
    assert b.inner_text(white + " .time") in ("2:58", "2:59"), b.inner_text(white + " .time")
    assert not b.get_attribute('#clocks .clock[data-side="black"]', "class").count("running")
    b.click('[data-square="d6"]')
    a.wait_for_selector('#board[data-ply="2"] ')
    a.wait_for_selector('#clocks .clock.running[data-side="black"]')
    # The increment was added: white has more than it had when it moved.
    assert int(a.get_attribute(white, "data-ms")) > later, a.get_attribute(white, "data-ms")
    # 3 s, with the `+` of the address as typed: low at once, and the flag falls by itself.
    a.goto(URL + "/play?new=othello&clock=3+0")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click('[data-square="f5"]')
    b.wait_for_selector(white + ".running.low")
    for p in (a, b):
        p.wait_for_selector('#board[data-over="black wins by time forfeit"]', timeout=8000)
    assert "time forfeit" in b.inner_text("#status"), b.inner_text("#status")
    assert b.inner_text(white + " .time") == "0:00.0"
    a.goto(URL + "/play?new=othello")
    a.wait_for_selector('#board[data-ply="0"]')
    assert not a.is_visible("#clocks")
    for c in ctxs:
        c.close()


TESTS = {
    "undo when second": lambda browser: with_context(browser, undo_when_second),
    "othello passes listed": othello_passes_listed,
    "go score shown": go_score_shown,
    "go room scoring": go_room_scoring,
    "go engine by default": lambda browser: with_context(browser, go_engine_by_default),
    "room presence": room_presence,
    "quantum plan hidden": lambda browser: with_context(browser, quantum_plan_hidden),
    "othello end wording": othello_end_wording,
    "one tab stop per board": one_tab_stop_per_board,
    "promotion beside the square": promotion_beside_the_square,
    "quantum newcomer help": quantum_newcomer_help,
    "quantum room rings and legend": quantum_room_rings_and_legend,
    "quantum captures visible": lambda browser: with_context(browser, quantum_captures_visible),
    "room clocks": room_clocks,
}


def with_context(browser, test):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    test(ctx)
    ctx.close()


def main():
    chosen = sys.argv[4:] or list(TESTS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=T.FLAGS)
        for name in chosen:
            TESTS[name](browser)
            print("ok", name, flush=True)
        browser.close()
    assert not T.console_errors, T.console_errors
    print("ok all", flush=True)


if __name__ == "__main__":
    main()
