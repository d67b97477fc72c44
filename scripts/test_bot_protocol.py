#!/usr/bin/env python3
"""Drives `dama bot` through its line protocol (docs/protocol.md) and checks
every answer, including the answers to bad input.

    python scripts/test_bot_protocol.py --dama target/debug/dama [--bot SPEC]

Needs nothing but the standard library. Exits with status 1 on the first
failed check. Run by the test suite (crates/cli/tests/cli/bot.rs).
"""
import argparse
import subprocess
import sys
import time

TERMINAL = ("ok", "bestmove", "readyok", "bye", "error")


class Bot:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line, timeout=60):
        """Sends one command; returns the answer's lines, the terminal one last."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        lines = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            out = self.p.stdout.readline()
            if out == "":
                fail(f"`{line}`: the bot exited (stderr: {self.p.stderr.read().strip()})")
            out = out.rstrip("\n")
            lines.append(out)
            if out.split(" ", 1)[0] in TERMINAL:
                return lines
        fail(f"`{line}`: no terminal line within {timeout} s, got {lines}")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def field(line, key):
    """The word after `key` in an info line."""
    words = line.split()
    return words[words.index(key) + 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dama", required=True)
    ap.add_argument("--bot", default="mcts:sims=30")
    ap.add_argument("--network", action="store_true", help="the bot has a network: check `eval` too")
    args = ap.parse_args()
    bot = Bot([args.dama, "bot", "--bot", args.bot])
    checks = 0

    r = bot.send("hello")
    check(r[0].startswith("id dama-bot") and "protocol 1" in r[0], f"hello: {r}")
    check(r[-1] == "ok", f"hello: {r}")
    check(bot.send("isready") == ["readyok"], "isready")
    checks += 3

    # Position and moves.
    check(bot.send("position startpos moves d3-d4 d6-d5") == ["ok"], "position with moves")
    r = bot.send("show")
    check(any(l == "moves d3-d4 d6-d5" for l in r) and r[-1] == "ok", f"show: {r}")
    legal = bot.send("legal")[0].split()[1:]
    check("d4xd6xd8" in legal and len(legal) == 1, f"legal after d3-d4 d6-d5: {legal}")
    checks += 3

    # go with a simulation budget and with a time budget.
    for cmd in ["go sims 40", "go time 200", "go"]:
        t0 = time.time()
        r = bot.send(cmd)
        check(len(r) == 2 and r[0].startswith("info ") and r[1].startswith("bestmove "), f"{cmd}: {r}")
        best = r[1].split()[1]
        check(best == "d4xd6xd8", f"{cmd}: the only legal move is d4xd6xd8, got {best}")
        pv = r[0].split(" pv ", 1)[1].split()
        check(pv[0] == best, f"{cmd}: pv {pv} does not start with {best}")
        if "value" in r[0]:
            v = float(field(r[0], "value"))
            check(-1.0 <= v <= 1.0, f"{cmd}: value {v}")
        if cmd == "go time 200":
            check(time.time() - t0 < 30, f"{cmd} took {time.time() - t0:.1f} s")
        checks += 1

    # A short game: go, then play the move, until the game ends or 12 moves.
    bot.send("position startpos")
    for _ in range(12):
        r = bot.send("go sims 16")
        if r[-1].startswith("error"):
            check("over" in r[-1], f"go: {r}")
            break
        best = r[-1].split()[1]
        legal = bot.send("legal")[0].split()[1:]
        check(best in legal, f"bestmove {best} not in legal {legal}")
        check(bot.send(f"moves {best}") == ["ok"], f"moves {best}")
        checks += 1
    r = bot.send("show")
    moves = [l for l in r if l.startswith("moves")][0].split()[1:]
    check(len(moves) >= 1, f"game moves: {moves}")
    check(bot.send(f"undo {len(moves)}") == ["ok"], "undo all")
    check([l for l in bot.send("show") if l.startswith("position")] ==
          ["position W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"],
          "undo back to the start")

    # Rules.
    check(bot.send("rules")[0].startswith("rules promotion="), "rules query")
    r = bot.send("rules no_capture_limit=off one_piece_each=king_beats_man")
    check(r[-1] == "ok", f"rules: {r}")
    check("no_capture_limit=off" in bot.send("rules")[0], "rules were set")
    check(bot.send("rules default")[-1] == "ok", "rules default")
    checks += 4

    # Bad input: an error line each, and the session goes on.
    for bad in [
        "fly me to the moon",
        "position",
        "position W:Wz9:B",
        "position W:Wa2",
        "position startpos moves d3-d5",
        "moves e3xe5",
        "moves d3-d4 d3-d4",
        "moves",
        "undo 99",
        "undo two",
        "go sims",
        "go sims 0",
        "go time -5",
        "go depth 3",
        "rules promotion=sometimes",
        "rules nonsense",
    ]:
        r = bot.send(bad)
        if bad == "moves":
            check(r == ["ok"], f"`moves` with no moves plays nothing: {r}")
            continue
        check(len(r) == 1 and r[0].startswith("error "), f"`{bad}` should be an error, got {r}")
        checks += 1
    r = bot.send("moves a3-a5")
    check("legal: " in r[0] and "a3-a4" in r[0], f"an illegal move lists the legal ones: {r}")
    check(bot.send("isready") == ["readyok"], "alive after bad input")

    # A finished game: Black to move without pieces.
    check(bot.send("position B:Wa2:B") == ["ok"], "finished position")
    r = bot.send("go")
    check(r[-1].startswith("error") and "over" in r[-1], f"go in a finished game: {r}")
    check("status over 1-0" in "\n".join(bot.send("show")), "status over")
    checks += 3

    if args.network:
        bot.send("position startpos")
        r = bot.send("eval")
        check(r[0].startswith("info value") and r[-1] == "ok", f"eval: {r}")
        checks += 1
    else:
        r = bot.send("eval")
        check(r[-1].startswith("error"), f"eval without a network: {r}")

    check(bot.send("quit") == ["bye"], "quit")
    code = bot.p.wait(timeout=30)
    check(code == 0, f"exit status {code}")
    print(f"protocol ok: {checks} checks passed with `{args.bot}`")


if __name__ == "__main__":
    main()
