"""What players do after a game and during it, in a real (Debian) chromium through playwright:
draw, takeback and rematch offers between two tabs as the two players, a third as spectator,
each offer left waiting across a `kill -9` and restart of the server, then answered.

- Othello: white offers a draw and withdraws it; black offers one; after the restart white accepts: every tab shows the draw, and
  `/games` and the downloaded GGF (`RE[0.00]`) say so.
- Quantum shogi on a clock: gote's takeback declined (nothing changes), then sente's asked,
  the server restarted, and accepted: sente's last move and gote's reply are gone from every
  tab, from the record, and the clocks give back no time.
- Go on a clock: white resigns and offers a rematch; after the restart black accepts: the three
  tabs move to a new room, the colours swapped, the same clock.

Usage: test_offers.py <ryoshi binary> <folder for the database>
Run by tests/serve_offers_browser.rs. This script starts and kills the server itself.
"""

import os
import re
import sys
import urllib.request

from playwright.sync_api import sync_playwright

from test_restart import FLAGS, Server, moves

FOLDER = sys.argv[2]


def fetch(server, path):
    with urllib.request.urlopen(server.url + path) as answer:
        return answer.read().decode()


def room_id(page):
    return re.search(r"room=([0-9a-f]+)", page.url).group(1)


def open_room(ctxs, server, query):
    """A room from `query` with its creator (a), the invited player (b) and a spectator (c)."""
    a, b, c = (ctx.new_page() for ctx in ctxs)
    a.goto(server.url + "/play?" + query)
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    c.goto(a.input_value("#watch"))
    for p in (a, b, c):
        p.wait_for_selector('#board[data-ply="0"]')
    return a, b, c


def all_at(pages, ply):
    for p in pages:
        p.wait_for_selector(f'#board[data-ply="{ply}"]')


def quantum_move(page, src, dst):
    page.click(f'[data-square="{src}"]')
    page.click(f'[data-square="{dst}"]')


def offer_row(page, kind, state="attached"):
    return page.wait_for_selector(f'#offer-list .offer[data-kind="{kind}"]', state=state)


def answer(page, kind, verb):
    page.click(f'#offer-list .offer[data-kind="{kind}"] button:has-text("{verb}")')


def clocks(page):
    return {
        side: int(ms)
        for side, ms in page.eval_on_selector_all(
            "#clocks .clock", "els => els.map(e => [e.dataset.side, e.dataset.ms])"
        )
    }


def draw_before(ctxs, server):
    pages = open_room(ctxs, server, "new=othello")
    a, b, c = pages
    a.click('[data-square="f5"]')
    all_at(pages, 1)
    b.click('[data-square="d6"]')
    all_at(pages, 2)
    # Othello has draws: the button is there; a spectator has none.
    assert not c.is_visible("#offer-draw")
    # White offers and withdraws: the offer leaves every tab.
    b.click("#offer-draw")
    offer_row(a, "draw")
    answer(b, "draw", "Withdraw")
    for p in pages:
        offer_row(p, "draw", state="detached")
    assert "white withdraws the draw offer" in c.inner_text("#announce")
    a.click("#offer-draw")
    row = offer_row(b, "draw")
    assert "Accept" in row.inner_text() and "Decline" in row.inner_text(), row.inner_text()
    assert "Withdraw" in offer_row(a, "draw").inner_text()
    assert "Accept" not in offer_row(c, "draw").inner_text()
    assert a.is_hidden("#offer-draw")
    return pages


def draw_after(pages, server):
    a, b, c = pages
    # The offer waits across the restart.
    for p in pages:
        offer_row(p, "draw")
    answer(b, "draw", "Accept")
    for p in pages:
        p.wait_for_selector('#board[data-over="draw by agreement"]')
        offer_row(p, "draw", state="detached")
    assert "Draw by agreement" in a.inner_text("#status"), a.inner_text("#status")
    assert "white accepts the draw" in c.inner_text("#announce")
    assert a.is_hidden("#offer-draw") and a.is_hidden("#offer-takeback")
    id_ = room_id(a)
    listed = [l for l in fetch(server, "/games").splitlines() if f"/record/{id_}" in l]
    assert listed and "draw by agreement" in listed[0], listed
    ggf = fetch(server, f"/record/{id_}")
    assert "RE[0.00]" in ggf and "B[F5]" in ggf.upper(), ggf


