"""Issue 68's mends in a real (Debian) chromium: records that keep their passes and results,
and the small defects players met, each pinned.

Usage: test_mends.py <server url> <screenshot dir> <ryoshi binary> [test name ...]
Run by tests/serve_mends_browser.rs, which starts the server; with names, only those tests run.
What the pages should show is computed by running the same binary on stdin/stdout.
"""

import re
import sys

from playwright.sync_api import sync_playwright

import test_pages as T
from test_pages import URL, protocol, watch

OTHELLO = "setoption name USI_Variant value othello"
# A whole game with three passes (white's d8, black's h2, white's a1 each follow the other
# side's pass): 60 placements and 3 passes, 63 plies as the pages list them.
PASSING_GAME = (
    "f5 f4 c3 d6 d3 b2 e6 f6 g4 f3 g5 c6 g3 h3 c5 d2 c7 b7 g7 b8 e3 g6 f7 f8 g2 h4 d1 g1 c8 h5 "
    "a8 e2 d7 b5 h1 h6 e7 e8 b4 a7 f2 c1 h7 a5 a6 f1 h8 c4 a4 g8 c2 b6 b3 a2 a3 b1 e1 pass d8 "
    "pass h2 pass a1"
).split()


def sides(moves):
    """The side to move before each move of `moves` from the standard start (`d`'s sfen)."""
    lines = [OTHELLO]
    for i in range(len(moves)):
        lines += ["position startpos" + (" moves " + " ".join(moves[:i]) if i else ""), "d"]
    return [l.split()[2] for l in protocol(lines) if l.startswith("sfen ")]


def ggf_moves(text):
    """A GGF's moves in order, as (colour, field): `("B", "F5")`, `("W", "PA")`."""
    body = text[text.index("BO[") :]
    return re.findall(r"\b([BW])\[([A-Ha-h][1-8]|PA)[^\]]*\]", body)


def listed(page):
    return page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)")


def upload(page, name, text):
    page.set_input_files("#rv-file", files=[{"name": name, "mimeType": "text/plain", "buffer": text.encode()}])


def othello_ggf_round_trip(ctx):
    """A GGF with `PA` passes, uploaded, lists every pass where it was (each row black's move
    then white's), and its download carries the same moves and passes and the result (`RE`);
    uploaded again, the same plies."""
    who = sides(PASSING_GAME)
    # The GGF as GGS writes it: each move by its colour, every pass `PA`.
    colour = {"b": "B", "w": "W"}
    fields = []
    for i, m in enumerate(PASSING_GAME):
        # A pass is the move of the side that was to move before the placement it follows.
        side = who[i - 1] if m == "pass" else who[i]
        if m == "pass":
            side = {"b": "w", "w": "b"}[side]
        fields.append(f"{colour[side]}[{'PA' if m == 'pass' else m.upper()}]")
    ggf = "(;GM[Othello]PC[test]PB[alice]PW[bob]TY[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]" + "".join(fields) + ";)"
    final = protocol([OTHELLO, "position startpos moves " + " ".join(PASSING_GAME), "d"])
    counts = next(l for l in final if l.startswith("black X "))
    assert "game over" in counts, counts
    black, white = (int(w) for w in counts.replace(",", " ").split() if w.isdigit())
    empties = 64 - black - white
    lead = black - white + (empties if black > white else -empties if white > black else 0)

    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    upload(page, "passes.ggf", ggf)
    n = len(PASSING_GAME)
    page.wait_for_function(f"() => document.body.dataset.reviewLength === '{n}'")
    assert listed(page) == PASSING_GAME, listed(page)
    # Each row is black's move then white's: a pass sits in its passer's column.
    rows = page.eval_on_selector_all("#movelist li", "els => els.map(li => [...li.querySelectorAll('.mv')].map(e => e.textContent))")
    for r, row in enumerate(rows):
        for c, mv in enumerate(row):
            i = 2 * r + c
            if mv != "pass":
                assert who[i] == "bw"[c], (i, mv, who[i], row)
    # The download: the same moves and passes, with the result as GGS writes it.
    page.wait_for_function("() => location.search.startsWith('?game=')")
    with page.expect_download() as d:
        page.click("#rv-download")
    down = open(d.value.path()).read()
    assert ggf_moves(down) == ggf_moves(ggf), (down, ggf)
    assert f"RE[{lead:+.2f}]" in down, (lead, down)
    assert "PB[alice]PW[bob]" in down, down
    # Uploaded again: the same plies.
    page.click("#new")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    upload(page, "again.ggf", down)
    page.wait_for_function(f"() => document.body.dataset.reviewLength === '{n}'")
    assert listed(page) == PASSING_GAME, listed(page)
    page.close()


