"""Times Brilliant Labs' own Frame host code (frame-msg 5.2.1 packers, frame-ble 1.1.1's
send_message chunker with the radio replaced by a list) on the inputs SibylBenchmarks glasses
gives Sibyl's, and prints JSON: seconds per operation for each.

Run with the Frame venv's python (scripts/frame/setup.sh prints its path)."""
import asyncio
import json
import sys
import time

from frame_ble import FrameBle
from frame_msg import TxCaptureSettings, TxPlainText


class RecordingFrameBle(FrameBle):
    def __init__(self, mtu):
        super().__init__()
        self.mtu = mtu
        self.writes = 0
        self.bytes = 0

    def max_data_payload(self):
        return self.mtu - 4

    async def send_data(self, data, show_me=False, await_data=False):
        packet = b"\x01" + bytes(data)
        self.writes += 1
        self.bytes += len(packet)


def best_of(repeats, function):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        count = function()
        best = min(best, (time.perf_counter() - start) / count)
    return best


def main():
    mtu = int(sys.argv[1]) if len(sys.argv) > 1 else 247
    payload = bytes((i * 73 + 11) & 0xFF for i in range(65535))
    text = "Paris is the capital of France. " * 6

    def chunk():
        ble = RecordingFrameBle(mtu)
        rounds = 50

        async def send_all():
            for _ in range(rounds):
                await ble.send_message(0x20, payload)

        asyncio.run(send_all())
        return rounds

    def pack_text():
        rounds = 20000
        for _ in range(rounds):
            TxPlainText(text=text, x=1, y=1, palette_offset=3, spacing=4).pack()
        return rounds

    def pack_capture():
        rounds = 20000
        for _ in range(rounds):
            TxCaptureSettings(resolution=720, quality_index=3, pan=0).pack()
        return rounds

    print(json.dumps({
        "chunk_65535": best_of(3, chunk),
        "pack_plain_text": best_of(3, pack_text),
        "pack_capture_settings": best_of(3, pack_capture),
    }))


main()
