# Emulated firmware module `led` (modules/led.c): the red and green LEDs, reported to the host.
import _sibyl_emu as _emu

RED = "RED"
GREEN = "GREEN"


def _set(led, on):
    if not isinstance(led, str):
        raise TypeError("can't convert '%s' object to str implicitly" % type(led).__name__)
    if led not in (RED, GREEN):
        raise ValueError("must be led.RED or led.GREEN")
    _emu.send("l", '{"led":"%s","on":%s}' % (led.lower(), "true" if on else "false"))


def on(led):
    _set(led, True)


def off(led):
    _set(led, False)
