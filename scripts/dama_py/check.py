"""Self-check of dama_py against the engine: perft counts of the engine's
perft data files (default-rules positions, depth <= MAX_DEPTH) and the
encoder's layout on known positions. Run from scripts/:

    python -m dama_py.check [--depth N]

Exits non-zero on any difference."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from .encode import POLICY_SIZE, decode_index, encode_planes, policy_index
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
    start = encode_planes(Position.startpos()).reshape(12, 64)
    if not (start[0, 8:24] == 1).all() or start[0].sum() != 16:
        errors.append("startpos: own men are not on indices 8..24 of plane 0")
    if start[2].sum() != 16 or not (start[2, 40:56] == 1).all():
        errors.append("startpos: opponent men are not on indices 40..56 of plane 2")
    if not (start[11] == 1).all() or start[[1, 3, 4, 5, 6, 7, 8, 9, 10]].any():
        errors.append("startpos: constant planes wrong")
    # Black to move: the board is flipped vertically, so Black's men are
    # "own" pieces on the White side of the planes.
    black = encode_planes(Position.parse("B:Wa2:Bh7,Kc6")).reshape(12, 64)
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
    # b2-c2 for White: East (1), distance 1 -> plane 7, from b2 = 9.
    if policy_index(Step(parse_square("b2"), parse_square("c2")), "W") != 7 * 64 + 9:
        errors.append("b2-c2 for White is not index 7*64+9")
    seen = {policy_index(s, "W") for s in legal_steps(Position.startpos())}
    if len(seen) != 8:
        errors.append("startpos: legal steps do not have 8 distinct indices")
    return errors


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=3)
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
    print(f"dama_py check: {n} perft counts and the encoding layout, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