def takeback_before(ctxs, server):
    pages = open_room(ctxs, server, "new=quantumshogi&clock=600%2B10")
    a, b, c = pages
    for page, src, dst, ply in ((a, "7g", "7f", 1), (b, "3c", "3d", 2), (a, "2g", "2f", 3)):
        quantum_move(page, src, dst)
        all_at(pages, ply)
    # Gote asks (its reply 3c3d and sente's 2g2f would go); sente declines: nothing changes.
    b.click("#offer-takeback")
    offer_row(a, "takeback")
    offer_row(c, "takeback")
    answer(a, "takeback", "Decline")
    for p in pages:
        offer_row(p, "takeback", state="detached")
    assert "sente declines the takeback" in b.inner_text("#announce")
    assert len(moves(b)) == 3
    # Declined: not asked again before a move.
    b.click("#offer-takeback")
    b.wait_for_function("() => document.getElementById('status').textContent.includes('after the next move')")
    quantum_move(b, "8c", "8d")
    all_at(pages, 4)
    # Sente, to move, asks to take back its last move (2g2f), and gote's reply after it goes too.
    a.click("#offer-takeback")
    offer_row(b, "takeback")
    return pages, moves(a)


def takeback_after(pages, server, listed):
    a, b, c = pages
    for p in pages:
        offer_row(p, "takeback")
    before = clocks(b)
    answer(b, "takeback", "Accept")
    all_at(pages, 2)
    for p in pages:
        assert moves(p) == listed[:2], (moves(p), listed)
        offer_row(p, "takeback", state="detached")
    assert "2 moves taken back" in c.inner_text("#announce"), c.inner_text("#announce")
    # No time given back; sente's clock runs (its move again).
    after = clocks(b)
    assert all(after[s] <= before[s] + 50 for s in after), (before, after)
    b.wait_for_selector('#clocks .clock.running[data-side="sente"]')
    kifu = fetch(server, f"/record/{room_id(a)}")
    body = [l.split()[1] for l in kifu.splitlines() if re.match(r"\d+\. ", l)]
    assert body == ["7g7f", "3c3d"], kifu
    # Play goes on from there.
    quantum_move(a, "2g", "2f")
    all_at(pages, 3)


def rematch_before(ctxs, server):
    pages = open_room(ctxs, server, "new=go&clock=180%2B2")
    a, b, c = pages
    a.click('#board [data-vertex="E5"].pt')
    all_at(pages, 1)
    # Go has no draw by agreement: no button.
    assert a.is_hidden("#offer-draw") and b.is_hidden("#offer-draw")
    b.click("#resign")
    b.click("#resign")
    for p in pages:
        p.wait_for_selector('#board[data-over="white resigns"]')
    b.click("#offer-rematch")
    offer_row(a, "rematch")
    offer_row(c, "rematch")
    return pages, room_id(a)


def rematch_after(pages, server, old):
    a, b, c = pages
    for p in pages:
        offer_row(p, "rematch")
    answer(a, "rematch", "Accept")
    for p in pages:
        p.wait_for_url(re.compile(r"room=(?!%s)[0-9a-f]+" % old))
        p.wait_for_selector('#board[data-ply="0"]')
    new = room_id(a)
    assert new != old and room_id(b) == new and room_id(c) == new, (new, old, b.url, c.url)
    # The colours swapped; the spectator watches; the same clock, fresh.
    for page, you in ((a, "white"), (b, "black"), (c, "spectator")):
        page.wait_for_function(f"() => document.getElementById('you').textContent === '{you}'")
    assert "&seat=" not in c.url
    assert clocks(a) == {"black": 180000, "white": 180000}, clocks(a)
    # The new black (the old white) moves first.
    b.click('#board [data-vertex="E5"].pt')
    all_at(pages, 1)
    listed = fetch(server, "/games")
    assert f"/play?room={new}" in listed and "white wins by resignation" not in listed
    old_row = [l for l in listed.splitlines() if f"/record/{old}" in l]
    assert old_row and "black wins by resignation" in old_row[0], old_row
    # The old room, opened later, links to the rematch instead of moving.
    a.goto(server.url + f"/play?room={old}")
    a.wait_for_selector("#rematch-link:not([hidden])")
    assert new in a.get_attribute("#rematch-link", "href")


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        server = Server()
        ctxs = [browser.new_context() for _ in range(3)]
        try:
            drawn = draw_before(ctxs, server)
            taken, listed = takeback_before(ctxs, server)
            rematched, old = rematch_before(ctxs, server)
            server.kill()
            pages = drawn + taken + rematched
            # Every tab sees its server gone, then comes back to the restarted one by itself.
            for page in pages:
                page.wait_for_selector('#presence[data-online="false"]', state="attached")
            server = Server(server.port)
            for page in pages:
                page.wait_for_selector('#presence[data-online="true"]', state="attached")
            draw_after(drawn, server)
            print("ok draw", flush=True)
            takeback_after(taken, server, listed)
            print("ok takeback", flush=True)
            rematch_after(rematched, server, old)
            print("ok rematch", flush=True)
        finally:
            for c in ctxs:
                c.close()
            browser.close()
            server.kill()


if __name__ == "__main__":
    main()
