#!/usr/bin/env bash
# The whole test suite: formatting, lints, every test of every crate (the
# browser test of `dama serve` included), the notebooks executed headless
# against a real (tiny) training run, and a distributed run on a real local
# Ray cluster with faults (scripts/test-ray.sh).
# Installs what it needs first (libtorch into ~/.cache/dama, once per machine;
# Chromium and chromedriver from Debian's packages, for the browser test).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
log="$(mktemp)"
pylog=""
python_tests=""
# On any exit, the Python tests still running beside the notebooks (if the
# notebooks failed), their whole process group, are stopped and every
# temporary log removed.
cleanup() {
  if [[ -n "$python_tests" ]]; then kill -- -"$python_tests" 2>/dev/null || true; fi
  rm -f "$log" ${pylog:+"$pylog"}
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Each stage's line says how long the suite has run (CI time is a budget).
stage() { echo "== [${SECONDS}s] $*"; }

stage "cargo fmt --check"
cargo fmt --all -- --check
# The object-store feature (memory:// stands in for s3://, gs://, az://) is
# built into the one workspace build, so its code is linted and tested
# without a second build; the few lines without it are checked below.
features=(--features dama-cli/object-store)
stage "cargo clippy"
cargo clippy --workspace --all-targets --locked "${features[@]}" -- -D warnings
stage "headless Chromium for the browser test of dama serve"
scripts/setup-browser.sh
# The browser test (crates/serve/tests/serve/browser.rs) fails instead of
# skipping when Chromium or chromedriver is missing.
export DAMA_BROWSER_TEST=required
stage "the notebooks' Python packages (crates/selfplay/tests/selfplay/python_reader.rs imports them)"
scripts/setup-notebooks.sh >/dev/null
stage "cargo test"
cargo test --workspace --locked "${features[@]}" 2>&1 | tee "$log"
stage "the crates below libtorch build and test without it"
if cargo tree -p dama-eval -e normal --locked | grep -q 'torch'; then
  echo "dama-eval without its network feature depends on libtorch" >&2
  exit 1
fi
cargo test -p dama-eval --lib --locked --quiet
stage "the run crate without the object-store feature"
cargo clippy -p dama-run --lib --locked -- -D warnings
cargo test -p dama-run --lib --locked --quiet 2>&1 | tee -a "$log"
stage "the Python module (crates/python: import dama)"
scripts/test-python.sh --build-only
# Its tests and the notebooks each keep about one core busy (Python, and
# the dama processes they start one at a time), so they run side by side;
# the tests' output follows the notebooks'.
stage "the Python module's tests, beside the notebooks"
pylog="$(mktemp)"
# In a session of their own (setsid; -w passes on their exit status should
# setsid have to fork), so that one signal stops pytest too.
setsid -w scripts/test-python.sh --tests-only >"$pylog" 2>&1 &
python_tests=$!
DAMA_MODULE_BUILT=1 scripts/test-notebooks.sh
if ! wait "$python_tests"; then
  python_tests=""
  cat "$pylog"
  echo "test: the Python module's tests failed" >&2
  exit 1
fi
python_tests=""
cat "$pylog"
stage "distributed run on a local Ray cluster"
scripts/test-ray.sh

# One closing line for the whole suite (cargo prints one per test binary).
stage "done"
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
