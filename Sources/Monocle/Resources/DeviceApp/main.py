# Sibyl for Monocle (firmware v23.248.0754); its messages: Monocle/AppMessage.swift.
# Uploaded in a triple-quoted string: no backslashes, no triple quotes.
import bluetooth
import display
import microphone
import time
import touch

try:
    import camera
except Exception:
    camera = None  # no camera: a hold asks by voice

COLS = display.WIDTH // display.FONT_WIDTH  # 26 characters per line
ROWS = 7  # lines at y = 0, 50, ... 300; the prompt below
CAPTION_ROWS = 3
WORD_MS = 120  # reveal speed
HOLD_MS = 1000  # a press this long takes a photo
STOP_GRACE_MS = 1500  # taps this soon after stp: do not cancel
WAIT_MS = 90000  # no answer by then: the question was lost
AUDIO_BYTES = 48000  # 6 s of 8 kHz 8-bit audio
NL = chr(10)

# Its own words: English until the host sends the wearer's (lng:).
T = {
    "tap": "Tap to speak",
    "hold": "Hold for a photo",
    "photo": "Sending photo",
    "listen": "Listening",
    "think": "Thinking",
    "cancel": "Cancelled",
    "none": "No answer came. Tap to ask again.",
    "cap": "Captions: tap to pause",
    "paused": "Paused: tap to resume",
    "open": "Open Sibyl to connect",
    "welcome": "Welcome to Sibyl.",
}

state = ""
since = 0  # ticks_ms when the state began
inbox = []  # data messages for the main loop
presses = 0  # counted by the touch callback
seen = 0
note = ""  # shown instead of the prompt...
note_until = 0  # ...until then
sent = 0  # audio or photo bytes sent

text = b""  # the answer so far (UTF-8)
red = False  # an error
words = []  # None marks a line break
version = 0  # changes with words
shown = 0  # words revealed
word_at = 0  # when the last was
last_chunk = 0
seen_key = drawn = None
stop_asked = False  # the host ended the question
rows = ROWS  # lines shown
rec_at = 0  # captions: when this recording began...
rec_sent = 0  # ...and its bytes sent


def go(s):
    global state, since
    state = s
    since = time.ticks_ms()
    print("State:", s)


def send(msg):
    while True:
        try:
            bluetooth.send(msg)
            return
        except OSError:
            if not bluetooth.connected():
                return


def on_data(msg):
    inbox.append(msg)


def on_touch(pad):
    global presses
    presses += 1


def show_text(b, err):
    global text, red, words, shown, version
    text, red = b, err
    version += 1
    n = len(b)
    i = n
    while i > 0 and n - i < 4 and b[i - 1] & 0xC0 == 0x80:
        i -= 1
    if i > 0 and b[i - 1] >= 0xC0:
        lead = b[i - 1]
        need = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        if n - i + 1 < need:
            n = i - 1
    try:
        s = str(b[:n], "utf-8")
    except Exception:
        s = "".join([chr(c) if c < 128 else "?" for c in b[:n]])
    words = []
    for para in s.split(NL):
        if words:
            words.append(None)
        words.extend(para.split())
    shown = min(shown, len(words))


def clear_text():
    global shown
    shown = 0
    show_text(b"", False)


def lines():
    out = []
    cur = ""
    k = 0
    for w in words:
        if w is None:
            if cur:
                out.append(cur)
                cur = ""
            continue
        if k == shown:
            break
        k += 1
        while len(w) > COLS:
            if cur:
                out.append(cur)
                cur = ""
            out.append(w[:COLS])
            w = w[COLS:]
        if not cur:
            cur = w
        elif len(cur) + 1 + len(w) <= COLS:
            cur = cur + " " + w
        else:
            out.append(cur)
            cur = w
    if cur:
        out.append(cur)
    return out[-rows:]


def welcome():
    global rows
    rows = ROWS
    go("Welcome")
    show_text(T["welcome"].encode(), False)
    global shown
    shown = 9


def draw(prompt):
    global seen_key, drawn
    key = (version, shown, prompt)
    if key == seen_key:
        return False
    seen_key = key
    ls = lines()
    if (ls, prompt, red) == drawn:
        return False
    drawn = (ls, prompt, red)
    color = display.RED if red else display.WHITE
    objs = [display.Text(ls[i], 0, 50 * i, color) for i in range(len(ls))]
    if prompt:
        objs.append(display.Text(prompt, 320, 400, display.YELLOW, justify=display.BOTTOM_CENTER))
    if objs:
        display.show(objs)
    else:
        display.clear()
    return True


