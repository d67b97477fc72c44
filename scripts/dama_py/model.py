"""The network in Python: the PyTorch twin of crates/nn/src/model.rs, and
loading a dama network and evaluating positions with it.

`Net` has the Rust network's architecture and parameter names (a residual
tower with squeeze-excitation, a convolutional policy head of 56 planes x 64
squares = 3584 logits, a WDL value head), so a checkpoint's safetensors load
into it unchanged. It is the one twin: scripts/bench_torch.py benchmarks it,
the notebooks and `dama_py.check` run checkpoints with it.

Two sources, one interface (planes `[B, 13, 8, 8]` -> policy logits
`[B, 3584]`, WDL logits `[B, 3]`, win/draw/loss for the side to move):

* an exported bot bundle (`dama export --out DIR`): `DIR/model.ts`
  (TorchScript, traced by `dama export`) and `DIR/bundle.json` (its encoding
  version is checked); the bundle carries a copy of this package, so
  `sys.path.insert(0, DIR)` then `from dama_py import model` works without
  the dama repository;
* a training checkpoint (`gen-NNNN.safetensors` with its `gen-NNNN.json`
  sidecar, or a bundle's `weights.safetensors`), run by `Net`; a run
  directory means its newest checkpoint.

`forward(module, planes)` runs either and returns `(policy_logits,
wdl_logits)`: a bundle's traced module returns one tensor `[B, 3587]` (the
policy logits, then the WDL logits), bundles of format 1 a tuple.
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .encode import ENCODING_VERSION, NUM_PLANES, POLICY_PLANES, POLICY_SIZE, encode_planes, policy_index
from .movegen import legal_steps
from .position import Position
from .rules import Rules

MODEL_KEYS = ["blocks", "channels", "se_channels", "policy_channels", "value_channels", "value_hidden"]

# Network shapes of crates/nn/src/config.rs (`ModelConfig::default()` and `quick()`).
MODELS = {
    "default": dict(blocks=6, channels=64, se_channels=16, policy_channels=32, value_channels=8, value_hidden=128),
    "quick": dict(blocks=2, channels=32, se_channels=8, policy_channels=16, value_channels=4, value_hidden=32),
}


class ConvBn(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn(self.conv(x))


class SqueezeExcite(nn.Module):
    def __init__(self, c, s):
        super().__init__()
        self.fc1 = nn.Linear(c, s)
        self.fc2 = nn.Linear(s, 2 * c)
        self.c = c

    def forward(self, x):
        g = self.fc2(F.relu(self.fc1(x.mean(dim=(2, 3)))))
        g = g.view(-1, 2, self.c, 1, 1)
        return x * torch.sigmoid(g[:, 0]) + g[:, 1]


class Block(nn.Module):
    def __init__(self, c, s):
        super().__init__()
        a, b = ConvBn(c, c, 3), ConvBn(c, c, 3)
        # Names as in the Rust model: tower.{i}.conv1 / bn1 / conv2 / bn2 / se.
        self.conv1, self.bn1, self.conv2, self.bn2 = a.conv, a.bn, b.conv, b.bn
        self.se = SqueezeExcite(c, s) if s > 0 else None

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        if self.se is not None:
            y = self.se(y)
        return F.relu(x + y)


class Head(nn.Module):
    pass


class Net(nn.Module):
    def __init__(self, blocks, channels, se_channels, policy_channels, value_channels, value_hidden):
        super().__init__()
        c = channels
        self.input = ConvBn(NUM_PLANES, c, 3)
        self.tower = nn.ModuleList([Block(c, se_channels) for _ in range(blocks)])
        self.policy = Head()
        self.policy.conv = nn.Conv2d(c, policy_channels, 3, padding=1, bias=False)
        self.policy.bn = nn.BatchNorm2d(policy_channels)
        self.policy.out = nn.Conv2d(policy_channels, POLICY_PLANES, 1)
        self.value = Head()
        self.value.conv = nn.Conv2d(c, value_channels, 1, bias=False)
        self.value.bn = nn.BatchNorm2d(value_channels)
        self.value.fc1 = nn.Linear(64 * value_channels, value_hidden)
        self.value.fc2 = nn.Linear(value_hidden, 3)

    def forward(self, x):
        h = F.relu(self.input(x))
        for b in self.tower:
            h = b(h)
        p = F.relu(self.policy.bn(self.policy.conv(h)))
        p = self.policy.out(p).flatten(1)
        v = F.relu(self.value.bn(self.value.conv(h))).flatten(1)
        v = self.value.fc2(F.relu(self.value.fc1(v)))
        return p, v


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        assert meta["dtype"] == "F32", meta
        a, b = meta["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(body[a:b], dtype=np.float32).copy()).view(meta["shape"])
    return out


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


def _check_encoding(meta: dict, path: Path, tafl_ok: bool = False):
    from . import tafl

    game = meta.get("game", "draughts")
    if game == "tafl" and tafl_ok:
        v = meta.get("encoding_version")
        if v is not None and v != tafl.ENCODING_VERSION:
            raise ValueError(f"{path}: Tafl encoding version {v}, dama_py.tafl writes version {tafl.ENCODING_VERSION}")
        if meta.get("input_planes", tafl.NUM_PLANES) != tafl.NUM_PLANES \
                or meta.get("policy_size", tafl.POLICY_SIZE) != tafl.POLICY_SIZE:
            raise ValueError(f"{path}: input planes {meta.get('input_planes')}, policy size {meta.get('policy_size')}; "
                             f"dama_py.tafl writes {tafl.NUM_PLANES} and {tafl.POLICY_SIZE}")
        return
    if game != "draughts":
        raise ValueError(f"{path}: a {game} network; the PyTorch twin `Net` and `evaluate` are for Turkish "
                         "draughts networks (load a Turkish Tafl bundle's model.ts with load_bundle, and encode "
                         "with dama_py.tafl or dama_py.game('tafl', rules))")
    v = meta.get("encoding_version")
    if v is not None and v != ENCODING_VERSION:
        raise ValueError(f"{path}: encoding version {v}, this encoder writes version {ENCODING_VERSION}")


def load_bundle(directory) -> Loaded:
    d = Path(directory)
    meta = json.loads((d / "bundle.json").read_text(encoding="utf-8"))
    if meta.get("kind", "network") != "network":
        raise ValueError(f"{d / 'bundle.json'}: a learned-evaluator bundle (kind {meta.get('kind')}); "
                         "dama_py does not evaluate learned evaluators: play it with `dama play --bundle DIR`")
    _check_encoding(meta, d / "bundle.json", tafl_ok=True)
    if meta.get("game", "draughts") == "draughts" and (
            meta.get("input_planes", NUM_PLANES) != NUM_PLANES or meta.get("policy_size", POLICY_SIZE) != POLICY_SIZE):
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


def forward(module, planes):
    """Runs `module` (a bundle's TorchScript or a `Net`) on float32 planes
    (`[B, 13, 8, 8]` for draughts, `[B, 12, 8, 4]` for Turkish Tafl) without
    gradients: `(policy_logits [B, 3584 or 288], wdl_logits [B, 3])`."""
    with torch.no_grad():
        out = module(planes)
    if isinstance(out, (tuple, list)):
        return out[0], out[1]
    return out[:, :-3], out[:, -3:]


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


def variant(loaded: Loaded) -> str:
    """The game the network was trained for: `turkish`, `armenian`, `croda`
    or `dameo` (older files without it are Turkish)."""
    rules = loaded.meta.get("rules")
    return rules.get("variant", "turkish") if isinstance(rules, dict) else "turkish"


def network_rules(loaded: Loaded) -> Rules:
    """The draughts rules the network was trained under (its metadata's
    `rules`; standard Turkish draughts for older files)."""
    return Rules.from_config(loaded.meta.get("rules"))


def evaluate(loaded: Loaded, positions: list, rules=None) -> list:
    """Runs the network on `positions` (Position objects or position text,
    read under `rules`: Rules or rules text, default the network's rules;
    legal steps follow the position's rules)."""
    if loaded.meta.get("game", "draughts") != "draughts":
        raise ValueError(f"{loaded.path}: a {loaded.meta.get('game')} network; evaluate() is for draughts "
                         "(use forward() with dama_py.game('tafl', rules))")
    rules = Rules.parse(rules) if rules is not None else network_rules(loaded)
    positions = [Position.parse(p, rules) if isinstance(p, str) else p for p in positions]
    x = torch.from_numpy(np.stack([encode_planes(p) for p in positions]))
    policy, wdl = forward(loaded.module, x)
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
