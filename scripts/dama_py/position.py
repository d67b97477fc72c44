"""Positions of Turkish draughts in the engine's text format.

Squares are numbered as in crates/engine: index = 8 * rank + file, a1 = 0,
h8 = 63. White's men move North (towards rank 8), Black's South.

`W:Wa2,b2,Kd4:Ba7,Kh8` is the side to move, then each side's squares after its
letter, `K` before a king; `startpos` is the initial position of the rules'
variant (Turkish and Armenian: men on ranks 2-3 and 6-7; Croda: ranks 1-3 and
6-8; Dameo: the trapezoid a1-h1, b2-g2, c3-f3 and its mirror), White to move.
A position carries its `Rules` (`rules`, default standard Turkish draughts);
parsing checks it as the engine does (no man on its promotion row, at most
the variant's number of pieces a side).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import CRODA, DAMEO, Rules

WHITE, BLACK = "W", "B"
STARTPOS = "startpos"


def square_name(sq: int) -> str:
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_square(text: str) -> int:
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in "abcdefgh" or t[1] not in "12345678":
        raise ValueError(f"bad square `{text}`")
    return (int(t[1]) - 1) * 8 + "abcdefgh".index(t[0])


def _initial_squares(variant: str) -> tuple:
    """White's and Black's squares in the variant's initial position."""
    if variant == CRODA:
        return range(0, 24), range(40, 64)
    if variant == DAMEO:
        white = [sq for r, (lo, hi) in enumerate([(0, 8), (1, 7), (2, 6)]) for sq in range(8 * r + lo, 8 * r + hi)]
        return white, [sq ^ 56 for sq in white]
    return range(8, 24), range(40, 56)


@dataclass
class Position:
    """Pieces by square: `pieces[sq] = (color, is_king)`; the side to move;
    the draw counters the encoder reads (0 for a parsed position); the rules
    (None: standard Turkish draughts)."""

    pieces: dict = field(default_factory=dict)
    turn: str = WHITE
    plies_since_capture: int = 0
    no_capture_limit: int | None = 50
    repetition: bool = False
    rules: Rules | None = None

    @property
    def game_rules(self) -> Rules:
        """The rules in force (standard Turkish draughts when `rules` is None)."""
        return self.rules if self.rules is not None else Rules()

    @staticmethod
    def startpos(rules: Rules | str | None = None) -> "Position":
        rules = Rules.parse(rules) if rules is not None else None
        white, black = _initial_squares(rules.variant if rules else "turkish")
        pieces = {sq: (WHITE, False) for sq in white}
        pieces.update({sq: (BLACK, False) for sq in black})
        return Position(pieces, WHITE, 0, rules.no_capture_limit if rules else 50, False, rules)

    @staticmethod
    def parse(text: str, rules: Rules | str | None = None) -> "Position":
        """A position from its text under `rules` (Rules or rules text; None:
        standard Turkish draughts); ValueError naming what is wrong."""
        rules = Rules.parse(rules) if rules is not None else None
        t = text.strip()
        if not t:
            raise ValueError("bad position: empty text")
        if t.lower() == STARTPOS:
            return Position.startpos(rules)
        fields = t.split(":")
        if len(fields) != 3:
            raise ValueError(f"bad position `{text}`: want `W:W<squares>:B<squares>`")
        turn = fields[0].strip().upper()
        if turn not in (WHITE, BLACK):
            raise ValueError(f"bad position `{text}`: bad side to move `{fields[0]}`")
        pieces = {}
        for f in fields[1:]:
            f = f.strip()
            color = f[:1].upper()
            if color not in (WHITE, BLACK):
                raise ValueError(f"bad position `{text}`: bad field `{f}`")
            for item in f[1:].split(","):
                item = item.strip()
                if not item:
                    continue
                king = item[0] in "Kk"
                sq = parse_square(item[1:] if king else item)
                if sq in pieces:
                    raise ValueError(f"bad position `{text}`: two pieces on {square_name(sq)}")
                pieces[sq] = (color, king)
        r = rules if rules is not None else Rules()
        for color in (WHITE, BLACK):
            n = sum(c == color for c, _ in pieces.values())
            if n > r.max_pieces:
                raise ValueError(f"bad position `{text}`: {n} pieces of {color} (at most {r.max_pieces} in {r.variant})")
        for sq, (color, king) in pieces.items():
            if not king and sq // 8 == (7 if color == WHITE else 0):
                raise ValueError(f"bad position `{text}`: a man of {color} on its promotion row ({square_name(sq)})")
        return Position(pieces, turn, 0, rules.no_capture_limit if rules else 50, False, rules)

    def __str__(self) -> str:
        out = [self.turn]
        for color in (WHITE, BLACK):
            sqs = sorted(s for s, (c, _) in self.pieces.items() if c == color)
            out.append(color + ",".join(("K" if self.pieces[s][1] else "") + square_name(s) for s in sqs))
        return ":".join(out)

    def copy(self) -> "Position":
        return Position(dict(self.pieces), self.turn, self.plies_since_capture, self.no_capture_limit,
                        self.repetition, self.rules)
