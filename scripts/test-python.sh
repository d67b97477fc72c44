#!/usr/bin/env bash
# Builds the compiled Python module (crates/python, `import dama`) into the
# project's venv with maturin and runs its tests (pytest) against the `dama`
# binary, and a wheel of it (scripts/build-wheel.sh) that the tests put in a
# bundle. Installs maturin and pytest (pinned) into the venv first, once.
#
# Usage: scripts/test-python.sh [--release] [--build-only | --tests-only]
#        (default: a debug build, as the test suite uses; --release for speed
#        measurements; --build-only installs the module and runs no tests, as
#        scripts/test-notebooks.sh does for notebooks/bot.ipynb; --tests-only
#        runs the tests against the module already installed, as
#        scripts/test.sh does beside the notebooks)
# Env:   DAMA_VENV  the venv (default: what scripts/setup-torch.sh prints)
#        DAMA_BIN   the dama binary (default: target/debug/dama, built if missing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
profile=()
build_only=0
tests_only=0
for arg in "$@"; do
  case "$arg" in
    --release) profile=(--release) ;;
    --build-only) build_only=1 ;;
    --tests-only) tests_only=1 ;;
    *)
      echo "test-python: unknown argument '$arg'" >&2
      exit 2
      ;;
  esac
done
# shellcheck source=scripts/python-tools.sh
source scripts/python-tools.sh
VENV="$(project_venv)"
install_python_tools "$VENV"
if [ "$tests_only" = 0 ]; then
  echo "== maturin develop ${profile[*]} (crates/python → import dama)"
  # pyo3 builds for the venv's interpreter.
  (cd crates/python && VIRTUAL_ENV="$VENV" PYO3_PYTHON="$VENV/bin/python" \
    "$VENV/bin/maturin" develop --locked --quiet "${profile[@]}")
fi
if [ "$build_only" = 1 ]; then
  exit 0
fi
bin=${DAMA_BIN:-$root/target/debug/dama}
if [ ! -x "$bin" ]; then
  cargo build --locked -p dama-cli
fi
# The wheel a bundle carries (`dama export --wheel`), from the same build:
# the tests install it apart from the venv's module and play from it.
wheels="$root/target/wheels-test"
rm -rf "$wheels"
wheel="$(DAMA_VENV="$VENV" scripts/build-wheel.sh --out "$wheels" "${profile[@]}" | tail -n 1)"
echo "== pytest crates/python/tests"
DAMA_BIN="$bin" DAMA_WHEEL="$wheel" "$VENV/bin/python" -m pytest -q -p no:cacheprovider crates/python/tests
echo "== pytest scripts/test_independent_engine.py (the engine written apart from dama's code)"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider scripts/test_independent_engine.py
