"""One interface for every game a bundle can hold: `game(name, rules_text)`
gives an object with

    start()              the initial state
    parse(text)          a state from position text (ValueError if bad)
    legal_steps(state)   the decisions at `state` (quiet moves and single jumps)
    apply(state, step)   the state after one step (a new object; the argument is kept)
    encode_planes(state) float32 planes of shape `shape[:3]`
    policy_index(state, step), decode_index(state, index)
    shape                (planes, height, width, policy planes)
    policy_size, encoding_version, name, rules

`name` is `draughts` (Turkish draughts and its variants: rules text such as
`variant=croda,croda_removal=immediate`) or `tafl` (Turkish Tafl: rules text
such as `first=king_side,majority=on`). A draughts state is a
`movegen.State` (a Position, with a capture possibly in progress); a Tafl
state is a `tafl.Game`.
"""

from __future__ import annotations

from . import encode as _enc
from . import tafl as _tafl
from .movegen import State, play_step, state_steps
from .position import Position
from .rules import Rules

GAMES = ("draughts", "tafl")


class Draughts:
    """Turkish draughts or one of its variants under `rules`."""

    name = "draughts"
    shape = _enc.SHAPE
    policy_size = _enc.POLICY_SIZE
    encoding_version = _enc.ENCODING_VERSION

    def __init__(self, rules: Rules):
        self.rules = rules

    def start(self) -> State:
        return State(Position.startpos(self.rules))

    def parse(self, text: str) -> State:
        return State(Position.parse(text, self.rules))

    def legal_steps(self, state: State) -> list:
        return state_steps(state)

    def apply(self, state: State, step) -> State:
        return play_step(state, step)

    def encode_planes(self, state: State):
        return _enc.encode_planes(state)

    def policy_index(self, state: State, step) -> int:
        return _enc.policy_index(step, state.turn)

    def decode_index(self, state: State, index: int):
        """(from, to) squares of `index` for the side to move, or None."""
        return _enc.decode_index(index, state.turn)


class Tafl:
    """Turkish Tafl under `rules`."""

    name = "tafl"
    shape = _tafl.SHAPE
    policy_size = _tafl.POLICY_SIZE
    encoding_version = _tafl.ENCODING_VERSION

    def __init__(self, rules: _tafl.TaflRules):
        self.rules = rules

    def start(self) -> _tafl.Game:
        return _tafl.Game.new(self.rules)

    def parse(self, text: str) -> _tafl.Game:
        return _tafl.Game.new(self.rules, _tafl.TaflPosition.parse(text))

    def legal_steps(self, state: _tafl.Game) -> list:
        return state.legal_steps()

    def apply(self, state: _tafl.Game, step) -> _tafl.Game:
        g = state.copy()
        g.play_step(step)
        return g

    def encode_planes(self, state: _tafl.Game):
        return _tafl.encode_planes(state)

    def policy_index(self, state: _tafl.Game, step) -> int:
        return _tafl.policy_index(step)

    def decode_index(self, state: _tafl.Game, index: int):
        """The step `index` denotes (legal or not), or None."""
        return _tafl.decode_index(index)


def game(name: str = "draughts", rules: str | None = None):
    """The game `name` (`draughts` or `tafl`) under rules text `rules`
    (None or `default`: the game's default rules)."""
    n = (name or "draughts").strip().lower()
    if n == "draughts":
        return Draughts(Rules.parse(rules or "default"))
    if n == "tafl":
        return Tafl(_tafl.TaflRules.parse(rules))
    raise ValueError(f"unknown game `{name}` (draughts, tafl)")
