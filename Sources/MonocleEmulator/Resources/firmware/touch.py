# Emulated firmware module `touch` (modules/touch.c). The host presses ('T') and releases ('U')
# the pads; the press schedules the callbacks, as the firmware's touch interrupt does.
import _sibyl_emu as _emu

A = "A"
B = "B"
BOTH = "BOTH"
EITHER = "EITHER"

_ASK = object()  # no argument given: the call reads the state or the setting


def _check(pad):
    if not isinstance(pad, str):
        raise TypeError("can't convert '%s' object to str implicitly" % type(pad).__name__)
    if pad not in (A, B, BOTH, EITHER):
        raise ValueError("must be touch.A, touch.B, touch.BOTH, touch.EITHER")



def state(pad=_ASK):
    _emu.poll()
    now = _emu.touch_pads
    if pad is _ASK:
        return now
    _check(pad)
    if pad == EITHER:
        return now in (A, B)  # exactly one pad, not both
    return now == pad


def callback(pad, fn=_ASK):
    _check(pad)
    if fn is _ASK:
        return _emu.touch_callbacks[pad]
    if fn is not None and not callable(fn):
        raise ValueError("callback must be None or a callable object")
    _emu.touch_callbacks[pad] = fn
