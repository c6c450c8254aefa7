"""Drives `ryoshi analysis` with KaTrain's own engine class (katrain.core.engine.KataGoEngine),
headless, started through KaTrain's `altcommand` setting as a KaTrain user would configure it.

Usage: python3 tests/katrain_client.py PATH_TO_RYOSHI
Prints one line per check and exits non-zero on the first failure. Kivy reads no arguments
and writes no log (KIVY_NO_ARGS, KIVY_NO_CONSOLELOG): only the engine classes are used, no
window is opened.
"""
import json
import os
import sys
import time

os.environ["KIVY_NO_ARGS"] = "1"
os.environ["KIVY_NO_CONSOLELOG"] = "1"

from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game_node import GameNode  # noqa: E402
from pysgf import Move  # noqa: E402


class HeadlessKaTrain:
    """What KataGoEngine asks of the app: a log, and a call for popups (none may come)."""

    def __init__(self):
        self.logs = []

    def log(self, message, level):
        self.logs.append((level, str(message)))

    def __call__(self, *args):
        raise AssertionError(f"KaTrain was asked for a popup: {args}")


def wait(predicate, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def main(path):
    app = HeadlessKaTrain()
    config = {
        # KaTrain runs the command through a shell and stops it by signalling that shell:
        # `exec` makes ryoshi the process it signals.
        "altcommand": f"exec '{os.path.abspath(path)}' analysis --seed 1",
        "max_visits": 400,
        "fast_visits": 25,
        "max_time": 8.0,
        "wide_root_noise": 0.04,
        "_enable_ownership": True,
        "allow_recovery": False,
    }
    engine = KataGoEngine(app, config)
    assert engine.check_alive(), app.logs
    print("start: altcommand", config["altcommand"])

    # KaTrain's defaults: Japanese rules, komi 6.5; a 9x9 game of two moves.
    root = GameNode(properties={"SZ": 9, "RU": "japanese", "KM": 6.5})
    node = root.play(Move.from_gtp("E5", player="B")).play(Move.from_gtp("C3", player="W"))
    sent = []
    original = engine.send_query

    def spy(query, *args, **kwargs):
        sent.append(json.loads(json.dumps(query)))
        return original(query, *args, **kwargs)

    engine.send_query = spy
    node.analyze(engine)
    assert wait(lambda: node.analysis_complete), app.logs
    query = sent[0]
    print("query:", json.dumps(query, sort_keys=True))
    # What game_node.py and the board read from the answer.
    moves = node.candidate_moves
    assert moves and moves[0]["order"] == 0, moves
    for m in moves:
        for key in ("move", "visits", "winrate", "scoreLead", "prior", "pv", "pointsLost"):
            assert key in m, (key, m)
    assert node.root_visits >= 400, node.root_visits
    assert 0.0 <= node.winrate <= 1.0, node.winrate
    assert node.score is not None
    assert len(node.ownership) == 81, len(node.ownership)
    ranking = node.policy_ranking
    assert len(ranking) == 82 and ranking[0][0] > 0, ranking[:3]
    print(
        "answer:", "root visits", node.root_visits, "winrate", round(node.winrate, 4),
        "score", round(node.score, 2), "best", moves[0]["move"], "pv", " ".join(moves[0]["pv"]),
    )
    print("format:", node.format_score(), node.format_winrate())
    # KaTrain's "find alternatives": the moves already analysed are avoided, so new ones come.
    before = {m["move"] for m in moves}
    node.analyze(engine, find_alternatives=True)
    assert wait(lambda: len(sent) >= 2 and engine.is_idle()), app.logs
    assert sent[-1]["avoidMoves"][0]["untilDepth"] == 1, sent[-1]
    after = {m["move"] for m in node.candidate_moves}
    assert after - before, (before, after)
    print("alternatives: new moves", " ".join(sorted(after - before)))
    # Pondering, then stopped: KaTrain's terminate, and the engine goes on.
    node.analyze(engine, ponder=True)
    time.sleep(1.0)
    engine.stop_pondering()
    assert wait(engine.is_idle), app.logs
    errors = [m for level, m in app.logs if "rror" in m or "xception" in m]
    assert not errors, errors
    engine.shutdown(finish=True)
    print("shutdown: ok, log lines", len(app.logs))


if __name__ == "__main__":
    main(sys.argv[1])
