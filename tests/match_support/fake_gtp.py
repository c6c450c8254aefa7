#!/usr/bin/env python3
"""A fake GTP engine for match runner tests. It plays Nim over GTP (take 1-3 from a pile; who
takes the last wins; moves are numbers, `play <colour> <n>` and `genmove <colour>`) and
misbehaves on cue.

usage: fake_gtp.py MODE [N] [STARTS_LOG]
  good            perfect play
  crash N         exits (status 3) at its N-th `genmove`
  hang N          never answers its N-th `genmove`
  illegal N       answers its N-th and later `genmove`s with `7`
  resign N        answers its N-th `genmove` with `resign`
  error N         answers its N-th `genmove` with `? cannot generate`
  refuse N        answers `? illegal move` to its N-th and later `play`s
  stale           perfect play, but each answer to `genmove` follows a stray answer `=999 9`
                  and a line of noise, which the runner must skip
  mute            never answers `list_commands`
  nocommands      lists only the required commands (no time_settings, time_left, final_score,
                  kgs-genmove_cleanup, which otherwise plays as genmove does)
STARTS_LOG: a file that gets one line per process start (to count restarts).
Every line received is echoed to stderr as `<< line`.
"""
import sys
import time

mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if len(sys.argv) > 3:
    with open(sys.argv[3], "a") as f:
        f.write("start\n")

REQUIRED = ["protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "komi", "play", "genmove"]
OPTIONAL = ["time_settings", "time_left", "final_score", "kgs-genmove_cleanup"]


def say(text):
    sys.stdout.write(text + "\n\n")
    sys.stdout.flush()


pile = 21
genmoves = 0
plays = 0
for raw in sys.stdin:
    sys.stderr.write("<< " + raw)
    sys.stderr.flush()
    words = raw.split()
    if not words:
        continue
    ident = ""
    if words[0].isdigit():
        ident, words = words[0], words[1:]
    if not words:
        continue
    cmd, args = words[0], words[1:]
    ok = "=" + ident + " "
    err = "?" + ident + " "
    if cmd == "list_commands":
        if mode == "mute":
            continue
        listed = REQUIRED if mode == "nocommands" else REQUIRED + OPTIONAL
        say(ok + "\n".join(listed))
    elif cmd == "clear_board":
        pile = 21
        say(ok)
    elif cmd == "play":
        plays += 1
        if mode == "refuse" and plays >= n:
            say(err + "illegal move")
            continue
        pile -= int(args[1])
        say(ok)
    elif cmd in ("genmove", "kgs-genmove_cleanup"):
        genmoves += 1
        if mode == "crash" and genmoves == n:
            sys.exit(3)
        if mode == "hang" and genmoves == n:
            while True:
                time.sleep(1)
        if mode == "illegal" and genmoves >= n:
            say(ok + "7")
            continue
        if mode == "resign" and genmoves == n:
            say(ok + "resign")
            continue
        if mode == "error" and genmoves == n:
            say(err + "cannot generate")
            continue
        take = pile % 4 or 1
        pile -= take
        if mode == "stale":
            say("=999 9")
            sys.stdout.write("some noise\n")
        say(ok + str(take))
    elif cmd == "quit":
        say(ok)
        break
    elif cmd in REQUIRED + OPTIONAL:
        say(ok)
    else:
        say(err + "unknown command")
