#!/usr/bin/env bash
# Makes (or reuses) a virtual environment with the pinned MCP Python SDK, outside the clone, and
# prints its python's path.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../pinned-venv.sh" venv-mcp "$here/requirements.txt" "the MCP Python SDK"
