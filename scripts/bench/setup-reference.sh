#!/usr/bin/env bash
# Sets up the Python environment that `SibylBenchmarks minilm` runs its reference in:
# sentence-transformers on a CPU PyTorch, in a virtual environment (default
# ~/.cache/sibyl/bench-venv, or $SIBYL_BENCH_VENV). Safe to run again: a ready environment is
# left alone.
#
# Where PyTorch comes from, smallest first:
#   1. A CPU-only wheel (`torch-*+cpu-*.whl`, ~190 MB): $SIBYL_TORCH_WHEEL, or the newest one in a
#      directory pip is configured to search (`find-links`, e.g. /opt/wheels). PyPI itself has no
#      CPU-only build for Linux x86_64.
#   2. PyPI's build, which is a CUDA build: a plain `pip install torch` pulls ~2.8 GB of wheels
#      (triton, cuSOLVER, CUDA toolkit metadata, …). It imports and runs on the CPU with only the
#      NVIDIA runtime libraries its shared objects are linked against, so this script installs
#      torch with --no-deps plus those (~2.3 GB of wheels), leaving out triton, cuSOLVER, NVTX and
#      cuda-bindings, which a CPU run never loads.
# Set SIBYL_TORCH_SOURCE=pypi to skip step 1.
set -euo pipefail

VENV="${SIBYL_BENCH_VENV:-$HOME/.cache/sibyl/bench-venv}"
PYTHON="${PYTHON:-python3}"
ST_VERSION="6.2.0"
TORCH_PYPI_VERSION="2.15.0"
# The NVIDIA runtime libraries torch 2.15.0's libtorch_cuda.so, libtorch_cpu.so and
# libtorch_python.so are linked against (readelf -d … | grep NEEDED), at the versions torch pins.
TORCH_PYPI_RUNTIME=(
    "nvidia-cuda-runtime==13.2.86" "nvidia-cuda-cupti==13.2.86" "nvidia-cuda-nvrtc==13.2.86"
    "nvidia-cublas==13.4.1.3" "nvidia-cufft==12.2.0.57" "nvidia-cufile==1.17.1.22"
    "nvidia-cusparse==12.7.10.12" "nvidia-nvjitlink==13.5.37" "nvidia-cudnn-cu13==9.26.0.51"
    "nvidia-cusparselt-cu13==0.8.1" "nvidia-nccl-cu13==2.30.7" "nvidia-nvshmem-cu13==3.7.2"
)
TORCH_PURE_DEPS=("filelock" "typing-extensions>=4.13.0" "sympy>=1.13.3" "networkx>=2.5.1" "jinja2" "fsspec>=0.8.5" "setuptools>=77.0.3")
# sentence-transformers' own requirements, less torch (installed above, without its extras).
ST_DEPS=("transformers>=5.0.0,<6.0.0" "tokenizers>=0.19" "huggingface-hub>=1.3.0,<3.0.0" "numpy>=1.24.0"
    "scikit-learn>=1.1.0" "scipy>=1.0.0" "typing_extensions>=4.10.0" "tqdm>=4.0.0")

ready() {
    [ -x "$VENV/bin/python" ] &&
        "$VENV/bin/python" -c "import sentence_transformers, torch; assert sentence_transformers.__version__ == '$ST_VERSION'" 2>/dev/null
}

if ready; then
    echo "Reference environment ready: $VENV"
    exit 0
fi

cpu_wheel() {
    if [ -n "${SIBYL_TORCH_WHEEL:-}" ]; then
        echo "$SIBYL_TORCH_WHEEL"
        return
    fi
    [ "${SIBYL_TORCH_SOURCE:-}" = "pypi" ] && return
    local tag links dir
    tag="$("$PYTHON" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
    links="${PIP_FIND_LINKS:-$("$PYTHON" -m pip config get global.find-links 2>/dev/null || true)}"
    for dir in $links; do
        [ -d "$dir" ] && ls "$dir"/torch-*+cpu-"$tag"-*linux*_x86_64.whl 2>/dev/null || true
    done | sort -V | tail -n 1
}

echo "Creating the reference environment in $VENV"
"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

wheel="$(cpu_wheel)"
if [ -n "$wheel" ]; then
    echo "PyTorch: CPU-only wheel $wheel"
    "${PIP[@]}" install "$wheel"
else
    echo "PyTorch: torch==$TORCH_PYPI_VERSION from PyPI with only the runtime libraries it links against"
    "${PIP[@]}" install --no-deps "torch==$TORCH_PYPI_VERSION" "${TORCH_PYPI_RUNTIME[@]}"
    "${PIP[@]}" install "${TORCH_PURE_DEPS[@]}"
fi
"${PIP[@]}" install --no-deps "sentence-transformers==$ST_VERSION"
"${PIP[@]}" install "${ST_DEPS[@]}"

if ! ready; then
    echo "error: the reference environment in $VENV does not import sentence_transformers and torch" >&2
    exit 1
fi
"$VENV/bin/python" -c "import torch, sentence_transformers as s; print('Reference environment ready: torch', torch.__version__, '· sentence-transformers', s.__version__)"
