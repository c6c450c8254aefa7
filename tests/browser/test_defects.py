"""The page defects players hit (issue 43), each pinned in a real (Debian) chromium.

Usage: test_defects.py <server url> <screenshot dir> <ryoshi binary> [test name ...]
Run by tests/serve_browser.rs, which starts the server; with names, only those tests run. The
answers the pages should show are computed by running the same binary on stdin/stdout
(test_pages.py's helpers).
"""

import sys

from playwright.sync_api import sync_playwright

import test_pages as T
from test_pages import URL, watch

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
    page.click('[data-square="3c"]')
    page.click('[data-square="3d"]')
    page.wait_for_selector('#board[data-ply="3"][data-side="w"]', timeout=10000)
    page.click("#takeback")
    page.wait_for_selector('#board[data-ply="1"][data-side="w"]', timeout=10000)
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Your move')")
    page.close()


TESTS = {
    "undo when second": lambda browser: with_context(browser, undo_when_second),
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
