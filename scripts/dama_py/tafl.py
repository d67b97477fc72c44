"""Turkish Tafl in Python, as crates/tafl (rules.rs, board.rs, position.rs,
game.rs, lockup.rs) and its network encoding crates/tafl/src/encode.rs
(TAFL_ENCODING_VERSION 1).

The board is 8 columns (1..8, the long axis) by 4 rows (A..D); a square is
its row letter and column number (`b3`), index `4 * (column - 1) + row`.
The King side (Black, `B`: 8 men and the King) moves towards column 8, the
Defenders (White, `W`: 14 men) towards column 1, where their men are
crowned. Position text: `W:Wb5,c5,Kd1:Ba1,b1,Kb3` (side to move, then the
Defenders' and the King side's squares, `K` before a King); `startpos`.

A `Game` is the state the network sees and decides at: the position (mid
chain: the mover on its current square, captured pieces gone), a chain of
jumps in progress, the moves played and the positions seen (repetition),
and the outcome. `legal_steps` are the decisions (a slide, one jump of a
chain, or stopping a friendly chain), `play_step` plays one; `legal_moves`
and `play` work with whole moves, `perft` counts whole-move sequences as the
engine's `dama_tafl::perft`.

Encoding: planes `[12, 8, 4]` (plane row = column, plane column = row, so
value `p * 32 + square`), never turned (a constant plane says who moves):

    0 King-side men, 1 the King, 2 Defender men, 3 Defender Kings,
    4 constant 1 if the King side is to move, 5 the piece continuing a chain,
    6 constant 1 during a friendly chain, 7 the squares a friendly chain has
    landed on, 8 the pieces a capture chain has taken, 9 constant 1 if the
    position occurred before, 10 constant plies / ply limit (200 without
    one) clamped to 1, 11 constant 1.

Policy 288 = 9 planes x 32 squares: plane d (Up, Down, Right, Left) the
slide from the square in direction d, 4 + d the jump, 8 stopping a friendly
chain; index `plane * 32 + square`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

ENCODING_VERSION = 1
NUM_PLANES = 12
POLICY_PLANES = 9
POLICY_SIZE = POLICY_PLANES * 32
# (planes, height, width, policy planes), as the Rust TAFL_SHAPE.
SHAPE = (NUM_PLANES, 8, 4, POLICY_PLANES)

COLUMNS, ROWS, SQUARES = 8, 4, 32
DEFENDER, KING_SIDE = "W", "B"
KING_SIDE_MEN, DEFENDER_PIECES = 8, 14
# Up (towards column 8), Down, Right (towards row D), Left as (row, column) deltas.
UP, DOWN, RIGHT, LEFT = range(4)
DIRS = [(0, 1), (0, -1), (1, 0), (-1, 0)]
DIR_NAMES = ["Up", "Down", "Right", "Left"]
SLIDE, JUMP, STOP = "slide", "jump", "stop"
MOVE_SLIDE, MOVE_FRIENDLY, MOVE_CAPTURE = "slide", "friendly", "capture"


def square_name(sq: int) -> str:
    return "abcd"[sq % ROWS] + str(sq // ROWS + 1)


def parse_square(text: str) -> int:
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in "abcd" or t[1] not in "12345678":
        raise ValueError(f"`{text}` is not a square (a1 .. d8: row letter a-d, column 1-8)")
    return (int(t[1]) - 1) * ROWS + "abcd".index(t[0])


def step_sq(sq: int | None, d: int) -> int | None:
    """The neighbour of `sq` in direction `d`, None off the board."""
    if sq is None:
        return None
    r, c = sq % ROWS + DIRS[d][0], sq // ROWS + DIRS[d][1]
    return c * ROWS + r if 0 <= r < ROWS and 0 <= c < COLUMNS else None


def column_mask(c: int) -> int:
    return 0xF << (c * ROWS)


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _other(side: str) -> str:
    return KING_SIDE if side == DEFENDER else DEFENDER


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

OPTIONS = [
    ("first", ["defender", "king_side"]),
    ("defender_man_chain", ["off", "on"]),
    ("majority", ["off", "on"]),
    ("goal", ["exit", "column8"]),
    ("surround", ["four_pieces", "edge_counts"]),
    ("lockup", ["frozen", "off"]),
    ("ply_limit", ["200", "N (1..=10000)", "off"]),
    ("limit_result", ["defender_wins", "draw"]),
]


@dataclass(frozen=True)
class TaflRules:
    """The rule options of Turkish Tafl, read from and written as the Rust
    `TaflRules` text (`first=king_side,majority=on`; `default`)."""

    first: str = DEFENDER
    defender_man_chain: bool = False
    majority: bool = False
    goal: str = "exit"
    surround: str = "four_pieces"
    lockup: str = "frozen"
    ply_limit: int | None = 200
    limit_result: str = "defender_wins"

    @staticmethod
    def parse(text: str | None) -> "TaflRules":
        if text is None:
            return TaflRules()
        if isinstance(text, TaflRules):
            return text
        s = text.strip()
        if not s or s == "default":
            return TaflRules()
        keys = ", ".join(k for k, _ in OPTIONS)
        f = {}
        for pair in [p for p in s.replace(",", " ").split(" ") if p]:
            if "=" not in pair:
                raise ValueError(f"bad Tafl rules: `{pair}` is not key=value ({keys})")
            k, v = pair.split("=", 1)

            def onoff():
                if v in ("on", "true"):
                    return True
                if v in ("off", "false"):
                    return False
                raise ValueError(f"bad Tafl rules: {k}: `{v}` is not on or off")

            choices = {
                "first": {"defender": DEFENDER, "king_side": KING_SIDE},
                "goal": {"exit": "exit", "column8": "column8"},
                "surround": {"four_pieces": "four_pieces", "edge_counts": "edge_counts"},
                "lockup": {"frozen": "frozen", "off": "off"},
                "limit_result": {"defender_wins": "defender_wins", "draw": "draw"},
            }
            if k in choices:
                if v not in choices[k]:
                    raise ValueError(f"bad Tafl rules: {k}: `{v}` is not one of its values")
                f[k] = choices[k][v]
            elif k in ("defender_man_chain", "majority"):
                f[k] = onoff()
            elif k == "ply_limit":
                if v == "off":
                    f[k] = None
                elif v.isdigit() and 1 <= int(v) <= 10000:
                    f[k] = int(v)
                else:
                    raise ValueError(f"bad Tafl rules: ply_limit: `{v}` is not off or a number of plies in 1..=10000")
            else:
                raise ValueError(f"bad Tafl rules: unknown rule `{k}` ({keys})")
        return TaflRules(**f)

    def __str__(self) -> str:
        oo = lambda b: "on" if b else "off"  # noqa: E731
        return (f"first={'defender' if self.first == DEFENDER else 'king_side'},"
                f"defender_man_chain={oo(self.defender_man_chain)},majority={oo(self.majority)},"
                f"goal={self.goal},surround={self.surround},lockup={self.lockup},"
                f"ply_limit={'off' if self.ply_limit is None else self.ply_limit},limit_result={self.limit_result}")


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TaflPosition:
    """The pieces (bit masks over the 32 squares, the King a square) and the
    side to move."""

    black_men: int
    king: int
    white_men: int
    white_kings: int
    turn: str

    @staticmethod
    def startpos(first: str = DEFENDER) -> "TaflPosition":
        b5, c5 = parse_square("b5"), parse_square("c5")
        return TaflPosition(column_mask(0) | column_mask(1), parse_square("b3"),
                            column_mask(5) | column_mask(6) | column_mask(7) | 1 << b5 | 1 << c5, 0, first)

    def pieces(self, side: str) -> int:
        return self.white_men | self.white_kings if side == DEFENDER else self.black_men | 1 << self.king

    def occupied(self) -> int:
        return self.white_men | self.white_kings | self.black_men | 1 << self.king

    @staticmethod
    def parse(text: str) -> "TaflPosition":
        """Position text (or `startpos`, the Defenders to move); ValueError
        naming what is wrong."""
        def fail(reason):
            return ValueError(f"bad position `{text[:80]}`: {reason}")

        s = text.strip()
        if s == "startpos":
            return TaflPosition.startpos(DEFENDER)
        parts = s.split(":")
        if len(parts) != 3:
            raise fail("expected `TURN:W<squares>:B<squares>`, e.g. `W:Wb5,Kd1:Ba1,Kb3`")
        if parts[0] not in ("W", "w", "B", "b"):
            raise fail(f"side to move `{parts[0]}` is not W or B")
        turn = parts[0].upper()
        sides = []
        for i, (part, letter) in enumerate([(parts[1], "W"), (parts[2], "B")]):
            if not part[:1] or part[0].upper() != letter:
                raise fail(f"the {i + 1} list must start with `{letter}`")
            men = kings = 0
            for item in (t.strip() for t in part[1:].split(",")):
                if not item:
                    continue
                king = item[0] in "Kk"
                try:
                    sq = parse_square(item[1:] if king else item)
                except ValueError as e:
                    raise fail(str(e)) from None
                if (men | kings) >> sq & 1:
                    raise fail(f"{square_name(sq)} is listed twice")
                if king:
                    kings |= 1 << sq
                else:
                    men |= 1 << sq
            sides.append((men, kings))
        (white_men, white_kings), (black_men, black_kings) = sides
        if bin(black_kings).count("1") != 1:
            raise fail(f"the King side has {bin(black_kings).count('1')} Kings (exactly one)")
        king = black_kings.bit_length() - 1
        if black_men >> king & 1 or black_men & (white_men | white_kings) or white_men & white_kings \
                or (white_men | white_kings) >> king & 1:
            raise fail("two pieces on one square")
        if bin(black_men).count("1") > KING_SIDE_MEN:
            raise fail(f"{bin(black_men).count('1')} King-side men (at most {KING_SIDE_MEN})")
        if bin(white_men | white_kings).count("1") > DEFENDER_PIECES:
            raise fail(f"{bin(white_men | white_kings).count('1')} Defender pieces (at most {DEFENDER_PIECES})")
        if white_men & column_mask(0):
            raise fail("a Defender man on column 1 (it would be a King)")
        return TaflPosition(black_men, king, white_men, white_kings, turn)

    def __str__(self) -> str:
        def side(men, kings):
            return ",".join([square_name(s) for s in _bits(men)] + ["K" + square_name(s) for s in _bits(kings)])

        return f"{self.turn}:W{side(self.white_men, self.white_kings)}:B{side(self.black_men, 1 << self.king)}"


# ---------------------------------------------------------------------------
# Steps, moves, the game
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TaflStep:
    """One decision: `slide` or `jump` from `frm` in direction `dir`, or
    `stop` a friendly chain on `frm` (dir None)."""

    kind: str
    frm: int
    dir: int | None = None

    def __str__(self) -> str:
        if self.kind == STOP:
            return f"{square_name(self.frm)}."
        n = 2 if self.kind == JUMP else 1
        land = self.frm
        for _ in range(n):
            land = step_sq(land, self.dir)
        return f"{square_name(self.frm)}{'^' if self.kind == JUMP else '-'}{'off' if land is None else square_name(land)}"


@dataclass(frozen=True)
class TaflMove:
    """A whole move: kind, start, landing squares, captured set, exit."""

    kind: str
    frm: int
    path: tuple
    captured: int
    exit: bool

    @property
    def to(self):
        return None if self.exit else (self.path[-1] if self.path else None)

    def key(self):
        return (self.kind, self.frm, self.to, self.captured)

    def __str__(self) -> str:
        sep = "x" if self.kind == MOVE_CAPTURE else "-"
        return square_name(self.frm) + "".join(sep + square_name(s) for s in self.path) + (sep + "off" if self.exit else "")


@dataclass(frozen=True)
class Pending:
    origin: int
    at: int
    kind: str
    visited: int
    captured: int
    remaining: int


MAN, KING = "man", "king"


@dataclass
class Game:
    """A game of Turkish Tafl (see the module docs)."""

    rules: TaflRules
    start: TaflPosition
    pos: TaflPosition
    pending: Pending | None = None
    path: tuple = ()
    moves: list = field(default_factory=list)
    history: list = field(default_factory=list)
    outcome: tuple | None = None  # (winner side or None, termination)

    @staticmethod
    def new(rules: TaflRules | str | None = None, position: TaflPosition | str | None = None) -> "Game":
        """A game under `rules` (TaflRules or rules text) from `position`
        (TaflPosition or its text; None or `startpos`: the initial position
        with `rules.first` to move)."""
        rules = TaflRules.parse(rules)
        if position is None or (isinstance(position, str) and position.strip() == "startpos"):
            pos = TaflPosition.startpos(rules.first)
        elif isinstance(position, str):
            pos = TaflPosition.parse(position)
        else:
            pos = position
        g = Game(rules, pos, pos, history=[pos])
        g.outcome = g._judge()
        return g

    def copy(self) -> "Game":
        return Game(self.rules, self.start, self.pos, self.pending, self.path, list(self.moves),
                    list(self.history), self.outcome)

    @property
    def turn(self) -> str:
        return self.pos.turn

    def plies(self) -> int:
        return len(self.moves)

    def repetitions(self) -> int:
        return sum(1 for p in self.history if p == self.pos)

    def chain_at(self):
        return None if self.pending is None else self.pending.at

    def in_friendly_chain(self) -> bool:
        return self.pending is not None and self.pending.kind == MOVE_FRIENDLY

    def chain_visited(self) -> int:
        return self.pending.visited if self.in_friendly_chain() else 0

    def captured_so_far(self) -> int:
        return 0 if self.pending is None else self.pending.captured

    def _piece(self, sq: int):
        p = self.pos
        if p.king == sq:
            return (KING, KING_SIDE)
        if p.black_men >> sq & 1:
            return (MAN, KING_SIDE)
        if p.white_men >> sq & 1:
            return (MAN, DEFENDER)
        if p.white_kings >> sq & 1:
            return (KING, DEFENDER)
        return None

    @staticmethod
    def _dirs(piece):
        if piece[0] == KING:
            return (UP, DOWN, RIGHT, LEFT)
        return (UP, RIGHT, LEFT) if piece[1] == KING_SIDE else (DOWN, RIGHT, LEFT)

    def _capture_jumps(self, sq: int) -> list:
        piece = self._piece(sq)
        if piece is None:
            return []
        side = self.pos.turn
        occ = self.pos.occupied()
        out = []
        for d in self._dirs(piece):
            mid = step_sq(sq, d)
            if mid is None:
                continue
            enemy = self.pos.pieces(DEFENDER) if side == KING_SIDE else self.pos.black_men
            if not enemy >> mid & 1:
                continue
            land = step_sq(mid, d)
            if land is not None and not occ >> land & 1:
                out.append((d, land))
            elif land is None and piece == (KING, KING_SIDE) and d == UP and self.rules.goal == "exit":
                out.append((d, None))
        return out

    def _has_capture(self) -> bool:
        return any(self._capture_jumps(sq) for sq in _bits(self.pos.pieces(self.pos.turn)))

    def _chains(self, piece) -> bool:
        return self.rules.defender_man_chain if piece == (MAN, DEFENDER) else True

    def _max_chain(self, sq: int, d: int) -> int:
        g = Game(self.rules, self.start, self.pos)
        piece = g._piece(sq)
        land = g._apply_capture_jump(sq, d)
        if land is None or piece is None or not g._chains(piece):
            return 1
        return 1 + max((g._max_chain(land, d2) for d2, _ in g._capture_jumps(land)), default=0)

    def _apply_capture_jump(self, sq: int, d: int):
        mid = step_sq(sq, d)
        p = self.pos
        keep = ~(1 << mid)
        self.pos = replace(p, white_men=p.white_men & keep, white_kings=p.white_kings & keep,
                           black_men=p.black_men & keep)
        land = step_sq(mid, d)
        if land is not None:
            self._relocate(sq, land)
        return land

    def _relocate(self, frm: int, to: int):
        p = self.pos
        b, t = 1 << frm, 1 << to
        if p.king == frm:
            self.pos = replace(p, king=to)
        elif p.black_men & b:
            self.pos = replace(p, black_men=p.black_men ^ b | t)
        elif p.white_men & b:
            self.pos = replace(p, white_men=p.white_men ^ b | t)
        elif p.white_kings & b:
            self.pos = replace(p, white_kings=p.white_kings ^ b | t)

    def _friendly_jumps(self, sq: int, visited: int) -> list:
        piece = self._piece(sq)
        if piece is None:
            return []
        own = self.pos.pieces(KING_SIDE)
        occ = self.pos.occupied()
        out = []
        for d in self._dirs(piece):
            mid = step_sq(sq, d)
            if mid is None or not own >> mid & 1:
                continue
            land = step_sq(mid, d)
            if land is not None and not occ >> land & 1 and not visited >> land & 1:
                out.append(d)
        return out

    def legal_steps(self) -> list:
        """The legal steps; empty once the game is over."""
        return [] if self.outcome is not None else self._steps()

    def _steps(self) -> list:
        out = []
        p = self.pending
        if p is not None:
            if p.kind == MOVE_CAPTURE:
                for d, _ in self._capture_jumps(p.at):
                    if not self.rules.majority or self._max_chain(p.at, d) >= p.remaining:
                        out.append(TaflStep(JUMP, p.at, d))
            else:
                out += [TaflStep(JUMP, p.at, d) for d in self._friendly_jumps(p.at, p.visited)]
                out.append(TaflStep(STOP, p.at))
            return out
        side = self.pos.turn
        if self._has_capture():
            jumps = [(sq, d) for sq in _bits(self.pos.pieces(side)) for d, _ in self._capture_jumps(sq)]
            if self.rules.majority:
                counts = [self._max_chain(s, d) for s, d in jumps]
                best = max(counts, default=0)
                return [TaflStep(JUMP, s, d) for (s, d), c in zip(jumps, counts) if c == best]
            return [TaflStep(JUMP, s, d) for s, d in jumps]
        occ = self.pos.occupied()
        for sq in _bits(self.pos.pieces(side)):
            piece = self._piece(sq)
            for d in self._dirs(piece):
                to = step_sq(sq, d)
                if to is not None and not occ >> to & 1:
                    out.append(TaflStep(SLIDE, sq, d))
                elif to is None and piece == (KING, KING_SIDE) and d == UP and self.rules.goal == "exit":
                    out.append(TaflStep(SLIDE, sq, d))
            if side == KING_SIDE:
                out += [TaflStep(JUMP, sq, d) for d in self._friendly_jumps(sq, 1 << sq)]
        return out

    def play_step(self, step: TaflStep) -> None:
        """Plays one legal step; ValueError for an illegal one."""
        if self.outcome is not None:
            raise ValueError("the game is over")
        if step not in self.legal_steps():
            raise ValueError(f"illegal step {step}")
        self._play_step(step)

    def _play_step(self, step: TaflStep) -> None:
        if step.kind == SLIDE:
            to = step_sq(step.frm, step.dir)
            if to is not None:
                self._relocate(step.frm, to)
                self.path = (to,)
                self._finish(step.frm, MOVE_SLIDE, 0, False)
            else:
                self.path = ()
                self._finish(step.frm, MOVE_SLIDE, 0, True)
            return
        if step.kind == STOP:
            p = self.pending
            self._finish(p.origin, MOVE_FRIENDLY, 0, False)
            return
        frm, d = step.frm, step.dir
        mid = step_sq(frm, d)
        friendly = bool(self.pos.pieces(self.pos.turn) >> mid & 1)
        p = self.pending
        if p is None:
            self.path = ()
            remaining = self._max_chain(frm, d) if self.rules.majority and not friendly else 0
            p = Pending(frm, frm, MOVE_FRIENDLY if friendly else MOVE_CAPTURE, 1 << frm, 0, remaining)
        if friendly:
            land = step_sq(mid, d)
            self._relocate(frm, land)
            self.path += (land,)
            p = replace(p, at=land, visited=p.visited | 1 << land)
            if self._friendly_jumps(land, p.visited):
                self.pending = p
            else:
                self._finish(p.origin, MOVE_FRIENDLY, 0, False)
            return
        piece = self._piece(frm)
        p = replace(p, captured=p.captured | 1 << mid, remaining=max(p.remaining - 1, 0))
        land = self._apply_capture_jump(frm, d)
        if land is None:
            self._finish(p.origin, MOVE_CAPTURE, p.captured, True)
            return
        self.path += (land,)
        p = replace(p, at=land)
        more = self._capture_jumps(land) if self._chains(piece) else []
        if more:
            self.pending = p
        else:
            self._finish(p.origin, MOVE_CAPTURE, p.captured, False)

    def _finish(self, frm: int, kind: str, captured: int, exit: bool) -> None:
        self.pending = None
        m = TaflMove(kind, frm, self.path, captured, exit)
        self.path = ()
        mover = self.pos.turn
        crowned = self.pos.white_men & column_mask(0)
        self.pos = replace(self.pos, white_men=self.pos.white_men & ~crowned,
                           white_kings=self.pos.white_kings | crowned, turn=_other(mover))
        self.moves.append(m)
        if exit:
            self.outcome = (KING_SIDE, "KingEscaped")
            return
        self.history.append(self.pos)
        self.outcome = self._judge()

    def _judge(self):
        if self.rules.goal == "column8" and self.pos.king // ROWS == 7:
            return (KING_SIDE, "KingEscaped")
        if self.pos.turn == KING_SIDE:
            if self.surrounded():
                return (DEFENDER, "KingSurrounded")
            if self.rules.lockup == "frozen" and locked(self.pos):
                return (DEFENDER, "Locked")
        if not self._steps():
            return (_other(self.pos.turn), "NoMoves")
        limit_winner = DEFENDER if self.rules.limit_result == "defender_wins" else None
        if self.repetitions() >= 3:
            return (limit_winner, "Repetition")
        if self.rules.ply_limit is not None and len(self.moves) >= self.rules.ply_limit:
            return (limit_winner, "PlyLimit")
        return None

    def surrounded(self) -> bool:
        defenders = self.pos.pieces(DEFENDER)
        for d in range(4):
            n = step_sq(self.pos.king, d)
            if n is not None:
                if not defenders >> n & 1:
                    return False
            elif not (self.rules.surround == "edge_counts" and d != UP):
                return False
        return True

    def legal_moves(self) -> list:
        """Every legal whole move, one per key (empty once over or mid-chain)."""
        out = []
        if self.pending is not None:
            return out
        self._collect(out, set())
        return out

    def _collect(self, out: list, seen: set) -> None:
        for s in self.legal_steps():
            g = self.copy()
            n = len(g.moves)
            g._play_step(s)
            if len(g.moves) > n:
                m = g.moves[-1]
                if m.key() not in seen:
                    seen.add(m.key())
                    out.append(m)
            else:
                g._collect(out, seen)

    def play(self, move: TaflMove) -> None:
        """Plays a whole legal move (its own path, step by step)."""
        if self.outcome is not None:
            raise ValueError("the game is over")
        if self.pending is not None:
            raise ValueError(f"illegal move `{move}` (a chain is in progress)")
        g = self.copy()
        at = move.frm
        path = list(move.path)
        i = 0
        while True:
            n = len(g.moves)
            nxt = path[i] if i < len(path) else None
            i += 1
            found = None
            for s in g.legal_steps():
                if s.kind == STOP:
                    if nxt is None:
                        found = s
                        break
                    continue
                if s.frm != at:
                    continue
                land = step_sq(s.frm, s.dir)
                if s.kind == JUMP:
                    land = step_sq(land, s.dir)
                if land == nxt:
                    found = s
                    break
            if found is None:
                raise ValueError(f"illegal move `{move}`")
            g._play_step(found)
            if len(g.moves) > n:
                if g.moves[-1].key() != move.key() or i < len(path):
                    raise ValueError(f"illegal move `{move}`")
                self.__dict__.update(g.__dict__)
                return
            if nxt is not None:
                at = nxt


def frozen(pos: TaflPosition) -> int:
    """The pieces that can never move or leave (crates/tafl/src/lockup.rs)."""
    f = pos.occupied() & ~(1 << pos.king)
    defenders = pos.pieces(DEFENDER)

    def dirs_of(sq):
        if pos.black_men >> sq & 1:
            return (UP, RIGHT, LEFT)
        if pos.white_men >> sq & 1:
            return (DOWN, RIGHT, LEFT)
        return (UP, DOWN, RIGHT, LEFT)

    while True:
        nxt = f
        for sq in _bits(f):
            def blocked(s):
                return s is None or bool(f >> s & 1)

            moves = any(not blocked(step_sq(sq, d)) or not blocked(step_sq(step_sq(sq, d), d))
                        for d in dirs_of(sq))

            def side_open(d):
                s = step_sq(sq, d)
                if s is not None:
                    return not f >> s & 1
                return d == UP and bool(defenders >> sq & 1)

            capturable = any(side_open(a) and side_open(b) for a, b in ((UP, DOWN), (RIGHT, LEFT)))
            if moves or capturable:
                nxt &= ~(1 << sq)
        if nxt == f:
            return f
        f = nxt


def locked(pos: TaflPosition) -> bool:
    """Whether the King can never reach the exit."""
    f = frozen(pos)
    own = pos.pieces(KING_SIDE)
    seen = 1 << pos.king
    stack = [pos.king]
    while stack:
        sq = stack.pop()
        if sq // ROWS == 7:
            return False
        for d in range(4):
            one = step_sq(sq, d)
            if one is None:
                continue
            if not f >> one & 1:
                n = one
            elif own >> one & 1:
                n = step_sq(one, d)
                n = n if n is not None and not f >> n & 1 else None
            else:
                n = None
            if n is not None and not seen >> n & 1:
                seen |= 1 << n
                stack.append(n)
    return True


def perft(game: Game, depth: int) -> int:
    """Distinct whole-move sequences of `depth` moves (ending early where the
    game does), as `dama_tafl::perft`."""
    if depth == 0:
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        g = game.copy()
        g.play(m)
        total += perft(g, depth - 1)
    return total


# ---------------------------------------------------------------------------
# Encoding (crates/tafl/src/encode.rs)
# ---------------------------------------------------------------------------


def encode_planes(game: Game) -> np.ndarray:
    """The `[12, 8, 4]` float32 input planes of `game`."""
    out = np.zeros((NUM_PLANES, SQUARES), dtype=np.float32)
    pos = game.pos

    def fill(plane, mask):
        for sq in _bits(mask):
            out[plane, sq] = 1.0

    fill(0, pos.black_men)
    fill(1, 1 << pos.king)
    fill(2, pos.white_men)
    fill(3, pos.white_kings)
    if game.turn == KING_SIDE:
        out[4] = 1.0
    if game.chain_at() is not None:
        fill(5, 1 << game.chain_at())
    if game.in_friendly_chain():
        out[6] = 1.0
    fill(7, game.chain_visited())
    fill(8, game.captured_so_far())
    if game.repetitions() >= 2:
        out[9] = 1.0
    limit = float(max(game.rules.ply_limit if game.rules.ply_limit is not None else 200, 1))
    out[10] = min(game.plies() / limit, 1.0)
    out[11] = 1.0
    return out.reshape(NUM_PLANES, 8, 4)


def policy_index(step: TaflStep) -> int:
    """The policy index of `step`."""
    plane = 8 if step.kind == STOP else (4 if step.kind == JUMP else 0) + step.dir
    return plane * SQUARES + step.frm


def decode_index(index: int):
    """The step a policy index denotes (legal or not), None out of range."""
    if not 0 <= index < POLICY_SIZE:
        return None
    plane, frm = divmod(index, SQUARES)
    if plane < 4:
        return TaflStep(SLIDE, frm, plane)
    if plane < 8:
        return TaflStep(JUMP, frm, plane - 4)
    return TaflStep(STOP, frm)
