"""The review board in a real (Debian) chromium through playwright: stepping with the keys and
the move list, the evaluation graph, download and upload of records, playing on from an earlier
move, and the archive's games opened on it.

Usage: test_review.py <server url> <ryoshi binary>
Run by tests/serve_review_browser.rs, which starts the server. What the board should show is
computed by running the same binary on stdin/stdout.
"""

import os
import subprocess
import sys
import tempfile

from playwright.sync_api import sync_playwright

URL, BIN = sys.argv[1].rstrip("/"), sys.argv[2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
console_errors = []


def protocol(lines):
    out = subprocess.run([BIN], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    return out.stdout.splitlines()


def othello_board(moves, start="startpos"):
    """The 64 squares of the position after `moves`, as `d`'s sfen gives them."""
    lines = protocol(["setoption name USI_Variant value othello", f"position {start}" + (" moves " + " ".join(moves) if moves else ""), "d"])
    return next(l for l in lines if l.startswith("sfen ")).split()[1]


def watch(page):
    page.on("console", lambda m: m.type == "error" and console_errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda e: console_errors.append(f"{page.url}: {e}"))
    return page


def shown_board(page):
    return page.evaluate(
        "() => [...document.querySelectorAll('#board .osq')].map(c => c.querySelector('.disc.black') ? 'X' : c.querySelector('.disc.white') ? 'O' : '-').join('')"
    )


def listed(page):
    return page.eval_on_selector_all("#movelist .mv[data-ply]", "els => els.map(e => e.textContent)")


def at_ply(page, n):
    page.wait_for_selector(f'#board[data-ply="{n}"]')
    page.wait_for_function(f"() => document.body.dataset.reviewPly === '{n}'")


def key(page, name):
    # The keys belong to the page, not to a focused square (whose arrows move between squares).
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(name)


def othello_review(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    for n in (2, 4):
        page.click("#board .osq.legal")
        page.wait_for_selector(f'#board[data-ply="{n}"] .osq.legal')
    moves = listed(page)
    assert len(moves) == 4, moves
    assert shown_board(page) == othello_board(moves)

    # Stepping with the keys: Home, →, →, End, ←; the list keeps the whole game.
    key(page, "Home")
    at_ply(page, 0)
    assert shown_board(page) == othello_board([])
    assert listed(page) == moves
    assert page.locator("#movelist .mv.after").count() == 4
    key(page, "ArrowRight")
    key(page, "ArrowRight")
    at_ply(page, 2)
    assert shown_board(page) == othello_board(moves[:2])
    assert page.inner_text("#rv-ply") == "Move 2 of 4"
    key(page, "End")
    at_ply(page, 4)
    key(page, "ArrowLeft")
    at_ply(page, 3)
    assert shown_board(page) == othello_board(moves[:3])
    # The buttons and a click in the move list.
    page.click("#rv-first")
    at_ply(page, 0)
    page.click("#rv-next")
    at_ply(page, 1)
    page.click('#movelist .mv[data-ply="3"]')
    at_ply(page, 3)
    assert page.locator("#movelist .mv.current").inner_text() == moves[2]
    page.click("#rv-last")
    at_ply(page, 4)
    # Stepping is not a takeback: a reload comes back with the whole game.
    page.wait_for_function("() => location.search.startsWith('?game=')")
    key(page, "Home")
    at_ply(page, 0)
    page.reload()
    page.wait_for_selector('#board[data-ply="4"]')
    assert listed(page) == moves

    # The evaluation graph: one point a move, black's disc difference; a click goes there.
    page.click("#rv-eval")
    page.wait_for_function("() => document.querySelector('#rv-progress').textContent.startsWith('Evaluated')", timeout=30000)
    assert page.locator("#rv-graph circle.rv-pt").count() == len(moves)
    titles = page.eval_on_selector_all("#rv-graph circle.rv-pt title", "els => els.map(e => e.textContent)")
    assert all(" discs" in t for t in titles), titles
    page.click('#rv-graph circle.rv-pt[data-ply="2"]')
    at_ply(page, 2)
    assert shown_board(page) == othello_board(moves[:2])
    # The graph is kept with the game: a reload, and anyone opening it from /games, see it
    # at once, without computing it again.
    id = game_id(page)
    page.reload()
    page.wait_for_selector(f'#board[data-ply="{len(moves)}"]')
    page.wait_for_selector("#rv-graph circle.rv-pt")
    assert page.eval_on_selector_all("#rv-graph circle.rv-pt title", "els => els.map(e => e.textContent)") == titles
    assert page.inner_text("#rv-progress") == "" and page.is_hidden("#rv-stop")
    other = watch(ctx.new_page())
    other.goto(f"{URL}/othello?review={id}")
    other.wait_for_selector(f'#board[data-ply="{len(moves)}"]')
    other.wait_for_selector("#rv-graph circle.rv-pt")
    assert other.eval_on_selector_all("#rv-graph circle.rv-pt title", "els => els.map(e => e.textContent)") == titles
    other.close()
    page.click('#rv-graph circle.rv-pt[data-ply="2"]')
    at_ply(page, 2)

    # Download: the whole game (not only up to the ply shown), read back by the engine.
    with page.expect_download() as d:
        page.click("#rv-download")
    path = d.value.path()
    assert d.value.suggested_filename.endswith(".ggf"), d.value.suggested_filename
    text = open(path).read()
    back = protocol(["setoption name USI_Variant value othello", "loadrecordtext " + " ".join(text.split("\n")), "d"])
    assert not any(l.startswith("info string error") for l in back), back
    assert next(l for l in back if l.startswith("sfen ")).split()[1] == othello_board(moves), (text, back)

    # Upload: a transcript opens with its moves, to step through; a bad one changes nothing.
    folder = tempfile.mkdtemp()
    bad = os.path.join(folder, "bad.ggf")
    open(bad, "w").write("f5a1\n")
    page.set_input_files("#rv-file", bad)
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Record refused')")
    assert listed(page) == moves
    good = os.path.join(folder, "game.txt")
    open(good, "w").write("f5d6c3d3c4f4\n")
    page.set_input_files("#rv-file", good)
    page.wait_for_function("() => document.querySelectorAll('#movelist .mv[data-ply]').length === 6")
    at_ply(page, 6)
    assert listed(page) == ["f5", "d6", "c3", "d3", "c4", "f4"]
    assert shown_board(page) == othello_board(["f5", "d6", "c3", "d3", "c4", "f4"])
    key(page, "Home")
    at_ply(page, 0)
    assert shown_board(page) == othello_board([])

    # Playing on from move 2 (black to move there, the player's side): another move than the
    # game's cuts the line there, and the engine answers.
    page.click('#movelist .mv[data-ply="2"]')
    at_ply(page, 2)
    page.click("#rv-play")
    page.wait_for_selector("#board .osq.legal")
    assert page.eval_on_selector("#side", "e => e.value") == "b"
    other = next(m for m in page.eval_on_selector_all("#board .osq.legal", "els => els.map(e => e.dataset.square)") if m != "c3")
    page.click(f'[data-square="{other}"]')
    page.wait_for_selector('#board[data-ply="4"] .osq.legal')
    now = listed(page)
    assert now[:3] == ["f5", "d6", other] and len(now) == 4, now
    assert page.inner_text("#rv-ply") == "Move 4 of 4"
    page.close()


def finished_othello_graph(ctx):
    """A whole game (each side's first legal move, to the end) uploaded and graphed: the last
    point is its final disc count, black's, as the engine counts it. The page lists each pass
    the rules made as a move of its own, so the review has a ply for each."""
    moves = []
    passes = 0
    mover = None
    while True:
        lines = protocol(["setoption name USI_Variant value othello", "position startpos" + (" moves " + " ".join(moves) if moves else ""), "d"])
        counts = next(l for l in lines if l.startswith("black X "))
        side = counts.rsplit(",", 1)[-1]
        if mover is not None and side == mover:
            passes += 1  # the side that just moved moves again: the other one passed
        legal = next(l for l in lines if l.startswith("moves:"))[6:].split()
        if not legal:
            break
        mover = side
        moves.append(legal[0])
    assert "game over" in counts, counts
    assert passes > 0, "the game should pass at least once: it tests the page's pass plies"
    plies = len(moves) + passes
    black, white = (int(w) for w in counts.replace(",", " ").split() if w.isdigit())
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.set_input_files("#rv-file", files=[{"name": "g.txt", "mimeType": "text/plain", "buffer": "".join(moves).encode()}])
    page.wait_for_function(f"() => document.body.dataset.reviewLength === '{plies}'")
    page.click("#rv-eval")
    page.wait_for_function("() => document.querySelector('#rv-progress').textContent.startsWith('Evaluated')", timeout=120000)
    titles = page.eval_on_selector_all("#rv-graph circle.rv-pt title", "els => els.map(e => e.textContent)")
    assert len(titles) == plies, (len(titles), plies)
    diff = black - white
    assert titles[-1].endswith(f": {'+' if diff > 0 else ''}{diff} discs"), (titles[-1], counts)
    page.close()


def archive_opens_on_the_review_board(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/games")
    link = page.locator('table.archive a:text("review")').first
    row = link.locator("xpath=ancestor::tr")
    plies = int(row.locator("td").nth(5).inner_text())  # game, sides, clock, result, date, moves
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url("**" + href)
    page.wait_for_function(f"() => document.body.dataset.reviewLength === '{plies}'")
    at_ply(page, plies)
    key(page, "Home")
    at_ply(page, 0)
    key(page, "End")
    at_ply(page, plies)
    page.close()

    # A room's game: its page links it to the review board, which opens it at its last move.
    page = watch(ctx.new_page())
    page.goto(URL + "/play?new=othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.click('#board [data-square="f5"]')
    page.wait_for_selector('#board[data-ply="1"]')
    href = page.get_attribute("#review", "href")
    assert href.startswith("/othello?review="), href
    page.goto(URL + href)
    at_ply(page, 1)
    assert listed(page) == ["f5"]
    key(page, "ArrowLeft")
    at_ply(page, 0)
    page.close()


def game_id(page):
    page.wait_for_function("() => location.search.startsWith('?game=')")
    return page.evaluate("() => new URLSearchParams(location.search).get('game')")


def new_game_keeps_the_last(ctx):
    """Two games in a row on one page: New game gives the second its own id, and /games lists
    both with their own moves."""
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    games = []
    for first in ("f5", "d3"):
        page.wait_for_selector('#board[data-ply="0"] .osq.legal')
        page.click(f'#board [data-square="{first}"]')
        page.wait_for_selector('#board[data-ply="2"] .osq.legal')
        games.append((game_id(page), listed(page)))
        page.click("#new")
        page.wait_for_function("() => !location.search")
    (a, moves_a), (b, moves_b) = games
    assert a != b and moves_a[0] == "f5" and moves_b[0] == "d3", games
    archive = page.context.request.get(URL + "/games").text()
    for id, moves in games:
        assert f"/othello?review={id}" in archive, archive
        ggf = page.context.request.get(f"{URL}/record/{id}").text()
        assert "".join(f"[{m.upper()}]" for m in moves) in ggf.replace("B[", "[").replace("W[", "["), (moves, ggf)
    page.close()


def names_in_records(ctx):
    """A room asks the player's name once and shows it; the engine page names both sides with
    it, and its download and /games carry the names."""
    page = watch(ctx.new_page())
    page.goto(URL + "/play?new=othello")
    page.wait_for_selector('#board[data-ply="0"]')
    assert page.is_visible("#name-form")
    page.fill("#name", "Alice <A>")
    page.click("#set-name")
    page.wait_for_function("() => document.querySelector('#players').textContent === 'Alice <A> (black) – white'")
    assert page.is_hidden("#name-form")
    page.reload()
    page.wait_for_selector('#board[data-ply="0"]')
    assert page.is_hidden("#name-form"), "asked once"
    page.close()

    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.click('#board [data-square="f5"]')
    page.wait_for_selector('#board[data-ply="2"] .osq.legal')
    id = game_id(page)
    with page.expect_download() as d:
        page.click("#rv-download")
    ggf = open(d.value.path()).read()
    engine = next(l for l in protocol(["usi"]) if l.startswith("id name "))[8:]
    assert f"PB[Alice <A>]PW[{engine}]" in ggf, ggf
    page.goto(URL + "/games")
    row = page.locator(f'tr:has(a[href="/othello?review={id}"])')
    assert f"Alice <A> (black) and {engine} (white)" in row.inner_text(), row.inner_text()
    page.evaluate("() => localStorage.clear()")
    page.close()


def go_and_quantum(ctx):
    """The same board on the other two pages: steps and one graph point a move."""
    page = watch(ctx.new_page())
    page.goto(URL + "/go")
    page.wait_for_selector('#board[data-ply="0"]')
    for vertex in ("E5", "C3", "pass"):
        if vertex == "pass":
            page.click("#pass")
        else:
            page.click(f'#board [data-vertex="{vertex}"]')
        page.wait_for_function(f"() => document.body.dataset.reviewLength === '{['E5', 'C3', 'pass'].index(vertex) + 1}'")
    key(page, "Home")
    at_ply(page, 0)
    key(page, "ArrowRight")
    at_ply(page, 1)
    # The live analysis (a minute's search) gives way to the graph.
    page.check("#analyze")
    page.wait_for_selector("#board .cand", timeout=10000)
    page.click("#rv-eval")
    page.wait_for_function("() => document.querySelector('#rv-progress').textContent.startsWith('Evaluated')", timeout=20000)
    assert page.locator("#rv-graph circle.rv-pt").count() == 3
    titles = page.eval_on_selector_all("#rv-graph circle.rv-pt title", "els => els.map(e => e.textContent)")
    assert all("black " in t and "%" in t and (" leads by " in t or "even" in t) for t in titles), titles
    # A pasted SGF keeps its moves, to step through (not only its last position).
    page.fill("#sgf", "(;GM[1]FF[4]SZ[9]\n;B[ee];W[cc]\n;B[gg])")
    page.click("#load")
    page.wait_for_function("() => document.body.dataset.reviewLength === '3'")
    at_ply(page, 3)
    assert page.eval_on_selector_all("#movelist .mv[data-ply]", "els => els.map(e => e.textContent)") == ["E5", "C7", "G3"]
    key(page, "Home")
    at_ply(page, 0)
    assert page.locator("#board .stone").count() == 0
    page.close()

    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"]')
    page.set_input_files("#rv-file", files=[{"name": "g.kifu", "mimeType": "text/plain", "buffer": quantum_kifu()}])
    page.wait_for_function("() => Number(document.body.dataset.reviewLength) === 4")
    key(page, "Home")
    at_ply(page, 0)
    key(page, "ArrowRight")
    at_ply(page, 1)
    page.click("#rv-eval")
    page.wait_for_function("() => document.querySelector('#rv-progress').textContent.startsWith('Evaluated')", timeout=30000)
    assert page.locator("#rv-graph circle.rv-pt").count() == 4
    page.click('#rv-graph circle.rv-pt[data-ply="3"]')
    at_ply(page, 3)
    # The kifu downloads again as the same game.
    with page.expect_download() as d:
        page.click("#rv-download")
    assert d.value.suggested_filename.endswith(".kifu"), d.value.suggested_filename
    assert open(d.value.path(), "rb").read() == quantum_kifu()
    page.close()


def quantum_kifu():
    """A four-ply quantum shogi game's kifu, as the engine writes it."""
    lines = protocol(["setoption name USI_Variant value quantumshogi", "position startpos", "moves"])
    first = lines[-1].split()[0]
    lines = protocol(["setoption name USI_Variant value quantumshogi", f"position startpos moves {first}", "moves"])
    second = lines[-1].split()[0]
    lines = protocol(["setoption name USI_Variant value quantumshogi", f"position startpos moves {first} {second}", "moves"])
    third = lines[-1].split()[0]
    lines = protocol(["setoption name USI_Variant value quantumshogi", f"position startpos moves {first} {second} {third}", "moves"])
    fourth = lines[-1].split()[0]
    record = protocol(["setoption name USI_Variant value quantumshogi", f"position startpos moves {first} {second} {third} {fourth}", "record"])
    return ("\n".join(l for l in record if not l.startswith("info ")) + "\n").encode()


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        ctx = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
        for name, test in (("othello review", othello_review), ("finished othello graph", finished_othello_graph), ("archive", archive_opens_on_the_review_board), ("new game", new_game_keeps_the_last), ("names", names_in_records), ("go and quantum", go_and_quantum)):
            test(ctx)
            print("ok", name, flush=True)
        ctx.close()
        browser.close()
    assert not console_errors, console_errors
    print("ok review", flush=True)


if __name__ == "__main__":
    main()
