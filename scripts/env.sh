# shellcheck shell=bash
# Source this file: `source scripts/env.sh`.
# Installs libtorch (once per machine, see setup-torch.sh) and exports what the
# tch build needs. The binaries carry an rpath to libtorch (see the build.rs of
# the crates that link tch), so running `dama` afterwards needs no variables.
_dama_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DAMA_VENV="$("$_dama_root/scripts/setup-torch.sh" | tail -n 1)" || return 1
export DAMA_VENV
export VIRTUAL_ENV="$DAMA_VENV"
export PATH="$DAMA_VENV/bin:$PATH"
# torch-sys: take libtorch from the installed PyTorch wheel.
export LIBTORCH_USE_PYTORCH=1
if [ -f "$DAMA_VENV/.dama-torch-lib" ]; then
  DAMA_TORCH_LIB="$(cat "$DAMA_VENV/.dama-torch-lib")"
else
  DAMA_TORCH_LIB="$("$DAMA_VENV/bin/python" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
fi
export DAMA_TORCH_LIB
# For the Python scripts and anything not built by cargo.
export LD_LIBRARY_PATH="$DAMA_TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset _dama_root
