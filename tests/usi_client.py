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
    # A forced king capture (a gold drop, three plies) is reported as a mate: InfoListener's
    # score is then its mate score, the value cshogi's match runner ends a game on (--mate_win).
    engine.position(sfen="sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1")
    listener = InfoListener()
    bestmove, _ = engine.go(byoyomi=1000, listener=listener.listen())
    assert bestmove == "G*5b", bestmove
    assert listener.score == listener.mate_score, (listener.score, listener.info)
    assert listener.info["score"] == "mate" and listener.info["mate"] == 3, listener.info
    print("mate: bestmove", bestmove, "info", listener.info)
    # cshogi writes `position <sfen argument>`: a caller that forgets the word `sfen` sends a
    # bare SFEN, which is refused; the next `go` must not search the position before it.
    engine.position(sfen="4k4/9/9/4P4/9/9/9/9/K8 b G17Q19Q~ 1")
    lines = []
    bestmove, _ = engine.go(byoyomi=1000, listener=lines.append)
    assert bestmove == "resign", (bestmove, lines)
    errors = [l for l in lines if l.startswith("info string error:")]
    assert len(errors) == 2, lines
    assert "expected 'startpos' or 'sfen'" in errors[0], errors
    assert "the last position was refused" in errors[1], errors
    print("bare sfen: bestmove", bestmove, "errors", errors)
    # Once a position is accepted, `go` searches it again.
    engine.position(sfen="sfen 4k4/9/4P4/9/9/9/9/9/K8 b G17Q19Q~ 1")
    bestmove, _ = engine.go(byoyomi=1000)
    assert bestmove == "G*5b", bestmove
    print("accepted again: bestmove", bestmove)
    engine.quit()
    print("quit: ok")


if __name__ == "__main__":
    main(sys.argv[1])
