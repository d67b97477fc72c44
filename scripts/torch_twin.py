"""The dama network in PyTorch: `Net`, the twin of crates/nn/src/model.rs,
and loading a dama network and evaluating positions with it.

Why this stays pure Python (PyTorch) when everything else of dama comes from
Rust: scripts/bench_torch.py measures PyTorch itself against the Rust
network, so the network it runs must be PyTorch code; and loading weights
(a checkpoint's safetensors into `Net`, a bundle's TorchScript) needs only
torch and numpy. Positions, legal moves, the input planes and the policy
indices are not here: `evaluate` takes them from the compiled module `dama`
(crates/python: `pip install ./crates/python`, or scripts/test-python.sh
--build-only), the Rust encoder itself.

`Net` has the Rust network's architecture and parameter names (a residual
tower with squeeze-excitation, a convolutional policy head of policy planes x
squares, a WDL value head), so a checkpoint's safetensors load into it
unchanged; the board and the planes come from the checkpoint's `model` (the
defaults are Turkish draughts': 13 planes of 8 x 8, 56 policy planes, 3584
logits). Used by scripts/bench_torch.py, notebooks/bot.ipynb and
crates/python/tests.

Two sources, one interface (planes `[B, C, H, W]` -> policy logits, WDL
logits for the side to move):

* an exported bot bundle (`dama export --out DIR`): `DIR/model.ts`
  (TorchScript, traced by `dama export`) and `DIR/bundle.json`;
* a training checkpoint (`gen-NNNN.safetensors` with its `gen-NNNN.json`
  sidecar, or a bundle's `weights.safetensors`), run by `Net`; a run
  directory means its newest checkpoint.

`forward(module, planes)` runs either and returns `(policy_logits,
wdl_logits)`: a bundle's traced module returns one tensor `[B, P + 3]` (the
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

MODEL_KEYS = ["blocks", "channels", "se_channels", "policy_channels", "value_channels", "value_hidden"]
# The board and planes of a checkpoint's `model` (absent in older files: draughts').
SHAPE_KEYS = ["input_planes", "board_height", "board_width", "policy_planes"]

# Turkish draughts' network shape (crates/draughts/src/encode.rs), the
# default of `Net` and what scripts/bench_torch.py measures.
NUM_PLANES = 13
POLICY_PLANES = 56
POLICY_SIZE = POLICY_PLANES * 64

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
    def __init__(self, blocks, channels, se_channels, policy_channels, value_channels, value_hidden,
                 input_planes=NUM_PLANES, board_height=8, board_width=8, policy_planes=POLICY_PLANES):
        super().__init__()
        c = channels
        self.input = ConvBn(input_planes, c, 3)
        self.tower = nn.ModuleList([Block(c, se_channels) for _ in range(blocks)])
        self.policy = Head()
        self.policy.conv = nn.Conv2d(c, policy_channels, 3, padding=1, bias=False)
        self.policy.bn = nn.BatchNorm2d(policy_channels)
        self.policy.out = nn.Conv2d(policy_channels, policy_planes, 1)
        self.value = Head()
        self.value.conv = nn.Conv2d(c, value_channels, 1, bias=False)
        self.value.bn = nn.BatchNorm2d(value_channels)
        self.value.fc1 = nn.Linear(board_height * board_width * value_channels, value_hidden)
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

    @property
    def game(self) -> str:
        """The game the network plays (older files without it: draughts)."""
        return self.meta.get("game", "draughts")

    def describe(self) -> str:
        model = self.meta.get("model", {})
        arch = ", ".join(f"{k} {model[k]}" for k in MODEL_KEYS if k in model)
        step = self.meta.get("step", self.meta.get("training_step", "?"))
        return f"{self.game} {self.source} {self.path} (step {step}; {arch})"


def rules_text(meta: dict) -> str | None:
    """The rules a checkpoint's sidecar or a `bundle.json` records, as rules
    text for `dama.Game(rules=...)`: `game_rules_text` (every game but
    draughts), else the `rules` object of draughts (the Rust serde form,
    `no_capture_limit` 0 for off) or an older Tafl file's `tafl_rules`;
    None when there are none (the game's defaults)."""
    if meta.get("game_rules_text"):
        return meta["game_rules_text"]
    fields = meta.get("tafl_rules") if meta.get("game", "draughts") != "draughts" else meta.get("rules")
    if not isinstance(fields, dict):
        return None
    parts = []
    for key, value in fields.items():
        if key == "no_capture_limit" and not value:
            value = "off"
        parts.append(f"{key}={value}")
    return " ".join(parts) or None


def load_bundle(directory) -> Loaded:
    d = Path(directory)
    meta = json.loads((d / "bundle.json").read_text(encoding="utf-8"))
    if meta.get("kind", "network") != "network":
        raise ValueError(f"{d / 'bundle.json'}: a learned-evaluator bundle (kind {meta.get('kind')}); "
                         "Python does not evaluate learned evaluators: play it with `dama play --bundle DIR`")
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
    model = meta["model"]
    net = Net(**{k: model[k] for k in MODEL_KEYS}, **{k: model[k] for k in SHAPE_KEYS if k in model})
    state = read_safetensors(p)
    own = {k for k in net.state_dict() if not k.endswith("num_batches_tracked")}
    if own != set(state):
        raise ValueError(f"{p}: tensors differ from the twin: missing {sorted(own - set(state))}, "
                         f"unexpected {sorted(set(state) - own)}")
    mismatched = [k for k in own if net.state_dict()[k].shape != state[k].shape]
    if mismatched:
        raise ValueError(f"{p}: tensor shapes differ from the twin's for {sorted(mismatched)}")
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
    `[B, C, H, W]` without gradients: `(policy_logits [B, P], wdl_logits
    [B, 3])`."""
    with torch.no_grad():
        out = module(planes)
    if isinstance(out, (tuple, list)):
        return out[0], out[1]
    return out[:, :-3], out[:, -3:]


@dataclass
class Evaluation:
    """The network's view of one position: W/D/L probabilities for the side
    to move, and the legal actions (the decisions of the turn: a quiet move
    or a capture's first jump) with their policy index and probability (the
    softmax over the legal actions' logits, as the search's priors), best
    first."""

    game: object  # a dama.Game at the position
    wdl: np.ndarray
    steps: list  # [(action, policy index, probability)]

    @property
    def value(self) -> float:
        """Expected score in [-1, 1] for the side to move: P(win) - P(loss)."""
        return float(self.wdl[0] - self.wdl[2])


def check_encoding(loaded: Loaded, game) -> None:
    """Refuses a network whose encoding the module's `game` (a dama.Game)
    does not write: another version, other planes or another policy size."""
    meta, model = loaded.meta, loaded.meta.get("model", {})
    v = meta.get("encoding_version")
    if v is not None and v != game.encoding_version:
        raise ValueError(f"{loaded.path}: encoding version {v}, the dama module writes version "
                         f"{game.encoding_version} for {game.game} (install the module of the dama "
                         "version that wrote the network)")
    planes = meta.get("input_planes", model.get("input_planes"))
    size = meta.get("policy_size")
    if (planes is not None and planes != game.encode().shape[0]) or (size is not None and size != game.policy_size):
        raise ValueError(f"{loaded.path}: input planes {planes}, policy size {size}; the dama module writes "
                         f"{game.encode().shape[0]} and {game.policy_size} for {game.game}")


def evaluate(loaded: Loaded, positions: list, rules: str | None = None) -> list:
    """Runs the network on `positions` (position text of the network's game,
    read under `rules`, default the network's rules, or dama.Game objects):
    one `Evaluation` each. Needs the compiled module `dama`."""
    try:
        import dama
    except ImportError as e:
        raise ImportError("evaluate() needs dama's Python module: `pip install ./crates/python` "
                          "in the dama repository (or scripts/test-python.sh --build-only)") from e

    rules = rules if rules is not None else rules_text(loaded.meta)
    games = [dama.Game(loaded.game, rules=rules, position=p) if isinstance(p, str) else p for p in positions]
    for g in games:
        if g.game != loaded.game:
            raise ValueError(f"{loaded.path}: a {loaded.game} network, given a {g.game} position")
    if games:
        check_encoding(loaded, games[0])
    x = torch.from_numpy(np.stack([g.encode() for g in games]))
    policy, wdl = forward(loaded.module, x)
    wdl = torch.softmax(wdl.float(), dim=1).numpy()
    policy = policy.float().numpy()
    out = []
    for i, g in enumerate(games):
        actions = g.actions()
        if actions:
            logits = np.array([policy[i, index] for _, index in actions], dtype=np.float64)
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            ranked = sorted(((a, index, p) for (a, index), p in zip(actions, probs.tolist())), key=lambda t: -t[2])
        else:
            ranked = []
        out.append(Evaluation(g, wdl[i], ranked))
    return out
