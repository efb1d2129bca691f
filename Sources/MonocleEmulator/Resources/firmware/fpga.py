# Emulated firmware module `fpga` (modules/fpga.c): raw register access over SPI. Only the
# registers that the firmware's Python modules and the companion apps read are modelled.
import _sibyl_emu as _emu

_running = True


def _register(addr):
    if addr == 0x0001:
        return b"Mncl"  # the FPGA image id
    if addr == 0x0002:
        return _emu.config.get("fpga", "v23.230.0808").encode()  # the FPGA version
    if addr in (0x1000, 0x5800):
        return b"\x10"  # camera / microphone module status: driver present
    return b""


def read(addr, n):
    if n < 1 or n > 255:
        raise ValueError("n must be between 1 and 255")
    data = _register(int(addr) & 0xFFFF)[:n]
    return data + bytes(n - len(data))


def write(addr, buffer):
    if not isinstance(buffer, (bytes, bytearray)):
        # The firmware's own test: "ROM strings can't be sent on the SPI".
        raise TypeError("object with buffer protocol required")
    if len(buffer) > 255:
        raise ValueError("input buffer size must be less than 255 bytes")


def run(enable=None):
    global _running
    if enable is None:
        return _running
    if not isinstance(enable, bool):
        raise ValueError("input argument must be either True or False")
    _running = enable
