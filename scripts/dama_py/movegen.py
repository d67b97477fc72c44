"""Legal moves of Turkish draughts (the engine's default rules), for the
notebooks: men step and capture forward and sideways, kings fly along ranks
and files, captured pieces leave the board at once, a capturing king may not
reverse its direction, the sequence that captures the most pieces is
compulsory, and a man is crowned only if its move ends on the last row.

A *move* is a whole turn (a capture sequence in full); a *step* is what the
network's policy scores: a quiet move, or one jump of a capture (the engine
decides captures jump by jump). `legal_steps` gives the first steps of the
legal moves, the actions a bot chooses between at a position.
"""

from __future__ import annotations

from dataclasses import dataclass

from .position import BLACK, WHITE, Position, square_name

# North, East, South, West as (file, rank) deltas, the engine's Direction order.
DIRS = [(0, 1), (1, 0), (0, -1), (-1, 0)]
NORTH, EAST, SOUTH, WEST = range(4)


def _forward(color: str) -> int:
    return NORTH if color == WHITE else SOUTH


def _opposite(d: int) -> int:
    return (d + 2) % 4


def _step(sq: int, d: int, n: int = 1):
    f, r = sq % 8 + DIRS[d][0] * n, sq // 8 + DIRS[d][1] * n
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None


@dataclass(frozen=True)
class Step:
    """One step: from, to, and the captured square (None for a quiet move)."""

    frm: int
    to: int
    captured: int | None = None

    def __str__(self) -> str:
        sep = "x" if self.captured is not None else "-"
        return f"{square_name(self.frm)}{sep}{square_name(self.to)}"


@dataclass(frozen=True)
class Move:
    """A whole move: its steps in order."""

    steps: tuple

    @property
    def captures(self) -> int:
        return sum(s.captured is not None for s in self.steps)

    def __str__(self) -> str:
        if not self.captures:
            return str(self.steps[0])
        return square_name(self.steps[0].frm) + "".join("x" + square_name(s.to) for s in self.steps)


def _captures_from(board: dict, sq: int, color: str, king: bool, last: int | None, out: list, path: tuple):
    """Appends to `out` every maximal-by-extension capture sequence (as step
    tuples) continuing from `sq`; `board` has the mover removed and the
    captured pieces taken off."""
    found = False
    dirs = range(4) if king else [_forward(color), EAST, WEST]
    for d in dirs:
        if last is not None and d == _opposite(last):
            continue
        if king:
            n = 1
            t = _step(sq, d, n)
            while t is not None and t not in board:
                n += 1
                t = _step(sq, d, n)
            if t is None or board[t][0] == color:
                continue
            victim = t
            n += 1
            land = _step(sq, d, n)
            landings = []
            while land is not None and land not in board:
                landings.append(land)
                n += 1
                land = _step(sq, d, n)
        else:
            victim = _step(sq, d)
            if victim is None or victim not in board or board[victim][0] == color:
                continue
            land = _step(sq, d, 2)
            if land is None or land in board:
                continue
            landings = [land]
        for land in landings:
            found = True
            taken = board.pop(victim)
            _captures_from(board, land, color, king, d, out, path + (Step(sq, land, victim),))
            board[victim] = taken
    if not found and path:
        out.append(path)


def legal_moves(pos: Position) -> list:
    """Every legal move of `pos` (capture sequences in full), in square order."""
    color = pos.turn
    caps = []
    for sq in sorted(pos.pieces):
        c, king = pos.pieces[sq]
        if c != color:
            continue
        board = dict(pos.pieces)
        del board[sq]
        _captures_from(board, sq, color, king, None, caps, ())
    if caps:
        # Sequences with the same start, end and captured pieces are one move.
        best = max(len(p) for p in caps)
        seen, moves = set(), []
        for p in caps:
            key = (p[0].frm, p[-1].to, frozenset(s.captured for s in p))
            if len(p) == best and key not in seen:
                seen.add(key)
                moves.append(Move(p))
        return moves
    moves = []
    for sq in sorted(pos.pieces):
        c, king = pos.pieces[sq]
        if c != color:
            continue
        dirs = range(4) if king else [_forward(color), EAST, WEST]
        for d in dirs:
            n = 1
            t = _step(sq, d, n)
            while t is not None and t not in pos.pieces:
                moves.append(Move((Step(sq, t),)))
                if not king:
                    break
                n += 1
                t = _step(sq, d, n)
    return moves


def legal_steps(pos: Position) -> list:
    """The distinct first steps of the legal moves (the policy's actions)."""
    seen, out = set(), []
    for m in legal_moves(pos):
        s = m.steps[0]
        if (s.frm, s.to) not in seen:
            seen.add((s.frm, s.to))
            out.append(s)
    return out


def play(pos: Position, move: Move) -> Position:
    """The position after `move` (men ending on the last row are crowned)."""
    nxt = pos.copy()
    first, last = move.steps[0], move.steps[-1]
    color, king = nxt.pieces.pop(first.frm)
    for s in move.steps:
        if s.captured is not None:
            del nxt.pieces[s.captured]
    if not king and last.to // 8 == (7 if color == WHITE else 0):
        king = True
    nxt.pieces[last.to] = (color, king)
    nxt.turn = BLACK if color == WHITE else WHITE
    nxt.plies_since_capture = 0 if move.captures else pos.plies_since_capture + 1
    return nxt


def perft(pos: Position, depth: int) -> int:
    """Leaf count of the move tree (a whole capture sequence is one ply)."""
    if depth == 0:
        return 1
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(play(pos, m), depth - 1) for m in moves)
