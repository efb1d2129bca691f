# Sibyl's virtual Monocle: the link to the emulator host and the REPL supervisor.
#
# The host runs `micropython <firmware dir>/_sibyl_emu.py` in the device's file-system
# directory. This file stands in for the firmware's boot sequence and REPL: it runs main.py,
# then executes the host's raw/friendly REPL requests, while the firmware modules next to it
# (bluetooth, touch, display, ...) reach the host through the helpers below.
#
# Socket framing, both ways: 1 ASCII type byte, 4-byte big-endian length, payload.
# stdout is the device's serial REPL; "\x1eB" and "\x1eE" are in-band markers for the host.

import io
import json
import micropython
import os
import select
import socket
import struct
import sys
import time

# Run as a script this file is __main__; the stubs import it as _sibyl_emu, and that module
# instance holds the link state (see the end of the file).
_ARGV0 = sys.argv[0] if sys.argv else "_sibyl_emu.py"
_MAIN = _ARGV0 if _ARGV0.startswith("/") else os.getcwd() + "/" + _ARGV0
FIRMWARE_DIR = _MAIN.rsplit("/", 1)[0]

_DEFAULTS = {
    "max_length": 253,
    "firmware": "v23.248.0754",
    "fpga": "v23.230.0808",
    "git_tag": "a18d62e06",
    "safe_mode": False,
    "mic_realtime": False,
    "battery": 100,
    "fast_reset": True,
}
config = dict(_DEFAULTS)
try:
    config.update(json.loads(os.getenv("SIBYL_EMU_CONFIG") or "{}"))
except Exception as e:
    sys.stderr.write("sibyl-emu: bad SIBYL_EMU_CONFIG: %r\n" % e)

# Device state the host drives. It lives here, not in the stubs, because frames can arrive
# before main.py imports the module they concern.
connected = False  # data-TX notifications enabled ('C')
touch_pads = None  # "A", "B", "BOTH" or None ('T' / 'U')
touch_callbacks = {"A": None, "B": None, "BOTH": None, "EITHER": None}
receive_callback = None  # bluetooth.receive_callback
mic_clip = None  # (sample rate, int16 little-endian mono samples) ('M'), the latest
mic_clips = {}  # the same clip per sample rate, when the host resampled it for each
mic_clip_at = 0  # ticks_ms when the latest clip arrived (a continuous microphone plays it from then)
photo = b""  # JPEG served by the next camera.capture() ('P')

_sock = None
_poller = None
_rx = b""
_closed = False
_inbox = []  # whole frames received and not yet acted on, oldest first
_repl_requests = []  # 'X'/'Y'/'Z' frames wait here until the REPL is idle, like serial input
_events = []  # (callback, argument) waiting for the scheduler
_pump_scheduled = False
_interrupted = False  # a ^C that hit a callback, re-raised in the program (see _pump)
_current = None  # [kind, error] of the REPL request (or "B": the boot) whose end is not written yet


def _connect():
    # The host holds any ^C back until the 'b' frame says the link is up, so none lands in here.
    global _sock, _poller
    if _sock is None:
        port = int(os.getenv("SIBYL_EMU_PORT") or "0")
        sock = socket.socket()
        sock.connect(socket.getaddrinfo("127.0.0.1", port)[0][-1])
        _sock = sock
    poller = select.poll()
    poller.register(_sock, select.POLLIN)
    _poller = poller
    send("b")


def send(kind, payload=b""):
    """Sends one frame to the host."""
    if _closed or _sock is None:
        return
    if isinstance(payload, str):
        payload = payload.encode()
    _sock.sendall(kind.encode() + struct.pack(">I", len(payload)) + payload)


def _lost():
    # The host went away: the device is gone. SystemExit unwinds to the supervisor; if a
    # program swallows it, the next poll() ends the process the hard way.
    global _closed
    if _closed:
        os.system("kill -9 $PPID")
    _closed = True
    sys.stdout.flush()
    raise SystemExit(0)


def poll(timeout_ms=0):
    """Reads what the host sent and dispatches whole frames; waits at most timeout_ms
    (-1: until something arrives)."""
    global _rx
    if _closed:
        _lost()
    _raise_if_interrupted()
    if _sock is None:
        if timeout_ms > 0:
            time.sleep_ms(timeout_ms)
        return
    # Each step below happens whole or not at all, so no frame is lost or acted on twice even if
    # an exception cuts it short (the host's fallback ^C, a SIGINT, can land anywhere).
    _deliver()
    _raise_if_interrupted()
    while _poller.poll(timeout_ms):
        before = len(_rx)
        _rx = _rx + _sock.recv(65536)  # kept even if a ^C lands right after
        if len(_rx) == before:
            _lost()
        while len(_rx) >= 5 and len(_rx) >= 5 + struct.unpack(">I", _rx[1:5])[0]:
            n = struct.unpack(">I", _rx[1:5])[0]
            _inbox.append((chr(_rx[0]), _rx[5 : 5 + n])); _rx = _rx[5 + n :]  # noqa: E702 (together)
        _deliver()
        _raise_if_interrupted()
        timeout_ms = 0


