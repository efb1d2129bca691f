#!/usr/bin/env bash
# Makes (or reuses) a virtual environment with the strict Pinecone mock's tools and the official
# Pinecone Python client (pinned by hash), outside the clone, and prints its python's path.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../pinned-venv.sh" venv-pinecone "$here/requirements.txt" "the Pinecone mock's tools and client"
