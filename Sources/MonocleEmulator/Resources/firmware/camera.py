# Emulated firmware module `camera` (frozen modules/camera.py over _camera). capture() takes
# the photo the host provided ('P'); read() streams its JPEG bytes like the FPGA's buffer.
import _sibyl_emu as _emu
import fpga as _fpga

if _fpga.read(0x1000, 1)[0] & 0x10 != 16 or _fpga.read(0x0001, 4) != b"Mncl":
    raise NotImplementedError("camera driver not found on FPGA")

RGB = "RGB"
JPEG = "JPEG"

_image = b""
_offset = 0


def capture():
    global _image, _offset
    _emu.wait_ms(100)  # the sensor wakes up before the capture is triggered
    _image, _offset = _emu.photo, 0


def read(bytes=254):
    global _offset
    if bytes > 254:
        raise ValueError("at most 254 bytes")
    _emu.poll()
    avail = len(_image) - _offset
    if avail == 0:
        return None  # the image is exhausted; the firmware puts the sensor to sleep
    if bytes < 1:
        raise ValueError("n must be between 1 and 255")  # from the underlying fpga.read()
    chunk = _image[_offset : _offset + min(bytes, avail)]
    _offset += len(chunk)
    return chunk


def output(x, y, mode):
    return NotImplemented


def zoom(factor):
    return NotImplemented
