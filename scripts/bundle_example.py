#!/usr/bin/env python3
"""Use an exported dama bundle from Python: load model.ts with torch.jit.load,
encode positions with dama's Python module, and print the network's
evaluation and its favourite actions.

    python bundle_example.py [BUNDLE_DIR] [--position POS]... [--dama BIN]

Needs PyTorch and dama's Python module (`import dama`, compiled from the same
Rust code as the `dama` binary): from a dama checkout, `pip install
./crates/python` (maturin builds it; a Rust toolchain is needed). The module
gives the positions, the legal actions and their policy indices, and the
network's input planes (`dama.Game(...).encode()`); this script adds only the
network. `dama export` copies it into every network bundle, so it runs as
`python BUNDLE_DIR/bundle_example.py` (BUNDLE_DIR defaults to the script's
own directory when that is a bundle); in the dama repository it is
scripts/bundle_example.py.

POS is a position of the bundle's game in its text form (`startpos`, or for
draughts `W:Wa2,b2,Kd4:Ba7,Kh8`: side to move, then White's and Black's
squares, K before a king), with no moves since the last capture and no
repetition (the text carries neither). Without --position: a few fixed
draughts positions for a draughts bundle, the start and positions of a
seeded random game for any other.

With --dama BIN the script also asks the Rust side for the same positions
(`BIN analyse --bot BUNDLE/weights.safetensors --position POS --json`, which
runs the checkpoint through the Rust network, not the TorchScript file) and
checks, position by position, that
  * the legal actions and the policy index of every legal action computed
    here equal Rust's, and
  * the win/draw/loss probabilities and the prior of every legal action
    agree within --tolerance (default 1e-4, absolute; float32 on CPU),
then exits with status 1 if they do not.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys

import numpy as np
import torch

try:
    import dama
except ImportError:
    sys.exit("this example needs dama's Python module: in a dama checkout, `pip install ./crates/python` "
             "(maturin builds it from the Rust sources)")

HERE = os.path.dirname(os.path.abspath(__file__))

DRAUGHTS_POSITIONS = [
    "startpos",
    "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8",
    "W:Wb3,Kh1:Bc3,d4,e6,Ka8",
    "B:Wc4,Kf5:Bc5,d7,Kb8",
    "W:Wa3,b3,c4,f2,g3:Bb6,c6,e5,f7,h6",
]


def rules_text(meta):
    """The bundle's rules as rules text: `game_rules_text` (every game but
    draughts), else draughts' `rules` object (`no_capture_limit` 0 is off)
    or an older Tafl bundle's `tafl_rules`."""
    if meta.get("game_rules_text"):
        return meta["game_rules_text"]
    fields = meta.get("tafl_rules") if meta.get("game", "draughts") != "draughts" else meta.get("rules")
    if not isinstance(fields, dict):
        return None
    return " ".join(f"{k}={'off' if k == 'no_capture_limit' and not v else v}" for k, v in fields.items()) or None


def load(bundle):
    """bundle.json, the game at its start under the bundle's rules, and
    model.ts; refuses a bundle whose encoding the module does not write."""
    meta = json.load(open(os.path.join(bundle, "bundle.json"), encoding="utf-8"))
    if meta.get("kind", "network") != "network":
        sys.exit(f"{bundle}: a learned-evaluator bundle; play it with `dama play --bundle {bundle}`")
    game = dama.Game(meta.get("game", "draughts"), rules=rules_text(meta))
    want = (meta.get("encoding_version"), meta.get("input_planes"), meta.get("policy_size"))
    have = (game.encoding_version, game.encode().shape[0], game.policy_size)
    if any(w is not None and w != h for w, h in zip(want, have)):
        sys.exit(f"{bundle}: encoding version, input planes, policy size {want}; the installed dama module "
                 f"writes {have} for {game.game}: install the module of the dama version that wrote the bundle "
                 f"({meta.get('dama_version', '?')})")
    model = torch.jit.load(os.path.join(bundle, meta.get("model_file", "model.ts")), map_location="cpu").eval()
    return meta, game, model


def default_positions(game, n=4, seed=7):
    """Fixed positions for Turkish draughts; otherwise the start and
    positions along a seeded random game."""
    if game.game == "draughts" and "variant=" not in game.rules:
        return DRAUGHTS_POSITIONS
    rng, g, out = random.Random(seed), game.copy(), [game.position]
    while len(out) <= n and not g.is_over():
        g.play(rng.choice(g.legal_moves()))
        if g.plies % 3 == 0 and not g.is_over():
            out.append(g.position)
    return out


def evaluate(model, games):
    """W/D/L for the side to move and [(action, index, prior)], best first,
    of each game's position."""
    x = torch.from_numpy(np.stack([g.encode() for g in games]))
    with torch.no_grad():
        out = model(x)
    policy, wdl = (out[0], out[1]) if isinstance(out, (tuple, list)) else (out[:, :-3], out[:, -3:])
    wdl = torch.softmax(wdl.double(), dim=1)
    results = []
    for i, g in enumerate(games):
        actions = g.actions()
        priors = torch.softmax(policy[i, [j for _, j in actions]].double(), dim=0).tolist()
        ranked = sorted(((a, j, p) for (a, j), p in zip(actions, priors)), key=lambda t: -t[2])
        results.append((wdl[i].tolist(), ranked))
    return results


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
    meta, start, model = load(bundle)
    positions = args.position or default_positions(start)
    try:
        games = [dama.Game(start.game, rules=start.rules, position=p) for p in positions]
    except ValueError as e:
        sys.exit(str(e))
    print(f"{start.title} ({start.rules}), encoding version {start.encoding_version}")

    worst_wdl = worst_prior = 0.0
    failures = []
    for text, g, (wdl, ranked) in zip(positions, games, evaluate(model, games)):
        w, d, l = wdl
        print(f"{text}\n  value {w - l:+.4f} for the side to move  (W {w:.3f} D {d:.3f} L {l:.3f})")
        print("  best actions: " + ", ".join(f"{a} {p:.3f}" for a, _, p in ranked[:3]))
        if not args.dama:
            continue
        out = subprocess.run(
            [args.dama, "analyse", "--bot", os.path.join(bundle, meta["weights_file"]),
             "--position", g.position, "--sims", "1", "--json"],
            capture_output=True, text=True,
        )
        if out.returncode != 0:
            sys.exit(f"dama analyse failed on {text}: {out.stderr.strip()}")
        rust = json.loads(out.stdout)["network"]
        worst_wdl = max(worst_wdl, max(abs(a - b) for a, b in zip(wdl, rust["wdl"])))
        mine = {j: (a, p) for a, j, p in ranked}
        theirs = {s["index"]: (s["step"], s["prior"]) for s in rust["priors"]}
        if set(mine) != set(theirs):
            failures.append(f"{text}: legal actions differ: here {sorted(v[0] for v in mine.values())}, "
                            f"Rust {sorted(v[0] for v in theirs.values())}")
            continue
        for j, (step, prior) in theirs.items():
            if mine[j][0] != step:
                failures.append(f"{text}: index {j} is {mine[j][0]} here, {step} in Rust")
            worst_prior = max(worst_prior, abs(mine[j][1] - prior))
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
