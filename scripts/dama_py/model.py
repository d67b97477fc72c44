"""Loading a dama network in Python and evaluating positions with it.

Two sources, one interface (planes `[B, 12, 8, 8]` -> policy logits
`[B, 1792]`, WDL logits `[B, 3]`, win/draw/loss for the side to move):

* an exported bot bundle (`dama export --out DIR`): `DIR/model.ts`
  (TorchScript) and `DIR/bundle.json` (its encoding version is checked);
* a training checkpoint (`gen-NNNN.safetensors` with its `gen-NNNN.json`
  sidecar), run by the PyTorch twin of the Rust network in
  scripts/bench_torch.py; a run directory means its newest checkpoint.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .encode import ENCODING_VERSION, NUM_PLANES, POLICY_SIZE, encode_planes, policy_index
from .movegen import legal_steps
from .position import Position

_SCRIPTS = Path(__file__).resolve().parent.parent
MODEL_KEYS = ["blocks", "channels", "se_channels", "policy_channels", "value_channels", "value_hidden"]


@dataclass
class Loaded:
    """A network ready to run, and where it came from."""

    module: torch.nn.Module
    source: str  # "bundle" or "checkpoint"
    path: Path
    meta: dict

    def describe(self) -> str:
        model = self.meta.get("model", {})
        arch = ", ".join(f"{k} {model[k]}" for k in MODEL_KEYS if k in model)
        step = self.meta.get("step", self.meta.get("training_step", "?"))
        return f"{self.source} {self.path} (step {step}; {arch})"


def _check_encoding(meta: dict, path: Path):
    v = meta.get("encoding_version")
    if v is not None and v != ENCODING_VERSION:
        raise ValueError(f"{path}: encoding version {v}, this encoder writes version {ENCODING_VERSION}")


def load_bundle(directory) -> Loaded:
    d = Path(directory)
    meta = json.loads((d / "bundle.json").read_text(encoding="utf-8"))
    _check_encoding(meta, d / "bundle.json")
    if meta.get("input_planes", NUM_PLANES) != NUM_PLANES or meta.get("policy_size", POLICY_SIZE) != POLICY_SIZE:
        raise ValueError(f"{d / 'bundle.json'}: input planes {meta.get('input_planes')}, policy size "
                         f"{meta.get('policy_size')}; the encoder writes {NUM_PLANES} and {POLICY_SIZE}")
    module = torch.jit.load(str(d / meta.get("model_file", "model.ts")), map_location="cpu").eval()
    return Loaded(module, "bundle", d, meta)


def newest_checkpoint(run_dir) -> Path:
    """The highest `gen-NNNN.safetensors` of a run (optimizer files skipped)."""
    models = Path(run_dir) / "models"
    found = [p for p in models.glob("gen-*.safetensors") if re.fullmatch(r"gen-\d+\.safetensors", p.name)]
    if not found:
        raise FileNotFoundError(f"no gen-NNNN.safetensors in {models}")
    return max(found, key=lambda p: int(p.stem.split("-")[1]))


def load_checkpoint(path) -> Loaded:
    p = Path(path)
    sidecar = p.with_suffix(".json")
    meta = json.loads(sidecar.read_text(encoding="utf-8"))
    _check_encoding(meta, sidecar)
    if str(_SCRIPTS) not in sys.path:
        sys.path.insert(0, str(_SCRIPTS))
    from bench_torch import Net, read_safetensors  # the PyTorch twin

    model = meta["model"]
    if model.get("input_planes", NUM_PLANES) != NUM_PLANES:
        raise ValueError(f"{sidecar}: {model['input_planes']} input planes, the encoder writes {NUM_PLANES}")
    net = Net(**{k: model[k] for k in MODEL_KEYS})
    state = read_safetensors(p)
    own = {k for k in net.state_dict() if not k.endswith("num_batches_tracked")}
    if own != set(state):
        raise ValueError(f"{p}: tensors differ from the twin: missing {sorted(own - set(state))}, "
                         f"unexpected {sorted(set(state) - own)}")
    net.load_state_dict(state, strict=False)
    return Loaded(net.eval(), "checkpoint", p, meta)


def load(path) -> Loaded:
    """A bundle directory, a checkpoint file, or a run directory (its newest
    checkpoint)."""
    p = Path(path)
    if p.is_dir() and (p / "bundle.json").exists():
        return load_bundle(p)
    if p.is_dir():
        return load_checkpoint(newest_checkpoint(p))
    return load_checkpoint(p)


@dataclass
class Evaluation:
    """The network's view of one position: W/D/L probabilities for the side
    to move, and the legal steps with their policy probabilities (the softmax
    over the legal steps' logits, as the search's priors), best first."""

    position: Position
    wdl: np.ndarray
    steps: list  # [(Step, probability)]

    @property
    def value(self) -> float:
        """Expected score in [-1, 1] for the side to move: P(win) - P(loss)."""
        return float(self.wdl[0] - self.wdl[2])


def evaluate(loaded: Loaded, positions: list) -> list:
    """Runs the network on `positions` (Position objects or position text)."""
    positions = [Position.parse(p) if isinstance(p, str) else p for p in positions]
    x = torch.from_numpy(np.stack([encode_planes(p) for p in positions]))
    with torch.no_grad():
        policy, wdl = loaded.module(x)
    wdl = torch.softmax(wdl.float(), dim=1).numpy()
    policy = policy.float().numpy()
    out = []
    for i, pos in enumerate(positions):
        steps = legal_steps(pos)
        if steps:
            logits = np.array([policy[i, policy_index(s, pos.turn)] for s in steps], dtype=np.float64)
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            ranked = sorted(zip(steps, probs.tolist()), key=lambda t: -t[1])
        else:
            ranked = []
        out.append(Evaluation(pos, wdl[i], ranked))
    return out
