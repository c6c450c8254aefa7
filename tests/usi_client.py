"""Drives ryoshi with cshogi's USI client (a real third-party USI implementation).

Usage: python3 tests/usi_client.py PATH_TO_RYOSHI
Prints one line per check and exits non-zero on the first failure.
"""
import os
import sys

from cshogi.usi import Engine, InfoListener


def main(path):
    engine = Engine(os.path.abspath(path), connect=False)
    engine.connect()
    assert engine.name.startswith("ryoshi"), engine.name
    print("connect: id name", engine.name)
    engine.setoption("USI_Hash", 16)
    engine.isready()
    print("isready: readyok")
    engine.usinewgame()
    moves = ["7g7f", "3c3d"]
    engine.position(moves=moves)
    listener = InfoListener()
    bestmove, ponder = engine.go(btime=0, wtime=0, byoyomi=300, listener=listener.listen())
    assert bestmove and bestmove != "resign", bestmove
    score = listener.score
    assert isinstance(score, int), score
    assert listener.pv and listener.pv[0] == bestmove, (listener.pv, bestmove)
    print("go byoyomi 300: bestmove", bestmove, "score", score, "pv", " ".join(listener.pv))
    engine.quit()
    print("quit: ok")


if __name__ == "__main__":
    main(sys.argv[1])
