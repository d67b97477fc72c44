#!/usr/bin/env bash
# Builds a wheel of dama's Python module (crates/python, `import dama`) with
# maturin, for the project venv's Python, and prints its path (last line).
# A bundle carries it with `dama export ... --wheel PATH`.
#
# Usage: scripts/build-wheel.sh [--release] [--out DIR]
#        (default: a debug build into target/wheels; --release for a wheel
#        to hand to users: the module's engine is much faster so)
# Env:   DAMA_VENV  the venv (default: what scripts/setup-torch.sh prints)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
profile=()
out="$root/target/wheels"
while [ $# -gt 0 ]; do
  case "$1" in
    --release) profile=(--release) ;;
    --out)
      out="$2"
      shift
      ;;
    *)
      echo "build-wheel: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift
done
# shellcheck source=scripts/python-tools.sh
source scripts/python-tools.sh
VENV="$(project_venv)"
install_python_tools "$VENV"
mkdir -p "$out"
echo "== maturin build ${profile[*]} (crates/python → $out)" >&2
(cd crates/python && PYO3_PYTHON="$VENV/bin/python" \
  "$VENV/bin/maturin" build --locked --quiet --interpreter "$VENV/bin/python" --out "$out" "${profile[@]}" >&2)
wheel="$(ls -t "$out"/dama-*.whl | head -n 1)"
[ -f "$wheel" ] || { echo "build-wheel: no wheel in $out" >&2; exit 1; }
echo "$wheel"