# White to move with one placement, d8; black then has none and passes; white's f6 fills the
# board and ends the game (found by search through the binary; checked again below).
PASS_THEN_END = "OXXOOOOOOOOXOOOOOXOOOOXOXOOOOOOOOOOOOOOOOOOOO-OOXXOXXOOOOOX-XOOO w"


def othello_result_alone(ctx):
    """The engine's move, black's pass, the engine's last move: the finished game shows its
    result, and the pass announced before it is gone."""
    end = protocol([OTHELLO, f"position sfen {PASS_THEN_END} moves d8", "d", f"position sfen {PASS_THEN_END} moves d8 f6", "d"])
    status = [l for l in end if l.startswith("black X ")]
    assert "white to move" in status[0] and "game over" in status[1], status
    page = watch(ctx.new_page())
    page.goto(URL + "/othello")
    page.wait_for_selector('#board[data-ply="0"]')
    page.click("text=Position")
    page.fill("#sfen", PASS_THEN_END)
    page.click("#paste")
    page.wait_for_function("() => document.getElementById('board').dataset.over !== ''", timeout=20000)
    assert listed(page) == ["d8", "pass", "f6"], listed(page)
    assert page.inner_text("#announce") == "", page.inner_text("#announce")
    assert "white wins" in page.inner_text("#status").lower(), page.inner_text("#status")
    page.close()


def fallen_flag_reads_zero(ctx):
    """A byoyomi room whose flag fell shows the fallen clock at zero, struck through, not the
    byoyomi period it had: in the tab that saw it fall and in one opened afterwards."""
    a = watch(ctx.new_page())
    a.goto(URL + "/play?new=othello&clock=1b3")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b = watch(ctx.browser.new_context().new_page())
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click('[data-square="f5"]')
    white = '#clocks .clock[data-side="white"]'
    for p in (a, b):
        p.wait_for_selector('#board[data-over="black wins by time forfeit"]', timeout=10000)
    late = watch(ctx.new_page())
    late.goto(a.url.split("&seat=")[0])
    late.wait_for_selector('#board[data-over="black wins by time forfeit"]')
    for p in (a, b, late):
        p.wait_for_selector(white + ".flagged")
        assert p.inner_text(white + " .time") == "0:00.0", p.inner_text(white + " .time")
        assert p.get_attribute(white, "data-ms") == "0"
    b.context.close()


def promoted_capture_text(ctx):
    """The king taken by a promoted rook: the end says +R, as the legend and the list do."""
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.click("text=Position (QSFEN)")
    page.fill("#qsfen", T.KING_CAPTURE)
    page.click("#paste")
    page.wait_for_selector('[data-square="5b"] .qpiece[data-cands="R"]')
    page.click('[data-square="5b"]')
    page.click('[data-square="5a"]')
    page.wait_for_selector("#promote:not([hidden])")
    page.click("#promote-yes")
    page.wait_for_selector('#board[data-over="Sente wins by king capture"]')
    text = page.inner_text("main")
    assert "The promoted rook (+R) on 5a took the king" in text, text
    assert "promoted rook (R)" not in text, text
    page.close()


