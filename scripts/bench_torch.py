#!/usr/bin/env python3
"""The dama-nn network in PyTorch (the twin `Net` of scripts/torch_twin.py),
measured on the same figures as
`cargo run --release -p dama-nn --example bench`.

Same architecture and parameter names as crates/nn/src/model.rs (a residual
tower with squeeze-excitation, a convolutional policy head with 56 planes x 64
squares = 3584 logits, a WDL value head), same inference path (float planes in,
policy logits and WDL probabilities out as f32 on the host), and the same
training step (masked policy cross-entropy + WDL cross-entropy, SGD momentum
0.9 with weight decay on conv/linear weights, global-norm clipping at 10, and
the same per-step metrics read back to the host).

    python scripts/bench_torch.py [--threads N] [--model default|quick]
        [--batches 1,2,...] [--train-batches 64,256] [--seconds S] [--json FILE]
        [--check DIR]

--check DIR loads weights, input and outputs exported by the Rust bench
(`--export DIR`) and reports the largest difference between the two
implementations' outputs.
"""
import argparse
import json
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from torch_twin import MODELS, NUM_PLANES, POLICY_SIZE, Net, read_safetensors

def cpu_seconds():
    """User + system CPU time from /proc/self/stat, like the Rust bench."""
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def throughput(seconds, per_call, f):
    """Items per wall second and per CPU second, after a warm-up, running
    until `seconds` of CPU time are used (and at least 3 calls)."""
    f()
    f()
    start = time.perf_counter()
    cpu0 = cpu_seconds()
    calls = 0
    while calls < 3 or cpu_seconds() - cpu0 < seconds:
        f()
        calls += 1
    items = calls * per_call
    return items / (time.perf_counter() - start), items / max(cpu_seconds() - cpu0, 0.01)


def random_planes(rng, n):
    return (rng.random((n, NUM_PLANES, 8, 8)) < 0.2).astype(np.float32)


def random_batch(rng, n):
    planes = torch.from_numpy(random_planes(rng, n))
    mask = torch.zeros(n, POLICY_SIZE, dtype=torch.bool)
    for i in range(n):
        mask[i, torch.from_numpy(rng.integers(0, POLICY_SIZE, 10))] = True
    policy = mask.float() / mask.float().sum(1, keepdim=True)
    wdl = F.one_hot(torch.from_numpy(rng.integers(0, 3, n)), 3).float()
    return planes, policy, wdl, mask


class Trainer:
    """The Rust Trainer's step with torch.optim.SGD (foreach implementation)."""

    def __init__(self, net, lr=0.02, momentum=0.9, wd=1e-4, clip=10.0):
        decay = [p for n, p in net.named_parameters() if p.dim() > 1]
        other = [p for n, p in net.named_parameters() if p.dim() <= 1]
        self.net, self.clip, self.wd, self.decay = net, clip, wd, decay
        self.opt = torch.optim.SGD(
            [dict(params=decay, weight_decay=wd), dict(params=other, weight_decay=0.0)], lr=lr, momentum=momentum
        )

    def step(self, planes, policy, wdl, mask):
        self.net.train()
        p, v = self.net(planes)
        logp = p.masked_fill(~mask, -1e9).log_softmax(1)
        policy_loss = -(policy * logp).sum(1).mean()
        value_loss = -(wdl * v.log_softmax(1)).sum(1).mean()
        loss = policy_loss + value_loss
        self.opt.zero_grad(set_to_none=False)
        loss.backward()
        with torch.no_grad():
            reg = 0.5 * self.wd * torch.stack([w.square().sum() for w in self.decay]).sum()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.clip)
        self.opt.step()
        with torch.no_grad():
            entropy = -(logp.exp() * logp).sum(1).mean()
            acc = (v.argmax(1) == wdl.argmax(1)).float().mean()
        return dict(
            policy_loss=policy_loss.item(), value_loss=value_loss.item(), reg=reg.item(),
            grad_norm=grad_norm.item(), entropy=entropy.item(), acc=acc.item(),
        )


def check(dir):
    cfg = json.load(open(f"{dir}/config.json"))
    cfg.pop("input_planes")
    net = Net(**cfg)
    state = read_safetensors(f"{dir}/net.safetensors")
    own = net.state_dict()
    own.pop("num_batches_tracked", None)
    own = {k: v for k, v in own.items() if not k.endswith("num_batches_tracked")}
    missing = sorted(set(own) - set(state))
    extra = sorted(set(state) - set(own))
    if missing or extra:
        sys.exit(f"parameter names differ: missing {missing}, unexpected {extra}")
    net.load_state_dict(state, strict=False)
    net.eval()
    x = torch.from_numpy(np.fromfile(f"{dir}/input.f32", dtype=np.float32)).view(-1, NUM_PLANES, 8, 8)
    p_rust = torch.from_numpy(np.fromfile(f"{dir}/policy.f32", dtype=np.float32)).view(x.shape[0], -1)
    v_rust = torch.from_numpy(np.fromfile(f"{dir}/wdl.f32", dtype=np.float32)).view(x.shape[0], 3)
    with torch.no_grad():
        p, v = net(x)
    dp = (p - p_rust).abs().max().item()
    dv = (v - v_rust).abs().max().item()
    print(f"check: {len(state)} tensors with identical names and shapes; max |policy diff| {dp:.2e}, max |wdl diff| {dv:.2e}")
    if dp > 1e-3 or dv > 1e-3:
        sys.exit("outputs differ: the architectures are not the same")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", default="default", choices=sorted(MODELS))
    ap.add_argument("--batches", default="1,2,4,8,16,32,64,128,256,512")
    ap.add_argument("--train-batches", default="64,256")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--json")
    ap.add_argument("--check")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.check:
        check(args.check)
    rng = np.random.default_rng(0)
    net = Net(**MODELS[args.model])
    nparams = sum(p.numel() for p in net.parameters())
    print(f"python/torch {torch.__version__}: model {args.model}, {nparams} parameters, {torch.get_num_threads()} torch threads", file=sys.stderr)
    rows = []

    def record(kind, precision, batch, rates):
        per_sec, per_cpu = rates
        print(f"torch {kind:<6} {precision:<5} batch {batch:>4}  {per_sec:>10.1f} /s  {per_cpu:>10.1f} /cpu-s")
        rows.append(dict(impl="python", kind=kind, precision=precision, batch=batch,
                         per_sec=round(per_sec, 3), per_cpu_sec=round(per_cpu, 3)))

    for precision, dtype in [("fp32", torch.float32), ("bf16", torch.bfloat16)]:
        inet = Net(**MODELS[args.model])
        inet.load_state_dict(net.state_dict())
        inet = inet.to(dtype).eval()
        for b in [int(x) for x in args.batches.split(",")]:
            planes = random_planes(rng, b)

            def infer():
                with torch.inference_mode():
                    x = torch.from_numpy(planes).to(dtype)
                    p, v = inet(x)
                    p.float().numpy().copy()
                    v.float().softmax(1).numpy().copy()

            record("infer", precision, b, throughput(args.seconds, b, infer))

    for b in [int(x) for x in args.train_batches.split(",")]:
        tnet = Net(**MODELS[args.model])
        tnet.load_state_dict(net.state_dict())
        trainer = Trainer(tnet)
        batch = random_batch(rng, b)
        record("train", "fp32", b, throughput(args.seconds, b, lambda: trainer.step(*batch)))

    if args.json:
        with open(args.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
