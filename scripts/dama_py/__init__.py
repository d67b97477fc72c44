"""dama in Python: positions, legal steps, the network's input encoding and
policy indices exactly as crates/nn/src/encode.rs (the one Python encoder),
the network in PyTorch and loading a network (an exported bundle's
TorchScript, or a checkpoint's safetensors through the PyTorch twin `Net`,
both in `model`), and drawing boards with matplotlib.

Used by notebooks/bot.ipynb and scripts/bench_torch.py, and copied into every
bundle by `dama export` (without `check` and `draw`), so that a bundle is
usable from Python without the repository. Pure Python apart from `model`
(torch, numpy) and `draw` (matplotlib)."""

from .position import Position, square_name, parse_square, STARTPOS
from .movegen import legal_moves, legal_steps, perft, Step
from .encode import (
    ENCODING_VERSION,
    NUM_PLANES,
    POLICY_SIZE,
    encode_planes,
    policy_index,
    decode_index,
)

__all__ = [
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
