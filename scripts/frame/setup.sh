#!/usr/bin/env bash
# Makes (or reuses) a virtual environment with Brilliant Labs' Frame host libraries from PyPI
# (frame-msg and frame-ble, pinned by hash), outside the clone, and prints its python's path.
# They are the tests' oracles: their packers and chunker give the bytes Sibyl's must equal, and
# their device-side Lua files run unmodified in Sibyl's Frame emulator.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../pinned-venv.sh" venv-frame "$here/requirements.txt" "the Frame host libraries (frame-msg, frame-ble)"
