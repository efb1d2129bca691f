#!/usr/bin/env bash
# Builds the tokenizer benchmark's English corpus, deterministically and offline: the
# reStructuredText sources of the Python 3.11 documentation (Debian's python3.11-doc: English
# prose with some markup and code), concatenated in byte order of their paths and cut at the last
# line break before 10 MiB.
#
# Usage: scripts/bench/make-english-corpus.sh [OUTPUT]
# OUTPUT defaults to $SIBYL_CACHE/bench/english-corpus.txt (SIBYL_CACHE: ~/.cache/sibyl).
# Prints the corpus path on stdout.
set -euo pipefail

OUTPUT="${1:-${SIBYL_CACHE:-$HOME/.cache/sibyl}/bench/english-corpus.txt}"
SOURCES=/usr/share/doc/python3.11/html/_sources
SIZE=10485760

if [ ! -d "$SOURCES" ]; then
    echo "==> Installing python3.11-doc (the corpus source)" >&2
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3.11-doc >/dev/null || {
        echo "python3.11-doc is needed: apt-get install python3.11-doc" >&2
        exit 1
    }
fi

mkdir -p "$(dirname "$OUTPUT")"
python3 - "$SOURCES" "$SIZE" "$OUTPUT" <<'PYTHON'
import os, sys
sources, size, output = sys.argv[1].encode(), int(sys.argv[2]), sys.argv[3]
paths = sorted(
    os.path.join(directory, name)
    for directory, _, names in os.walk(sources)
    for name in names
    if name.endswith(b".rst.txt")
)
corpus = bytearray()
for path in paths:
    with open(path, "rb") as file:
        corpus += file.read()
    if len(corpus) >= size:
        break
# Cut at the last line break within the size, so no UTF-8 sequence is split.
corpus = corpus[:size]
corpus = corpus[: corpus.rindex(b"\n") + 1]
corpus.decode("utf-8")  # fails loudly if the sources ever stop being UTF-8
with open(output, "wb") as file:
    file.write(corpus)
PYTHON
echo "$OUTPUT: $(wc -c < "$OUTPUT") bytes, sha256 $(sha256sum "$OUTPUT" | cut -d' ' -f1)" >&2
echo "$OUTPUT"
