"""Brilliant Labs' official Frame host (frame-msg 5.2.1's FrameMsg on frame-ble 1.1.1) driving a
Frame whose Bluetooth link is this process's standard input and output, for Sibyl's differential
test: the same scenario runs once through this host and once through Sibyl's, each against a
fresh virtual Frame, and the two must leave the same files and screen and bring back the same
photo and recording.

Protocol (one line each): this script writes `W <hex>` for a write to Frame (with response) and
waits for `A` (the write was taken); the other side sends `N <hex>` for each notification. At the
end it writes `R <json>` with what it received. Arguments: a JSON object with "mtu", "app" (the
device app's Lua text), "text", "capture" (resolution, quality_index, pan)."""
import asyncio
import json
import sys

import frame_ble.frame_ble as frame_ble_module
from frame_msg import FrameMsg, RxAudio, RxPhoto, TxCaptureSettings, TxCode, TxPlainText


class PatientAsyncio:
    """frame-ble waits 5 s for each answer; a test machine running the whole suite on two cores
    can take longer. This test compares bytes, not speed, so its waits are stretched (×24)."""

    def __getattr__(self, name):
        return getattr(asyncio, name)

    @staticmethod
    async def wait_for(awaitable, timeout):
        return await asyncio.wait_for(awaitable, None if timeout is None else timeout * 24)


frame_ble_module.asyncio = PatientAsyncio()


class PipeClient:
    """Stands in for bleak's client: writes go out on stdout and are answered on stdin."""

    def __init__(self, mtu, taken):
        self.mtu_size = mtu
        self.is_connected = True
        self.taken = taken

    async def write_gatt_char(self, characteristic, data, response=True):
        sys.stdout.write("W " + bytes(data).hex() + "\n")
        sys.stdout.flush()
        await self.taken.get()

    async def disconnect(self):
        self.is_connected = False


async def main():
    arguments = json.loads(sys.argv[1])
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    taken = asyncio.Queue()
    frame = FrameMsg()
    ble = frame.ble
    ble._client = PipeClient(arguments["mtu"], taken)
    ble._tx_characteristic = "7a230002-5475-a6a4-654c-8431f6ad49c4"
    ble._user_data_response_handler = frame._handle_data_response
    prints = []
    ble._user_print_response_handler = prints.append

    async def pump():
        while True:
            line = await reader.readline()
            if not line:
                return
            kind, _, payload = line.decode().strip().partition(" ")
            if kind == "A":
                taken.put_nowait(True)
            elif kind == "N":
                await ble._notification_handler(None, bytearray.fromhex(payload))

    pumping = asyncio.create_task(pump())
    # FrameMsg.connect's initialisation, without the radio scan.
    await ble.send_break_signal()
    await ble.send_reset_signal()
    await ble.send_break_signal()
    await frame.upload_stdlua_libs(lib_names=["data", "plain_text", "code", "camera", "audio"], minified=True)
    await ble.upload_file_from_string(arguments["app"], "frame_app.lua")
    await frame.start_frame_app("frame_app")
    await frame.send_message(0x0A, TxPlainText(text=arguments["text"], x=17, y=230, palette_offset=3, spacing=6).pack())
    photo = RxPhoto(upright=False)
    photos = await photo.attach(frame)
    capture = arguments["capture"]
    await frame.send_message(0x0D, TxCaptureSettings(resolution=capture["resolution"], quality_index=capture["quality_index"], pan=capture["pan"]).pack())
    jpeg = await asyncio.wait_for(photos.get(), 60)
    photo.detach(frame)
    audio = RxAudio()
    recordings = await audio.attach(frame)
    await frame.send_message(0x0B, TxCode(value=1).pack())
    pcm = await asyncio.wait_for(recordings.get(), 60)
    audio.detach(frame)
    sys.stdout.write("R " + json.dumps({
        "jpeg": jpeg.hex(), "wav": RxAudio.to_wav_bytes(pcm, sample_rate=8000, bits_per_sample=8).hex(), "prints": prints,
    }) + "\n")
    sys.stdout.flush()
    pumping.cancel()


asyncio.run(main())
