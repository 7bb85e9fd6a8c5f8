#!/usr/bin/env python3
"""Writes fuzz/corpus/<target>/ from the spec's and the docs' examples and
the rules tests' positions (run from fuzz/: python3 seeds/make-corpus.py).
libFuzzer adds what it finds to the same directories; commit only seeds."""
import hashlib, json, os, re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VARIANTS = ["chessmerge", "chessplus", "fusion", "standard"]  # Variant::ALL order
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(ROOT, "fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def fens():
    found = {START}
    for path in ["docs/notation.md", "crates/rules/tests/rulings.rs", "crates/rules/tests/api.rs",
                 "crates/rules/tests/robustness.rs"]:
        text = open(os.path.join(ROOT, path)).read()
        found.update(re.findall(r'[1-8KQRBNPkqrbnp()]+(?:/[1-8KQRBNPkqrbnp()]+){7} [wb] [-KQkq]+ [-a-h1-8]+ \d+ \d+', text))
    return sorted(found)

ALL_FENS = fens()
# Malformed Merge-FEN, one per fault the reader names.
BAD_FENS = [
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2147483648",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
    "rnbqkbnr/pppppppp/8/8/8/8/PPP(Np)PPP/R1BQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPP(NPB)PPP/R2QKBNR w KQkq - 0 1",
    "4k3/8/8/8/8/8/8/4(KR)3 w - - 0 1",
]
for fen in ALL_FENS[:80] + BAD_FENS:
    write("merge_fen", fen)

UCI_LINES = [
    (0, START, "b1d2 e7e6 Nd2f3 g8e7 d2d3"),
    (0, START, "g1f3 b1d2 e1g1 e8c8 e7e8q Pe7d8n"),
    (1, START, "e2e4 d7d5 e4d5 e7e5 d5e6"),
    (2, START, "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1"),
    (3, START, "f2f3 e7e5 g2g4 d8h4"),
    (1, "4k3/8/8/8/3(PP)p3/8/8/4K3 b - d3 0 1", "e4d3 e8d7"),
    (0, "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1", "e7e6 Nd2f3 Pd2d3"),
]
for i, fen in enumerate(f for f in ALL_FENS if "(" in f):
    if i < 20:
        UCI_LINES.append((i % 4, fen, "e1g1 Nd2f3 e7e8q a1a8"))
for v, fen, moves in UCI_LINES:
    write("merge_uci", bytes([v]) + f"{fen}\n{moves}".encode())

SAN_LINES = [
    (0, START, "N&d2 e6 N/d2f3 Ne7 d3"),
    (0, START, "e3 N&d2 Nf3 e6 N/d2f3"),
    (1, START, "e4 d5 exd5 e5 dxe6"),
    (2, START, "e4 e5 Nf3 Nc6 Bc4 Nf6 O-O"),
    (3, START, "f3 e5 g4 Qh4#"),
    (0, START, "RNxe4 P/e7e8=Q O-O-O Pe7d8n exd5 b1d2"),
]
for v, fen, moves in SAN_LINES:
    write("san", bytes([v]) + f"{fen}\n{moves}".encode())

PGNS = [
    '[Variant "ChessMerge"]\n[Result "*"]\n\n1. e3 N&d2 {c} 2. (2. Nf3) Nf3 e6 *\n',
    '[Event "?"]\n[Site "?"]\n[Variant "Standard"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n',
    '[Variant "Chessplus"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/3(PP)p3/8/8/4K3 b - d3 0 1"]\n\n1... exd3 2. Kd1 *\n',
    '[Variant "Fusion"]\n[White "a \\"quoted\\" name"]\n\n1.e4 e5 2.Nf3 $1 Nc6 ; a comment\n3.Bc4 1/2-1/2\n',
    '1. b1d2 e7e6 2. Nd2f3 *\n',
]
for p in PGNS:
    write("pgn", p)

# api_body: the selector byte picks the content type (selector % 7, see
# CONTENT_TYPES) and the input type ((selector / 7) % 7).
JSON, FORM, NONE = 0, 1, 2
def api(kind, ct, body):
    write("api_body", bytes([kind * 7 + ct]) + body.encode())
api(0, JSON, json.dumps({"username": "ann", "password": "correct horse"}))
api(0, FORM, "username=ann&password=correct+horse")
api(1, JSON, json.dumps({"variant": "chessplus", "color": "white", "fen": START, "level": 3}))
api(1, FORM, "variant=fusion&color=black&level=8")
api(1, NONE, "")
api(2, JSON, json.dumps({"reason": "later"}))
api(2, FORM, "reason=tooFast")
api(3, JSON, json.dumps({"variant": "chessmerge", "fen": "startpos", "moves": ["b1d2", "e7e6", "Nd2f3"], "level": "3", "movetime": 100}))
api(3, FORM, "variant=chessplus&moves=e2e4+d7d5,e4d5&movetime=50")
api(3, JSON, json.dumps({"fen": "4k3/8/8/8/3(PP)p3/8/8/4K3 b - d3 0 1", "variant": "chessplus", "moves": "e4d3"}))
api(4, NONE, "offeringDraw=true")
api(5, NONE, "nb=10&max=5")
api(6, NONE, "nb=50")

FRAMES = [
    {"t": "sub", "id": "abcd1234", "v": 3},
    {"t": "sub", "id": "abcd1234"},
    {"t": "unsub", "id": "abcd1234"},
    {"t": "move", "id": "abcd1234", "u": "b1d2", "ply": 0, "draw": False, "a": 1},
    {"t": "move", "id": "abcd1234", "u": "Pe7d8n", "a": 7},
    {"t": "ping"}, {"t": "lobby"}, {"t": "unlobby"},
]
for frame in FRAMES:
    write("socket_frame", json.dumps(frame, separators=(",", ":")))
