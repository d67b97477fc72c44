#!/usr/bin/env bash
# Installs PyTorch (the libtorch that tch links against) into one virtualenv per
# machine and torch version, kept in a cache directory outside the clone.
# Idempotent: a second run, or a run from another clone, returns in seconds.
#
# Usage: scripts/setup-torch.sh        (prints the venv path on its last line)
# Env:   DAMA_CACHE   cache directory (default: ~/.cache/dama)
#        DAMA_PYTHON  python interpreter used to create the venv (default: python3)
set -euo pipefail

# tch 0.26 is built against this exact PyTorch release; keep in sync with
# the `tch` pin in Cargo.toml.
TORCH_VERSION=2.13.0
PY=${DAMA_PYTHON:-python3}
CACHE=${DAMA_CACHE:-$HOME/.cache/dama}
PYTAG=$("$PY" -c 'import sys; print(f"py{sys.version_info.major}{sys.version_info.minor}")')
VENV="$CACHE/venv-torch-$TORCH_VERSION-$PYTAG"
STAMP="$VENV/.dama-ready"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$TORCH_VERSION" ]; then
  echo "$VENV"
  exit 0
fi

mkdir -p "$CACHE"
# Only one installer at a time per cache (two clones may bootstrap at once).
exec 9>"$CACHE/.lock-$TORCH_VERSION-$PYTAG"
flock 9
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$TORCH_VERSION" ]; then
  echo "$VENV"
  exit 0
fi

echo "setup-torch: installing torch==$TORCH_VERSION into $VENV (one time, ~5 GB)" >&2
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
"$VENV/bin/python" -m pip install --quiet "torch==$TORCH_VERSION" numpy >&2
"$VENV/bin/python" -c "import torch; assert torch.__version__.startswith('$TORCH_VERSION'), torch.__version__" >&2
# Where libtorch's shared libraries are (read by env.sh without importing torch).
"$VENV/bin/python" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' > "$VENV/.dama-torch-lib"
echo "$TORCH_VERSION" > "$STAMP"
echo "$VENV"
