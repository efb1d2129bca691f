# Emulated firmware module `bluetooth` (monocle-micropython modules/bluetooth.c): the data
# service. send() is a data-TX notification to the host, receive_callback() gets data-RX writes.
import _sibyl_emu as _emu


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
    # The emulated link never reports "raw data service is busy": it has no queue to fill.
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
