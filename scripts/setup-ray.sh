#!/usr/bin/env bash
# Installs Ray (the distributed engine of `scripts/ray_driver.py`, see
# docs/distributed.md) into the project's torch venv (the one
# scripts/setup-torch.sh creates).
# Idempotent: a second run returns at once (a stamp file in the venv records
# the pinned version).
#
# Usage: scripts/setup-ray.sh          (prints the venv path on its last line)
# Env:   DAMA_VENV  the venv (default: whatever setup-torch.sh prints)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# Pinned; the stamp changes with it. The same version must run on every
# node of a cluster (Ray refuses mixed versions).
RAY_VERSION=2.60.0
PACKAGES=("ray==$RAY_VERSION")

for arg in "$@"; do
  case "$arg" in
    -h | --help)
      sed -n '2,9p' "$0"
      exit 0
      ;;
    *)
      echo "setup-ray: unknown argument '$arg'" >&2
      exit 2
      ;;
  esac
done

VENV=${DAMA_VENV:-}
if [ -z "$VENV" ] || [ ! -x "$VENV/bin/python" ]; then
  VENV="$("$root/scripts/setup-torch.sh" | tail -n 1)"
fi
STAMP="$VENV/.dama-ray-ready"
stamp_text="${PACKAGES[*]}"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$stamp_text" ]; then
  echo "$VENV"
  exit 0
fi

# One installer at a time per venv.
exec 9>"$VENV/.lock-ray"
flock 9
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$stamp_text" ]; then
  echo "$VENV"
  exit 0
fi

echo "setup-ray: installing ${PACKAGES[*]} into $VENV" >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGES[@]}" >&2
"$VENV/bin/python" -c "import ray; assert ray.__version__ == '$RAY_VERSION', ray.__version__" >&2
echo "$stamp_text" > "$STAMP"
echo "$VENV"
