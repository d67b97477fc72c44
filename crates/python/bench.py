"""Speed of the compiled module against the pure-Python twin it replaces
(perft) and against the `dama` binary (the alpha-beta engine), measured in
the same run on the same positions; ratios, as docs/benchmarks.md asks.

    scripts/test-python.sh --release   # builds the module optimised
    python crates/python/bench.py --dama target/release/dama

Prints one line per figure and the machine's CPU; nothing is asserted.
"""
import argparse
import json
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

import dama

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))


def positions(game, n, seed):
    rng = random.Random(seed)
    out = ["startpos"]
    while len(out) < n:
        g = dama.Game(game)
        for _ in range(rng.randrange(4, 30)):
            if g.is_over():
                break
            g.play(rng.choice(g.legal_moves()))
        if not g.is_over():
            out.append(g.position)
    return out


def rate(fn, items):
    """Nodes per second of `fn` over `items` (at least 0.5 s of work)."""
    nodes, t0 = 0, time.perf_counter()
    while True:
        for it in items:
            nodes += fn(it)
        elapsed = time.perf_counter() - t0
        if elapsed > 0.5:
            return nodes / elapsed, nodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dama", default=str(ROOT / "target" / "release" / "dama"))
    ap.add_argument("--depth", type=int, default=9, help="alpha-beta depth")
    args = ap.parse_args()
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), platform.processor())
    print(f"cpu: {model}")

    from dama_py import tafl
    from dama_py.movegen import perft as twin_perft
    from dama_py.position import Position

    for game, twin, depth in [
        ("draughts", lambda p, d: twin_perft(Position.parse(p), d), 3),
        ("tafl", lambda p, d: tafl.perft(tafl.Game.new(None, None if p == "startpos" else p), d), 3),
    ]:
        pos = positions(game, 6, seed=11)
        twin_nps, twin_nodes = rate(lambda p: twin(p, depth), pos)
        games = [dama.Game(game, position=p) for p in pos]
        ours_nps, _ = rate(lambda g: g.perft(depth + 2), games)
        print(f"perft {game}: module {ours_nps / 1e6:.2f} M nodes/s, pure-Python twin {twin_nps / 1e3:.1f} k nodes/s: {ours_nps / twin_nps:.0f}x (6 positions; twin depth {depth}, module depth {depth + 2})")

    # The alpha-beta engine: the same fixed-depth search (the same nodes),
    # from Python and from the binary, alternated three times each.
    py_rates, bin_rates = [], []
    for _ in range(3):
        found = dama.Player(f"alphabeta:depth={args.depth}").think(dama.Game())
        py_rates.append(found["nodes"] / found["seconds"])
        out = subprocess.run([args.dama, "analyse", "--bot", f"alphabeta:depth={args.depth}", "--json"],
                             capture_output=True, text=True, check=True).stdout
        a = json.loads(out)["analysis"]
        bin_rates.append(a["nodes"] / (a["time_ms"] / 1000))
        assert a["nodes"] == found["nodes"], (a["nodes"], found["nodes"])
    py, bn = max(py_rates), max(bin_rates)
    print(f"alpha-beta depth {args.depth} from the start ({found['nodes']} nodes both): from Python {py / 1e6:.2f} M nodes/s, the binary {bn / 1e6:.2f} M nodes/s: {py / bn:.3f} (best of 3 each)")


if __name__ == "__main__":
    main()
