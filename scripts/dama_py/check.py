"""Self-check of dama_py against the engine: perft counts of the engine's
perft data files (default-rules positions, depth <= --depth) and the
encoder's layout on known positions; with --analyse, the network's output on
positions through dama_py (encoder, legal steps, policy indices, the PyTorch
twin) against `dama analyse --json` (the Rust encoder and network). Run from
scripts/:

    python -m dama_py.check [--depth N] [--analyse path/to/dama --checkpoint gen-NNNN.safetensors]

Exits non-zero on any difference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from .encode import NUM_PLANES, POLICY_SIZE, decode_index, encode_planes, policy_index
from .movegen import Step, legal_steps, perft
from .position import Position, parse_square

DATA = Path(__file__).resolve().parents[2] / "crates" / "engine" / "tests" / "data"


def perft_cases(max_depth: int):
    """(file, id, position text, depth, nodes) of positions with default rules."""
    for f in sorted(DATA.glob("*.perft")):
        pid, epd, special = None, None, False
        for line in f.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, rest = line.partition(" ")
            if key == "id":
                pid, epd, special = rest, None, False
            elif key == "epd":
                epd = rest
            elif key in ("rules", "clock", "result"):
                special = True
            elif key == "perft" and not special and epd is not None:
                depth, nodes = rest.split()
                if nodes != "?" and int(depth) <= max_depth:
                    yield f.name, pid, epd, int(depth), int(nodes)


def check_encoding() -> list:
    errors = []
    start = encode_planes(Position.startpos()).reshape(NUM_PLANES, 64)
    if not (start[0, 8:24] == 1).all() or start[0].sum() != 16:
        errors.append("startpos: own men are not on indices 8..24 of plane 0")
    if start[2].sum() != 16 or not (start[2, 40:56] == 1).all():
        errors.append("startpos: opponent men are not on indices 40..56 of plane 2")
    if not (start[11] == 1).all() or start[[1, 3, 4, 5, 6, 7, 8, 9, 10, 12]].any():
        errors.append("startpos: constant planes wrong")
    # Black to move: the board is flipped vertically, so Black's men are
    # "own" pieces on the White side of the planes.
    black = encode_planes(Position.parse("B:Wa2:Bh7,Kc6")).reshape(NUM_PLANES, 64)
    if black[0, parse_square("h2")] != 1 or black[1, parse_square("c3")] != 1 or black[2, parse_square("a7")] != 1:
        errors.append("black to move: planes are not flipped vertically")
    # Policy index round trip, and the documented layout.
    for turn in "WB":
        for i in range(POLICY_SIZE):
            d = decode_index(i, turn)
            if d is not None and policy_index(Step(*d), turn) != i:
                errors.append(f"policy index {i} ({turn}) does not round trip")
                break
    # d3-d4 for White: North (0), distance 1, from d3 = 19.
    if policy_index(Step(parse_square("d3"), parse_square("d4")), "W") != 19:
        errors.append("d3-d4 for White is not index 19")
    # d6-d5 for Black is North in its point of view, from d3 (pov) = 19.
    if policy_index(Step(parse_square("d6"), parse_square("d5")), "B") != 19:
        errors.append("d6-d5 for Black is not index 19")
    # b2-c2 for White: East (2), distance 1 -> plane 14, from b2 = 9.
    if policy_index(Step(parse_square("b2"), parse_square("c2")), "W") != 14 * 64 + 9:
        errors.append("b2-c2 for White is not index 14*64+9")
    # d3-e4 for White: North-East (1), distance 1 -> plane 7, from d3 = 19
    # (the diagonal step of the variants; the Rust unit test checks the same).
    if policy_index(Step(parse_square("d3"), parse_square("e4")), "W") != 7 * 64 + 19:
        errors.append("d3-e4 for White is not index 7*64+19")
    if policy_index(Step(parse_square("d6"), parse_square("e5")), "B") != 7 * 64 + 19:
        errors.append("d6-e5 for Black is not index 7*64+19")
    seen = {policy_index(s, "W") for s in legal_steps(Position.startpos())}
    if len(seen) != 8:
        errors.append("startpos: legal steps do not have 8 distinct indices")
    return errors


def sample_positions(n: int, seed: int = 7) -> list:
    """Positions of seeded random games (whole moves), with both sides still
    having two or more pieces and a legal move."""
    import random

    from .movegen import legal_moves, play

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = Position.startpos()
        for ply in range(rng.randrange(4, 90)):
            moves = legal_moves(pos)
            if not moves:
                break
            pos = play(pos, rng.choice(moves))
        pos = Position.parse(str(pos))  # zeroed counters, as `dama analyse` parses it
        counts = [sum(c == side for c, _ in pos.pieces.values()) for side in "WB"]
        if min(counts) >= 2 and legal_moves(pos):
            out.append(str(pos))
    return out


ANALYSE_POSITIONS = [
    "startpos",
    "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8",
    "W:Wb3,Kh1:Bc3,d4,e6,Ka8",
    "B:Wc4,Kf5:Bc5,d7,Kb8",
    "W:Wa2,b2,d3,g3:Bd4,d6,g4,a6,b7",
    "W:WKd4,a2:Bd6,f7,a7",
    # The bot notebook's positions.
    "B:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d4,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7",
    "W:Wd3,g3,a2,b2:Bd4,d6,g4,a6,b7",
    "W:WKd4:Bd6,f7,a7",
    "W:Wc6,e2,f2:Bb4,h4,g5",
    "B:WKa1,c3:BKh8,f6",
]


def check_against_dama(dama: str, checkpoint: str, n_random: int, tol: float = 1e-4) -> tuple[list, int]:
    """Compares dama_py + the PyTorch twin with `dama analyse --json` on the
    fixed positions and n_random random ones."""
    import json
    import subprocess

    from .model import evaluate, load_checkpoint

    net = load_checkpoint(checkpoint)
    positions = ANALYSE_POSITIONS + sample_positions(n_random)
    ours = evaluate(net, positions)
    errors = []
    for text, ev in zip(positions, ours):
        r = subprocess.run(
            [dama, "analyse", "--checkpoint", checkpoint, "--position", text, "--json", "--sims", "1"],
            capture_output=True, text=True,
        )
        if r.returncode != 0:
            errors.append(f"dama analyse {text}: {r.stderr.strip()}")
            continue
        rust = json.loads(r.stdout)["network"]
        dw = float(np.abs(np.array(rust["wdl"]) - ev.wdl).max())
        if dw > tol:
            errors.append(f"{text}: WDL differs by {dw:.2e} (rust {rust['wdl']}, dama_py {ev.wdl.tolist()})")
        theirs = {p["index"]: (p["step"], p["prior"]) for p in rust["priors"]}
        mine = {policy_index(s, ev.position.turn): (str(s), p) for s, p in ev.steps}
        if set(theirs) != set(mine):
            errors.append(f"{text}: legal steps differ: rust {sorted(v[0] for v in theirs.values())}, "
                          f"dama_py {sorted(v[0] for v in mine.values())}")
            continue
        for i, (step, prior) in theirs.items():
            if step != mine[i][0] or abs(prior - mine[i][1]) > tol:
                errors.append(f"{text}: step {step} (index {i}): rust prior {prior:.6f}, "
                              f"dama_py {mine[i][0]} {mine[i][1]:.6f}")
                break
    return errors, len(positions)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--analyse", metavar="DAMA", help="the dama binary to compare the network output with")
    ap.add_argument("--checkpoint", help="a gen-NNNN.safetensors for --analyse")
    ap.add_argument("--random", type=int, default=8, help="random positions for --analyse")
    args = ap.parse_args()
    errors = check_encoding()
    n = 0
    for fname, pid, epd, depth, nodes in perft_cases(args.depth):
        got = perft(Position.parse(epd), depth)
        n += 1
        if got != nodes:
            errors.append(f"{fname} {pid}: perft {depth} is {nodes}, dama_py counts {got}")
    for e in errors:
        print("dama_py check:", e, file=sys.stderr)
    if n == 0:
        errors.append("no perft data found")
        print(f"dama_py check: no perft data under {DATA}", file=sys.stderr)
    what = f"{n} perft counts and the encoding layout"
    if args.analyse:
        if not args.checkpoint:
            ap.error("--analyse needs --checkpoint")
        more, m = check_against_dama(args.analyse, args.checkpoint, args.random)
        for e in more:
            print("dama_py check:", e, file=sys.stderr)
        errors += more
        what += f", network output on {m} positions vs dama analyse"
    print(f"dama_py check: {what}, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
