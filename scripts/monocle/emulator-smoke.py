#!/usr/bin/env python3
"""Smoke test for the virtual Monocle's MicroPython side: the firmware stubs, the supervisor
(_sibyl_emu.py) and Sibyl's device app. It plays the Swift host: listens on a port, spawns the
interpreter in a temporary device directory, drives it with frames and checks what comes back.

    scripts/monocle/emulator-smoke.py [--micropython PATH] [-v]

Exits non-zero and lists the failed checks on failure.
"""

import argparse
import json
import math
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE = os.path.join(ROOT, "Sources/MonocleEmulator/Resources/firmware")
APP = os.path.join(ROOT, "Sources/Monocle/Resources/DeviceApp")
# `sibyl models install emulator` puts the MicroPython unix port here, as a CPython 3.11 module;
# --micropython (or SIBYL_MICROPYTHON) may instead name a `micropython` executable.
MODULE_DIR = os.path.join(os.environ.get("SIBYL_ENGINES", os.path.expanduser("~/.cache/sibyl/engines")), "micropython")
DEFAULT_MPY = os.path.join(MODULE_DIR, "micropython_run.cpython-311-x86_64-linux-gnu.so")


def interpreter_command(mpy):
    """The command that runs a MicroPython script: the executable, or the module under CPython."""
    if mpy.endswith(".so"):
        return [sys.executable, "-c", "import sys, micropython_run; sys.exit(micropython_run.run_main(['micropython'] + sys.argv[1:]))"]
    return [mpy]

ROWS = 7  # answer lines the screen shows
WHITE, RED, YELLOW = 0xFFFFFF, 0xAD2323, 0xFFEE33

failures = []
verbose = False


def check(ok, what, detail=""):
    if ok:
        print("ok    " + what)
    else:
        print("FAIL  " + what + ((": " + detail) if detail else ""))
        failures.append(what)
    return ok


