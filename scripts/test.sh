#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing (system packages, local engines and models,
# all cached outside the clone), builds with zero warnings, and runs every test against the real engines.
source "$(dirname "$0")/common.sh"

ensure_system_packages
build --build-tests
say "Installing the local engines and models (cached in ${SIBYL_ENGINES:-$HOME/.cache/sibyl/engines})"
"$(sibyl_binary debug)" models install all
say "Running the tests"
SIBYL_REQUIRE_ENGINES=1 swift test --package-path "$ROOT" --scratch-path "$SCRATCH" --skip-build "$@"
say "Checking the emulated Monocle firmware and Sibyl's device app under MicroPython"
python3 "$ROOT/scripts/monocle/emulator-smoke.py"
