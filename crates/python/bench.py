"""Speed of the compiled module against the `dama` binary: the same
fixed-depth alpha-beta search from Python and from the binary (the same
nodes), measured in the same run; a ratio, as docs/benchmarks.md asks.

    scripts/test-python.sh --release   # builds the module optimised
    python crates/python/bench.py --dama target/release/dama

Prints one line per figure and the machine's CPU; asserts only that both
searched the same tree.
"""
import argparse
import json
import platform
import subprocess
from pathlib import Path

import dama

ROOT = Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dama", default=str(ROOT / "target" / "release" / "dama"))
    ap.add_argument("--depth", type=int, default=9, help="alpha-beta depth")
    args = ap.parse_args()
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), platform.processor())
    print(f"cpu: {model}")

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
