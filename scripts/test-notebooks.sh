#!/usr/bin/env bash
# Executes the notebooks headless against a tiny end-to-end run, so they
# cannot rot: a run of configs/smoke.toml (seconds), a small ladder on it,
# `dama curve` (curve.csv with increasing hours and positions), `dama report`
# (its PNGs and report.md must appear), then notebooks/run.ipynb
# and notebooks/bot.ipynb with nbclient (any cell error fails), the bot
# notebook on the run's checkpoint and, when `dama export` exists, on an
# exported bundle too (whose bundle_example.py must reproduce `dama
# analyse`). The bot notebook takes positions, legal moves and
# encodings from dama's Python module, built into the venv first
# (scripts/test-python.sh --build-only); crates/python/tests checks the
# module and the PyTorch twin against `dama perft` and `dama analyse`.
#
# Usage: scripts/test-notebooks.sh    (called at the end of scripts/test.sh)
# Env:   DAMA_NOTEBOOK_OUT  keep the executed notebooks and the run here
#        DAMA_MODULE_BUILT  1: use the Python module already installed
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
start=$SECONDS
source scripts/env.sh
VENV="$(scripts/setup-notebooks.sh | tail -n 1)"
PY="$VENV/bin/python"

cargo build --locked --quiet -p dama-cli
dama="$root/target/debug/dama"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run="$tmp/smoke"

# DAMA_MODULE_BUILT=1: the module is installed already, and the Python
# tests run beside this script (scripts/test.sh), so it is not rebuilt under
# them.
if [ "${DAMA_MODULE_BUILT:-0}" != 1 ]; then
  echo "== dama's Python module (crates/python: import dama) for the bot notebook"
  DAMA_VENV="$VENV" scripts/test-python.sh --build-only
fi

echo "== tiny run (configs/smoke.toml)"
"$dama" train --config configs/smoke.toml --checkpoints "$tmp" --run smoke --quiet

latest="$(ls "$run"/models/gen-*.safetensors | grep -v '\.optim\.' | sort | tail -n 1)"

echo "== dama ladder (2 games a pairing)"
"$dama" ladder --run smoke --checkpoints "$tmp" --games 2 --sims 2 --baselines random,greedy >"$tmp/ladder.log" 2>&1 ||
  { cat "$tmp/ladder.log"; exit 1; }
tail -n 1 "$tmp/ladder.log"
test -s "$run/eval/ladder.csv"

echo "== dama curve (2 games a pairing, anchors random and greedy)"
"$dama" curve --run smoke --checkpoints "$tmp" --games 2 --sims 2 --anchors random,greedy >"$tmp/curve.log" 2>&1 ||
  { cat "$tmp/curve.log"; exit 1; }
test -s "$run/curve.csv" && test -s "$run/curve.json"
"$PY" - "$run/curve.csv" <<'EOF'
import sys
import pandas as pd
c = pd.read_csv(sys.argv[1])
ck = c[c["generation"].notna()].sort_values("generation")
assert len(ck) >= 2, c
for col in ("hours", "positions"):
    assert ck[col].is_monotonic_increasing, (col, ck)
assert (c[c["generation"].isna()]["name"] == "random").any(), c
print(f"curve.csv: {len(ck)} checkpoints, hours and positions increasing")
EOF

echo "== dama report"
"$dama" report --run smoke --checkpoints "$tmp"
for f in report-training.png report-evaluation.png report-curve.png report-selfplay.png; do
  test -s "$run/$f" || { echo "test-notebooks: $f missing" >&2; exit 1; }
  [ "$(head -c 8 "$run/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "test-notebooks: $f is not a PNG" >&2; exit 1; }
done
for section in "# Run \`smoke\`" "## Training" "## Self-play" "## Evaluation" "## Ladder" "## Learning curve" "report-selfplay.png"; do
  grep -qF "$section" "$run/report.md" ||
    { echo "test-notebooks: report.md has no '$section'" >&2; cat "$run/report.md"; exit 1; }
done

bundle=""
if "$dama" export --help >/dev/null 2>&1; then
  echo "== dama export (a bundle for the bot notebook)"
  "$dama" export --checkpoint "$latest" --out "$tmp/bundle"
  bundle="$tmp/bundle"
  echo "== the bundle's bundle_example.py (torch.jit.load and import dama) vs dama analyse"
  (cd "$tmp" && "$PY" "$bundle/bundle_example.py" --dama "$dama" | tail -n 2)
fi

echo "== notebooks (nbclient)"
exec_nb() { # exec_nb NOTEBOOK OUTPUT, with the environment it should see
  "$PY" - "$1" "$2" <<'EOF'
import sys, time
import nbformat
from nbclient import NotebookClient
src, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(src, as_version=4)
t = time.time()
NotebookClient(nb, timeout=600, kernel_name="python3",
               resources={"metadata": {"path": "notebooks"}}).execute()
nbformat.write(nb, out)
images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
print(f"{src}: {len(nb.cells)} cells ran without error, {images} figures, {time.time() - t:.0f} s")
if images == 0:
    sys.exit(f"{src}: no figure was drawn")
EOF
}
out="${DAMA_NOTEBOOK_OUT:-$tmp/executed}"
mkdir -p "$out"
DAMA_RUN_DIR="$run" exec_nb notebooks/run.ipynb "$out/run.ipynb"
DAMA_RUN_DIR="$run" exec_nb notebooks/bot.ipynb "$out/bot-checkpoint.ipynb"
if [ -n "$bundle" ]; then
  DAMA_BUNDLE="$bundle" exec_nb notebooks/bot.ipynb "$out/bot-bundle.ipynb"
fi
if [ -n "${DAMA_NOTEBOOK_OUT:-}" ]; then
  cp -r "$run" "$out/"
fi
echo "test-notebooks: passed in $((SECONDS - start)) s"
