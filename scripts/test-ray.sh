#!/usr/bin/env bash
# Issue 18: a distributed run (learner + workers) on a real local Ray
# cluster, with workers and the learner killed mid-run (scripts/test_ray.py).
# Installs Ray into the project's venv first (scripts/setup-ray.sh, once).
#
# Usage: scripts/test-ray.sh    (called by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
source scripts/env.sh
scripts/setup-notebooks.sh >/dev/null   # pandas, for the notebooks' metrics reader
VENV="$(scripts/setup-ray.sh | tail -n 1)"
cargo build --locked --quiet -p dama-cli
dama="${CARGO_TARGET_DIR:-target}/debug/dama"
# Ray's own files (sockets, logs) in a private temporary directory, removed after.
ray_tmp="$(mktemp -d /tmp/ray-dama-XXXXXX)"
trap 'rm -rf "$ray_tmp"' EXIT
RAY_TMPDIR="$ray_tmp" RAY_USAGE_STATS_ENABLED=0 RAY_AUTH_MODE=disabled \
  "$VENV/bin/python" scripts/test_ray.py "$dama"
echo "test-ray: passed in $((SECONDS - start)) s"
