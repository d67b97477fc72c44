#!/usr/bin/env python3
"""Use an exported dama bundle from Python: load model.ts with torch.jit.load,
encode positions exactly as dama_nn::encode does (encoding version 1), and
print the network's evaluation and its favourite steps.

    python scripts/bundle_example.py BUNDLE_DIR [--position POS]... [--dama BIN]

POS is `startpos` or the engine's text form `W:Wa2,b2,Kd4:Ba7,Kh8` (side to
move, then White's and Black's squares, K before a king).

With --dama BIN the script also asks the Rust side for the same positions
(`BIN analyse --bot BUNDLE/weights.safetensors --position POS --json`, which
runs the checkpoint through the Rust network, not the TorchScript file) and
checks, position by position, that
  * the policy index of every legal step computed here equals Rust's, and
  * the win/draw/loss probabilities and the prior of every legal step agree
    within --tolerance (default 1e-4, absolute; float32 on CPU),
then exits with status 1 if they do not.

The encoder below covers positions at a move boundary given as text: no
capture in progress (planes 4-8 zero), no repetition (plane 9 zero) and no
moves since the last capture (plane 10 zero, the text carries no counter;
pass plies_since_capture to encode() for another value).
"""
import argparse
import json
import math
import os
import subprocess
import sys

import torch

ENCODING_VERSION = 1
NUM_PLANES = 12
POLICY_SIZE = 28 * 64
# Plane numbers (crates/nn/src/encode.rs, module `plane`).
OWN_MEN, OWN_KINGS, THEIR_MEN, THEIR_KINGS = 0, 1, 2, 3
NO_CAPTURE, ONES = 10, 11
# Directions, numbered as in the engine: North (towards rank 8), East, South, West.
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3

DEFAULT_POSITIONS = [
    "startpos",
    "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8",
    "W:Wb3,Kh1:Bc3,d4,e6,Ka8",
    "B:Wc4,Kf5:Bc5,d7,Kb8",
    "W:Wa3,b3,c4,f2,g3:Bb6,c6,e5,f7,h6",
]


def square(name):
    """`d4` -> index 8 * rank + file (a1 = 0)."""
    f, r = ord(name[0]) - ord("a"), int(name[1:]) - 1
    if not (0 <= f < 8 and 0 <= r < 8):
        raise ValueError(f"bad square {name!r}")
    return 8 * r + f


def parse_position(text):
    """Returns (turn, pieces) with turn 'W' or 'B' and pieces a dict
    square -> (colour 'W'/'B', is_king)."""
    text = text.strip()
    if text == "startpos":
        pieces = {8 * r + f: ("W", False) for r in (1, 2) for f in range(8)}
        pieces.update({8 * r + f: ("B", False) for r in (5, 6) for f in range(8)})
        return "W", pieces
    fields = [x.strip() for x in text.split(":")]
    if len(fields) != 3 or fields[0] not in ("W", "B"):
        raise ValueError(f"bad position {text!r}")
    pieces = {}
    for field in fields[1:]:
        colour, items = field[0], field[1:]
        for item in filter(None, (i.strip() for i in items.split(","))):
            king = item[0] in "Kk"
            pieces[square(item[1:] if king else item)] = (colour, king)
    return fields[0], pieces


def pov_square(sq, turn):
    """The square seen from the side to move: Black's board is flipped vertically."""
    return sq if turn == "W" else sq ^ 56


def pov_direction(d, turn):
    """For Black, North and South swap (the board is flipped vertically)."""
    if turn == "W":
        return d
    return {NORTH: SOUTH, SOUTH: NORTH, EAST: EAST, WEST: WEST}[d]


