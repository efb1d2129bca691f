#!/usr/bin/env bash
# Runs only the Pinecone checks, with the strict mock started and stopped around them: the spec
# check of goldens and fixtures, the official client against the mock, and the Swift tests of
# PineconeVectors (built already: swift build --build-tests with the same scratch path).
#   scripts/pinecone/check.sh [SCRATCH_PATH]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${1:-${SIBYL_SCRATCH:-${SIBYL_CACHE:-$HOME/.cache/sibyl}/swiftpm}}"
python="$("$here/setup.sh")"
folder="$(mktemp -d "${TMPDIR:-/tmp}/sibyl-pinecone.XXXXXX")"
trap 'if [ -f "$folder/mock.pid" ]; then kill "$(cat "$folder/mock.pid")" 2>/dev/null || true; fi; rm -rf "$folder"' EXIT
SIBYL_TEST_PINECONE_URL="$(PYTHON="$python" "$here/start-mock.sh" "$folder/mock.pid" "$folder/mock.log")"
export SIBYL_TEST_PINECONE_URL
"$python" "$here/spec-check.py"
"$python" "$here/sdk-check.py" "$SIBYL_TEST_PINECONE_URL"
SIBYL_REQUIRE_ENGINES=1 swift test --package-path "$root" --scratch-path "$scratch" --skip-build --filter PineconeVectorsTests
