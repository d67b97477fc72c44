#!/usr/bin/env python3
"""Turns dama-nn weights into a TorchScript module (run by `dama export`).

    python scripts/export_torchscript.py --weights W.safetensors \
        --model '{"blocks": 6, ...}' --out model.ts [--check DIR] [--tolerance T]

The architecture is the PyTorch twin of crates/nn/src/model.rs kept in
scripts/bench_torch.py (same parameter names and shapes). The weights are read
from the safetensors file without the `safetensors` package. Every tensor name
and shape must match the twin exactly.

--check DIR holds fixed inputs and the Rust network's outputs on them, written
by `dama export`: input.f32 ([n, 12, 8, 8]), policy.f32 ([n, 1792] logits) and
wdl.f32 ([n, 3] probabilities), raw little-endian float32. The saved module is
loaded back with torch.jit.load and its outputs compared; the script fails if
the largest difference exceeds the tolerance.

The module's forward takes float32 planes [B, 12, 8, 8] and returns the tuple
(policy_logits [B, 1792], wdl_logits [B, 3]). The last line printed is a JSON
object with the figures.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_torch import NUM_PLANES, POLICY_SIZE, Net, read_safetensors  # noqa: E402

MODEL_KEYS = ["blocks", "channels", "se_channels", "policy_channels", "value_channels", "value_hidden"]


def build(model, weights):
    if model.get("input_planes", NUM_PLANES) != NUM_PLANES:
        sys.exit(f"model.input_planes is {model['input_planes']}, this exporter knows {NUM_PLANES}")
    net = Net(**{k: model[k] for k in MODEL_KEYS})
    state = read_safetensors(weights)
    own = {k: v for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")}
    problems = [f"missing tensor {k}" for k in sorted(set(own) - set(state))]
    problems += [f"unexpected tensor {k}" for k in sorted(set(state) - set(own))]
    problems += [
        f"tensor {k} has shape {list(state[k].shape)}, the twin expects {list(v.shape)}"
        for k, v in own.items()
        if k in state and state[k].shape != v.shape
    ]
    if problems:
        sys.exit("the weights do not fit the PyTorch twin: " + "; ".join(problems))
    net.load_state_dict(state, strict=False)
    return net.eval(), len(state)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weights", required=True)
    ap.add_argument("--model", required=True, help="model config as JSON text")
    ap.add_argument("--out", required=True)
    ap.add_argument("--check")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    args = ap.parse_args()
    torch.set_num_threads(1)
    net, tensors = build(json.loads(args.model), args.weights)
    try:
        module = torch.jit.script(net)
        how = "script"
    except Exception as e:  # pragma: no cover - fallback for odd torch versions
        print(f"torch.jit.script failed ({e}); tracing instead", file=sys.stderr)
        module = torch.jit.trace(net, torch.zeros(2, NUM_PLANES, 8, 8))
        how = "trace"
    tmp = args.out + ".tmp"
    module.save(tmp)
    os.replace(tmp, args.out)
    report = dict(tensors=tensors, method=how, torch=torch.__version__)
    if args.check:
        x = torch.from_numpy(np.fromfile(f"{args.check}/input.f32", dtype=np.float32)).view(-1, NUM_PLANES, 8, 8)
        n = x.shape[0]
        p_rust = torch.from_numpy(np.fromfile(f"{args.check}/policy.f32", dtype=np.float32)).view(n, POLICY_SIZE)
        w_rust = torch.from_numpy(np.fromfile(f"{args.check}/wdl.f32", dtype=np.float32)).view(n, 3)
        loaded = torch.jit.load(args.out)
        loaded.eval()
        with torch.no_grad():
            p, w = loaded(x)
        dp = (p - p_rust).abs().max().item()
        dw = (w.softmax(1) - w_rust).abs().max().item()
        report.update(positions=n, max_policy_logit_diff=dp, max_wdl_diff=dw, tolerance=args.tolerance)
        if not (dp <= args.tolerance and dw <= args.tolerance):
            print(json.dumps(report))
            sys.exit(
                f"the TorchScript module differs from the Rust network: max |policy logit diff| {dp:.3e}, "
                f"max |wdl diff| {dw:.3e} (tolerance {args.tolerance:.0e})"
            )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
