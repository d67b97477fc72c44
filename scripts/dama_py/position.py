"""Positions of Turkish draughts in the engine's text format.

Squares are numbered as in crates/engine: index = 8 * rank + file, a1 = 0,
h8 = 63. White's men move North (towards rank 8), Black's South.

`W:Wa2,b2,Kd4:Ba7,Kh8` is the side to move, then each side's squares after its
letter, `K` before a king; `startpos` is the initial position (White's men on
ranks 2 and 3, Black's on ranks 6 and 7, White to move).
"""

from __future__ import annotations

from dataclasses import dataclass, field

WHITE, BLACK = "W", "B"
STARTPOS = "startpos"


def square_name(sq: int) -> str:
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_square(text: str) -> int:
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in "abcdefgh" or t[1] not in "12345678":
        raise ValueError(f"bad square `{text}`")
    return (int(t[1]) - 1) * 8 + "abcdefgh".index(t[0])


@dataclass
class Position:
    """Pieces by square: `pieces[sq] = (color, is_king)`; the side to move;
    the draw counters the encoder reads (0 for a parsed position)."""

    pieces: dict = field(default_factory=dict)
    turn: str = WHITE
    plies_since_capture: int = 0
    no_capture_limit: int | None = 50
    repetition: bool = False

    @staticmethod
    def startpos() -> "Position":
        pieces = {sq: (WHITE, False) for sq in range(8, 24)}
        pieces.update({sq: (BLACK, False) for sq in range(40, 56)})
        return Position(pieces, WHITE)

    @staticmethod
    def parse(text: str) -> "Position":
        t = text.strip()
        if t.lower() == STARTPOS:
            return Position.startpos()
        fields = t.split(":")
        if len(fields) != 3:
            raise ValueError(f"bad position `{text}`: want `W:W<squares>:B<squares>`")
        turn = fields[0].strip().upper()
        if turn not in (WHITE, BLACK):
            raise ValueError(f"bad side to move `{fields[0]}`")
        pieces = {}
        for f in fields[1:]:
            f = f.strip()
            color = f[:1].upper()
            if color not in (WHITE, BLACK):
                raise ValueError(f"bad field `{f}`")
            for item in f[1:].split(","):
                item = item.strip()
                if not item:
                    continue
                king = item[0] in "Kk"
                sq = parse_square(item[1:] if king else item)
                if sq in pieces:
                    raise ValueError(f"two pieces on {square_name(sq)}")
                pieces[sq] = (color, king)
        return Position(pieces, turn)

    def __str__(self) -> str:
        out = [self.turn]
        for color in (WHITE, BLACK):
            sqs = sorted(s for s, (c, _) in self.pieces.items() if c == color)
            out.append(color + ",".join(("K" if self.pieces[s][1] else "") + square_name(s) for s in sqs))
        return ":".join(out)

    def copy(self) -> "Position":
        return Position(dict(self.pieces), self.turn, self.plies_since_capture, self.no_capture_limit, self.repetition)
