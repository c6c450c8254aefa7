"""A room steps back through its own game, in place, in a real (Debian) chromium through
playwright: a player looks back while the opponent moves, the move joins the list and the view
stays, the board takes no move until back at the live position; spectators step too; the three
games; and the finished game is stepped through with the same controls.

Usage: test_room_review.py <server url> <ryoshi binary>
Run by tests/serve_review_browser.rs, which starts the server. The positions the board should
show are computed by running the same binary on stdin/stdout.
"""

from playwright.sync_api import sync_playwright

# The review board's test holds the helpers both tests use: the chromium flags, the engine on
# stdin/stdout, the console watch and its errors, the Othello board as shown and the page's keys.
from test_review import FLAGS, URL, console_errors, key, othello_board, protocol, shown_board, watch


def viewing(page, ply):
    """Waits until the board shows ply `ply` (drawn from the server's answer)."""
    page.wait_for_selector(f'#board[data-view="{ply}"]')
    page.wait_for_function(f"() => document.body.dataset.reviewPly === '{ply}'")


def room(browser, game):
    """A room of `game`: the creator's page, the invited player's and a spectator's."""
    ctxs = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(3)]
    a, b, c = (watch(x.new_page()) for x in ctxs)
    a.goto(URL + f"/play?new={game}")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    c.goto(a.input_value("#watch"))
    for p in (a, b, c):
        p.wait_for_selector('#board[data-ply="0"]')
    return ctxs, (a, b, c)


def othello_step_back_while_the_opponent_moves(browser):
    ctxs, (a, b, c) = room(browser, "othello")
    line = ["f5", "d6", "c3", "d3"]
    for i, mv in enumerate(line[:3]):
        (a if i % 2 == 0 else b).click(f'#board [data-square="{mv}"]')
        for p in (a, b, c):
            p.wait_for_selector(f'#board[data-ply="{i + 1}"]')
    # Black steps back to the start; white plays meanwhile.
    key(a, "Home")
    viewing(a, 0)
    assert shown_board(a) == othello_board([])
    assert a.is_enabled("#live") and "Back to live" in a.inner_text("#live")
    b.click('#board [data-square="d3"]')
    a.wait_for_selector('#board[data-ply="4"]')
    # The move joins the list; the view stays where black is, and says there is news.
    assert a.eval_on_selector_all("#movelist .mv[data-ply]", "els => els.map(e => e.textContent)") == line
    viewing(a, 0)
    assert shown_board(a) == othello_board([])
    assert "1 new move" in a.inner_text("#live"), a.inner_text("#live")
    # Black's turn, but not on an earlier position: no legal square, a click plays nothing.
    assert a.locator("#board .osq.legal").count() == 0
    assert "go back to the live position" in a.inner_text("#status"), a.inner_text("#status")
    legal = protocol(["setoption name USI_Variant value othello", "position startpos moves " + " ".join(line), "moves"])[-1].split()
    a.click(f'#board [data-square="{legal[0]}"]')
    # Forward one move, then a move of the list, each the position the players had then.
    key(a, "ArrowRight")
    viewing(a, 1)
    assert shown_board(a) == othello_board(line[:1])
    a.click('#movelist .mv[data-ply="3"]')
    viewing(a, 3)
    assert shown_board(a) == othello_board(line[:3])
    assert a.get_attribute("#board", "data-ply") == "4", "a click on an earlier position played a move"
    # A spectator steps back too, without changing anything for the others.
    key(c, "ArrowLeft")
    viewing(c, 3)
    assert shown_board(c) == othello_board(line[:3])
    # Back to live: the position now, and black plays.
    a.click("#live")
    viewing(a, 4)
    assert shown_board(a) == othello_board(line)
    assert a.inner_text("#live").endswith("Live") and not a.is_enabled("#live")
    a.click(f'#board [data-square="{legal[0]}"]')
    for p in (a, b):
        p.wait_for_selector('#board[data-ply="5"]')
    # The spectator's view stayed at ply 3; End goes to the live position.
    viewing(c, 3)
    key(c, "End")
    viewing(c, 5)
    assert shown_board(c) == othello_board(line + legal[:1])
    # After the end, the same controls step through the finished game.
    b.click("#resign")
    b.click("#resign")
    a.wait_for_function("() => document.getElementById('board').dataset.over !== ''")
    key(a, "Home")
    viewing(a, 0)
    assert shown_board(a) == othello_board([])
    key(a, "End")
    viewing(a, 5)
    for x in ctxs:
        x.close()


def go_and_quantum(browser):
    ctxs, (a, b, c) = room(browser, "go")
    a.click('#board [data-vertex="E5"]')
    b.wait_for_selector('#board[data-ply="1"]')
    key(b, "ArrowLeft")
    viewing(b, 0)
    assert b.locator("#board .stone").count() == 0
    a.wait_for_selector('#board[data-ply="1"]')
    key(b, "End")
    viewing(b, 1)
    assert b.locator("#board .stone").count() == 1
    for x in ctxs:
        x.close()

    ctxs, (a, b, c) = room(browser, "quantumshogi")
    for i, (p, frm, to) in enumerate(((a, "7g", "7f"), (b, "3c", "3d"))):
        p.click(f'#board [data-square="{frm}"]')
        p.click(f'#board [data-square="{to}"]')
        c.wait_for_selector(f'#board[data-ply="{i + 1}"]')
    key(c, "ArrowLeft")
    viewing(c, 1)
    # The position after 7g7f: its piece on 7f is the last move's, 3c still full.
    assert c.get_attribute('#board [data-square="7f"]', "class").count("last") == 1
    assert c.locator('#board [data-square="3c"] .qpiece').count() == 1
    assert c.locator('#board [data-square="3d"] .qpiece').count() == 0
    # The narrowing rings are the shown position's: 7g7f's back here, 3c3d's live again.
    assert "7f" in ringed(c), ringed(c)
    key(c, "End")
    viewing(c, 2)
    assert "3d" in ringed(c) and "7f" not in ringed(c), ringed(c)
    for x in ctxs:
        x.close()


