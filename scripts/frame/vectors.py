"""Prints, as JSON, the bytes Brilliant Labs' own Frame host libraries (frame-msg 5.2.1, frame-ble
1.1.1, pinned in scripts/frame/requirements.txt) produce for a fixed set of inputs. Sibyl's Frame
tests compare its packers, message chunker and stream assemblers with these, byte for byte.

Run with the venv's python (scripts/frame/setup.sh prints its path)."""
import asyncio
import json

from frame_ble import FrameBle
from frame_msg import (
    RxAudio,
    RxPhoto,
    TxAutoExpSettings,
    TxCaptureSettings,
    TxCode,
    TxManualExpSettings,
    TxPlainText,
    TxSprite,
    TxSpriteCoords,
)


def pattern(size, seed=11):
    return bytes((i * 73 + seed) & 0xFF for i in range(size))


class RecordingFrameBle(FrameBle):
    """frame-ble's real send_message, with the radio replaced by a list of the writes it makes."""

    def __init__(self, mtu):
        super().__init__()
        self.mtu = mtu
        self.writes = []

    def max_data_payload(self):
        return self.mtu - 4

    async def send_data(self, data, show_me=False, await_data=False):
        self.writes.append(b"\x01" + bytes(data))


async def message_vectors():
    vectors = []
    for mtu in (23, 64, 185, 247):
        m = mtu - 4
        for size in sorted({0, 1, m - 3, m - 2, 2 * m, 65535}):
            ble = RecordingFrameBle(mtu)
            await ble.send_message(0x20 + size % 7, pattern(size))
            vectors.append({"mtu": mtu, "code": 0x20 + size % 7, "size": size, "writes": [w.hex() for w in ble.writes]})
    return vectors


class FakeFrameMsg:
    """Stands in for FrameMsg where the Rx classes register their handlers."""

    def __init__(self):
        self.handlers = []

    def register_data_response_handler(self, subscriber, codes, handler):
        self.handlers.append(handler)

    def unregister_data_response_handler(self, subscriber):
        self.handlers = []


async def received(rx, notifications):
    frame = FakeFrameMsg()
    queue = await rx.attach(frame)
    for notification in notifications:
        for handler in frame.handlers:
            handler(notification)
    await asyncio.sleep(0.05)
    return await asyncio.wait_for(queue.get(), 5)


async def stream_vectors():
    photo = pattern(3000, 5)
    notifications = [b"\x07" + photo[i:i + 242] for i in range(0, len(photo), 242)] + [b"\x08"]
    photo_out = await received(RxPhoto(upright=False), notifications)
    audio = pattern(1000, 9)
    audio_notes = [b"\x05" + audio[i:i + 242] for i in range(0, len(audio), 242)] + [b"\x06"]
    audio_out = await received(RxAudio(), audio_notes)
    return {
        "photo": {"notifications": [n.hex() for n in notifications], "assembled": photo_out.hex()},
        "audio": {"notifications": [n.hex() for n in audio_notes], "assembled": audio_out.hex()},
    }


def packed(items):
    return [{"fields": fields, "packed": message.pack().hex()} for fields, message in items]


def content_vectors():
    texts = ["", "Hello", "Café crème — 日本語 ✓", "x" * 600]
    plain = []
    for text in texts:
        for x, y, palette, spacing in ((1, 1, 1, 4), (640, 400, 15, 0), (320, 200, 0x1F, 255)):
            fields = {"text": text, "x": x, "y": y, "palette_offset": palette, "spacing": spacing}
            plain.append((fields, TxPlainText(text=text, x=x, y=y, palette_offset=palette, spacing=spacing)))
    capture = []
    for quality in range(5):
        for resolution, pan, raw in ((100, -140, False), (512, 0, True), (720, 140, False)):
            fields = {"quality": quality, "resolution": resolution, "pan": pan, "raw": raw}
            capture.append((fields, TxCaptureSettings(resolution=resolution, quality_index=quality, pan=pan, raw=raw)))
    auto = []
    for metering, exposure, speed, shutter, gain, wb, rgb in ((0, 0.0, 0.0, 4, 1, 0.0, 0), (1, 0.1, 0.45, 16383, 16, 0.5, 287), (2, 1.0, 1.0, 20000, 248, 0.99, 1023)):
        fields = {"metering": metering, "exposure": exposure, "exposure_speed": speed, "shutter_limit": shutter, "analog_gain_limit": gain, "white_balance_speed": wb, "rgb_gain_limit": rgb}
        auto.append((fields, TxAutoExpSettings(metering_index=metering, exposure=exposure, exposure_speed=speed, shutter_limit=shutter, analog_gain_limit=gain, white_balance_speed=wb, rgb_gain_limit=rgb)))
    manual = []
    for shutter, gain, r, g, b in ((4, 1, 0, 0, 0), (3072, 16, 121, 64, 140), (16383, 248, 1023, 1023, 1023)):
        fields = {"shutter": shutter, "analog_gain": gain, "red": r, "green": g, "blue": b}
        manual.append((fields, TxManualExpSettings(manual_shutter=shutter, manual_analog_gain=gain, manual_red_gain=r, manual_green_gain=g, manual_blue_gain=b)))
    coords = []
    for code, x, y, offset in ((0x20, 1, 1, 0), (0xFF, 640, 400, 15)):
        coords.append(({"code": code, "x": x, "y": y, "offset": offset}, TxSpriteCoords(code=code, x=x, y=y, offset=offset)))
    codes = [({"value": value}, TxCode(value=value)) for value in (0, 1, 0x7F, 0xFF)]
    sprites = []
    for colours, width, height in ((2, 7, 3), (4, 5, 5), (16, 3, 7), (3, 9, 1)):
        palette = bytes(range(colours * 3))
        pixels = bytes((i * 5 + 1) % colours for i in range(width * height))
        fields = {"width": width, "height": height, "palette": palette.hex(), "pixels": pixels.hex()}
        sprites.append((fields, TxSprite(width=width, height=height, num_colors=colours, palette_data=palette, pixel_data=pixels)))
    wavs = []
    for bits, rate in ((8, 8000), (16, 16000), (8, 16000), (16, 8000)):
        pcm = pattern(40 * bits // 8, bits + rate % 7)
        wavs.append({"bits": bits, "rate": rate, "pcm": pcm.hex(), "wav": RxAudio.to_wav_bytes(pcm, sample_rate=rate, bits_per_sample=bits).hex()})
    return {
        "plain_text": packed(plain), "capture": packed(capture), "auto_exposure": packed(auto),
        "manual_exposure": packed(manual), "sprite_coords": packed(coords), "code": packed(codes),
        "sprite": packed(sprites), "wav": wavs,
    }


async def main():
    vectors = content_vectors()
    vectors["messages"] = await message_vectors()
    vectors["streams"] = await stream_vectors()
    print(json.dumps(vectors))


asyncio.run(main())
