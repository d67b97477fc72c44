"""Input planes and policy indices, exactly as crates/draughts/src/encode.rs
(ENCODING_VERSION 2).

Everything is seen from the side to move: for White the board is as it is,
for Black it is flipped vertically (rank r -> 7 - r, files kept), and so are
directions (North <-> South). Planes `[13, 8, 8]`, value `p*64 + 8*rank +
file` in point-of-view coordinates:

    0 own men, 1 own kings, 2 opponent men, 3 opponent kings,
    4 the piece that must continue a capture, 5..8 the direction the next jump
    may not take (N, E, S, W), 9 repetition, 10 plies since capture / limit
    (clamped to 1; limit 100 without the rule), 11 constant 1, 12 the pieces
    captured so far by a capture in progress.

A `Position` is a whole turn (no capture half done), so planes 4..8 and 12
are zero; a `movegen.State` with a capture in progress shows the pieces as
they stand mid-capture, as the Rust encoder does: the mover on its current
square (as a king if it captures as one), captured pieces gone from planes 2
and 3 where they leave at once (Turkish, Armenian, Croda with
`croda_removal=immediate`) and kept there where they stay to the end (Croda,
Dameo), and marked in plane 12 either way; plane 4 the mover's square,
plane 5 + d the direction d (N, E, S, W from the mover's side) that would
reverse the last jump. Policy index of a step: `(direction*7 + distance - 1) * 64 + from`,
point-of-view direction (clockwise from North: N 0, NE 1, E 2, SE 3, S 4,
SW 5, W 6, NW 7; the diagonals carry the variants' steps) and from-square.
"""

from __future__ import annotations

import numpy as np

from .movegen import State, Step
from .position import WHITE, Position

ENCODING_VERSION = 2
NUM_PLANES = 13
POLICY_PLANES = 56
# The eight directions as (file, rank) deltas, clockwise from North.
COMPASS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
POLICY_SIZE = POLICY_PLANES * 64
NO_LIMIT_SCALE = 100.0
# (planes, height, width, policy planes), as the Rust `Shape`.
SHAPE = (NUM_PLANES, 8, 8, POLICY_PLANES)


def pov_square(sq: int, turn: str) -> int:
    return sq if turn == WHITE else sq ^ 56


def pov_direction(d: int, turn: str) -> int:
    # Black: ranks flipped (N <-> S, NE <-> SE, ...); an involution.
    if turn == WHITE:
        return d
    return (12 - d) % 8


def _pov_jump_direction(d: int, turn: str) -> int:
    """A jump direction (N 0, E 1, S 2, W 3) from `turn`'s side."""
    return d if turn == WHITE else (d + 2) % 4 if d in (0, 2) else d


def encode_planes(pos) -> np.ndarray:
    """The `[13, 8, 8]` float32 input planes of `pos`, a Position or a
    movegen.State (a capture possibly in progress)."""
    out = np.zeros((NUM_PLANES, 64), dtype=np.float32)
    pending = None
    if isinstance(pos, State):
        pos, pending = pos.position, pos.pending
    us = pos.turn
    pieces = pos.pieces
    if pending is not None:
        pieces = dict(pieces)
        del pieces[pending.origin]
        gone = 0 if pos.game_rules.removes_at_end else pending.captured
        pieces = {sq: p for sq, p in pieces.items() if not gone >> sq & 1}
        pieces[pending.state.at] = (us, pending.state.king)
        at = pov_square(pending.state.at, us)
        out[4, at] = 1.0
        if pending.state.last is not None:
            out[5 + _pov_jump_direction((pending.state.last + 2) % 4, us)] = 1.0
        for sq in range(64):
            if pending.captured >> sq & 1:
                out[12, pov_square(sq, us)] = 1.0
    for sq, (color, king) in pieces.items():
        plane = (0 if color == us else 2) + (1 if king else 0)
        out[plane, pov_square(sq, us)] = 1.0
    if pos.repetition:
        out[9] = 1.0
    limit = float(max(pos.no_capture_limit, 1)) if pos.no_capture_limit is not None else NO_LIMIT_SCALE
    out[10] = min(pos.plies_since_capture / limit, 1.0)
    out[11] = 1.0
    return out.reshape(NUM_PLANES, 8, 8)


def _direction(frm: int, to: int) -> tuple[int, int]:
    df, dr = to % 8 - frm % 8, to // 8 - frm // 8
    if (df == 0 and dr == 0) or (df != 0 and dr != 0 and abs(df) != abs(dr)):
        raise ValueError("a step moves along one rank, file or diagonal")
    n = max(abs(df), abs(dr))
    return COMPASS.index((df // n, dr // n)), n


def policy_index(step: Step, turn: str) -> int:
    """The policy index of `step` for the player `turn` to move."""
    d, n = _direction(step.frm, step.to)
    return (pov_direction(d, turn) * 7 + n - 1) * 64 + pov_square(step.frm, turn)


def decode_index(index: int, turn: str):
    """(from, to) squares of a policy index for `turn`, or None off the board."""
    if not 0 <= index < POLICY_SIZE:
        return None
    plane, frm_pov = divmod(index, 64)
    d_pov, n = plane // 7, plane % 7 + 1
    frm = pov_square(frm_pov, turn)
    d = pov_direction(d_pov, turn)  # an involution
    f, r = frm % 8 + COMPASS[d][0] * n, frm // 8 + COMPASS[d][1] * n
    if not (0 <= f < 8 and 0 <= r < 8):
        return None
    return frm, r * 8 + f
