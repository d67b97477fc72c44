# Sourced by scripts/test-python.sh and scripts/build-wheel.sh (from the
# repository root):
# project_venv prints the project's venv: $DAMA_VENV if it has a Python,
# else the one scripts/setup-torch.sh installs (once) and prints;
# install_python_tools VENV installs maturin and pytest (pinned) into the
# venv, once (a stamp file records the versions; a lock keeps two callers
# from installing at once).
PYTHON_TOOLS=(maturin==1.9.0 pytest==8.4.2)

project_venv() {
  if [ -n "${DAMA_VENV:-}" ] && [ -x "$DAMA_VENV/bin/python" ]; then
    echo "$DAMA_VENV"
  else
    scripts/setup-torch.sh | tail -n 1
  fi
}

install_python_tools() {
  local venv="$1"
  local stamp="$venv/.dama-python-tools"
  if [ "$(cat "$stamp" 2>/dev/null)" != "${PYTHON_TOOLS[*]}" ]; then
    exec 9>"$venv/.lock-python-tools"
    flock 9
    if [ "$(cat "$stamp" 2>/dev/null)" != "${PYTHON_TOOLS[*]}" ]; then
      echo "python-tools: installing ${PYTHON_TOOLS[*]} into $venv" >&2
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${PYTHON_TOOLS[@]}" >&2
      echo "${PYTHON_TOOLS[*]}" > "$stamp"
    fi
    exec 9>&-
  fi
}
