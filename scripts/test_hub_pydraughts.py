#!/usr/bin/env python3
"""pydraughts, a program nobody here wrote, drives `dama bot --protocol hub`
(docs/hub.md) with its own Hub client (`draughts.engine.HubEngine`) and
plays whole Turkish draughts games through it: dama against a random
player that moves by pydraughts' rules, and dama against itself, under
every kind of `level` (depth, move time, nodes, clock with increment).
It also checks `ping` during a search and `stop` of an infinite one.

    python scripts/test_hub_pydraughts.py --dama target/debug/dama \
        [--bot SPEC] [--games N] [--log FILE]

Every position pydraughts sent and dama's reply go to --log (JSON lines:
`pos`, `moves`, `reply`), which crates/cli/tests/cli/hub.rs checks against
dama's rules. Exits with status 1 on the first protocol error or on a
reply pydraughts cannot play.

pydraughts' Turkish rules differ from dama's (docs/hub.md lists them);
what this script does about each:
  * its kings' quiet moves slide through occupied squares: the random
    player never plays such a move (dama would refuse it);
  * it plays on after one piece each, where dama's rules draw at once:
    the game stops there, a draw;
  * it has no 50-ply rule: the game stops after 50 plies without a
    capture, a draw, as dama's rules say;
  * every game stops after --max-plies plies, to bound the test's time.
"""
import argparse
import json
import random
import signal
import sys
import threading
import time

import draughts
from draughts.engine import HubEngine

FILES = "abcdefgh"


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def pieces(board):
    """Square number (a1 = 1) -> 'w', 'b', 'W', 'B' from the board's FEN."""
    out = {}
    fen = board.fen  # e.g. W:Wa3,Kb4:Bc6
    for part in fen.split(":")[1:]:
        color, squares = part[0], part[1:]
        for sq in filter(None, squares.split(",")):
            king = sq.startswith("K")
            sq = sq.lstrip("K")
            num = FILES.index(sq[0]) + (int(sq[1:]) - 1) * 8 + 1
            out[num] = color.upper() if king else color.lower()
    return out


