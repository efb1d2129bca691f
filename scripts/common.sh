# Shared set-up for the project's scripts: system packages, caches, the Swift build.
# Sourced, not run. Everything expensive is cached under SIBYL_CACHE, outside the clone.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SIBYL_CACHE="${SIBYL_CACHE:-$HOME/.cache/sibyl}"
SCRATCH="${SIBYL_SCRATCH:-$SIBYL_CACHE/swiftpm}"
mkdir -p "$SIBYL_CACHE"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Debian packages the build and the tests need; installed only when missing.
# (the engines' own packages are installed by `sibyl models install`; these are the build's and the tests').
SYSTEM_PACKAGES=(libsqlite3-dev pkg-config cmake build-essential libopenblas-dev libpoppler-glib-dev espeak-ng tesseract-ocr tesseract-ocr-eng tesseract-ocr-kor tesseract-ocr-ind fonts-nanum poppler-utils pocketsphinx-testdata python3.11-doc libdbus-1-dev dbus-daemon dbus-session-bus-common python3-dbusmock ffmpeg pulseaudio pulseaudio-utils alsa-utils sox python3.11-venv openssl curl libjs-marked libjs-highlight.js libjs-katex libjs-chart.js node-qrcode-generator fonts-katex liblua5.4-dev lua5.4 unifont)
# What only the browser tests need (Debian's Chromium, driven by Playwright; a JRE for the HTML checker).
BROWSER_TEST_PACKAGES=(chromium default-jre-headless)

ensure_system_packages() {
    local missing=()
    for package in "${SYSTEM_PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "Installing system packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Builds with the shared scratch path and fails on any warning from this package's own code.
build() {
    local log status=0
    log="$(mktemp)"
    say "Building ($*) in $SCRATCH"
    swift build --package-path "$ROOT" --scratch-path "$SCRATCH" "$@" 2>&1 | tee "$log" >&2 || status=$?
    local warnings
    warnings="$(grep "warning:" "$log" | grep -F "$ROOT/" | sort -u || true)"
    rm -f "$log"
    [ "$status" -eq 0 ] || { echo "build failed" >&2; return "$status"; }
    if [ -n "$warnings" ]; then
        printf '%s\n' "$warnings" >&2
        echo "the build has warnings in Sibyl's own code: keep them at zero" >&2
        return 1
    fi
}

sibyl_binary() {
    echo "$SCRATCH/$1/sibyl"
}
