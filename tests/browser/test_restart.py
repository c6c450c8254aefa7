"""`kill -9` of `ryoshi serve` mid-game, in a real (Debian) chromium through playwright: after a
restart on the same database and port, an engine page reloads into its game and plays on, and
a room's two players come back through the same links, see the game where it was, and play on.

Usage: test_restart.py <ryoshi binary> <folder for the database>
Run by tests/serve_restart_browser.rs. This script starts and kills the server itself.
"""

import os
import re
import signal
import subprocess
import sys

from playwright.sync_api import sync_playwright

BIN, FOLDER = sys.argv[1], sys.argv[2]
DB = os.path.join(FOLDER, "games.db")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


class Server:
    """`ryoshi serve` on the test's database; port 0 picks a free port, kept across restarts."""

    def __init__(self, port=0):
        env = dict(os.environ, HOME=FOLDER, XDG_DATA_HOME=FOLDER)
        self.proc = subprocess.Popen(
            [BIN, "serve", "--port", str(port), "--max-sessions", "8", "--db", DB],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        found = re.match(r"ryoshi serve: (http://[^/\s]+)", line)
        assert found, f"no URL line: {line!r} {self.proc.stderr.read()}"
        self.url = found.group(1)
        self.port = int(self.url.rsplit(":", 1)[1])

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def moves(page):
    return page.eval_on_selector_all("#movelist .mv", "els => els.map(e => e.textContent)")


def engine_page(browser, server):
    """Two Othello moves against the engine, the server killed: the page says so; reloaded on
    the restarted server, it shows the same moves, and the engine answers the next one."""
    page = browser.new_page()
    page.goto(server.url + "/othello")
    page.wait_for_selector('#board[data-ply="0"] .osq.legal')
    page.click('[data-square="f5"]')
    page.wait_for_selector('#board[data-ply="2"] .osq.legal')
    page.wait_for_function("() => location.search.startsWith('?game=')")
    link, before = page.url, moves(page)
    assert len(before) == 2, before
    return page, link, before


def engine_page_after(page, server, link, before):
    assert link.startswith(server.url), (link, server.url)
    page.reload()
    page.wait_for_selector('#board[data-ply="2"] .osq.legal')
    assert moves(page) == before, (moves(page), before)
    legal = page.eval_on_selector_all("#board .osq.legal", "els => els.map(e => e.dataset.square)")
    page.click(f'[data-square="{legal[0]}"]')
    page.wait_for_selector('#board[data-ply="4"]')
    after = moves(page)
    assert after[:2] == before and after[2] == legal[0], (after, before, legal[0])


def room(browser, server):
    """Sente and gote each move in a quantum room; the pages' links are all they keep."""
    ctxs = [browser.new_context() for _ in range(2)]
    a, b = (c.new_page() for c in ctxs)
    a.goto(server.url + "/play?new=quantumshogi")
    a.wait_for_function("() => document.getElementById('invite').value.includes('seat=')")
    b.goto(a.input_value("#invite"))
    b.wait_for_selector('#board[data-ply="0"] .qpiece')
    for page, src, dst, ply in ((a, "7g", "7f", 1), (b, "3c", "3d", 2)):
        page.click(f'[data-square="{src}"]')
        page.click(f'[data-square="{dst}"]')
        for p in (a, b):
            p.wait_for_selector(f'#board[data-ply="{ply}"]')
    return ctxs, a, b, a.url, b.url


def room_after(a, b, link_a, link_b):
    for page, link, you in ((a, link_a, "sente"), (b, link_b, "gote")):
        page.goto(link)
        page.wait_for_selector('#board[data-ply="2"] .qpiece')
        assert page.inner_text("#you") == you, page.inner_text("#you")
    # The game goes on where it was: sente's next move reaches gote.
    a.click('[data-square="2g"]')
    a.click('[data-square="2f"]')
    for p in (a, b):
        p.wait_for_selector('#board[data-ply="3"]')


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        server = Server()
        page, link, before = engine_page(browser, server)
        ctxs, a, b, link_a, link_b = room(browser, server)
        server.kill()
        # The page notices at once that its server is gone.
        page.wait_for_function("() => document.body.classList.contains('offline')")
        server = Server(server.port)
        try:
            engine_page_after(page, server, link, before)
            print("ok engine page", flush=True)
            room_after(a, b, link_a, link_b)
            print("ok room", flush=True)
        finally:
            for c in ctxs:
                c.close()
            browser.close()
            server.kill()


if __name__ == "__main__":
    main()
