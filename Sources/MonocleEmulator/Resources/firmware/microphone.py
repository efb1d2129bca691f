# Emulated firmware module `microphone` (modules/microphone.c). The FPGA's FIFO holds 16-bit
# samples (big-endian over SPI); here they come from the host's clip ('M'), resampled to the
# requested rate (nearest sample) and padded with silence. Without a clip: silence.
import _sibyl_emu as _emu
import fpga as _fpga
import struct as _struct
import time as _time

# The firmware's module __init__ refuses to load without the FPGA's microphone driver.
if _fpga.read(0x5800, 1)[0] & 0x10 != 16 or _fpga.read(0x0001, 4) != b"Mncl":
    raise NotImplementedError("microphone driver not found on FPGA")

_rate = 16000
_bit_depth = 16
_total = 0  # samples in the current recording
_taken = 0  # samples already read
_start = 0  # ticks_ms when the recording began


def record(*, sample_rate=16000, bit_depth=16, seconds=5):
    global _rate, _bit_depth, _total, _taken, _start
    _total = _taken = 0  # flushes what the FIFO still holds
    if sample_rate != 16000 and sample_rate != 8000:
        raise ValueError("sample rate must be either 16000 or 8000")
    if bit_depth != 16 and bit_depth != 8:
        raise ValueError("bit depth must be either 16 or 8")
    _rate, _bit_depth = sample_rate, bit_depth
    # The FPGA records whole blocks: 20 ms at 16 kHz, 40 ms at 8 kHz, i.e. 320 samples.
    blocks = int(float(seconds) / (0.02 if sample_rate == 16000 else 0.04)) & 0xFFFF
    _total = blocks * 320
    _start = _time.ticks_ms()


def stop():
    return NotImplemented


def _available():
    # Samples in the FIFO now: everything at once, or as fast as a real microphone fills it.
    made = _total
    if _emu.config.get("mic_realtime"):
        made = min(_total, _time.ticks_diff(_time.ticks_ms(), _start) * _rate // 1000)
    return made - _taken


def _sample(i):
    # The clip is looked up on every read, so one that arrives just after the tap still counts.
    # The host sends the clip band-limited for each recording rate; else pick from the latest.
    # A continuous microphone (live captions) hears the clip as spoken from its arrival on, whatever
    # recording is running then; otherwise each recording hears it from its start.
    pcm = _emu.mic_clips.get(_rate)
    rate = _rate
    if pcm is None:
        if _emu.mic_clip is None:
            return 0
        rate, pcm = _emu.mic_clip
    if _emu.config.get("mic_continuous"):
        i += _time.ticks_diff(_start, _emu.mic_clip_at) * _rate // 1000
        if i < 0:
            return 0
    j = i * rate // _rate
    if 2 * j + 1 >= len(pcm):
        return 0
    return _struct.unpack_from("<h", pcm, 2 * j)[0]


def read(samples):
    # As microphone.c: None whenever the FIFO holds nothing at this instant. That is also the case
    # while the recording goes on and the app has read faster than the microphone fills the FIFO
    # (in real time, an app's loop always does), so None means "nothing yet", not "finished": an app
    # reads until it has the samples it asked for (seconds * rate) or the time is up.
    global _taken
    if samples > 127:
        raise ValueError("only 127 samples may be read at a time")
    _emu.poll()
    available = min(2 * _available(), 254)  # bytes; the SPI transfer caps at 254
    if available == 0:
        return None
    count = max(0, min(2 * samples, available)) // 2
    wide = _bit_depth == 16
    out = bytearray(2 * count if wide else count)
    for k in range(count):
        v = _sample(_taken + k)
        if wide:
            _struct.pack_into(">h", out, 2 * k, v)
        else:
            out[k] = (v >> 8) & 0xFF  # the high byte of each sample: signed 8-bit
    _taken += count
    return bytes(out)
