#!/usr/bin/env python3
# Stockfish 15.1 limited: self-play from the start, movetime MS; per move the deepest
# completed depth against the pick depth 1 + int(level) (Skill in its search.cpp),
# where it fixes its deliberately imperfect move.
# Usage: scripts/levels/stockfish_pick_depth.py ELO MOVETIME_MS PLIES
# See docs/engine.md, "Levels: ratings against Stockfish".
import subprocess, sys
elo, ms, plies = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
e = (elo - 1350) / 1500
level = min(max(((37.2473 * e - 40.8525) * e + 22.2943) * e - 0.311438, 0.0), 19.0)
pick = 1 + int(level)
p = subprocess.Popen(["nice", "-n", "19", "/usr/games/stockfish"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(s): p.stdin.write(s + "\n"); p.stdin.flush()
def until(tok):
    lines = []
    while True:
        l = p.stdout.readline()
        lines.append(l)
        if l.startswith(tok): return lines
send("uci"); until("uciok")
send("setoption name UCI_LimitStrength value true"); send(f"setoption name UCI_Elo value {elo}")
send("isready"); until("readyok")
moves, depths = [], []
for _ in range(plies):
    send("position startpos moves " + " ".join(moves)); send(f"go movetime {ms}")
    out = until("bestmove")
    d = [int(l.split()[2]) for l in out if l.startswith("info depth") and " multipv " in l and " upperbound" not in l and " lowerbound" not in l]
    depths.append(max(d) if d else 0)
    bm = out[-1].split()[1]
    if bm == "(none)": break
    moves.append(bm)
send("quit")
short = sum(1 for d in depths if d < pick)
print(f"elo {elo} level {level:.2f} pick depth {pick} movetime {ms}: {len(depths)} moves, depth reached min {min(depths)} median {sorted(depths)[len(depths)//2]}, below pick depth: {short}")
