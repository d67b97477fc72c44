#!/usr/bin/env bash
# Rust (tch) vs Python (PyTorch) throughput of the dama-nn network, from one run.
#
#   [REPEAT=R] scripts/bench-nn.sh [--threads N] [--model default|quick] [--seconds S] [--batches 1,2,...]
#
# Runs crates/nn/examples/bench.rs and scripts/bench_torch.py with the same
# arguments (torch intra-op threads set explicitly in both), checks that the
# Python model computes the same function as the Rust one on exported weights,
# and prints positions/s (inference) and samples/s (training) side by side
# with the ratio Rust / Python, per wall-clock second and per CPU second (the
# steadier figure on a loaded machine; both sides read /proc/self/stat). The
# two implementations run alternately REPEAT times (default 3) and each figure
# is the median of its runs; still, prefer a quiet machine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=scripts/env.sh
source scripts/env.sh >/dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cargo build --release -q -p dama-nn --example bench
for i in $(seq "${REPEAT:-3}"); do
  target/release/examples/bench "$@" --json "$tmp/rust.$i.jsonl" --export "$tmp/export"
  if [ "$i" = 1 ]; then check=(--check "$tmp/export"); else check=(); fi
  python scripts/bench_torch.py "$@" --json "$tmp/python.$i.jsonl" "${check[@]}"
done
python - "$tmp"/*.jsonl <<'PY'
import json, statistics, sys
rows = {}
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        v = rows.setdefault((r["kind"], r["precision"], r["batch"]), {})
        v.setdefault(r["impl"], []).append((r["per_sec"], r["per_cpu_sec"]))
med = lambda xs, j: statistics.median(x[j] for x in xs)
rows = {k: {i: (med(x, 0), med(x, 1)) for i, x in v.items()} for k, v in rows.items()}
print()
print("| what | precision | batch | Rust /s | Python /s | Rust / Python | Rust /cpu-s | Python /cpu-s | Rust / Python (CPU time) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for (kind, prec, batch), v in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
    (r, rc), (p, pc) = v["rust"], v["python"]
    what = "inference positions" if kind == "infer" else "training samples"
    print(f"| {what} | {prec} | {batch} | {r:.1f} | {p:.1f} | {r / p:.2f} | {rc:.1f} | {pc:.1f} | {rc / pc:.2f} |")
PY
