# Emulated firmware module `device` (modules/device.c): identity, battery and reset.
import _sibyl_emu as _emu

NAME = "monocle"
VERSION = _emu.config.get("firmware", "v23.248.0754")
GIT_TAG = _emu.config.get("git_tag", "a18d62e06")
GIT_REPO = "https://github.com/brilliantlabsAR/monocle-micropython"

_awake = False


def mac_address():
    return "d2:e5:5c:5e:b1:1e"  # fixed: one emulated Monocle


def battery_level():
    return int(_emu.config.get("battery", 100))


def is_charging():
    return False


def reset():
    # The firmware prints this countdown (1 s apart) on the REPL before NVIC_SystemReset().
    # The host sees 'r' and restarts the interpreter; this call never returns.
    for text in ("Resetting", ".", "."):
        print(text)
        if not _emu.config.get("fast_reset", True):
            _emu.wait_ms(1000)
    _emu.send("r")
    _emu.block_forever()


def reset_cause():
    return "POWERON"


def prevent_sleep(enable=None):
    global _awake
    if enable is None:
        return _awake
    _awake = bool(enable)


def force_sleep():
    # The real device powers down; the emulated one only stops running the program.
    _emu.block_forever()


class Storage:
    # The user file system region of the flash (LittleFS mounted at /).
    def __repr__(self):
        return "Storage(start=0x0006d000, len=602112)"