def encode(turn, pieces, plies_since_capture=0, no_capture_limit=50):
    """Input planes [12, 8, 8] as dama_nn::encode::encode_planes."""
    x = torch.zeros(NUM_PLANES, 64)
    for sq, (colour, king) in pieces.items():
        own = colour == turn
        plane = (OWN_KINGS if king else OWN_MEN) if own else (THEIR_KINGS if king else THEIR_MEN)
        x[plane, pov_square(sq, turn)] = 1.0
    limit = float(max(no_capture_limit, 1)) if no_capture_limit else 100.0
    x[NO_CAPTURE, :] = min(plies_since_capture / limit, 1.0)
    x[ONES, :] = 1.0
    return x.view(NUM_PLANES, 8, 8)


def policy_index(frm, to, turn):
    """Policy index of the step frm -> to: (direction * 7 + distance - 1) * 64 + from."""
    df, dr = to % 8 - frm % 8, to // 8 - frm // 8
    if df == 0 and dr > 0:
        d = NORTH
    elif df == 0 and dr < 0:
        d = SOUTH
    elif dr == 0 and df > 0:
        d = EAST
    elif dr == 0 and df < 0:
        d = WEST
    else:
        raise ValueError("a step moves along a rank or a file")
    dist = max(abs(df), abs(dr))
    return (pov_direction(d, turn) * 7 + dist - 1) * 64 + pov_square(frm, turn)


def parse_step(text):
    """`d3-d4` or `d4xd6` -> (from, to)."""
    sep = "x" if "x" in text else "-"
    a, b = text.split(sep)
    return square(a), square(b)


def run(model, positions):
    planes = torch.stack([encode(*parse_position(p)) for p in positions])
    with torch.no_grad():
        policy_logits, wdl_logits = model(planes)
    return policy_logits, wdl_logits.softmax(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle")
    ap.add_argument("--position", action="append")
    ap.add_argument("--dama", help="the dama binary, to compare with the Rust evaluation")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    args = ap.parse_args()
    torch.set_num_threads(1)

    meta = json.load(open(os.path.join(args.bundle, "bundle.json")))
    if meta["encoding_version"] != ENCODING_VERSION:
        sys.exit(
            f"encoding version mismatch: the bundle needs encoding {meta['encoding_version']}, "
            f"this script implements {ENCODING_VERSION}"
        )
    model = torch.jit.load(os.path.join(args.bundle, meta["model_file"]))
    model.eval()
    positions = args.position or DEFAULT_POSITIONS
    policy_logits, wdl = run(model, positions)

    worst_wdl = worst_prior = 0.0
    failures = []
    for i, pos in enumerate(positions):
        turn, _ = parse_position(pos)
        w, d, l = wdl[i].tolist()
        print(f"{pos}\n  value {w - l:+.4f} for {'White' if turn == 'W' else 'Black'}  (W {w:.3f} D {d:.3f} L {l:.3f})")
        if not args.dama:
            top = policy_logits[i].topk(3)
            print("  top policy logits at indices", top.indices.tolist())
            continue
        out = subprocess.run(
            [args.dama, "analyse", "--bot", os.path.join(args.bundle, meta["weights_file"]),
             "--position", pos, "--sims", "1", "--json"],
            capture_output=True, text=True,
        )
        if out.returncode != 0:
            sys.exit(f"dama analyse failed on {pos}: {out.stderr.strip()}")
        rust = json.loads(out.stdout)["network"]
        worst_wdl = max(worst_wdl, max(abs(a - b) for a, b in zip(wdl[i].tolist(), rust["wdl"])))
        steps = rust["priors"]
        indices = []
        for s in steps:
            frm, to = parse_step(s["step"])
            idx = policy_index(frm, to, turn)
            if idx != s["index"]:
                failures.append(f"{pos}: step {s['step']} has index {idx} here, {s['index']} in Rust")
            indices.append(idx)
        logits = policy_logits[i, indices]
        priors = logits.softmax(0).tolist()
        worst_prior = max([worst_prior] + [abs(p - s["prior"]) for p, s in zip(priors, steps)])
        best = max(range(len(steps)), key=lambda k: priors[k])
        print(f"  Rust: value {rust['value']:+.4f}; best prior {steps[best]['step']} {priors[best]:.3f} (Rust {steps[best]['prior']:.3f})")
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
