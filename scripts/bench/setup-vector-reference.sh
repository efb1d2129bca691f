#!/usr/bin/env bash
# Sets up the Python environment that `SibylBenchmarks vectors` runs its references in: faiss
# (IndexFlatIP, exact search) and hnswlib, with numpy, in the benchmark virtual environment
# (default ~/.cache/sibyl/bench-venv, or $SIBYL_BENCH_VENV; the MiniLM reference shares it).
# Safe to run again: a ready environment is left alone, and an existing one is only added to.
#
# hnswlib ships as source only: pip compiles it (a C++ compiler is needed) with -march=native,
# so the reference uses every instruction set this CPU has, as Sibyl's kernels do. A second build
# for AVX2 + FMA only goes to $VENV/avx2-site, for `SibylBenchmarks vectors --isa avx2`, which
# measures both sides as an AVX2-only CPU would run them.
set -euo pipefail

VENV="${SIBYL_BENCH_VENV:-$HOME/.cache/sibyl/bench-venv}"
PYTHON="${PYTHON:-python3}"
FAISS_VERSION="1.15.1"
HNSWLIB_VERSION="0.8.0"

ready() {
    [ -x "$VENV/bin/python" ] &&
        "$VENV/bin/python" -c "import faiss, hnswlib, numpy; assert faiss.__version__ == '$FAISS_VERSION'" 2>/dev/null &&
        PYTHONPATH="$VENV/avx2-site" "$VENV/bin/python" -c "import hnswlib" 2>/dev/null
}

if ready; then
    echo "Vector reference environment ready: $VENV"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ]; then
    echo "Creating the reference environment in $VENV"
    "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
"${PIP[@]}" install "numpy" "faiss-cpu==$FAISS_VERSION"
# hnswlib's build imports numpy and pybind11 from the environment it is installed into.
"${PIP[@]}" install "pybind11" "setuptools" "wheel"
"${PIP[@]}" install --no-build-isolation "hnswlib==$HNSWLIB_VERSION"
# The AVX2 build: hnswlib's setup.py leaves out -march=native when HNSWLIB_NO_NATIVE is set; no
# wheel cache, which would hand back the native build.
HNSWLIB_NO_NATIVE=1 CFLAGS="-mavx2 -mfma" CXXFLAGS="-mavx2 -mfma" "${PIP[@]}" install --no-cache-dir --no-deps \
    --no-build-isolation --no-binary hnswlib --upgrade --target "$VENV/avx2-site" "hnswlib==$HNSWLIB_VERSION"

if ! ready; then
    echo "error: the environment in $VENV does not import faiss $FAISS_VERSION, hnswlib and numpy" >&2
    exit 1
fi
"$VENV/bin/python" -c "import faiss, hnswlib, numpy; print('Vector reference environment ready: faiss', faiss.__version__, '· hnswlib $HNSWLIB_VERSION · numpy', numpy.__version__)"
