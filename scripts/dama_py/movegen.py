"""Legal moves of Turkish draughts and its variants (Armenian, Croda,
Dameo), as crates/engine (movegen.rs, ortho.rs, game.rs):

* Turkish: men step and capture forward and sideways, kings fly along ranks
  and files, captured pieces leave the board at once, a capturing piece may
  not reverse its direction, and a man is crowned only if its move ends on
  the last row (or at once and goes on as a king, `promotion=continue_as_king`).
* Armenian: Turkish, plus a man's diagonal step forward.
* Croda: men step straight or diagonally forward and capture forward,
  sideways and (by default) backward; kings slide and fly like rooks;
  captured pieces stay as obstacles until the move ends (by default).
* Dameo: as Croda, plus line moves (a line of men moves one square forward
  along its own line: a quiet move from the rear man's square to the square
  in front) and kings that slide like queens (capturing orthogonally).

In every variant capturing is compulsory and the sequence that captures the
most pieces must be played; sequences with the same start, end, captured set
and promotion are one move.

A *move* is a whole turn (a capture sequence in full); a *step* is what the
network's policy scores: a quiet move, or one jump of a capture (the engine
decides captures jump by jump). `legal_steps` gives the first steps of the
legal moves of a position; `State` is a position with a capture possibly in
progress, played jump by jump with `state_steps` and `play_step` (the Rust
`Game::legal_steps` / `Game::play_step`).

Every function takes the rules from the position (`Position.rules`) unless
`rules` is given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .position import BLACK, WHITE, Position, square_name
from .rules import DAMEO, ARMENIAN, Rules

# North, East, South, West as (file, rank) deltas, the engine's Direction order.
DIRS = [(0, 1), (1, 0), (0, -1), (-1, 0)]
NORTH, EAST, SOUTH, WEST = range(4)
# Diagonals, for the quiet steps of the variants: NE, NW, SW, SE.
DIAGS = [(1, 1), (-1, 1), (-1, -1), (1, -1)]


def _forward(color: str) -> int:
    return NORTH if color == WHITE else SOUTH


def _opposite(d: int) -> int:
    return (d + 2) % 4


def _off(sq: int, df: int, dr: int, n: int = 1):
    f, r = sq % 8 + df * n, sq // 8 + dr * n
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None


def _step(sq: int, d: int, n: int = 1):
    return _off(sq, DIRS[d][0], DIRS[d][1], n)


# NEXT[d][sq]: the neighbour in direction d (None off the board).
NEXT = [[_step(sq, d) for sq in range(64)] for d in range(4)]


def _promo_row(sq: int, color: str) -> bool:
    return sq // 8 == (7 if color == WHITE else 0)


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
    """A whole move: its steps in order, and whether the man is crowned."""

    steps: tuple
    promotes: bool = False

    @property
    def captures(self) -> int:
        return sum(s.captured is not None for s in self.steps)

    def __str__(self) -> str:
        if not self.captures:
            return str(self.steps[0])
        return square_name(self.steps[0].frm) + "".join("x" + square_name(s.to) for s in self.steps)


@dataclass(frozen=True)
class JumpState:
    """A capture in progress, as the engine's JumpState: the mover's colour
    and square, whether it captures as a king, the occupied squares without
    the mover (bit mask; captured pieces stay in it while they stand to the
    end of the move), the opponents not yet captured, the last direction."""

    color: str
    at: int
    king: bool
    occ: int
    them: int
    last: int | None


def _king_jump(sq: int, d: int, occ: int, them: int):
    """(landing squares, captured square) of a flying king's jump in d."""
    t = NEXT[d][sq]
    while t is not None and not occ >> t & 1:
        t = NEXT[d][t]
    if t is None or not them >> t & 1:
        return [], None
    lands = []
    x = NEXT[d][t]
    while x is not None and not occ >> x & 1:
        lands.append(x)
        x = NEXT[d][x]
    return lands, t


