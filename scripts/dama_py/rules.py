"""The rules of Turkish draughts and its variants, read from and written as
the same text as the Rust `Rules` (crates/engine/src/rules.rs):

    Rules.parse("variant=croda,croda_removal=immediate")
    str(Rules())  # "promotion=end_of_move one_piece_each=draw no_capture_limit=50"

`default` or an empty text is standard Turkish draughts; `variant=...` (read
first, wherever it stands) picks the variant's defaults, which the other keys
change. Bad text raises ValueError naming the problem.
"""

from __future__ import annotations

from dataclasses import dataclass

TURKISH, ARMENIAN, CRODA, DAMEO = "turkish", "armenian", "croda", "dameo"
VARIANTS = (TURKISH, ARMENIAN, CRODA, DAMEO)
MAX_PIECES = {TURKISH: 16, ARMENIAN: 16, CRODA: 24, DAMEO: 18}

KEYS = (
    "variant=turkish|armenian|croda|dameo, promotion=end_of_move|continue_as_king, "
    "one_piece_each=draw|king_beats_man|play_on, no_capture_limit=N|off, "
    "croda_removal=end_of_move|immediate, croda_man_captures=all|forward_sideways"
)

_CHOICES = {
    "promotion": ("promotion", {"end_of_move": "end_of_move", "continue_as_king": "continue_as_king"}),
    "promotion_mid_capture": ("promotion", {"end_of_move": "end_of_move", "continue_as_king": "continue_as_king"}),
    "one_piece_each": ("one_piece_each", {"draw": "draw", "king_beats_man": "king_beats_man", "play_on": "play_on"}),
    "croda_removal": ("croda_removal", {"end_of_move": "end_of_move", "immediate": "immediate"}),
    "croda_man_captures": (
        "croda_man_captures",
        {"all": "all", "all_orthogonal": "all", "forward_sideways": "forward_sideways",
         "forward_and_sideways": "forward_sideways"},
    ),
}


def _variant(text: str) -> str:
    v = text.strip().lower()
    if v not in VARIANTS:
        raise ValueError(f"bad rules: unknown variant `{text}` (turkish, armenian, croda, dameo)")
    return v


@dataclass(frozen=True)
class Rules:
    """The variant and the rule options (`Rules()` is standard Turkish
    draughts; `Rules.for_variant(v)` each variant's defaults)."""

    variant: str = TURKISH
    promotion: str = "end_of_move"
    one_piece_each: str = "draw"
    no_capture_limit: int | None = 50
    croda_removal: str = "end_of_move"
    croda_man_captures: str = "all"

    @staticmethod
    def for_variant(variant: str) -> "Rules":
        v = _variant(variant)
        turkish = v == TURKISH
        return Rules(v, "end_of_move", "draw" if turkish else "play_on", 50 if turkish else None)

    @staticmethod
    def parse(text: str | None) -> "Rules":
        """Rules from rules text, as Rust's `Rules::from_str`."""
        if text is None:
            return Rules()
        if isinstance(text, Rules):
            return text
        pairs = [p for p in text.replace(",", " ").split() if p]
        variant = TURKISH
        for p in pairs:
            if p.startswith("variant="):
                variant = _variant(p[len("variant="):])
        fields = Rules.for_variant(variant).__dict__.copy()
        for p in pairs:
            if p == "default":
                fields = Rules.for_variant(variant).__dict__.copy()
                continue
            if "=" not in p:
                raise ValueError(f"bad rules: `{p}` is not key=value ({KEYS})")
            k, v = p.split("=", 1)
            if k == "variant":
                continue
            if k == "no_capture_limit":
                if v in ("off", "none"):
                    fields["no_capture_limit"] = None
                elif v.isdigit() and 0 < int(v) <= 65535:
                    fields["no_capture_limit"] = int(v)
                else:
                    raise ValueError(f"bad rules: bad value in `{p}` ({KEYS})")
            elif k in _CHOICES:
                name, values = _CHOICES[k]
                if v not in values:
                    raise ValueError(f"bad rules: bad value in `{p}` ({KEYS})")
                fields[name] = values[v]
            else:
                raise ValueError(f"bad rules: unknown key `{k}` ({KEYS})")
        return Rules(**fields)

    @staticmethod
    def from_config(d: dict | None) -> "Rules":
        """Rules from a checkpoint's or bundle's `rules` object (the Rust
        serde form: `promotion_mid_capture`, `no_capture_limit` 0 for off)."""
        if not isinstance(d, dict):
            return Rules()
        parts = [f"variant={d.get('variant', TURKISH)}"]
        for key, value in d.items():
            if key == "variant":
                continue
            if key == "no_capture_limit":
                value = "off" if not value else value
            parts.append(f"{key}={value}")
        return Rules.parse(" ".join(parts))

    def __str__(self) -> str:
        out = [] if self.variant == TURKISH else [f"variant={self.variant}"]
        out.append(f"promotion={self.promotion}")
        out.append(f"one_piece_each={self.one_piece_each}")
        out.append(f"no_capture_limit={'off' if self.no_capture_limit is None else self.no_capture_limit}")
        croda = self.variant == CRODA
        if croda or self.croda_removal != "end_of_move":
            out.append(f"croda_removal={self.croda_removal}")
        if croda or self.croda_man_captures != "all":
            out.append(f"croda_man_captures={self.croda_man_captures}")
        return " ".join(out)

    # What move generation needs (the Rust `Rules` helpers).
    @property
    def orthogonal_family(self) -> bool:
        """Croda or Dameo: their own move generator."""
        return self.variant in (CRODA, DAMEO)

    @property
    def continue_as_king(self) -> bool:
        return not self.orthogonal_family and self.promotion == "continue_as_king"

    @property
    def removes_at_end(self) -> bool:
        if self.variant in (TURKISH, ARMENIAN):
            return False
        if self.variant == CRODA:
            return self.croda_removal == "end_of_move"
        return True

    @property
    def men_capture_backward(self) -> bool:
        if self.variant in (TURKISH, ARMENIAN):
            return False
        if self.variant == CRODA:
            return self.croda_man_captures == "all"
        return True

    @property
    def max_pieces(self) -> int:
        return MAX_PIECES[self.variant]
