#!/usr/bin/env python3
"""A fake USI engine for match runner tests. It plays Nim (take 1-3 from a pile; who takes the last
wins; `0` passes) and misbehaves on cue.

usage: fake_engine.py MODE [N] [STARTS_LOG]
  good            perfect play
  null            always passes (`0`)
  crash N         exits (status 3) at its N-th `go`
  hang N          never answers its N-th `go`
  close N         closes stdout at its N-th `go` and keeps running
  illegal N       answers its N-th and later `go`s with `7`
  garbage N       answers its N-th `go` with noise and a non-UTF-8 move
  slow N          sleeps N ms before each answer
  resign          resigns at once
  leave N         exits (status 0) right after its N-th `bestmove`
  double          perfect play, but follows every `bestmove` with a stray `bestmove 9`
  mute            never answers `usi`
  flood N         perfect play; from its first `go` on a thread writes `info` lines without end,
                  and before each `bestmove` one `info` line of N MiB
  score N         perfect play, every move with `info ... score cp N` (others say cp 0)
  child           perfect play; starts `sleep 600` first and writes its pid to STARTS_LOG.child
  deaf            says `usiok` and `readyok` at once and never reads its input
  options N       declares N options at `usi`, then plays perfectly
  escape          resigns after an `info string` with terminal escapes
  weak N          perfect play, but takes 1 from a pile that is a multiple of N (a blunder that
                  depends on the position only, so each game's result on its opening only)
STARTS_LOG: a file that gets one line per process start (to count restarts).
Every line received is echoed to stderr as `<< line`, after a first line `cwd <folder>`.
"""
import os
import subprocess
import sys
import threading
import time

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if len(sys.argv) > 3:
    with open(sys.argv[3], "a") as f:
        f.write("start\n")

out = sys.stdout.buffer
lock = threading.Lock()
flooding = False

if mode == "child" and len(sys.argv) > 3:
    sleeper = subprocess.Popen(["sleep", "600"])
    with open(sys.argv[3] + ".child", "a") as f:
        f.write("%d\n" % sleeper.pid)


def flood():
    line = b"info depth 1 score cp 0 nodes 1 pv " + b"1 " * 400 + b"\n"
    while True:
        with lock:
            out.write(line)
            out.flush()
sys.stderr.write("cwd %s\n" % os.getcwd())
sys.stderr.flush()

if mode == "deaf":
    out.write(b"id name deaf\nusiok\nreadyok\n")
    out.flush()
    time.sleep(600)
    sys.exit(0)


def say(text):
    with lock:
        out.write(text.encode() + b"\n")
        out.flush()


pile = 21
gos = 0
for raw in sys.stdin:
    sys.stderr.write("<< " + raw)
    sys.stderr.flush()
    words = raw.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "usi":
        if mode == "mute":
            continue
        say("id name fake-" + mode)
        say("option name USI_Variant type combo default nim var nim")
        if mode == "options":
            for i in range(n):
                say("option name Opt%d type check default false" % i)
        say("usiok")
    elif cmd == "isready":
        say("readyok")
    elif cmd == "position":
        rest = words[1:]
        if rest[0] == "startpos":
            pile, rest = 21, rest[1:]
        else:
            pile, rest = int(rest[1]), rest[3:]
        if rest and rest[0] == "moves":
            pile -= sum(int(m) for m in rest[1:])
    elif cmd == "go":
        gos += 1
        if mode == "crash" and gos == n:
            sys.exit(3)
        if mode == "hang" and gos == n:
            while True:
                time.sleep(1)
        if mode == "close" and gos == n:
            os.close(1)
            while True:
                time.sleep(1)
        if mode == "slow":
            time.sleep(n / 1000)
        if mode == "illegal" and gos >= n:
            say("bestmove 7")
            continue
        if mode == "garbage" and gos == n:
            out.write(b"\xff\xfe garbage \x00 line\n")
            out.write(b"bestmove \xc3\x28\xa0\n")
            out.flush()
            continue
        if mode == "escape":
            say("info string \x1b[2J\x1b]0;owned\x07")
            say("bestmove resign")
            continue
        if mode == "resign":
            say("bestmove resign")
            continue
        if mode == "flood":
            if not flooding:
                flooding = True
                threading.Thread(target=flood, daemon=True).start()
            with lock:
                out.write(b"info string " + b"x" * (n << 20) + b"\n")
                out.flush()
        if mode == "null":
            take = 0
        elif mode == "weak" and pile % n == 0:
            take = 1
        else:
            take = pile % 4 or 1
        score = n if mode == "score" else 0
        say("info depth 1 score cp %d nodes 1 pv %d" % (score, take))
        say("bestmove %d" % take)
        if mode == "double":
            say("bestmove 9")
        if mode == "leave" and gos == n:
            sys.exit(0)
    elif cmd == "quit":
        break
