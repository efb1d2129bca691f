# Emulated firmware module `update` (modules/update.py over _update): firmware DFU and the
# FPGA application image in external flash. FPGA writes go to the host ('e', 'w') and to a
# local copy so that Fpga.read() reads them back.
import _sibyl_emu as _emu

_LIMIT = 0x6C80E + 4  # the image plus its "done" magic word
_image = None  # bytearray(_LIMIT) once written; bytes past _written read as erased (0xFF)
_written = 0


def micropython():
    # The firmware does nothing unless the REPL's notifications are on, which they are
    # whenever the host talks to the emulator.
    print("Monocle will reset if not updated within 5 minutes.\n")
    print("If an update fails, simply connect to DFUTarg again.\n")
    print("Monocle will now enter update mode")
    for _ in range(3):
        if not _emu.config.get("fast_reset", True):
            _emu.wait_ms(1000)
        print("\b.")
    _emu.send("u")
    _emu.block_forever()  # the device is in its bootloader now


class Fpga:
    @staticmethod
    def read(address, length):
        if address + length > _LIMIT:
            raise ValueError("address + length cannot exceed 444434 bytes")
        out = bytearray(b"\xff" * length)
        end = min(address + length, _written)
        if address < end:
            out[0 : end - address] = _image[address:end]
        return bytes(out)

    @staticmethod
    def write(data):
        global _image, _written
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("object with buffer protocol required")  # no str: see fpga.write
        if _written + len(data) > _LIMIT:
            raise ValueError("data will overflow the space reserved for the app")
        if _image is None:
            _image = bytearray(_LIMIT)  # allocated once: the interpreter's heap is small
        _image[_written : _written + len(data)] = data
        _written += len(data)
        _emu.send("w", data)

    @staticmethod
    def erase():
        global _written
        _written = 0
        _emu.send("e")