def ringed(page):
    """The squares of the pieces the shown position's last move narrowed (the yellow ring)."""
    return sorted(page.eval_on_selector_all("#board .sq.narrowed", "els => els.map(e => e.dataset.square)"))


# Sente's rook on 5b is in the promotion zone, beside gote's king (test_pages.py's KING_CAPTURE).
KING_CAPTURE = "4k4/4R4/9/9/9/9/9/9/4K4 b 18Q19q 1"


def words(page):
    """The move list as written, and the raw actions in its titles."""
    return page.eval_on_selector_all("#movelist .mv", "els => els.map(e => [e.textContent, e.title, e.dataset.action])")


def quantum_notation(browser):
    """A promotion, a drop and a capture of the king written in words in a room's move list
    and its end text, each raw action in its title; the quantum page writes its moves the
    same way, on its review board too."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    a = watch(ctx.new_page())
    a.goto(URL + "/play?new=quantumshogi&start=" + KING_CAPTURE.replace(" ", "_"))
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b = watch(browser.new_context(viewport={"width": 1200, "height": 900}).new_page())
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"] .qpiece')
    line = ["5b4b+", "Q*5e", "4b5a"]
    for i, mv in enumerate(line):
        legal = protocol(["setoption name USI_Variant value quantumshogi", f"position sfen {KING_CAPTURE}" + (" moves " + " ".join(line[:i]) if i else ""), "moves"])[-1].split()
        assert mv in legal, (mv, legal)
    a.click('#board [data-square="5b"]')
    a.click('#board [data-square="4b"]')
    a.click("#promote-yes")
    b.wait_for_selector('#board[data-ply="1"]')
    b.click('#hand-bottom .hand-piece[data-token="Q"]')
    b.click('#board [data-square="5e"]')
    a.wait_for_selector('#board[data-ply="2"]')
    a.click('#board [data-square="4b"]')
    a.click('#board [data-square="5a"]')
    for p in (a, b):
        p.wait_for_function("() => document.getElementById('board').dataset.over !== ''")
    want = [
        ["☗5b→4b promotes, now promoted rook (+R)", "5b4b+", "5b4b+"],
        ["☖ drop any at 5e, now R, B, G, S, N, L or P", "Q*5e", "Q*5e"],
        ["☗4b×5a, now promoted rook (+R)", "4b5a", "4b5a"],
    ]
    for p in (a, b):
        assert words(p) == want, words(p)
        assert "took the king: ☗4b×5a." in p.inner_text("#status"), p.inner_text("#status")
    # A spectator who comes after the game sees the same words: the positions it was not
    # shown are asked for with `view`.
    c = watch(ctx.new_page())
    c.goto(a.input_value("#watch"))
    c.wait_for_function(f"() => document.querySelectorAll('#movelist .mv').length === 3 && !document.getElementById('movelist').textContent.includes('-')")
    assert words(c) == want, words(c)
    # A drop of a piece with a candidate set, as protocol/quantum.md writes one, and a board move
    # whose position before is unknown.
    shown = a.evaluate(
        """async () => { const q = await import("/assets/qboard.js");
        return [q.actionText("Q[RL]~*5i", { mark: "☖" }), q.actionText("7g7f", { mark: "☗" }), q.actionText("P*5e", { mark: "☗" })]; }"""
    )
    assert shown == ["☖ drop R|L~ at 5i", "☗7g-7f", "☗ drop P at 5e"], shown

    # The quantum page: a board move and the engine's reply, in words on its review board too.
    page = watch(ctx.new_page())
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    page.click('#board [data-square="7g"]')
    page.click('#board [data-square="7f"]')
    page.wait_for_function("() => Number(document.body.dataset.reviewLength) === 2", timeout=20000)
    listed = words(page)
    assert listed[0][0].startswith("☗7g→7f, now ") and listed[0][1] == "7g7f", listed
    assert listed[1][0].startswith("☖") and listed[1][1] not in listed[1][0], listed
    key(page, "Home")
    page.wait_for_function("() => document.body.dataset.reviewPly === '0'")
    assert words(page) == listed, words(page)
    # Reloaded, the page reads the positions it has not shown from its session.
    page.reload()
    page.wait_for_function("() => Number(document.body.dataset.reviewLength) === 2")
    page.wait_for_function("() => !document.getElementById('movelist').textContent.includes('-')")
    assert words(page) == listed, words(page)
    ctx.close()


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        for name, test in (("othello room steps back", othello_step_back_while_the_opponent_moves), ("go and quantum rooms", go_and_quantum), ("quantum notation", quantum_notation)):
            test(browser)
            print("ok", name, flush=True)
        browser.close()
    assert not console_errors, console_errors
    print("ok room review", flush=True)


if __name__ == "__main__":
    main()
