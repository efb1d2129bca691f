#!/usr/bin/env bash
# Sibyl's main job, offline: installs what is missing (system packages, the local chat engine and
# model, cached outside the clone), builds Sibyl, and answers a question with the local model.
# Pass your own question as arguments. Set OPENAI_API_KEY or OPENAI_BASE_URL to use a remote provider instead.
source "$(dirname "$0")/common.sh"

ensure_system_packages
build -c release --product sibyl
SIBYL="$(sibyl_binary release)"
say "Installing the local chat engine and model (once; cached in ${SIBYL_ENGINES:-$HOME/.cache/sibyl/engines})"
"$SIBYL" models install chat
question="${*:-In two sentences: who was the Sibyl of ancient Greece?}"
say "sibyl ask \"$question\""
"$SIBYL" ask "$question"