def between(a, b):
    """Squares strictly between a and b on one rank or file (a1 = 1)."""
    (fa, ra), (fb, rb) = ((a - 1) % 8, (a - 1) // 8), ((b - 1) % 8, (b - 1) // 8)
    if fa != fb and ra != rb:
        return []
    df = (fb > fa) - (fb < fa)
    dr = (rb > ra) - (rb < ra)
    out, f, r = [], fa + df, ra + dr
    while (f, r) != (fb, rb):
        out.append(r * 8 + f + 1)
        f, r = f + df, r + dr
    return out


def dama_legal(board, move):
    """Whether a pydraughts move is also legal in dama (no slide through pieces)."""
    if move.captures:
        return True
    on = pieces(board)
    a, b = move.board_move[0]
    return not any(s in on for s in between(a, b))


def plies_since_capture(board):
    n = 0
    for m in reversed(board.move_stack):
        if m.captures:
            break
        n += 1
    return n


def game_over(board, max_plies):
    """Why the game ends here in dama's rules (or the test's ply cap), if it does."""
    if not board.legal_moves():
        return "no legal move"
    on = pieces(board)
    if sum(1 for p in on.values() if p in "wW") == 1 and sum(1 for p in on.values() if p in "bB") == 1:
        return "one piece each (a draw in dama's rules)"
    if plies_since_capture(board) >= 50:
        return "50 plies without a capture (a draw in dama's rules)"
    if len(board.move_stack) >= max_plies:
        return "the test's ply cap"
    return None


LEVELS = [
    dict(depth=3),
    dict(movetime=0.02),
    dict(nodes=3000),
    dict(my_time=1.0, inc=0.02),
]


class Logged:
    """A HubEngine whose searches are checked and logged."""

    def __init__(self, engine, log):
        self.engine, self.log, self.moves = engine, log, 0

    def move(self, board, level):
        hub_moves = " ".join(m.hub_move for m in board.move_stack)
        fen = board._game.initial_hub_fen
        best, ponder = self.engine.go(fen, moves=hub_moves or None, **level)
        self.log.write(json.dumps({"pos": fen, "moves": hub_moves, "reply": best}) + "\n")
        try:
            move = draughts.Move(board, hub_move=best)
        except Exception as e:  # pydraughts raises KeyError for an unknown move
            fail(f"pydraughts cannot play dama's reply `{best}` after `{hub_moves}` from {fen}: {e!r}")
        if "depth" not in self.engine.info:
            fail(f"no info line before `done move={best}` (info: {self.engine.info})")
        self.moves += 1
        return move


def play(dama, board, sides, rng, level, max_plies):
    """Plays one game; `sides` maps draughts' WHITE/BLACK to 'dama' or 'random'."""
    while True:
        why = game_over(board, max_plies)
        if why:
            return why
        if sides[board.turn] == "dama":
            move = dama.move(board, level)
        else:
            choices = [m for m in board.legal_moves() if dama_legal(board, m)]
            if not choices:
                return "only moves dama's rules forbid (a king sliding through pieces)"
            move = rng.choice(choices)
        board.push(move)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dama", required=True)
    ap.add_argument("--bot", default="alphabeta:depth=3")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--max-plies", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", default="/dev/null")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # pydraughts waits for `done` for ever: a reply that never comes fails
    # the test instead of hanging it.
    signal.signal(signal.SIGALRM, lambda *_: fail("no answer from dama within 600 s (see --log)"))
    signal.alarm(600)

    engine = HubEngine([args.dama, "bot", "--protocol", "hub", "--bot", args.bot, "--tablebase="])
    if engine.id.get("name") != "dama":
        fail(f"hub: id name is {engine.id!r}")
    for want in ("turkish", "armenian", "croda", "dameo"):
        if want not in engine.variants:
            fail(f"hub: variant {want} not announced ({engine.variants})")
    engine.configure({"variant": "turkish"})
    engine.init()
    engine.ping()
    log = open(args.log, "w")
    dama = Logged(engine, log)

    results = {}
    t0 = time.time()
    for g in range(args.games):
        board = draughts.Board(variant="turkish")
        level = LEVELS[g % len(LEVELS)]
        if g % 3 == 2:
            sides, kind = {draughts.WHITE: "dama", draughts.BLACK: "dama"}, "dama vs dama"
        elif g % 2 == 0:
            sides, kind = {draughts.WHITE: "dama", draughts.BLACK: "random"}, "dama (White) vs random"
        else:
            sides, kind = {draughts.WHITE: "random", draughts.BLACK: "dama"}, "random vs dama (Black)"
        engine.send("new-game")
        why = play(dama, board, sides, rng, level, args.max_plies)
        results.setdefault(kind, []).append(why)
        print(f"game {g + 1}: {kind}, level {level}: {len(board.move_stack)} plies, ended by {why}")

    # ping during a search, then stop an infinite one: `done` must come.
    board = draughts.Board(variant="turkish")
    engine.send(f"pos pos={board._game.initial_hub_fen}")
    engine.send("level infinite")
    found = {}

    def search():
        found["move"] = engine.go(board._game.initial_hub_fen)

    # HubEngine.go sends its own pos and go; without a level it keeps ours.
    th = threading.Thread(target=search)
    started = time.time()
    th.start()
    time.sleep(0.5)
    engine.stop()
    th.join(timeout=30)
    if th.is_alive() or "move" not in found:
        fail("no `done` within 30 s of `stop` in an infinite search")
    print(f"stop: an infinite search answered {found['move'][0]} after {time.time() - started:.2f} s")
    draughts.Move(board, hub_move=found["move"][0])

    engine.quit()
    engine.p.wait(timeout=30)
    engine.p.stdin.close()
    engine.p.stdout.close()
    log.close()
    n = sum(len(v) for v in results.values())
    print(f"hub: {n} games, {dama.moves} dama moves, no protocol error, in {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
