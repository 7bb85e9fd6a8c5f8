#!/usr/bin/env python3
# Ratings of the engine's levels from game results: the maximum likelihood of the
# logistic (Elo) model, a draw counting half a point, with 95% intervals from the
# Fisher information. Each argument is one sample, the first player's W/D/L:
#   4@1450:5/0/3   level 4 against an opponent rated 1450 (Stockfish's UCI_Elo)
#   5-4:3/1/0      level 5 against level 4
# Every level named must be tied to a rated opponent through the samples; a level
# that won or lost every game of its only samples has no finite estimate.
# Usage: scripts/levels/rating_from_games.py 4@1450:5/0/3 5@1700:7/0/1 5-4:3/1/0
# See docs/engine.md, "Levels: ratings against Stockfish".
import math
import sys

K = math.log(10) / 400
samples = []  # (a, b_level or None, b_rating or None, points, games)
for arg in sys.argv[1:]:
    who, wdl = arg.split(':')
    w, d, l = map(int, wdl.split('/'))
    if '@' in who:
        a, r = who.split('@')
        samples.append((int(a), None, float(r), w + d / 2, w + d + l))
    else:
        a, b = who.split('-')
        samples.append((int(a), int(b), None, w + d / 2, w + d + l))
levels = sorted({s[0] for s in samples} | {s[1] for s in samples if s[1] is not None})
idx = {lv: i for i, lv in enumerate(levels)}
x = [1500.0] * len(levels)


def expected(a, b, r):
    opp = x[idx[b]] if b is not None else r
    return 1 / (1 + 10 ** ((opp - x[idx[a]]) / 400))


def grad_and_info():
    n = len(levels)
    g = [0.0] * n
    h = [[0.0] * n for _ in range(n)]
    for a, b, r, pts, games in samples:
        p = expected(a, b, r)
        i = idx[a]
        g[i] += K * (pts - games * p)
        f = games * K * K * p * (1 - p)
        h[i][i] += f
        if b is not None:
            j = idx[b]
            g[j] -= K * (pts - games * p)
            h[j][j] += f
            h[i][j] -= f
            h[j][i] -= f
    return g, h


def solve(h, g):
    n = len(g)
    m = [row[:] + [g[i]] for i, row in enumerate(h)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


for _ in range(100):
    g, h = grad_and_info()
    step = solve(h, g)
    step = [max(-200.0, min(200.0, s)) for s in step]
    x = [a + s for a, s in zip(x, step)]
    if max(abs(s) for s in step) < 0.01:
        break
g, h = grad_and_info()
n = len(levels)
cov = [solve(h, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
games = sum(s[4] for s in samples)
print(f"{games} games")
for lv in levels:
    i = idx[lv]
    print(f"level {lv}: {x[i]:.0f} +/- {1.96 * math.sqrt(cov[i][i]):.0f}")
