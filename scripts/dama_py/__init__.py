"""dama in Python: positions, legal steps, the network's input encoding and
policy indices exactly as the Rust engines and encoders, for every game:

* Turkish draughts and its variants (`rules`: `Rules.parse("variant=croda")`,
  the Rust rules text; `position`, `movegen`: positions, whole moves, steps
  jump by jump, perft; `encode`: crates/draughts/src/encode.rs);
* Turkish Tafl (`tafl`: positions, rules text, steps, moves, perft, and the
  encoder of crates/tafl/src/encode.rs);
* `game(name, rules_text)` (in `games`): one interface over both, for code
  that works with whatever game a bundle holds:

      g = dama_py.game("tafl", "first=king_side")   # or ("draughts", "variant=dameo")
      s = g.start()                                 # or g.parse("W:...")
      steps = g.legal_steps(s)
      x = g.encode_planes(s)                        # shape g.shape[:3]
      i = g.policy_index(s, steps[0])               # < g.policy_size
      s = g.apply(s, steps[0])

plus the network in PyTorch and loading a network (an exported bundle's
TorchScript, or a checkpoint's safetensors through the PyTorch twin `Net`,
both in `model`), and drawing boards with matplotlib.

Used by notebooks/bot.ipynb and scripts/bench_torch.py, and copied into every
bundle by `dama export` (without `check` and `draw`), so that a bundle is
usable from Python without the repository. Pure Python apart from `model`
(torch, numpy) and `draw` (matplotlib)."""

from .rules import Rules
from .position import Position, square_name, parse_square, STARTPOS
from .movegen import legal_moves, legal_steps, perft, Step, State, state_steps, play_step
from .games import game, GAMES
from .encode import (
    ENCODING_VERSION,
    NUM_PLANES,
    POLICY_SIZE,
    encode_planes,
    policy_index,
    decode_index,
)

__all__ = [
    "Rules",
    "State",
    "state_steps",
    "play_step",
    "game",
    "GAMES",
    "Position",
    "square_name",
    "parse_square",
    "STARTPOS",
    "legal_moves",
    "legal_steps",
    "perft",
    "Step",
    "ENCODING_VERSION",
    "NUM_PLANES",
    "POLICY_SIZE",
    "encode_planes",
    "policy_index",
    "decode_index",
]