def jumps_from(s: JumpState, rules: Rules) -> list:
    """The jumps from `s` (ignoring the maximum rule) with the state after
    each, in the engine's order (directions N, E, S, W; landings by square)."""
    out = []
    remove_at_end = rules.removes_at_end
    for d in range(4):
        if not remove_at_end and s.last is not None and s.last == _opposite(d):
            continue
        if s.king:
            lands, first = _king_jump(s.at, d, s.occ, s.them)
        else:
            if not rules.men_capture_backward and d == _opposite(_forward(s.color)):
                continue
            n = NEXT[d][s.at]
            if n is None or not s.them >> n & 1:
                continue
            first = n
            land = NEXT[d][n]
            lands = [land] if land is not None and not s.occ >> land & 1 else []
        fb = 1 << first if first is not None else 0
        for land in sorted(lands):
            crowned = not s.king and rules.continue_as_king and _promo_row(land, s.color)
            out.append((
                Step(s.at, land, first),
                JumpState(s.color, land, s.king or crowned, s.occ if remove_at_end else s.occ & ~fb,
                          s.them & ~fb, d),
            ))
    return out


def max_further(s: JumpState, rules: Rules) -> int:
    """The most further captures reachable from `s`."""
    return max((1 + max_further(n, rules) for _, n in jumps_from(s, rules)), default=0)


def _masks(pos: Position):
    occ = them = 0
    for sq, (c, _) in pos.pieces.items():
        occ |= 1 << sq
        if c != pos.turn:
            them |= 1 << sq
    return occ, them


def _start_state(pos: Position, sq: int, occ: int, them: int) -> JumpState:
    return JumpState(pos.turn, sq, pos.pieces[sq][1], occ & ~(1 << sq), them, None)


def _sequences(s: JumpState, rules: Rules, path: tuple, out: list):
    nxt = jumps_from(s, rules)
    if not nxt and path:
        out.append((path, s))
    for step, n in nxt:
        _sequences(n, rules, path + (step,), out)


def _captures(pos: Position, rules: Rules) -> list:
    occ, them = _masks(pos)
    seqs = []
    for sq in sorted(pos.pieces):
        if pos.pieces[sq][0] == pos.turn:
            _sequences(_start_state(pos, sq, occ, them), rules, (), seqs)
    if not seqs:
        return []
    best = max(len(p) for p, _ in seqs)
    seen, moves = set(), []
    for p, end in seqs:
        if len(p) != best:
            continue
        man = not pos.pieces[p[0].frm][1]
        promotes = man and (end.king or _promo_row(end.at, pos.turn))
        key = (p[0].frm, p[-1].to, frozenset(s.captured for s in p), promotes)
        if key not in seen:
            seen.add(key)
            moves.append(Move(p, promotes))
    return moves


def _slides(pos: Position, sq: int, deltas) -> list:
    out = []
    for df, dr in deltas:
        t = _off(sq, df, dr)
        while t is not None and t not in pos.pieces:
            out.append(t)
            t = _off(t, df, dr)
    return out


def _quiet(pos: Position, rules: Rules) -> list:
    color = pos.turn
    fr = 1 if color == WHITE else -1
    ortho = rules.orthogonal_family
    moves = []
    for sq in sorted(pos.pieces):
        c, king = pos.pieces[sq]
        if c != color:
            continue
        if king:
            deltas = DIRS + DIAGS if rules.variant == DAMEO else DIRS
            moves += [Move((Step(sq, t),)) for t in _slides(pos, sq, deltas)]
            continue
        if ortho:
            deltas = [(0, fr), (1, fr), (-1, fr)]
        else:
            deltas = [(0, fr), (1, 0), (-1, 0)]
            if rules.variant == ARMENIAN:
                deltas += [(1, fr), (-1, fr)]
        for df, dr in deltas:
            t = _off(sq, df, dr)
            # Dameo: a line of own men moves up from its rear man.
            while rules.variant == DAMEO and t is not None and pos.pieces.get(t) == (color, False):
                t = _off(t, df, dr)
            if t is not None and t not in pos.pieces:
                moves.append(Move((Step(sq, t),), _promo_row(t, color)))
    return moves


def legal_moves(pos: Position, rules: Rules | None = None) -> list:
    """Every legal move of `pos` (capture sequences in full)."""
    rules = rules if rules is not None else pos.game_rules
    return _captures(pos, rules) or _quiet(pos, rules)


def legal_steps(pos: Position, rules: Rules | None = None) -> list:
    """The distinct first steps of the legal moves (the policy's actions)."""
    seen, out = set(), []
    for m in legal_moves(pos, rules):
        s = m.steps[0]
        if (s.frm, s.to) not in seen:
            seen.add((s.frm, s.to))
            out.append(s)
    return out


