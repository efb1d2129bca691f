#!/usr/bin/env bash
# The reference tools of `SibylBenchmarks serve`: wrk (load) and nginx (the static-file baseline), from Debian.
set -euo pipefail
missing=()
for package in wrk nginx-light; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq || true
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
# Debian starts the packaged nginx on port 80; the benchmark runs its own.
$sudo service nginx stop >/dev/null 2>&1 || true
