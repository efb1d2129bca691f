# Emulated firmware module `bluetooth` (monocle-micropython modules/bluetooth.c): the data
# service. send() is a data-TX notification to the host, receive_callback() gets data-RX writes.
import _sibyl_emu as _emu
import time as _time

# The SoftDevice's notification queue (main.c: hvn_tx_queue_size = 2), emptied at each connection
# event. With config "data_queue" = [capacity, interval in ms] the emulated link fills the same way;
# without it the link is never busy.
_queued = 0
_emptied_at = None


def _busy():
    global _queued, _emptied_at
    queue = _emu.config.get("data_queue")
    if not queue:
        return False
    capacity, interval = int(queue[0]), max(1, int(queue[1]))
    now = _time.ticks_ms()
    if _emptied_at is None:
        _emptied_at = now
    events = _time.ticks_diff(now, _emptied_at) // interval
    if events > 0:
        _queued = max(0, _queued - events * capacity)
        _emptied_at = _time.ticks_add(_emptied_at, events * interval)
    if _queued >= capacity:
        return True
    _queued += 1
    return False


def send(buffer):
    _emu.poll()
    if not _emu.connected:
        raise OSError("notifications are not enabled on the data service")
    # Any buffer-protocol object, as mp_get_buffer_raise accepts (str included on MicroPython).
    if isinstance(buffer, str):
        data = buffer.encode()
    elif isinstance(buffer, (bytes, bytearray, memoryview)):
        data = bytes(buffer)
    else:
        raise TypeError("object with buffer protocol required")
    if len(data) > max_length():
        raise ValueError("input buffer is too large")
    # sd_ble_gatts_hvx refuses a notification while the queue is full; the firmware turns that
    # into this OSError (bluetooth.c), and the app is expected to try again.
    if _busy():
        raise OSError("raw data service is busy")
    _emu.send("d", data)


_ASK = object()  # no argument given: the call reads the setting


def receive_callback(callback=_ASK):
    if callback is _ASK:
        return _emu.receive_callback
    if callback is not None and not callable(callback):
        raise ValueError("callback must be None or a callable object")
    _emu.receive_callback = callback


def connected():
    _emu.poll()
    return _emu.connected


def max_length():
    # MTU - 3 as negotiated; the firmware returns 0 before any MTU exchange.
    return int(_emu.config.get("max_length", 253))
