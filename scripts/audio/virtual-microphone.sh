# A virtual microphone and speaker for tests on machines without sound hardware. Sourced, not run.
#
# PulseAudio runs as a per-user daemon (root works without --system) with a null sink as the
# default speaker and a pipe source as the default microphone: raw 16 kHz mono s16le written to
# the FIFO is what `parec` (and Sibyl's --voice) records, at the pace PulseAudio reads it. When the
# writer stops, the source delivers nothing more, so a recording's own trailing silence is what a
# voice-activity detector hears as the end of speech.
#
#   start_virtual_microphone           idempotent; exports XDG_RUNTIME_DIR and SIBYL_TEST_MICROPHONE
#   feed_virtual_microphone FILE.wav   plays any WAV into the microphone (sox converts it)
#   stop_virtual_microphone

VIRTUAL_AUDIO_DIR="${SIBYL_CACHE:-$HOME/.cache/sibyl}/virtual-audio"

start_virtual_microphone() {
    export XDG_RUNTIME_DIR="$VIRTUAL_AUDIO_DIR/run"
    export SIBYL_TEST_MICROPHONE="$XDG_RUNTIME_DIR/microphone.fifo"
    mkdir -p "$XDG_RUNTIME_DIR"
    chmod 700 "$XDG_RUNTIME_DIR"
    if pactl info >/dev/null 2>&1; then
        virtual_microphone_ready && return 0
        # A daemon without the microphone (it failed to load): start again.
        pulseaudio --kill >/dev/null 2>&1 || true
        for _ in $(seq 1 50); do pactl info >/dev/null 2>&1 || break; sleep 0.1; done
    fi
    # A FIFO left by a daemon that died makes module-pipe-source refuse to load.
    rm -f "$SIBYL_TEST_MICROPHONE"
    cat > "$VIRTUAL_AUDIO_DIR/default.pa" <<PA
load-module module-native-protocol-unix
load-module module-null-sink sink_name=speaker
load-module module-pipe-source source_name=microphone file=$SIBYL_TEST_MICROPHONE format=s16le rate=16000 channels=1
set-default-source microphone
set-default-sink speaker
PA
    pulseaudio --daemonize=yes --exit-idle-time=-1 -n -F "$VIRTUAL_AUDIO_DIR/default.pa" \
        --log-target="file:$VIRTUAL_AUDIO_DIR/pulse.log" >/dev/null 2>&1 || true
    for _ in $(seq 1 50); do
        virtual_microphone_ready && return 0
        sleep 0.1
    done
    echo "the virtual microphone (PulseAudio) did not start; see $VIRTUAL_AUDIO_DIR/pulse.log" >&2
    return 1
}

# Whether PulseAudio answers and has the pipe source.
virtual_microphone_ready() {
    pactl list short sources 2>/dev/null | awk '$2 == "microphone" { found = 1 } END { exit !found }'
}

feed_virtual_microphone() {
    sox "$1" -t raw -r 16000 -c 1 -b 16 -e signed-integer - > "$SIBYL_TEST_MICROPHONE"
}

stop_virtual_microphone() {
    XDG_RUNTIME_DIR="$VIRTUAL_AUDIO_DIR/run" pulseaudio --kill >/dev/null 2>&1 || true
}
