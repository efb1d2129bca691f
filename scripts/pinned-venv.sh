#!/usr/bin/env bash
# Makes (or reuses) a virtual environment outside the clone with the wheels a requirements file
# pins by hash, and prints its python's path. Safe to run again: it reinstalls only when the
# requirements file changed. Usage: pinned-venv.sh NAME REQUIREMENTS "WHAT (for the progress line)"
set -euo pipefail
name="$1" requirements="$2" what="$3"
venv="${SIBYL_CACHE:-$HOME/.cache/sibyl}/$name"
stamp="$venv/requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "==> Installing $what (pinned) into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps --only-binary=:all: -r "$requirements" >&2
    echo "$wanted" > "$stamp"
fi
echo "$venv/bin/python"