class Emulator:
    """One interpreter process and its socket, as the Swift host would run it."""

    def __init__(self, mpy, config=None, app=True, files=None):
        self.dir = tempfile.mkdtemp(prefix="sibyl-emu-")
        for name, text in (files or {}).items():
            with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
                f.write(text)
        if app:
            for name in os.listdir(APP):
                if name.endswith(".py"):
                    with open(os.path.join(APP, name), encoding="utf-8") as f:
                        src = f.read()
                    if name == "main.py":
                        src = 'SIBYL_APP_VERSION="test"\n' + src
                    with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
                        f.write(src)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        env = dict(os.environ)
        env["SIBYL_EMU_PORT"] = str(self.listener.getsockname()[1])
        cfg = {"max_length": 253, "firmware": "v23.248.0754", "fpga": "v23.230.0808", "git_tag": "a18d62e06",
               "safe_mode": False, "mic_realtime": False, "battery": 100, "fast_reset": True}
        cfg.update(config or {})
        env["SIBYL_EMU_CONFIG"] = json.dumps(cfg)
        env["MICROPYPATH"] = "/nonexistent"  # the supervisor must set sys.path itself
        if mpy.endswith(".so"):
            env["PYTHONPATH"] = os.path.dirname(mpy)
        self.proc = subprocess.Popen(interpreter_command(mpy) + [os.path.join(FIRMWARE, "_sibyl_emu.py")], cwd=self.dir, env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.listener.settimeout(10)
        self.sock, _ = self.listener.accept()
        self.lock = threading.Condition()
        self.out = b""
        self.err = b""
        self.frames = []  # (time, type, payload)
        self.closed = False
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        threading.Thread(target=self._read_sock, daemon=True).start()

    def _read_out(self):
        while True:
            b = self.proc.stdout.read1(4096)
            if not b:
                break
            with self.lock:
                self.out += b
                self.lock.notify_all()
            if verbose:
                sys.stdout.write("[serial] %r\n" % b)

    def _read_err(self):
        while True:
            b = self.proc.stderr.read1(4096)
            if not b:
                break
            with self.lock:
                self.err += b

    def _read_sock(self):
        buf = b""
        while True:
            try:
                b = self.sock.recv(65536)
            except OSError:
                b = b""
            if not b:
                with self.lock:
                    self.closed = True
                    self.lock.notify_all()
                return
            buf += b
            while len(buf) >= 5:
                n = struct.unpack(">I", buf[1:5])[0]
                if len(buf) < 5 + n:
                    break
                t, p, buf = chr(buf[0]), buf[5:5 + n], buf[5 + n:]
                with self.lock:
                    self.frames.append((time.monotonic(), t, p))
                    self.lock.notify_all()
                if verbose and t != "s":
                    print("[frame] %s %r" % (t, p[:40]))

    def send(self, t, payload=b""):
        self.sock.sendall(t.encode() + struct.pack(">I", len(payload)) + payload)

    def data(self, payload):
        self.send("D", payload)

    def wait(self, pred, timeout=10.0):
        end = time.monotonic() + timeout
        with self.lock:
            while True:
                r = pred()
                if r:
                    return r
                left = end - time.monotonic()
                if left <= 0:
                    return r
                self.lock.wait(left)

    def mark(self):
        with self.lock:
            return len(self.frames), len(self.out)

    def notes_since(self, m):
        with self.lock:
            return [p for (_, t, p) in self.frames[m[0]:] if t == "d"]

    def screens_since(self, m):
        with self.lock:
            return [json.loads(p) for (_, t, p) in self.frames[m[0]:] if t == "s"]

    def out_since(self, m):
        with self.lock:
            return self.out[m[1]:]

    def wait_note(self, m, pred, timeout=10.0):
        """Waits for a data notification after mark m that satisfies pred."""
        def find():
            for p in self.notes_since(m):
                if pred(p):
                    return p
            return None
        return self.wait(find, timeout)

    def wait_screen(self, m, pred, timeout=10.0):
        def find():
            for s in self.screens_since(m):
                if pred(s):
                    return s
            return None
        return self.wait(find, timeout)

    def wait_out(self, m, needle, timeout=10.0):
        return self.wait(lambda: needle in self.out_since(m), timeout)

    def exec_raw(self, source, timeout=10.0):
        m = self.mark()
        self.send("X", source.encode())
        ok = self.wait_out(m, b"\x1eE", timeout)
        return self.out_since(m) if ok else None

    def exec_friendly(self, source, timeout=10.0):
        m = self.mark()
        self.send("Y", source.encode())
        ok = self.wait_out(m, b"\x1eE", timeout)
        return self.out_since(m) if ok else None

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def prompt_of(screen):
    p = [o for o in screen if o["type"] == "Text" and o["color"] == YELLOW]
    return p[0]["text"] if p else None


def lines_of(screen, color=None):
    ts = sorted([o for o in screen if o["type"] == "Text" and o["color"] != YELLOW], key=lambda o: o["y"])
    return [o["text"] for o in ts if color is None or o["color"] == color]


def sine_clip(rate=16000, seconds=3.0, freq=440.0, amp=12000):
    n = int(rate * seconds)
    samples = [int(amp * math.sin(2 * math.pi * freq * i / rate)) for i in range(n)]
    return samples, struct.pack(">I", rate) + struct.pack("<%dh" % n, *samples)


def audio_after(m, emu, start, timeout=15.0):
    """Waits for start (ast:/ien:) ... aen: after mark m; returns the notes from start on."""
    def done():
        notes = emu.notes_since(m)
        heads = [p[:4] for p in notes]
        if start in heads and b"aen:" in heads[heads.index(start):]:
            return notes[heads.index(start):]
        return None
    return emu.wait(done, timeout)


def overlapping(screen):
    texts = [o for o in screen if o["type"] == "Text"]
    for a in texts:
        for b in texts:
            if a is b:
                continue
            if (a["x"] <= b["x"] + 24 * len(b["text"]) and a["x"] + 24 * len(a["text"]) >= b["x"]
                    and a["y"] <= b["y"] + 48 and a["y"] + 48 >= b["y"]):
                return True
    return False


def test_app(mpy):
    emu = Emulator(mpy)
    try:
        m0 = (0, 0)  # everything since the process started
        s = emu.wait_screen(m0, lambda s: "Welcome to Sibyl." in lines_of(s))
        check(bool(s), "welcome screen before the phone connects", repr(s))
        check(bool(emu.wait_out(m0, b"State: Welcome\n", 3)), "state changes are printed on the serial output")

        # Connect: the app becomes ready.
        m = emu.mark()
        emu.send("C", b"1")
        check(bool(emu.wait_note(m, lambda p: p == b"rdy:")), "rdy: once the data notifications are on")
        check(bool(emu.wait_screen(m, lambda s: prompt_of(s) == "Tap to speak")), "ready prompt 'Tap to speak'")

        # Tap: the app streams 6 s of 8 kHz signed 8-bit audio taken from the clip.
        samples, clip = sine_clip()
        emu.send("M", clip)
        m = emu.mark()
        emu.send("T", b"A")
        time.sleep(0.05)
        emu.send("U")
        notes = audio_after(m, emu, b"ast:")
        check(bool(notes), "tap: ast: ... aen: arrives", repr([p[:4] for p in emu.notes_since(m)][:8]))
        if notes:
            dat = [p for p in notes if p[:4] == b"dat:"]
            audio = b"".join(p[4:] for p in dat)
            check(notes[0] == b"ast:" and notes[-1] == b"aen:" and len(dat) == len(notes) - 2,
                  "audio is ast:, dat: only, aen:")
            check(len(audio) == 48000, "48000 audio bytes (6 s at 8 kHz, 8-bit)", str(len(audio)))
            check(all(len(p) <= 253 for p in dat) and max(len(p) for p in dat) == 253,
                  "dat: messages fill but never exceed max_length()", str(sorted({len(p) for p in dat})))
            want = bytes(((samples[2 * i] >> 8) & 0xFF) for i in range(24000))  # 16 kHz -> 8 kHz, high bytes
            check(audio[:24000] == want, "audio bytes are the clip's signed high bytes at 8 kHz")
            check(audio[24000:] == bytes(24000), "audio past the clip is silence")
        check(bool(emu.wait_screen(m, lambda s: (prompt_of(s) or "").startswith("Listening ["))),
              "'Listening [...]' indicator while recording")
        check(bool(emu.wait_screen(m, lambda s: (prompt_of(s) or "").startswith("Thinking"))),
              "'Thinking' indicator after aen:")

        # pin: is answered at once.
        m = emu.mark()
        emu.data(b"pin:5A0C8A3E-2B8F-4C1E-9D55-0123456789AB")
        check(bool(emu.wait_note(m, lambda p: p == b"pon:5A0C8A3E-2B8F-4C1E-9D55-0123456789AB", 3)),
              "pin: is answered with pon: and the same id")

        # A long answer in several chunks, one split inside a character.
        answer = ("Grüße aus 日本, this answer is long enough to wrap over several lines of the display and "
                  "it keeps going so that the screen has to scroll past seven lines, with a "
                  "supercalifragilisticexpialidociously long word in it.\n\nA second paragraph ends it.")
        # How the app must wrap it (greedy, 26 columns, long words split, a newline ends a line),
        # written out rather than computed, so that the check does not share the app's logic.
        want = ["Grüße aus 日本, this answer", "is long enough to wrap", "over several lines of the",
                "display and it keeps going", "so that the screen has to", "scroll past seven lines,", "with a",
                "supercalifragilisticexpial", "idociously long word in", "it.", "A second paragraph ends", "it."]
        raw = answer.encode()
        cut = raw.index("本".encode()) + 1
        chunks = [raw[:cut], raw[cut:cut + 100], raw[cut + 100:]]
        m = emu.mark()
        for c in chunks:
            emu.data(b"res:" + c)
        ok = emu.wait_note(m, lambda p: p == b"rdy:", 30)
        check(bool(ok), "back to ready (rdy:) after the answer is revealed")
        emu.wait_screen(m, lambda s: prompt_of(s) == "Tap to speak", 3)
        screens = emu.screens_since(m)
        final = [s for s in screens if prompt_of(s) == "Tap to speak"]
        check(len(want) > ROWS, "the test answer needs scrolling", str(len(want)))
        if check(bool(final), "the answer stays on screen with the ready prompt"):
            got = lines_of(final[-1])
            check(got == want[-ROWS:], "answer wrapped at 26 columns, last 7 lines shown",
                  "\n got %r\nwant %r" % (got, want[-ROWS:]))
            texts = [o for o in final[-1] if o["type"] == "Text" and o["color"] != YELLOW]
            check(all(o["color"] == WHITE and o["x"] == 0 for o in texts), "answer text is white at x=0")
            check([o["y"] for o in sorted(texts, key=lambda o: o["y"])] == [50 * i for i in range(len(texts))],
                  "answer lines at y = 50*i")
            p = [o for o in final[-1] if o["color"] == YELLOW][0]
            check(p["y"] == 352 and p["x"] == 320 - 12 * len(p["text"]) and p["justify"] == 5,
                  "prompt bottom-centred at (320, 400)", repr(p))
        counts = [sum(len(l.split()) for l in lines_of(s)) for s in screens if prompt_of(s) is None]
        check(len(counts) > 20 and counts[:20] == list(range(counts[0], counts[0] + 20)) and counts[0] <= 3,
              "the answer is revealed word by word", str(counts[:24]))
        check(not any(overlapping(s) for s in screens), "no text box ever overlaps another")
        check(not any("�" in l for s in screens for l in lines_of(s)), "no broken character on screen")

        # The answer goes on as the model writes: a res: after the reveal caught up (the app is
        # Ready again) adds to it rather than starting a new one.
        m = emu.mark()
        emu.data(b"res: More words.")
        ok = emu.wait_screen(m, lambda s: prompt_of(s) == "Tap to speak" and lines_of(s)[-2:] == ["A second paragraph ends", "it. More words."], 10)
        check(bool(ok), "res: while ready adds to the answer", repr([lines_of(s) for s in emu.screens_since(m)][-1:]))

        # An error while idle is drawn in red, on the screen the host cleared (clr:) for it.
        m = emu.mark()
        emu.data(b"clr:")
        emu.data(b"err:Network request failed.")
        ok = emu.wait_screen(m, lambda s: prompt_of(s) == "Tap to speak" and lines_of(s, RED) == ["Network request failed."], 10)
        check(bool(ok), "err: while idle is drawn in red, then the ready prompt returns")

        # Hold: a photo, then the spoken prompt (ien: replaces ast:).
        photo = b"\xff\xd8\xff\xe0" + bytes(random.Random(1).randrange(256) for _ in range(3000)) + b"\xff\xd9"
        emu.send("P", photo)
        emu.send("M", clip)
        m = emu.mark()
        emu.send("T", b"B")
        time.sleep(1.3)
        emu.send("U")
        check(bool(emu.wait_screen(m, lambda s: prompt_of(s) == "Hold for a photo", 3)), "'Hold for a photo' hint")
        notes = audio_after(m, emu, b"ist:", 20)
        if check(bool(notes), "hold: ist: ... aen: arrives", repr([p[:4] for p in emu.notes_since(m)][:8])):
            heads = [p[:4] for p in notes]
            i = heads.index(b"ien:")
            image = b"".join(p[4:] for p in notes[1:i])
            check(all(h == b"idt:" for h in heads[1:i]), "only idt: between ist: and ien:")
            check(image == photo, "the JPEG arrives intact in idt: chunks", "%d vs %d bytes" % (len(image), len(photo)))
            check(b"ast:" not in heads and all(h == b"dat:" for h in heads[i + 1:-1]),
                  "the audio prompt follows ien: without ast:")
            check(sum(len(p) - 4 for p in notes[i + 1:-1]) == 48000, "48000 audio bytes after the photo")

        # Cancel while waiting.
        m = emu.mark()
        emu.send("T", b"A")
        time.sleep(0.05)
        emu.send("U")
        check(bool(emu.wait_note(m, lambda p: p == b"can:", 3)), "tap while thinking sends can:")
        check(bool(emu.wait_note(m, lambda p: p == b"rdy:", 3)), "... and the app is ready again")
        check(bool(emu.wait_screen(m, lambda s: prompt_of(s) == "Cancelled", 3)), "... showing 'Cancelled'")

        # A tap while listening ends the recording early.
        m = emu.mark()
        emu.send("T", b"A")
        time.sleep(0.05)
        emu.send("U")
        emu.wait_note(m, lambda p: p == b"ast:", 3)
        emu.send("T", b"A")
        time.sleep(0.05)
        emu.send("U")
        notes = audio_after(m, emu, b"ast:", 10)
        if check(bool(notes), "tap, tap: recording ends with aen:"):
            n = sum(len(p) - 4 for p in notes if p[:4] == b"dat:")
            check(n < 48000, "the second tap ends the recording early", "%d bytes" % n)
        emu.send("T", b"A")
        emu.send("U")
        check(bool(emu.wait_note(m, lambda p: p == b"can:", 3)), "and a third tap cancels")

        # ^C while main.py runs: a KeyboardInterrupt traceback, then the REPL is idle.
        time.sleep(0.3)
        m = emu.mark()
        emu.proc.send_signal(signal.SIGINT)
        ok = emu.wait_out(m, b"\x1eB", 5)
        out = emu.out_since(m)
        check(bool(ok) and out.startswith(b"Traceback (most recent call last):\n  File \"main.py\", line ")
              and out.endswith(b"KeyboardInterrupt: \n\x1eB") and b"_sibyl_emu" not in out
              and b"firmware" not in out,
              "SIGINT in main.py: traceback without emulator frames, then \\x1eB", repr(out))

        # The raw REPL.
        out = emu.exec_raw("print(SIBYL_APP_VERSION)")
        check(out == b"test\n\x04\x04\x1eE", "raw exec print(SIBYL_APP_VERSION)", repr(out))
        out = emu.exec_raw("x = 1\nundefined_name")
        check(out == b"\x04Traceback (most recent call last):\n  File \"<stdin>\", line 2, in <module>\n"
                     b"NameError: name 'undefined_name' isn't defined\n\x04\x1eE", "raw exec error traceback", repr(out))
        out = emu.exec_raw("def f(:")
        check(out == b"\x04Traceback (most recent call last):\n  File \"<stdin>\", line 1\nSyntaxError: invalid syntax\n\x04\x1eE",
              "raw exec syntax error", repr(out))
        out = emu.exec_raw("f=open('note.txt','w');f.write('''a\\nb''');f.close()")
        check(out == b"\x04\x04\x1eE" and open(os.path.join(emu.dir, "note.txt")).read() == "a\nb",
              "raw exec writes a file like the uploader", repr(out))
        out = emu.exec_raw("import device;print(device.VERSION);del(device)")
        check(out == b"v23.248.0754\n\x04\x04\x1eE", "firmware version command", repr(out))
        out = emu.exec_raw("import fpga;print(fpga.read(2,12));del(fpga)")
        check(out == b"b'v23.230.0808'\n\x04\x04\x1eE", "FPGA version command", repr(out))
        out = emu.exec_friendly("1 + 2")
        check(out == b"3\n\x1eE", "friendly exec prints an expression's value", repr(out))
        out = emu.exec_friendly("y = 7")
        check(out == b"\x1eE", "friendly exec of a statement prints nothing", repr(out))
        out = emu.exec_friendly("y")
        check(out == b"7\n\x1eE", "friendly exec shares the globals", repr(out))
        out = emu.exec_friendly("1/0")
        check(out == b"Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
                     b"ZeroDivisionError: divide by zero\n\x1eE", "friendly exec error", repr(out))

        # ^C while idle is swallowed; the REPL keeps working.
        m = emu.mark()
        emu.proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
        out = emu.exec_raw("print('still here')")
        check(out == b"still here\n\x04\x04\x1eE" and emu.proc.poll() is None, "SIGINT while idle is ignored", repr(out))

        # ^C during a raw exec interrupts it, with a traceback.
        m = emu.mark()
        emu.send("X", b"import time\nwhile True:\n    time.sleep_ms(10)")
        time.sleep(0.5)
        emu.proc.send_signal(signal.SIGINT)
        ok = emu.wait_out(m, b"\x1eE", 5)
        out = emu.out_since(m)
        check(bool(ok) and out.startswith(b"\x04Traceback") and out.endswith(b"KeyboardInterrupt: \n\x04\x1eE"),
              "SIGINT during a raw exec", repr(out))

        # Touch callbacks still run at the idle REPL (the app's on_touch counts presses).
        before = emu.exec_friendly("presses")
        emu.send("T", b"A")
        emu.send("U")
        time.sleep(0.2)
        after = emu.exec_friendly("presses")
        check(before and after and int(after.split(b"\n")[0]) == int(before.split(b"\n")[0]) + 1,
              "touch callbacks run while the REPL is idle", "%r %r" % (before, after))

        # Upload a file the way the companion app does: LFs escaped, inside a triple-quoted literal.
        src = open(os.path.join(APP, "main.py"), encoding="utf-8").read()
        cmd = "f=open('uploaded.py','w');f.write('''" + src.replace("\n", "\\n") + "''');f.close()"
        out = emu.exec_raw(cmd)
        written = open(os.path.join(emu.dir, "uploaded.py"), encoding="utf-8").read() if out else None
        check(out == b"\x04\x04\x1eE" and written == src, "main.py survives the uploader's escaping unchanged", repr(out))

        stub_tests(emu)

        # The socket closing ends the process.
        emu.sock.shutdown(socket.SHUT_RDWR)
        emu.sock.close()
        try:
            rc = emu.proc.wait(5)
            check(True, "the interpreter exits when the host closes the socket (rc %d)" % rc)
        except subprocess.TimeoutExpired:
            check(False, "the interpreter exits when the host closes the socket")
        err = emu.err.decode(errors="replace").strip()
        check(err == "", "nothing on stderr", err[-500:])
    finally:
        emu.proc.kill() if emu.proc.poll() is None else None
        emu.close()


STUB_TESTS = r'''
import bluetooth, touch, microphone, camera, display, fpga, update, device, led
import _sibyl_emu as emu

def expect(name, fn, want):
    try:
        got = fn()
    except Exception as e:
        got = (type(e).__name__, str(e))
    print(("PASS " if got == want else "FAIL ") + name + ("" if got == want else " got %r want %r" % (got, want)))

def run_scheduled():
    for i in range(20):
        pass

# touch: dispatch rules of touch.c
calls = []
for pad in ("A", "B", "BOTH", "EITHER"):
    touch.callback(pad, None)
touch.callback(touch.A, lambda p: calls.append("a:" + p))
touch.callback(touch.B, lambda p: calls.append("b:" + p))
touch.callback(touch.BOTH, lambda p: calls.append("both:" + p))
emu._dispatch("T", b"A"); run_scheduled()
emu._dispatch("T", b"B"); run_scheduled()
emu._dispatch("T", b"BOTH"); run_scheduled()
expect("touch: single pads call their own callback, BOTH only the BOTH one", lambda: calls, ["a:A", "b:B", "both:BOTH"])
touch.callback(touch.EITHER, lambda p: calls.append("either:" + p))
calls.clear()
emu._dispatch("T", b"A"); run_scheduled()
emu._dispatch("T", b"B"); run_scheduled()
emu._dispatch("T", b"BOTH"); run_scheduled()
expect("touch: EITHER takes precedence for single pads only", lambda: calls, ["either:A", "either:B", "both:BOTH"])
expect("touch.state() while both pads are down", lambda: (touch.state(), touch.state(touch.EITHER), touch.state(touch.BOTH), touch.state(touch.A)), ("BOTH", False, True, False))
emu._dispatch("T", b"B")
expect("touch.state() with pad B down", lambda: (touch.state(), touch.state(touch.EITHER), touch.state(touch.B), touch.state(touch.BOTH)), ("B", True, True, False))
emu._dispatch("U", b"")
expect("touch.state() after release", lambda: (touch.state(), touch.state(touch.EITHER)), (None, False))
expect("touch.state('C') is a ValueError", lambda: touch.state("C"), ("ValueError", "must be touch.A, touch.B, touch.BOTH, touch.EITHER"))
expect("touch.callback('X', None) is a ValueError", lambda: touch.callback("X", None), ("ValueError", "must be touch.A, touch.B, touch.BOTH, touch.EITHER"))
expect("touch.callback(A, 5) is a ValueError", lambda: touch.callback(touch.A, 5), ("ValueError", "callback must be None or a callable object"))
expect("touch.callback(pad) returns the callback", lambda: touch.callback(touch.BOTH) is not None and touch.callback(touch.EITHER) is not None, True)
expect("touch constants", lambda: (touch.A, touch.B, touch.BOTH, touch.EITHER), ("A", "B", "BOTH", "EITHER"))

# microphone: read sizes and None
microphone.record(seconds=0)
expect("nothing recorded: read() is None", lambda: microphone.read(10), None)
microphone.record(sample_rate=16000, bit_depth=16, seconds=0.04)
sizes = []
expect("read(128) is a ValueError", lambda: microphone.read(128), ("ValueError", "only 127 samples may be read at a time"))
for n in (127, 10, 127, 127, 127, 127, 127):
    r = microphone.read(n)
    sizes.append(None if r is None else len(r))
expect("16-bit read sizes: min(2n, available, 254) bytes, then None", lambda: sizes, [254, 20, 254, 254, 254, 244, None])
microphone.record(seconds=0.04, bit_depth=8, sample_rate=8000)
sizes = []
for n in (127, 127, 127, 1):
    r = microphone.read(n)
    sizes.append(None if r is None else len(r))
expect("8-bit read sizes: half the bytes; 320 samples per 40 ms block", lambda: sizes, [127, 127, 66, None])
expect("sample rate check", lambda: microphone.record(sample_rate=44100), ("ValueError", "sample rate must be either 16000 or 8000"))
expect("bit depth check", lambda: microphone.record(bit_depth=12), ("ValueError", "bit depth must be either 16 or 8"))
expect("stop() is NotImplemented", lambda: microphone.stop(), NotImplemented)
emu.mic_clip = (8000, b"\x00\x40\x00\xc0\xff\x7f")
microphone.record(seconds=0.04, bit_depth=16, sample_rate=8000)
expect("16-bit samples are big-endian", lambda: microphone.read(4), b"\x40\x00\xc0\x00\x7f\xff\x00\x00")
microphone.record(seconds=0.04, bit_depth=8, sample_rate=8000)
expect("8-bit samples are the signed high bytes", lambda: microphone.read(4), b"\x40\xc0\x7f\x00")
emu.mic_clip = None

# bluetooth.send errors
emu.connected = False
expect("send() without notifications", lambda: bluetooth.send(b"x"), ("OSError", "notifications are not enabled on the data service"))
expect("connected() is False", lambda: bluetooth.connected(), False)
emu.connected = True
expect("max_length() is MTU - 3", lambda: bluetooth.max_length(), 253)
expect("send() above max_length()", lambda: bluetooth.send(b"x" * 254), ("ValueError", "input buffer is too large"))
expect("send() of max_length() bytes", lambda: bluetooth.send(b"stub" + b"y" * 249), None)
expect("receive_callback(5) is a ValueError", lambda: bluetooth.receive_callback(5), ("ValueError", "callback must be None or a callable object"))
expect("receive_callback() returns the app's handler", lambda: bluetooth.receive_callback() is not None, True)

# display
expect("display constants", lambda: (display.WIDTH, display.HEIGHT, display.FONT_WIDTH, display.FONT_HEIGHT, display.BOTTOM_CENTER, display.YELLOW), (640, 400, 24, 48, 5, 0xFFEE33))
expect("text boxes 48 px apart overlap", lambda: display.show(display.Text("a", 0, 0, 0xFFFFFF), display.Text("b", 0, 48, 0xFFFFFF)), ("TextOverlapError", "Text('b', 0, 48, 0xffffff) overlaps with Text('a', 0, 0, 0xffffff)"))
expect("text boxes 49 px apart do not", lambda: display.show([display.Text("a", 0, 0, 0xFFFFFF), [display.Text("b", 0, 49, 0xFFFFFF)]]), None)
expect("justify", lambda: (lambda t: (t.x, t.y))(display.Text("abcd", 320, 400, 0, justify=display.BOTTOM_CENTER)), (272, 352))
expect("bad justify", lambda: display.Text("a", 0, 0, 0, justify=10), ("ValueError", "unknown justify value"))
expect("thick lines", lambda: display.Line(0, 0, 1, 1, 0, thickness=19), ("ValueError", "max thickness is 18"))
expect("shapes", lambda: display.show(display.Line(0, 0, 10, 10, display.RED), display.HLine(0, 5, 100, display.GREEN), display.Rectangle(50, 60, 10, 20, display.BLUE), display.Fill(display.BLACK), display.Polygon([0, 0, 10, 0, 5, 5], display.CYAN)), None)

# camera
emu.photo = b"0123456789" * 30
camera.capture()
expect("camera.read(255) is a ValueError", lambda: camera.read(255), ("ValueError", "at most 254 bytes"))
expect("camera.read sizes, then None", lambda: [len(camera.read()), len(camera.read(40)), len(camera.read(10)), camera.read(10)], [254, 40, 6, None])

# update / fpga / device / led
expect("Fpga.erase()", lambda: update.Fpga.erase(), None)
expect("Fpga.write()", lambda: update.Fpga.write(b"abcdef"), None)
expect("Fpga.read() reads back, erased flash is 0xFF", lambda: update.Fpga.read(2, 6), b"cdef\xff\xff")
expect("Fpga.read() past the image", lambda: update.Fpga.read(444430, 8), ("ValueError", "address + length cannot exceed 444434 bytes"))
expect("Fpga.write() past the image", lambda: update.Fpga.write(b"z" * 444430), ("ValueError", "data will overflow the space reserved for the app"))
expect("fpga.read(1, 4)", lambda: fpga.read(1, 4), b"Mncl")
expect("fpga.read(0, 256)", lambda: fpga.read(0, 256), ("ValueError", "n must be between 1 and 255"))
expect("device identity", lambda: (device.NAME, device.VERSION, device.GIT_TAG, device.battery_level(), str(device.Storage())), ("monocle", "v23.248.0754", "a18d62e06", 100, "Storage(start=0x0006d000, len=602112)"))
expect("led.on(led.RED)", lambda: led.on(led.RED), None)
expect("led.on('BLUE')", lambda: led.on("BLUE"), ("ValueError", "must be led.RED or led.GREEN"))
'''


def stub_tests(emu):
    m = emu.mark()
    out = emu.exec_raw(STUB_TESTS, 20)
    if not check(out is not None and out.endswith(b"\x04\x04\x1eE"), "stub API tests ran", repr(out and out[-400:])):
        return
    for line in out.decode().split("\n"):
        if line.startswith("PASS "):
            check(True, "stub: " + line[5:])
        elif line.startswith("FAIL "):
            check(False, "stub: " + line[5:])
    # Frames travel on the socket, the serial output on a pipe: wait for the last one expected.
    emu.wait(lambda: ("l", b'{"led":"red","on":true}') in [(t, p) for (_, t, p) in emu.frames[m[0]:]], 5)
    frames = [(t, p) for (_, t, p) in emu.frames[m[0]:]]
    check(("d", b"stub" + b"y" * 249) in frames, "bluetooth.send() reaches the host as 'd'")
    check(("e", b"") in frames and ("w", b"abcdef") in frames, "Fpga.erase()/write() reach the host as 'e'/'w'")
    check(("l", b'{"led":"red","on":true}') in frames, "led.on() reaches the host as 'l'")
    shapes = [json.loads(p) for (t, p) in frames if t == "s" and b"Polygon" in p]
    check(bool(shapes) and [o["type"] for o in shapes[0]] == ["Line", "HLine", "Rectangle", "Fill", "Polygon"]
          and shapes[0][2] == {"type": "Rectangle", "x1": 10, "y1": 20, "x2": 50, "y2": 60, "color": 0x2A4BD7},
          "display.show() reports every object", repr(shapes[:1]))


def test_host_gone(mpy):
    # The host closing the socket while main.py runs ends the process.
    emu = Emulator(mpy)
    try:
        emu.wait_screen((0, 0), lambda s: "Welcome to Sibyl." in lines_of(s))
        emu.sock.shutdown(socket.SHUT_RDWR)
        emu.sock.close()
        try:
            emu.proc.wait(5)
            check(True, "the interpreter exits when the host goes away while main.py runs")
        except subprocess.TimeoutExpired:
            check(False, "the interpreter exits when the host goes away while main.py runs")
    finally:
        if emu.proc.poll() is None:
            emu.proc.kill()
        emu.close()


def test_app_realtime(mpy):
    # With a real-time microphone the app streams the 6 s as they are recorded.
    emu = Emulator(mpy, {"mic_realtime": True})
    try:
        m = emu.mark()
        emu.send("C", b"1")
        emu.wait_note(m, lambda p: p == b"rdy:")
        emu.send("M", sine_clip(rate=8000, seconds=6.0)[1])
        m = emu.mark()
        start = time.monotonic()
        emu.send("T", b"A")
        emu.send("U")
        notes = audio_after(m, emu, b"ast:", 15)
        took = time.monotonic() - start
        if check(bool(notes), "realtime microphone: ast: ... aen:"):
            n = sum(len(p) - 4 for p in notes if p[:4] == b"dat:")
            check(n == 48000 and 5.5 < took < 8.0, "realtime microphone: 48000 bytes in about 6 s",
                  "%d bytes in %.1f s" % (n, took))
    finally:
        emu.close()


def test_boot_variants(mpy):
    # Safe mode skips main.py.
    emu = Emulator(mpy, {"safe_mode": True})
    try:
        m = (0, 0)
        ok = emu.wait_out(m, b"\x1eB", 5)
        check(bool(ok) and emu.out_since(m) == b"\x1eB", "safe mode: no main.py, REPL idle at once", repr(emu.out_since(m)))
        out = emu.exec_raw("print(SIBYL_APP_VERSION)")
        check(out is not None and b"NameError" in out, "safe mode: the app's globals are absent", repr(out))
        # device.reset() prints the countdown, reports 'r' and never returns.
        m = emu.mark()
        emu.send("X", b"import device;device.reset()")
        ok = emu.wait(lambda: any(t == "r" for (_, t, _) in emu.frames[m[0]:]), 5)
        emu.wait_out(m, b".\n.\n", 2)
        check(bool(ok) and emu.out_since(m) == b"Resetting\n.\n.\n", "device.reset(): countdown then 'r'", repr(emu.out_since(m)))
        check(emu.proc.poll() is None, "device.reset() blocks until the host ends the process")
    finally:
        emu.proc.kill()
        emu.close()
    emu = Emulator(mpy, {"safe_mode": True})
    try:
        emu.wait_out((0, 0), b"\x1eB", 5)
        m = emu.mark()
        emu.send("X", b"import update;update.micropython()")
        ok = emu.wait(lambda: any(t == "u" for (_, t, _) in emu.frames[m[0]:]), 5)
        emu.wait_out(m, b"\b.\n\b.\n\b.\n", 2)
        check(bool(ok) and emu.out_since(m) == b"Monocle will reset if not updated within 5 minutes.\n\n"
              b"If an update fails, simply connect to DFUTarg again.\n\nMonocle will now enter update mode\n\b.\n\b.\n\b.\n",
              "update.micropython(): DFU messages then 'u'", repr(emu.out_since(m)))
    finally:
        emu.proc.kill()
        emu.close()
    # A main.py that fails prints its traceback, then the REPL is idle; no main.py: idle at once.
    emu = Emulator(mpy, app=False, files={"main.py": "print('hi')\nundefined_call()\n"})
    try:
        ok = emu.wait_out((0, 0), b"\x1eB", 5)
        check(bool(ok) and emu.out_since((0, 0)) == b"hi\nTraceback (most recent call last):\n"
              b"  File \"main.py\", line 2, in <module>\nNameError: name 'undefined_call' isn't defined\n\x1eB",
              "a failing main.py: its traceback, then \\x1eB", repr(emu.out_since((0, 0))))
    finally:
        emu.close()
    emu = Emulator(mpy, app=False)
    try:
        ok = emu.wait_out((0, 0), b"\x1eB", 5)
        check(bool(ok) and emu.out_since((0, 0)) == b"\x1eB", "no main.py: REPL idle at once")
    finally:
        emu.close()
    # A realtime microphone hands out samples as they are recorded.
    emu = Emulator(mpy, {"mic_realtime": True, "safe_mode": True})
    try:
        emu.wait_out((0, 0), b"\x1eB", 5)
        out = emu.exec_raw(
            "import microphone, time\nmicrophone.record(seconds=1.0, bit_depth=8, sample_rate=8000)\n"
            "t = time.ticks_ms(); n = 0\n"
            "while time.ticks_diff(time.ticks_ms(), t) < 500:\n"
            "    c = microphone.read(127)\n"
            "    n += len(c) if c else 0\n"
            "print(n)", 10)
        n = int(out.split(b"\n")[0]) if out and out[:1].isdigit() else -1
        check(3500 <= n <= 4500, "realtime microphone: about 4000 samples in 0.5 s at 8 kHz", repr(out))
    finally:
        emu.close()


def app_source_checks():
    total = 0
    for name in sorted(os.listdir(APP)):
        path = os.path.join(APP, name)
        data = open(path, "rb").read()
        total += len(data)
        check(b"\r" not in data and b"\\" not in data and b"'''" not in data,
              "%s: LF only, no backslash, no triple single quote" % name)
        check(b"SIBYL_APP_VERSION" not in data, "%s: does not define SIBYL_APP_VERSION" % name)
    print("      device app: %d bytes" % total)
    check(total < 10240, "device app under 10 KB", str(total))


def main():
    global verbose
    ap = argparse.ArgumentParser()
    ap.add_argument("--micropython", default=os.environ.get("SIBYL_MICROPYTHON", DEFAULT_MPY))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    verbose = args.verbose
    if not os.path.exists(args.micropython):
        print("micropython not found at %s" % args.micropython)
        return 2
    app_source_checks()
    test_app(args.micropython)
    test_app_realtime(args.micropython)
    test_host_gone(args.micropython)
    test_boot_variants(args.micropython)
    if failures:
        print("\n%d check(s) failed:" % len(failures))
        for f in failures:
            print("  - " + f)
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
