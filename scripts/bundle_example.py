#!/usr/bin/env python3
"""Use an exported dama bundle from Python: load model.ts with torch.jit.load,
encode positions exactly as dama_draughts::encode does, and print the network's
evaluation and its favourite steps.

    python bundle_example.py [BUNDLE_DIR] [--position POS]... [--dama BIN]

`dama export` copies this script and the `dama_py` package (positions, legal
steps, the encoder, policy indices, loading) into every bundle, so it runs
from the bundle alone: `python BUNDLE_DIR/bundle_example.py` (BUNDLE_DIR
defaults to the script's own directory when that is a bundle). In the dama
repository it is scripts/bundle_example.py and uses scripts/dama_py.

POS is `startpos` or the engine's text form `W:Wa2,b2,Kd4:Ba7,Kh8` (side to
move, then White's and Black's squares, K before a king), with no moves since
the last capture and no repetition (the text carries neither).

With --dama BIN the script also asks the Rust side for the same positions
(`BIN analyse --bot BUNDLE/weights.safetensors --position POS --json`, which
runs the checkpoint through the Rust network, not the TorchScript file) and
checks, position by position, that
  * the legal steps and the policy index of every legal step computed here
    equal Rust's, and
  * the win/draw/loss probabilities and the prior of every legal step agree
    within --tolerance (default 1e-4, absolute; float32 on CPU),
then exits with status 1 if they do not.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from dama_py import Position, policy_index  # noqa: E402
from dama_py.model import evaluate, load_bundle  # noqa: E402

DEFAULT_POSITIONS = [
    "startpos",
    "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8",
    "W:Wb3,Kh1:Bc3,d4,e6,Ka8",
    "B:Wc4,Kf5:Bc5,d7,Kb8",
    "W:Wa3,b3,c4,f2,g3:Bb6,c6,e5,f7,h6",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", nargs="?", help="the bundle directory (default: this script's directory)")
    ap.add_argument("--position", action="append")
    ap.add_argument("--dama", help="the dama binary, to compare with the Rust evaluation")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    args = ap.parse_args()
    torch.set_num_threads(1)

    bundle = args.bundle or HERE
    if not os.path.isfile(os.path.join(bundle, "bundle.json")):
        sys.exit(f"{bundle} is not a bundle directory (no bundle.json): pass the directory `dama export` wrote")
    try:
        net = load_bundle(bundle)  # checks the encoding version
    except ValueError as e:
        sys.exit(str(e))
    positions = args.position or DEFAULT_POSITIONS
    evals = evaluate(net, positions)

    worst_wdl = worst_prior = 0.0
    failures = []
    for text, ev in zip(positions, evals):
        w, d, l = ev.wdl.tolist()
        side = "White" if ev.position.turn == "W" else "Black"
        print(f"{text}\n  value {ev.value:+.4f} for {side}  (W {w:.3f} D {d:.3f} L {l:.3f})")
        best = ", ".join(f"{s} {p:.3f}" for s, p in ev.steps[:3])
        print(f"  best steps: {best}")
        if not args.dama:
            continue
        out = subprocess.run(
            [args.dama, "analyse", "--bot", os.path.join(bundle, net.meta["weights_file"]),
             "--position", text, "--sims", "1", "--json"],
            capture_output=True, text=True,
        )
        if out.returncode != 0:
            sys.exit(f"dama analyse failed on {text}: {out.stderr.strip()}")
        rust = json.loads(out.stdout)["network"]
        worst_wdl = max(worst_wdl, max(abs(a - b) for a, b in zip(ev.wdl.tolist(), rust["wdl"])))
        mine = {policy_index(s, ev.position.turn): (str(s), p) for s, p in ev.steps}
        theirs = {s["index"]: (s["step"], s["prior"]) for s in rust["priors"]}
        if set(mine) != set(theirs):
            failures.append(f"{text}: legal steps differ: here {sorted(v[0] for v in mine.values())}, "
                            f"Rust {sorted(v[0] for v in theirs.values())}")
            continue
        for i, (step, prior) in theirs.items():
            if mine[i][0] != step:
                failures.append(f"{text}: index {i} is {mine[i][0]} here, {step} in Rust")
            worst_prior = max(worst_prior, abs(mine[i][1] - prior))
        print(f"  Rust: value {rust['value']:+.4f}")
    if args.dama:
        print(
            f"python vs rust on {len(positions)} positions: max |wdl diff| {worst_wdl:.2e}, "
            f"max |prior diff| {worst_prior:.2e} (tolerance {args.tolerance:.0e})"
        )
        if worst_wdl > args.tolerance or worst_prior > args.tolerance or math.isnan(worst_wdl + worst_prior):
            failures.append("evaluations differ beyond the tolerance")
        if failures:
            sys.exit("\n".join(failures))
        print("ok")


if __name__ == "__main__":
    main()