def bar(done, total):
    k = min(5, done * 5 // total)
    return "[" + "=" * k + " " * (5 - k) + "]"


def mic_chunk(cap):
    buf = b""
    while len(buf) < cap:
        c = microphone.read(min(127, cap - len(buf)))
        if not c:
            break
        buf += c
    return buf


def start_listening(photo):
    global sent, stop_asked
    sent = 0
    stop_asked = False
    microphone.record(seconds=6.0, bit_depth=8, sample_rate=8000)
    if not photo:
        send(b"ast:")  # after a photo, ien: said it
    go("Listen")


def start_captions():
    global rec_at, rec_sent
    microphone.record(seconds=6.0, bit_depth=8, sample_rate=8000)
    rec_at = time.ticks_ms()
    rec_sent = 0
    go("Captions")


def show_all(b):
    global shown
    show_text(b, False)
    shown = len(words) - words.count(None)


def handle(msg):
    global last_chunk, stop_asked, shown, rows
    cmd, body = bytes(msg[:4]), bytes(msg[4:])
    cap = state in ("Captions", "CapPaused")
    if cmd == b"cap:":
        if body == b"1" and (cap or state in ("Ready", "Answer")):
            rows = CAPTION_ROWS
            clear_text()
            start_captions()
        elif body == b"0" and cap:
            rows = ROWS
            clear_text()
            go("Ready")
            send(b"rdy:")
    elif cmd == b"cpt:":
        if cap:
            show_all(body)
    elif cmd == b"lng:":
        for line in body.decode().split(NL):
            pair = line.split("=", 1)
            if len(pair) == 2 and pair[0] in T and pair[1]:
                T[pair[0]] = pair[1]
    elif cmd == b"pin:":
        send(b"pon:" + body)
    elif cmd == b"hrd:":
        if state == "Listen":
            show_all(body)
    elif cmd == b"stp:":
        if state == "Listen":
            stop_asked = True
            send(b"aen:")
            go("Thinking")
    elif cmd in (b"res:", b"err:"):
        if state not in ("Ready", "Thinking", "Answer"):
            return  # not while asking
        # Each chunk adds to the answer (clr: starts a new one), also back in Ready.
        if state != "Answer":
            go("Answer")
        show_text(text + body, red or cmd == b"err:")
        last_chunk = time.ticks_ms()
    elif cmd == b"clr:":
        clear_text()


bluetooth.receive_callback(on_data)
touch.callback(touch.EITHER, on_touch)
welcome()

while True:
    now = time.ticks_ms()
    held = time.ticks_diff(now, since)
    tap = presses != seen
    seen = presses
    if not bluetooth.connected():
        if state != "Welcome":
            welcome()
        prompt = T["open"]
    elif state == "Welcome":
        clear_text()
        go("Ready")
        send(b"rdy:")
        continue
    while inbox:
        handle(inbox.pop(0))
    if state == "Ready":
        prompt = T["tap"]
        if tap:
            go("Press")
    elif state == "Press":
        prompt = T["hold"] if held > 250 and camera else T["tap"]
        if touch.state() is None:
            clear_text()
            start_listening(False)
        elif held >= HOLD_MS:
            clear_text()
            if camera:
                camera.capture()
                send(b"ist:")
                go("Photo")
            else:
                start_listening(False)
    elif state == "Photo":
        cap = min(254, bluetooth.max_length() - 4)
        for _ in range(2):
            c = camera.read(cap)
            if c is None:
                send(b"ien:")
                start_listening(True)
                break
            send(b"idt:" + c)
            sent += len(c)
        prompt = T["photo"] + " " + str(sent // 1024) + "K"
    elif state == "Listen":
        cap = bluetooth.max_length() - 4
        for _ in range(2):
            c = mic_chunk(cap)
            if c:
                send(b"dat:" + c)
                sent += len(c)
            if tap or (not c and (sent >= AUDIO_BYTES or held > 7000)):
                send(b"aen:")
                go("Thinking")
                break
            if not c:
                break
        prompt = T["listen"] + " " + bar(sent, AUDIO_BYTES)
    elif state == "Thinking":
        prompt = T["think"] + "." * (held // 400 % 4)
        prompt += " " * (len(T["think"]) + 3 - len(prompt))
        # A tap just after stp: meant to end the question too.
        if tap and not (stop_asked and held < STOP_GRACE_MS):
            send(b"can:")
            note, note_until = T["cancel"], time.ticks_add(now, 1500)
            go("Ready")
            send(b"rdy:")
        elif held > WAIT_MS:
            clear_text()
            go("Answer")
            show_text(T["none"].encode(), True)
            last_chunk = now
    elif state == "Captions":
        prompt = T["cap"]
        cap = bluetooth.max_length() - 4
        for _ in range(8):  # catch up
            c = mic_chunk(cap)
            if not c:
                if rec_sent >= AUDIO_BYTES or time.ticks_diff(now, rec_at) > 6500:
                    start_captions()
                break
            send(b"dat:" + c)
            rec_sent += len(c)
        if tap:
            go("CapPaused")
            send(b"cpp:1")
    elif state == "CapPaused":
        prompt = T["paused"]
        if tap:
            start_captions()
            send(b"cpp:0")
    elif state == "Answer":
        prompt = ""
        total = len(words) - words.count(None)
        if tap:
            shown = total
        if shown < total and time.ticks_diff(now, word_at) >= WORD_MS:
            shown += 1
            word_at = now
        if shown >= total and time.ticks_diff(now, last_chunk) > 400:
            go("Ready")
            send(b"rdy:")
    if note and state in ("Ready", "Welcome"):
        if time.ticks_diff(note_until, now) > 0:
            prompt = note
        else:
            note = ""
    if not draw(prompt):
        time.sleep_ms(20)
