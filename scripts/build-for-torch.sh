#!/usr/bin/env bash
# Builds `dama` (and dama-nn's `bench` example) against the libtorch of another
# PyTorch release than the one this project pins (scripts/setup-torch.sh), with
# the tch release made for it: for a machine that has a CUDA PyTorch of its own
# and cannot download ours (an offline GPU server). The binaries are stripped and
# carry an rpath to that machine's torch/lib.
#
#   TORCH_VERSION=2.11.0 TCH_VERSION=0.24.0 \
#   DEVICE_TORCH_LIB=/opt/torch/.venv/lib/python3.12/site-packages/torch/lib \
#     scripts/build-for-torch.sh
#
# Then, on that machine:  LD_LIBRARY_PATH=$DEVICE_TORCH_LIB ./dama device
# (it says cuda:0 where CUDA works). Output in $OUT_DIR (default
# target/for-torch-$TORCH_VERSION): dama, nn-bench. Re-runnable: each step is
# skipped once done. tch releases and the libtorch each one is built for:
# tch's README (0.24 ↔ 2.11, 0.26 ↔ 2.13). Only a Linux x86-64 wheel is fetched.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TORCH_VERSION=${TORCH_VERSION:-2.11.0}
TCH_VERSION=${TCH_VERSION:-0.24.0}
PY_TAG=${PY_TAG:-312}                      # only picks a wheel; libtorch is the same
WORK=${WORK:-${DAMA_CACHE:-$HOME/.cache/dama}/for-torch-$TORCH_VERSION}
MAIN=${MAIN:-$ROOT}                        # the repository to clone (read-only use)
OUT_DIR=${OUT_DIR:-$ROOT/target/for-torch-$TORCH_VERSION}
DEVICE_TORCH_LIB=${DEVICE_TORCH_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/torch/lib}
PATCH=${PATCH:-$WORK/tch-$TCH_VERSION.patch}  # the clone's edits (the pin)
TORCH_DIR=$WORK/torch                       # unzipped torch/{include,lib}
SRC=$WORK/src
REV=${REV:-HEAD}             # the commit of $MAIN to build
RUN_CHECK=${RUN_CHECK:-1}    # run the binaries here on CPU, with stub CUDA libraries
TRIPLE=x86_64-unknown-linux-gnu
export CARGO_TARGET_DIR=$WORK/target
REV=$(git -C "$MAIN" rev-parse "$REV")

mkdir -p "$WORK/wheel" "$OUT_DIR"

# 1. The PyTorch wheel (the Linux x86-64 wheel on PyPI is the CUDA build); only
#    torch/include and torch/lib are needed. No nvidia-* wheels: linking does not
#    resolve the CUDA libraries' symbols (--allow-shlib-undefined below).
if [ ! -f "$TORCH_DIR/torch/lib/libtorch_cuda.so" ]; then
    ls "$WORK"/wheel/torch-"$TORCH_VERSION"-cp"$PY_TAG"-*.whl >/dev/null 2>&1 ||
        python3 -m pip download --no-deps --only-binary=:all: \
            --python-version "${PY_TAG:0:1}.${PY_TAG:1}" --platform manylinux_2_28_x86_64 \
            "torch==$TORCH_VERSION" -d "$WORK/wheel"
    mkdir -p "$TORCH_DIR"
    (cd "$TORCH_DIR" && unzip -q -o "$WORK"/wheel/torch-"$TORCH_VERSION"-cp"$PY_TAG"-*.whl \
        'torch/include/*' 'torch/lib/*' 'torch/version.py')
fi
grep -H __version__ "$TORCH_DIR/torch/version.py"

# 2. A separate clone (so this checkout is untouched), the tch pin moved, the lock
#    updated, and the API patch applied (once).
if [ ! -d "$SRC/.git" ]; then
    git clone -q "$MAIN" "$SRC"
fi
cd "$SRC"
if [ "$(git rev-parse HEAD)" != "$REV" ]; then
    git fetch -q origin
    git checkout -q -f --detach "$REV"      # drops the pin; re-applied below
