"""berserk's challenge, board, bot, account and export calls, once each,
against a ChessMerge server (run by server_bot.rs's berserk test).

python berserk_calls.py BASE HUMAN_TOKEN BOT_TOKEN BOT_NAME HUMAN_NAME

Prints {"results": {call: "ok" | "FAIL ..."}, ...} as JSON; exits 1 when a
call failed.
"""
import json
import sys

import berserk

base, htok, btok, bot_name, human_name = sys.argv[1:6]
h = berserk.Client(berserk.TokenSession(htok), base_url=base)
b = berserk.Client(berserk.TokenSession(btok), base_url=base)
results = {}
seen = {}


def call(name, f):
    try:
        r = f()
        results[name] = "ok"
        return r
    except Exception as e:  # noqa: BLE001 - every failure is reported
        results[name] = f"FAIL {type(e).__name__}: {e}"
        return None


call("account.get", h.account.get)
call("account.upgrade_to_bot", b.account.upgrade_to_bot)
o = call("challenges.create_open", lambda: h.challenges.create_open(variant="standard", rated=False))
if o:
    call("challenges.cancel", lambda: h.challenges.cancel(o["id"]))
c = call("challenges.create", lambda: h.challenges.create(bot_name, rated=False, color="white", variant="standard"))
gid = c["id"] if c else "nogame00"
call("challenges.get_mine", b.challenges.get_mine)
call("bots.accept_challenge", lambda: b.bots.accept_challenge(gid))
full = call("bots.stream_game_state", lambda: next(iter(b.bots.stream_game_state(gid))))
seen["gameFull.variant"] = full and full.get("variant", {}).get("key")
call("board.make_move", lambda: h.board.make_move(gid, "e2e4"))
call("bots.make_move", lambda: b.bots.make_move(gid, "e7e5"))
call("board.post_message", lambda: h.board.post_message(gid, "!help"))
call("bots.post_message", lambda: b.bots.post_message(gid, "hello"))
call("board.get_game_chat", lambda: h.board.get_game_chat(gid))
call("games.get_ongoing", h.games.get_ongoing)
call("board.offer_draw", lambda: h.board.offer_draw(gid))
call("board.resign_game", lambda: h.board.resign_game(gid))
exported = call("games.export", lambda: h.games.export(gid))
seen["export.status"] = exported and exported.get("status")
pgn = call("games.export (pgn)", lambda: h.games.export(gid, as_pgn=True))
seen["pgn.termination"] = pgn and [l for l in pgn.splitlines() if l.startswith("[Termination")]
call("games.export_by_player", lambda: list(h.games.export_by_player(human_name, max=5)))
d = call("challenges.create (merge variant)", lambda: h.challenges.create(bot_name, rated=False, variant="chessmerge"))
if d:
    call("bots.decline_challenge", lambda: b.bots.decline_challenge(d["id"], reason="variant"))
print(json.dumps({"berserk": berserk.__version__ if hasattr(berserk, "__version__") else "?",
                  "seen": seen, "results": results}, default=str))
sys.exit(1 if any(v.startswith("FAIL") for v in results.values()) else 0)
