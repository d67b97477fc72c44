#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test of every crate.
# Installs what it needs first (libtorch into ~/.cache/dama, once per machine).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked
scripts/test-notebooks.sh