def play(pos: Position, move: Move) -> Position:
    """The position after `move` (captured pieces removed, the man crowned if
    the move promotes it)."""
    nxt = pos.copy()
    first, last = move.steps[0], move.steps[-1]
    color, king = nxt.pieces.pop(first.frm)
    for s in move.steps:
        if s.captured is not None:
            del nxt.pieces[s.captured]
    promotes = not king and (move.promotes or _promo_row(last.to, color))
    nxt.pieces[last.to] = (color, king or promotes)
    nxt.turn = BLACK if color == WHITE else WHITE
    nxt.plies_since_capture = 0 if move.captures else pos.plies_since_capture + 1
    nxt.repetition = False
    return nxt


def perft(pos: Position, depth: int, rules: Rules | None = None) -> int:
    """Leaf count of the move tree (a whole capture sequence is one ply;
    draw rules ignored, as the engine's perft)."""
    rules = rules if rules is not None else pos.game_rules
    if depth == 0:
        return 1
    moves = legal_moves(pos, rules)
    if depth == 1:
        return len(moves)
    return sum(perft(play(pos, m), depth - 1, rules) for m in moves)


# ---------------------------------------------------------------------------
# Jump-by-jump play (the engine's Game::legal_steps / play_step).
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Pending:
    """A capture started but not finished: where the piece started, whether
    it started as a king, the jump state, the pieces captured so far (bit
    mask), the landing squares so far, the captures still required."""

    origin: int
    was_king: bool
    state: JumpState
    captured: int
    path: tuple
    remaining: int


@dataclass(frozen=True)
class State:
    """A position (at the start of the turn) and a capture in progress, if
    any: what the network sees and decides at, step by step."""

    position: Position
    pending: Pending | None = None

    @property
    def turn(self) -> str:
        return self.position.turn


def _good_jumps(state: JumpState, remaining: int, rules: Rules) -> list:
    return [(s, n) for s, n in jumps_from(state, rules) if 1 + max_further(n, rules) == remaining]


def state_steps(st: State) -> list:
    """The legal next steps of `st`: the jumps that continue a capture in
    progress along a maximum sequence; otherwise the first jumps of the
    maximum captures, or every quiet move. Empty when the side is blocked."""
    pos = st.position
    rules = pos.game_rules
    if st.pending is not None:
        return [s for s, _ in _good_jumps(st.pending.state, st.pending.remaining, rules)]
    moves = legal_moves(pos, rules)
    if not moves:
        return []
    if not moves[0].captures:
        return [m.steps[0] for m in moves]
    best = moves[0].captures
    occ, them = _masks(pos)
    out = []
    for frm in sorted({m.steps[0].frm for m in moves}):
        out += [s for s, _ in _good_jumps(_start_state(pos, frm, occ, them), best, rules)]
    return out


def play_step(st: State, step: Step) -> State:
    """The state after `step` (a quiet move or one jump); the move is played
    on the position when it is complete. ValueError for an illegal step."""
    pos = st.position
    rules = pos.game_rules
    pending = st.pending
    if pending is None:
        moves = legal_moves(pos, rules)
        if step.captured is None:
            for m in moves:
                if not m.captures and m.steps[0].frm == step.frm and m.steps[0].to == step.to:
                    return State(play(pos, m))
            raise ValueError(f"illegal step {step}")
        if not moves or not moves[0].captures or pos.pieces.get(step.frm, (None,))[0] != pos.turn:
            raise ValueError(f"illegal step {step}")
        occ, them = _masks(pos)
        pending = Pending(step.frm, pos.pieces[step.frm][1], _start_state(pos, step.frm, occ, them), 0, (),
                          moves[0].captures)
    for s, n in _good_jumps(pending.state, pending.remaining, rules):
        if s == step:
            break
    else:
        raise ValueError(f"illegal step {step}")
    pending = Pending(pending.origin, pending.was_king, n, pending.captured | 1 << s.captured,
                      pending.path + (s,), pending.remaining - 1)
    if pending.remaining > 0:
        return State(pos, pending)
    promotes = not pending.was_king and (n.king or _promo_row(n.at, n.color))
    return State(play(pos, Move(pending.path, promotes)))


def state_moves_done(st: State) -> bool:
    """Whether `st` is at a move boundary (no capture in progress)."""
    return st.pending is None


def with_rules(pos: Position, rules: Rules) -> Position:
    """`pos` under other rules (its no-capture limit taken from them)."""
    return replace(pos, rules=rules, no_capture_limit=rules.no_capture_limit)