def go_page_on_a_phone(browser):
    """The Go engine page at 390 px: no wider than the screen, the Moves panel open."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = watch(ctx.new_page())
    page.goto(URL + "/go")
    page.wait_for_selector("#board g.pt", state="attached")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the Go page is {width} px wide at 390"
    assert page.evaluate("() => document.getElementById('movelist').closest('details').open")
    ctx.close()


# White walls off columns A-E, black F-J; white's H5 and H3 are one dead group of two chains
# (H4 between them touches no black stone).
GO_TWO_CHAINS = "/".join("....OX.O." if r in (4, 6) else "....OX..." for r in range(9))


def dead_marks(page):
    return page.eval_on_selector_all("#board .mark[data-mark^='dead']", "els => els.map(e => e.parentNode.dataset.vertex).sort()")


def go_scoring_marks_the_chain(browser):
    """In a Go room's scoring phase a click marks the clicked chain only; the player who clicked
    is asked whether to mark the rest of its group too (as OGS asks), the other is not."""
    lines = protocol(["setoption name USI_Variant value go", f"position sfen 9 {GO_TWO_CHAINS} b moves pass pass", "score"])
    dead = next(l for l in lines if l.startswith("dead w")).split()[2:]
    assert dead == [], lines  # the proposal: both white chains alive
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (watch(c.new_page()) for c in ctxs)
    a.goto(URL + f"/play?new=go&start=9_{GO_TWO_CHAINS}_b")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"]')
    a.click("#pass")
    b.wait_for_selector('#board[data-ply="1"]')
    b.click("#pass")
    for p in (a, b):
        p.wait_for_function("() => document.getElementById('status').textContent.includes('If accepted as marked')", timeout=20000)
        assert dead_marks(p) == [], dead_marks(p)
    # Black's click on H3 marks H3 alone; black is asked about H5, white is not.
    a.click('#board [data-vertex="H3"].pt')
    for p in (a, b):
        p.wait_for_function("() => document.querySelectorAll(\"#board .mark[data-mark^='dead']\").length === 1")
        assert dead_marks(p) == ["H3"], dead_marks(p)
    a.wait_for_selector("#spread:not([hidden])")
    assert "H5" in a.inner_text("#spread-text"), a.inner_text("#spread-text")
    assert b.is_hidden("#spread")
    a.click("#spread-yes")
    for p in (a, b):
        p.wait_for_function("() => document.querySelectorAll(\"#board .mark[data-mark^='dead']\").length === 2")
        assert dead_marks(p) == ["H3", "H5"], dead_marks(p)
    a.wait_for_selector("#spread", state="hidden")
    # White's click on H5 brings that chain back alone, and white is asked about H3.
    b.click('#board [data-vertex="H5"].pt')
    b.wait_for_selector("#spread:not([hidden])")
    assert dead_marks(b) == ["H3"] and "H3" in b.inner_text("#spread-text"), (dead_marks(b), b.inner_text("#spread-text"))
    for c in ctxs:
        c.close()

def puzzles_in_page_notation(ctx):
    """The puzzle page writes every action as the other pages do (☗7g→7f, not 7g7f): the
    refutation of a wrong move, the defence and the answer; its list has the certain-only
    puzzles in a section of their own, after those with uncertain pieces."""
    import urllib.request
    with urllib.request.urlopen(URL + "/puzzles.txt", timeout=5) as r:
        listed = [[f.strip() for f in l.split("|")] for l in r.read().decode().splitlines() if l.strip() and not l.startswith("#")]
    for index, (qsfen, length, first, line, _) in enumerate(listed):
        if length != "3":
            continue
        legal = protocol(["position sfen " + qsfen, "moves"])[-1].split()
        wrong = [m for m in legal if "*" not in m and m != first and m.rstrip("+") + "+" not in legal]
        if wrong:
            break
    raw = re.compile(r"\b\d[a-i]\d[a-i]\+?\b|\*\d[a-i]")
    page = watch(ctx.new_page())
    page.goto(f"{URL}/puzzle#{index + 1}")
    page.wait_for_selector(f'#board[data-puzzle="{index}"][data-state="play"] .qpiece')
    T.click_move(page, wrong[0])
    page.wait_for_selector('#board[data-state="failed"]', timeout=20000)
    said = page.inner_text("#status")
    assert f"{wrong[0][:2]}→{wrong[0][2:4]}" in said or f"{wrong[0][:2]}×{wrong[0][2:4]}" in said, said
    assert " does not work: ☖" in said or " does not work: ☗" in said, said
    assert not raw.search(said), said
    page.click("#answer")
    page.wait_for_function("() => document.getElementById('status').textContent.endsWith('Try the next one.')", timeout=30000)
    said = page.inner_text("#status")
    assert said.count("☗") + said.count("☖") == int(length) and not raw.search(said), said
    # Two sections: uncertain pieces first, then every piece certain.
    groups = page.eval_on_selector_all("#pick optgroup", "els => els.map(g => [g.label, g.children.length])")
    certain = sum(1 for p in listed if p[4] == "0")
    assert len(groups) == 2 and groups[1][1] == certain and groups[0][1] == len(listed) - certain, groups
    assert "certain" in groups[1][0], groups
    page.close()


TESTS = {
    "othello ggf round trip": othello_ggf_round_trip,
    "othello result alone": othello_result_alone,
    "fallen flag reads zero": fallen_flag_reads_zero,
    "promoted capture text": promoted_capture_text,
    "go page on a phone": go_page_on_a_phone,
    "go scoring marks the chain": go_scoring_marks_the_chain,
    "puzzles in page notation": puzzles_in_page_notation,
}

# Tests that open their own browser context (another viewport).
OWN_CONTEXT = {"go page on a phone", "go scoring marks the chain"}


def main():
    chosen = sys.argv[4:] or list(TESTS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=T.FLAGS)
        for name in chosen:
            if name in OWN_CONTEXT:
                TESTS[name](browser)
            else:
                ctx = browser.new_context(viewport={"width": 1200, "height": 900})
                TESTS[name](ctx)
                ctx.close()
            print("ok", name, flush=True)
        browser.close()
    assert not T.console_errors, T.console_errors
    print("ok all", flush=True)


if __name__ == "__main__":
    main()