def _raise_if_interrupted():
    # The host's ^C arrives as an 'I' frame (or from a callback, see _pump) and is raised here, in
    # the program that called poll(): the firmware stubs poll between bits of their work.
    global _interrupted
    if _interrupted:
        _interrupted = False
        raise KeyboardInterrupt


def _deliver():
    while _inbox:
        _act()
    if _events and not _pump_scheduled:
        _schedule_pump()  # a ^C cut call_soon short after queueing


def wait_ms(ms):
    """Sleeps like time.sleep_ms but keeps serving the host, as the firmware's event hook
    keeps serving Bluetooth and touch interrupts during a sleep."""
    end = time.ticks_add(time.ticks_ms(), ms)
    while True:
        left = time.ticks_diff(end, time.ticks_ms())
        if left <= 0:
            break
        poll(left)
    poll()


def block_forever():
    # device.reset() and update.micropython() never return; the host kills the process.
    while True:
        poll(1000)


def call_soon(fn, arg):
    """Runs fn(arg) between bytecodes of the running program, as mp_sched_schedule does.
    Our own queue drains through one scheduler slot, so a burst of frames never overflows
    MicroPython's small scheduler queue."""
    _events.append((fn, arg))
    _schedule_pump()


def _schedule_pump():
    global _pump_scheduled
    if not _pump_scheduled:
        try:
            micropython.schedule(_pump, None); _pump_scheduled = True  # noqa: E702
        except RuntimeError:
            pass  # the program filled the scheduler queue; the next event retries


def _pump(_):
    global _pump_scheduled, _interrupted
    _pump_scheduled = False
    while _events:
        fn, arg = _events.pop(0)
        try:
            fn(arg)
        except KeyboardInterrupt:
            # The firmware would swallow it here; the host's ^C is meant for the program.
            _interrupted = True
        except SystemExit:
            raise
        except Exception as e:
            # The firmware prints an exception in a scheduled callback and carries on.
            print_exception(e)


def _dispatch(kind, payload):
    """Acts on one frame, as if it had just arrived (the smoke checks feed frames this way)."""
    _inbox.append((kind, payload))
    _deliver()


def _act():
    """Acts on the oldest frame in the inbox and removes it. Setting state is harmless to repeat;
    queueing (a REPL request, a callback) happens in the same step as the removal, so a ^C that
    cuts this short leaves the frame to be acted on again, never twice."""
    global connected, touch_pads, mic_clip, mic_clip_at, photo, _interrupted
    kind, payload = _inbox[0]
    if kind in "XYZ":
        _repl_requests.append((kind, payload)); _inbox.pop(0)  # noqa: E702
        return
    fn = None
    arg = None
    if kind == "I":
        _interrupted = True
    elif kind == "D":
        fn, arg = receive_callback, bytes(payload)
    elif kind == "T":
        pads = {b"A": "A", b"B": "B", b"BOTH": "BOTH"}.get(bytes(payload))
        if pads is not None:
            touch_pads = pads
            # touch.c: one pad calls the EITHER callback if set, else its own; both pads call
            # only the BOTH callback. The argument is the pad(s) touched.
            if pads == "BOTH":
                fn = touch_callbacks["BOTH"]
            else:
                fn = touch_callbacks["EITHER"] or touch_callbacks[pads]
            arg = pads
    elif kind == "U":
        touch_pads = None
    elif kind == "C":
        connected = bytes(payload) == b"1"
    elif kind == "M":
        if len(payload) >= 4:
            mic_clip = (struct.unpack(">I", payload[0:4])[0], bytes(payload[4:]))
            mic_clips[mic_clip[0]] = mic_clip[1]
            mic_clip_at = time.ticks_ms()
    elif kind == "P":
        photo = bytes(payload)
    elif kind == "Q":
        send("q", bytes(payload))  # the host's sync: everything sent before this has gone ahead of it
    if fn is None:
        _inbox.pop(0)
    else:
        _events.append((fn, arg)); _inbox.pop(0)  # noqa: E702
        _schedule_pump()


