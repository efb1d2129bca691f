#!/usr/bin/env bash
# Starts the strict Pinecone mock on a free port of 127.0.0.1 and prints its base URL once it
# answers; its process id goes to the file named by $1 (for stop: kill "$(cat FILE)").
#   PYTHON=... start-mock.sh PIDFILE [LOGFILE]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:?the venv python from scripts/pinecone/setup.sh}"
pidfile="$1"
log="${2:-/dev/null}"
port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
"$python" "$here/mock.py" "$port" >"$log" 2>&1 &
echo $! > "$pidfile"
for _ in $(seq 1 100); do
    if "$python" - "$port" <<'PY' 2>/dev/null; then
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/_scenarios/ready", timeout=1)
PY
        echo "http://127.0.0.1:$port"
        exit 0
    fi
    kill -0 "$(cat "$pidfile")" 2>/dev/null || { echo "the Pinecone mock exited at start (log: $log)" >&2; exit 1; }
    sleep 0.2
done
echo "the Pinecone mock did not answer within 20 s (log: $log)" >&2
exit 1
