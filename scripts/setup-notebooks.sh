#!/usr/bin/env bash
# Installs what the notebooks (notebooks/) and `dama report` need into the
# project's torch venv (the one scripts/setup-torch.sh creates): matplotlib,
# pandas, and nbclient/nbconvert/ipykernel to run notebooks headless; and
# pydraughts, whose Hub client drives `dama bot --protocol hub` in the tests
# (crates/cli/tests/cli/hub.rs).
# Idempotent: a second run returns at once (a stamp file in the venv records
# the pinned set).
#
# Usage: scripts/setup-notebooks.sh          (prints the venv path on its last line)
#        scripts/setup-notebooks.sh --lab    (also JupyterLab, to open the
#                                             notebooks in a browser)
# Env:   DAMA_VENV  the venv (default: whatever setup-torch.sh prints)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# Pinned; bump together and the stamp changes with them.
PACKAGES=(
  matplotlib==3.11.2
  pandas==3.1.1
  nbformat==5.11.1
  nbclient==0.11.0
  nbconvert==7.17.2
  ipykernel==7.4.0
  pydraughts==0.6.7
)
LAB_PACKAGES=(jupyterlab==4.6.6)

lab=0
for arg in "$@"; do
  case "$arg" in
    --lab) lab=1 ;;
    -h | --help)
      sed -n '2,11p' "$0"
      exit 0
      ;;
    *)
      echo "setup-notebooks: unknown argument '$arg'" >&2
      exit 2
      ;;
  esac
done

VENV=${DAMA_VENV:-}
if [ -z "$VENV" ] || [ ! -x "$VENV/bin/python" ]; then
  VENV="$("$root/scripts/setup-torch.sh" | tail -n 1)"
fi
want=("${PACKAGES[@]}")
if [ "$lab" = 1 ]; then
  want+=("${LAB_PACKAGES[@]}")
fi
STAMP="$VENV/.dama-notebooks-ready"
stamp_text="${want[*]}"

stamp_ok() {
  [ -f "$STAMP" ] || return 1
  # Every wanted pin must be in the stamp (a --lab stamp covers a plain run).
  local have p
  have="$(cat "$STAMP")"
  for p in "${want[@]}"; do
    case " $have " in *" $p "*) ;; *) return 1 ;; esac
  done
}

if stamp_ok; then
  echo "$VENV"
  exit 0
fi

# One installer at a time per venv.
exec 9>"$VENV/.lock-notebooks"
flock 9
if stamp_ok; then
  echo "$VENV"
  exit 0
fi

echo "setup-notebooks: installing ${want[*]} into $VENV" >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${want[@]}" >&2
"$VENV/bin/python" -c 'import matplotlib, pandas, nbclient, nbconvert, nbformat, ipykernel, draughts' >&2
# Register the venv's kernel under a fixed name inside the venv itself, so
# headless runs and `jupyter lab` from the venv find it.
"$VENV/bin/python" -m ipykernel install --sys-prefix --name python3 \
  --display-name "Python 3 (dama)" >/dev/null
echo "$stamp_text" > "$STAMP"
echo "$VENV"
