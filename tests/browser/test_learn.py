"""The /learn page in a real (Debian) chromium: every lesson completed by clicks as a newcomer
would, one other action in each explained and taken back, the candidate sets checked after each
lesson's action, and the progress kept across a reload. Prints the
number of steps (clicks) a new player needs through all the lessons.

Usage: test_learn.py <server url> <screenshot dir (unused)> <ryoshi binary>
Run by tests/serve_mends_browser.rs, which starts the server.
"""

import sys

from playwright.sync_api import sync_playwright

import test_pages as T
from test_pages import URL, protocol, watch

# Each lesson: its position as the page sets it up, one other legal action, and the action the
# lesson teaches (in protocol form; the clicks are derived from it).
LESSONS = [
    ("startpos", "3g3f", "7g7f"),
    ("startpos moves 7g7f 3c3d", "2g2f", "8h5e"),
    ("sfen 4k4/9/9/9/9/9/9/1Q[RB]5Q[RB]1/4K4 b 17Q19q 1", "5i4h", "8h7g"),
    ("sfen 4q4/9/9/9/4q4/4P4/9/9/4K4 b 18Q18q 1", "5i4h", "5f5e"),
    ("sfen 4k4/9/9/9/9/9/9/9/4K4 b 19Q19q 1", "5i4h", "Q*1a"),
    ("sfen 4k4/9/9/4Q4/9/9/9/9/4K4 b 18Q19q 1", "5i4h", "5d5c+"),
    ("sfen k8/4Q[PL]4/9/9/9/9/9/9/4K4 b 18Q19q 1", "5i4h", "5b5a+"),
    ("sfen 4k4/9/9/9/9/9/4P4/9/4K4 b P17Q19q 1", "5i4h", "P*4e"),
    ("sfen 4k4/4R4/9/9/9/9/9/9/4K4 b 18Q19q 1", "5i4h", "5b5a"),
]


def click(page, move, steps):
    """Plays `move` by clicks as a player would; returns the clicks added to `steps`."""
    if "*" in move:
        token, to = move.split("*")
        page.click(f'#hand-bottom .hand-piece[data-token="{token}"]')
        page.click(f'[data-square="{to}"]')
        return steps + 2
    page.click(f'[data-square="{move[0:2]}"]')
    page.click(f'[data-square="{move[2:4]}"]')
    steps += 2
    # "Promote?" is asked only when both are legal.
    page.wait_for_timeout(150)
    if page.is_visible("#promote"):
        page.click("#promote-yes" if move.endswith("+") else "#promote-no")
        steps += 1
    return steps


def shown_cands(page):
    return page.evaluate("() => Object.fromEntries([...document.querySelectorAll('#board [data-square]')].filter(s => s.querySelector('.qpiece')).map(s => [s.dataset.square, s.querySelector('.qpiece').dataset.cands]))")


def learn(ctx):
    page = watch(ctx.new_page())
    page.goto(URL + "/learn")
    page.wait_for_selector('#board[data-lesson="0"][data-state="play"] .qpiece')
    steps = 0
    for i, (position, other, goal) in enumerate(LESSONS):
        page.wait_for_selector(f'#board[data-lesson="{i}"][data-state="play"] .qpiece')
        ply = page.get_attribute("#board", "data-ply")
        # Both actions are legal in the lesson's position, as the binary says.
        legal = protocol([f"position {position}", "moves"])[-1].split()
        assert goal in legal and other in legal, (i, goal, other)
        # Another action: one sentence saying why it is not the lesson's, and taken back.
        click(page, other, 0)
        page.wait_for_function("() => document.getElementById('status').classList.contains('warn')")
        page.wait_for_selector(f'#board[data-ply="{ply}"][data-state="play"]')
        said = page.inner_text("#status")
        assert said.startswith("☗") and ": " in said and said.count(".") >= 1, said
        # The lesson's action: done, and the candidate sets changed as the lesson says.
        steps = click(page, goal, steps)
        page.wait_for_selector(f'#board[data-lesson="{i}"][data-state="done"]')
        assert page.inner_text("#status").startswith("Done: ☗"), page.inner_text("#status")
        assert page.inner_text("#changed").strip(), "what the action narrowed is written out"
        shown = shown_cands(page)
        to = goal[-3:-1] if goal.endswith("+") else goal[-2:]
        assert to in shown and to in page.evaluate("() => document.getElementById('changed').textContent"), (shown, to)
        if i == 1:
            assert shown["5e"] == "B", shown
        if i == 2:
            assert sorted([shown["7g"], shown["2h"]]) == ["B", "R"], shown
        if i == 3:
            assert shown["5a"] == "K", shown
        if i == 4:
            assert not set("PLN") & set(shown["1a"]), shown
        if i == 5:
            assert not set("GK") & set(shown["5c"]), shown
        if i + 1 < len(LESSONS):
            page.click("#next")
            steps += 1
    assert page.inner_text("#progress") == f"Done {len(LESSONS)} of {len(LESSONS)} lessons in this browser.", page.inner_text("#progress")
    page.reload()
    page.wait_for_selector("#board .qpiece")
    assert page.inner_text("#progress").startswith(f"Done {len(LESSONS)} of"), page.inner_text("#progress")
    assert all(o.endswith("✓") for o in page.eval_on_selector_all("#pick option", "els => els.map(e => e.textContent)"))
    page.close()
    print(f"learn: {len(LESSONS)} lessons in {steps} steps (clicks)", flush=True)


def links(ctx):
    """The home page speaks to players and links the lessons; the protocol is in its footer;
    the quantum page links the lessons and explains a move's narrowing on request."""
    page = watch(ctx.new_page())
    page.goto(URL + "/")
    assert page.get_attribute('main a[href="/learn"]', "href") == "/learn"
    assert "protocol" not in page.inner_text("main").lower(), page.inner_text("main")
    assert page.get_attribute('footer a[href="/protocol"]', "href") == "/protocol"
    assert "# The ryoshi protocol" in page.context.request.get(URL + "/protocol").text()
    page.goto(URL + "/quantum")
    page.wait_for_selector('#board[data-ply="0"] .qpiece')
    assert page.get_attribute("#learn-link", "href") == "/learn"
    assert page.locator("#rules").get_attribute("open") is not None
    page.click('[data-square="7g"]')
    page.click('[data-square="7f"]')
    page.wait_for_selector('#board[data-ply="2"]', timeout=20000)
    page.click("#explain")
    text = page.inner_text("#explained")
    assert text.startswith("☖") or text.startswith("☗"), text
    assert "K1 R1 B1 G2 S2 N2 L2 P9" in text or "no other piece narrowed" in text, text
    page.close()


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=T.FLAGS)
        for name, test in (("learn", learn), ("links", links)):
            ctx = browser.new_context(viewport={"width": 1200, "height": 900})
            test(ctx)
            ctx.close()
            print("ok", name, flush=True)
        browser.close()
    assert not T.console_errors, T.console_errors
    print("ok all", flush=True)


if __name__ == "__main__":
    main()
