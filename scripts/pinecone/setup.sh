#!/usr/bin/env bash
# Makes (or reuses) a virtual environment with the strict Pinecone mock's tools and the official
# Pinecone Python client (pinned by hash), outside the clone, and prints its python's path.
# Safe to run again: it reinstalls only when requirements.txt changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-pinecone"
stamp="$venv/requirements.sha256"
wanted="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "==> Installing the Pinecone mock's tools and client (pinned) into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps --only-binary=:all: -r "$here/requirements.txt" >&2
    echo "$wanted" > "$stamp"
fi
echo "$venv/bin/python"