fi
if ! grep -q "^tch = \"=$TCH_VERSION\"" Cargo.toml; then
    if [ -f "$PATCH" ] && git apply --check "$PATCH" 2>/dev/null; then
        git apply "$PATCH"       # includes the Cargo.toml pin
    else
        sed -i -E "s/^tch = \"=[0-9.]+\"/tch = \"=$TCH_VERSION\"/; s/^torch-sys = \"=[0-9.]+\"/torch-sys = \"=$TCH_VERSION\"/" Cargo.toml
    fi
fi
grep -A1 '^name = "tch"$' Cargo.lock | grep -q "version = \"$TCH_VERSION\"" ||
    cargo update --offline -p tch --precise "$TCH_VERSION" 2>/dev/null ||
    cargo update -p tch --precise "$TCH_VERSION"

# 3. Build. torch-sys reads LIBTORCH (include/ and lib/ under it); it links
#    libtorch_cuda because lib/libtorch_cuda.so exists, but rustc's --as-needed
#    would drop it (nothing references its symbols directly) and then CUDA is
#    never registered at run time: re-add it (and libc10_cuda) after
#    --no-as-needed. RUSTFLAGS apply to the target only because of --target, so
#    build scripts are linked without these flags.
unset LIBTORCH_USE_PYTORCH LIBTORCH_INCLUDE LIBTORCH_LIB LIBTORCH_STATIC DAMA_TORCH_LIB
export LIBTORCH=$TORCH_DIR/torch
export LIBTORCH_CXX11_ABI=1
export LIBTORCH_BYPASS_VERSION_CHECK=1
export RUSTFLAGS="-C link-arg=-Wl,--allow-shlib-undefined -C link-arg=-Wl,--no-as-needed -C link-arg=-ltorch_cuda -C link-arg=-lc10_cuda -C link-arg=-Wl,--as-needed -C link-arg=-Wl,-rpath,$DEVICE_TORCH_LIB"
echo "LIBTORCH=$LIBTORCH LIBTORCH_CXX11_ABI=$LIBTORCH_CXX11_ABI LIBTORCH_BYPASS_VERSION_CHECK=1"
echo "RUSTFLAGS=$RUSTFLAGS"
nice -n 10 cargo build --release --target $TRIPLE -p dama-cli
nice -n 10 cargo build --release --target $TRIPLE -p dama-nn --example bench

# 4. Stripped copies.
REL=$CARGO_TARGET_DIR/$TRIPLE/release
strip -o "$OUT_DIR/dama" "$REL/dama"
strip -o "$OUT_DIR/nn-bench" "$REL/examples/bench"
(cd "$SRC" && git diff) > "$PATCH.new" && mv "$PATCH.new" "$PATCH"
# 5. Checks.
for f in "$OUT_DIR/dama" "$OUT_DIR/nn-bench"; do
    echo "== $f: $(stat -c %s "$f") bytes"
    readelf -d "$f" | grep -E 'NEEDED|RPATH|RUNPATH'
    readelf -d "$f" | grep -q 'NEEDED.*\[libtorch_cuda.so\]' || { echo "libtorch_cuda.so not NEEDED" >&2; exit 1; }
done
du -cb "$OUT_DIR/dama" "$OUT_DIR/nn-bench" | tail -1

# 6. Optional: run here on CPU. The CUDA libraries are not installed: stubs with
#    their sonames and symbol versions (every function returns an error, so CUDA
#    reports no device) let the dynamic loader resolve libtorch_cuda.so.
if [ "$RUN_CHECK" = 1 ]; then
    [ -f "$WORK/stubs/libcudart.so.13" ] || python3 "$ROOT/scripts/make_cuda_stubs.py" "$LIBTORCH/lib" "$WORK/stubs"
    export LD_LIBRARY_PATH=$LIBTORCH/lib:$WORK/stubs
    if ldd "$OUT_DIR/dama" | grep 'not found'; then echo "unresolved libraries" >&2; exit 1; fi
    "$OUT_DIR/dama" --version
    "$OUT_DIR/dama" device
    "$OUT_DIR/nn-bench" --model quick --batches 1,8 --train-batches 64 --seconds 0.5
fi