def format_exception(e):
    """A traceback without the emulator's own frames, so it reads as the firmware's would (its
    modules are C or frozen code)."""
    buf = io.StringIO()
    sys.print_exception(e, buf)
    hidden = ('  File "' + FIRMWARE_DIR + "/", '  File "' + _ARGV0 + '"')
    out = ""
    for line in buf.getvalue().split("\n"):
        if line and not line.startswith(hidden[0]) and not line.startswith(hidden[1]):
            out += line + "\n"
    return out


def print_exception(e):
    """Prints a traceback to the serial output, as the firmware does."""
    sys.stdout.write(format_exception(e))


def _run(source, filename, mode, g):
    """Compiles and runs UTF-8 source in g; returns the exception it raised, or None."""
    try:
        exec(compile(bytes(source).decode(), filename, mode), g)
    except SystemExit as e:
        if _closed:
            raise
        return None if not e.args or e.args[0] in (None, 0) else e
    except BaseException as e:
        return e
    return None


def _repl_request(g):
    global _current
    # Taken off the queue and marked current in one step (see _finish_request); until
    # the code has run, its outcome is the host's ^C, which may land anywhere from here on.
    kind, source = _repl_requests.pop(0); _current = [kind, KeyboardInterrupt()]  # noqa: E702
    # Raw REPL and paste mode ('Z'): "exec"; friendly REPL: one statement compiled like the
    # interactive prompt, so an expression's value is printed.
    _current[1] = _run(source, "<stdin>", "single" if kind == "Y" else "exec", g)
    _finish_request()


def _finish_request():
    """Writes the reply's end: in the raw REPL (the host prints "OK" before and ">" after) ^D,
    the exception text, ^D; in the friendly REPL the exception text; then the end marker.

    The host's ^C is meant for the code, but can arrive as it ends, so a KeyboardInterrupt can cut
    this short. The reply goes out in one write, and _current is cleared right after it: a reply
    cut short before the write is written by the supervisor loop, and one cut short after it is
    not written again."""
    global _current
    kind, err = _current
    text = "" if err is None else format_exception(err)
    if kind == "X":
        text = "\x04" + text + "\x04"
    if kind == "B":
        text += "\x1eB"  # the boot's end: main.py has finished (or there is none, or a ^C stopped it starting)
    else:
        text += "\x1eE"
    sys.stdout.flush()
    sys.stdout.write(text); _current = None; sys.stdout.flush()  # noqa: E702


def _boot(g):
    # The firmware runs /main.py after a (soft) reset unless it is in safe mode; an exception
    # or ^C ends it with a traceback on the serial output and leaves the REPL idle.
    try:
        with open("main.py", "rb") as f:
            source = f.read()
    except OSError:
        return
    err = _run(source, "main.py", "exec", g)
    if err is not None:
        print_exception(err)


_booting = True  # main.py has not been started yet


def _absorb():
    """A ^C landed in the supervisor's own code. At an idle REPL it does nothing. Before main.py
    has started, it keeps it from starting (the host meant it for the program)."""
    global _booting, _current
    if _booting:
        _booting = False
        _current = ["B", KeyboardInterrupt()]


def _serve(g):
    """The supervisor: connect, boot, then serve REPL requests, finishing whatever a ^C cut short.
    Returns when the host goes away."""
    global _booting
    try:
        while True:
            try:
                if _poller is None:
                    _connect()
                elif _booting:
                    _booting = False
                    _boot(g)  # a ^C in main.py ends it with a traceback, as on the device
                elif _current is not None:
                    _finish_request()  # the boot's end, or a reply a ^C cut short
                elif _repl_requests:
                    _repl_request(g)
                else:
                    poll(1000)
            except KeyboardInterrupt:
                _absorb()
    except SystemExit:
        pass


def main():
    global _booting, _current
    # The device finds its own files first (cwd), then the firmware modules.
    sys.path.clear()
    sys.path.append("")
    sys.path.append(FIRMWARE_DIR)
    _current = ["B", None]
    _booting = not config.get("safe_mode")
    g = {"__name__": "__main__"}
    while True:
        try:
            _serve(g)
            break
        except KeyboardInterrupt:
            # Raised in the serving loop outside its handler (its jump back): serve on.
            _absorb()
    sys.stdout.flush()


if __name__ == "__main__":
    # Import this file again as a module so that the stubs and the supervisor share one
    # instance of the link state.
    sys.path.insert(0, FIRMWARE_DIR)
    import _sibyl_emu

    _sibyl_emu.main()
