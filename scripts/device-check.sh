#!/usr/bin/env bash
# The GPU checks behind docs/benchmarks.md's "On a GPU" figures, as one script:
# which device `dama` uses, configs/strong.toml trained on it (every core for the
# search, a generation's games in flight at once), stopped with an interrupt and
# resumed, and the last checkpoint against greedy on the GPU.
#
#   scripts/device-check.sh [DAMA] [OUT_DIR] [TRAIN_SECONDS]
#
# DAMA: the binary (default target/release/dama; for a machine with another
# PyTorch, see scripts/build-for-torch.sh). Writes OUT_DIR/log.txt (default
# target/device-check), the run's metrics.jsonl and its last model.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
D=${1:-target/release/dama}
OUT_DIR=${2:-target/device-check}
SECONDS_TRAIN=${3:-250}
mkdir -p "$OUT_DIR"
L=$OUT_DIR/log.txt
RUN=device-check-$$
step() { echo "=== $(date +%T) $*" | tee -a "$L"; }
step machine
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  lscpu | grep -i "model name\|^CPU(s)"; ldd "$D" | grep "not found"; } >> "$L" 2>&1
step device; timeout 60 "$D" device >> "$L" 2>&1
CONFIG=$OUT_DIR/strong-gpu.toml
sed -e 's/^threads = 1 .*/threads = 0/' -e 's/^parallel_games = 96/parallel_games = 192/' \
    configs/strong.toml > "$CONFIG"
step "train $CONFIG for ${SECONDS_TRAIN}s"
timeout -s INT "$SECONDS_TRAIN" "$D" train --config "$CONFIG" --run "$RUN" --quiet >> "$L" 2>&1
echo "rc $?" >> "$L"
models=checkpoints/$RUN/models
n=$(ls "$models" | grep -E '^gen-[0-9]+\.safetensors$' | tail -1 | tr -dc 0-9 | sed 's/^0*//')
step "resume to generation $((n + 1))"
timeout -s INT 120 "$D" train --config "$CONFIG" --run "$RUN" --resume --generations $((n + 1)) --quiet >> "$L" 2>&1
echo "rc $?" >> "$L"
last=$(ls "$models"/gen-*.safetensors | grep -v optim | tail -1)
step "eval $last"
timeout 120 "$D" eval --a "ckpt:$last,sims=400,search=puct" --b greedy --games 40 --seed 3 >> "$L" 2>&1
echo "rc $?" >> "$L"
cp "checkpoints/$RUN/metrics.jsonl" "$last" "${last%.safetensors}.json" "$OUT_DIR/"
step done
