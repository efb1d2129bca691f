"""The Web Bluetooth relay against emulated glasses. Chromium's Bluetooth emulation (CDP) plays a
Monocle's two GATT services, and behind them the virtual Monocle (`sibyl glasses emulate --kind monocle --listen`)
decides what the glasses say; or Frame's one service, with the virtual Frame behind it
(`sibyl glasses emulate --kind frame --listen`). The glasses page connects to them as it would to real glasses and
carries their bytes to `sibyl serve`, which installs its app through the page, hears a spoken
question and shows the answer on the glasses.

Chromium's emulation cannot send a notification the page did not ask for (see
../shared/BROWSER-TESTING.md): what the glasses send waits here until the page reads the TX
characteristic, and a read fires the same `characteristicvaluechanged` event a notification does,
so the page's own relay code carries every byte."""

import base64
import collections
import json
import shutil
import subprocess
import tempfile
import threading
import time
import wave
from pathlib import Path

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

from conftest import Watched, screenshot, sibyl_binary, spoken_question

SERIAL = ("6e400001-b5a3-f393-e0a9-e50e24dcca9e", "6e400002-b5a3-f393-e0a9-e50e24dcca9e", "6e400003-b5a3-f393-e0a9-e50e24dcca9e")
DATA = ("e5700001-7bac-429a-b4ce-57ff900f479d", "e5700002-7bac-429a-b4ce-57ff900f479d", "e5700003-7bac-429a-b4ce-57ff900f479d")
FRAME = ("7a230001-5475-a6a4-654c-8431f6ad49c4", "7a230002-5475-a6a4-654c-8431f6ad49c4", "7a230003-5475-a6a4-654c-8431f6ad49c4")
FRAME_CHANNEL = 3
CCCD = "00002902-0000-1000-8000-00805f9b34fb"
ADDRESS = "0C:0C:0C:0C:0C:0C"
# The glasses' bootloader, a Bluetooth device of its own (Nordic's Secure DFU service: control point, packet).
DFU = ("0000fe59-0000-1000-8000-00805f9b34fb", "8ec90001-f315-4f60-9fb8-838830daea50", "8ec90002-f315-4f60-9fb8-838830daea50")
DFU_ADDRESS = "0C:0C:0C:0C:0C:0D"
DFU_CONTROL, DFU_PACKET = 4, 5
DFU_FIXTURES = Path(__file__).resolve().parent.parent / "SecureDFUTests" / "Fixtures" / "dfu"
ANSWER = "Paris is the capital of France."


def read_peer_socket(peer, up: str, down: str):
    """Reads what the virtual glasses (or their bootloader) send their peer until the socket closes:
    bytes wait per channel in `peer.pending` until the page reads them, control messages go to
    `peer.control`, and `up`/`down` messages set `peer.link_up` (each `up` counted in `peer.connections`);
    `peer.changed` is told of each control message."""
    try:
        for message in peer.socket:
            if isinstance(message, bytes):
                peer.pending[message[0]].append(message[1:])
                continue
            with peer.changed:
                peer.control.append(json.loads(message))
                kind = peer.control[-1].get("type")
                if kind == up:
                    peer.link_up = True
                    peer.connections += 1
                elif kind == down:
                    peer.link_up = False
                peer.changed.notify_all()
    except Exception:
        pass  # closed at the end of the test


class VirtualGlasses(Watched):
    """`sibyl glasses emulate --listen 0` in a data directory of its own: the virtual Monocle offered
    over a WebSocket. What it sends waits per channel (1 serial, 2 data) until the page reads it.
    With `kind="frame"`, `sibyl glasses emulate --kind frame --listen 0`: the virtual Frame, whose
    bytes travel on channel 3."""

    def __init__(self, env: dict[str, str], kind: str = "monocle", extra: tuple[str, ...] = ()):
        self.home = Path(tempfile.mkdtemp(prefix="sibyl-glasses-"))
        self.kind = kind
        # Whether the virtual glasses hold a link to the phone (their app running, not restarting).
        self.link_up = False
        self.connections = 0
        self.changed = threading.Condition()  # told each control message
        command = ["glasses", "emulate", "--kind", kind, "--listen", "0", *extra]
        process = subprocess.Popen([sibyl_binary(), *command], env={**env, "SIBYL_HOME": str(self.home)},
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        super().__init__(f"sibyl {' '.join(command[:2])}", process, process.stdout)
        self.socket = connect(self.wait_for(rf"(ws://127\.0\.0\.1:\d+/{kind})", 120), max_size=None)
        channels = (1, 2) if kind == "monocle" else (FRAME_CHANNEL,)
        self.pending = {channel: collections.deque() for channel in channels}
        self.control: list[dict] = []
        self.written = {channel: 0 for channel in channels}
        self.packets: list[bytes] = []
        threading.Thread(target=self._read_socket, daemon=True).start()

    @property
    def filesystem(self) -> Path:
        return self.home / self.kind / "emulate"

    def _read_socket(self):
        read_peer_socket(self, up="connected", down="disconnected")

    def write(self, channel: int, data: bytes):
        self.written[channel] += len(data)
        self.packets.append(data)
        self.socket.send(bytes([channel]) + data)

    def command(self, line: str):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def stop(self):
        self.socket.close()
        if self.process.poll() is None:
            self.command("quit")
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.home, ignore_errors=True)


class VirtualBootloader:
    """The virtual glasses' bootloader as `sibyl glasses emulate --listen` offers it (at
    .../monocle/bootloader): connected when the page connects to the emulated DfuTarg, its control
    point's notifications waiting until the page reads them."""

    def __init__(self, glasses: VirtualGlasses):
        self.socket = connect(glasses.wait_for(r"(ws://127\.0\.0\.1:\d+/monocle/bootloader)", 60), max_size=None)
        self.pending = {DFU_CONTROL: collections.deque()}
        self.link_up = False
        self.connections = 0
        self.control: list[dict] = []
        self.changed = threading.Condition()  # told each control message
        self.written = {DFU_CONTROL: 0, DFU_PACKET: 0}
        threading.Thread(target=self._read_socket, daemon=True).start()

    def _read_socket(self):
        read_peer_socket(self, up="bootloaderConnected", down="bootloaderDisconnected")

    def write(self, channel: int, data: bytes):
        self.written[channel] += len(data)
        self.socket.send(bytes([channel]) + data)

    def connect(self) -> bool:
        """Reaches the virtual glasses' bootloader, as the radio would; false when they are not in it."""
        with self.changed:
            connected, answers = self.connections, len(self.control)
            self.socket.send(json.dumps({"type": "connect"}))
            answered = self.changed.wait_for(
                lambda: self.connections > connected or any(message.get("type") == "bootloaderDisconnected" for message in self.control[answers:]),
                timeout=30)
            assert answered, f"the virtual glasses' bootloader did not answer: {self.control}"
            return self.connections > connected


def services_of(glasses: VirtualGlasses):
    """The GATT services the glasses offer, by relay channel."""
    return ((1, SERIAL), (2, DATA)) if glasses.kind == "monocle" else ((FRAME_CHANNEL, FRAME),)


class Reach:
    """Whether emulated glasses are in range: while `away`, connecting to them fails; `come_back()`
    offers their GATT services again (Chromium's emulation drops them when the link drops)."""

    def __init__(self):
        self.away = False
        self.come_back = lambda: None


def emulate_monocle(browser, page, glasses: VirtualGlasses, reach: Reach | None = None, bootloader: VirtualBootloader | None = None):
    """Makes Chromium's emulated adapter hold a Monocle (or a Frame, for the virtual Frame) whose
    GATT operations go to `glasses`: writes on an RX characteristic become the glasses' input, reads
    of a TX characteristic take the next piece the glasses sent on that channel. The device chooser
    picks it. `reach` takes them out of range and back (the bootloader stays in reach). With
    `bootloader`, a second device, DfuTarg, carries Secure DFU to it the same way."""
    reach = reach or Reach()
    adapter = browser.new_browser_cdp_session()  # BluetoothEmulation exists only at the browser level
    prompts = page.context.new_cdp_session(page)
    adapter.send("BluetoothEmulation.enable", {"state": "powered-on", "leSupported": True})
    services = services_of(glasses)
    adapter.send("BluetoothEmulation.simulatePreconnectedPeripheral",
                 {"address": ADDRESS, "name": "monocle" if glasses.kind == "monocle" else "Frame 4F", "manufacturerData": [],
                  "knownServiceUuids": [uuids[0] for _, uuids in services]})
    receiving, sending = {}, {}
    glasses.write_types = collections.Counter()

    def add_services():
        for channel, (service, rx, tx) in services:
            service_id = adapter.send("BluetoothEmulation.addService", {"address": ADDRESS, "serviceUuid": service})["serviceId"]
            rx_id = adapter.send("BluetoothEmulation.addCharacteristic", {"serviceId": service_id, "characteristicUuid": rx,
                                                                          "properties": {"write": True, "writeWithoutResponse": True}})["characteristicId"]
            tx_id = adapter.send("BluetoothEmulation.addCharacteristic", {"serviceId": service_id, "characteristicUuid": tx,
                                                                          "properties": {"notify": True, "read": True}})["characteristicId"]
            adapter.send("BluetoothEmulation.addDescriptor", {"characteristicId": tx_id, "descriptorUuid": CCCD})
            receiving[rx_id], sending[tx_id] = channel, channel

    add_services()
    reach.come_back = add_services
    bootloader_writes, bootloader_reads = {}, {}
    if bootloader:
        service, control, packet = DFU
        adapter.send("BluetoothEmulation.simulatePreconnectedPeripheral",
                     {"address": DFU_ADDRESS, "name": "DfuTarg", "manufacturerData": [], "knownServiceUuids": [service]})
        service_id = adapter.send("BluetoothEmulation.addService", {"address": DFU_ADDRESS, "serviceUuid": service})["serviceId"]
        control_id = adapter.send("BluetoothEmulation.addCharacteristic", {"serviceId": service_id, "characteristicUuid": control,
                                                                           "properties": {"write": True, "notify": True, "read": True}})["characteristicId"]
        adapter.send("BluetoothEmulation.addDescriptor", {"characteristicId": control_id, "descriptorUuid": CCCD})
        packet_id = adapter.send("BluetoothEmulation.addCharacteristic", {"serviceId": service_id, "characteristicUuid": packet,
                                                                          "properties": {"writeWithoutResponse": True}})["characteristicId"]
        bootloader_writes.update({control_id: DFU_CONTROL, packet_id: DFU_PACKET})
        bootloader_reads[control_id] = DFU_CONTROL
        bootloader.write_types = collections.Counter()

    def on_characteristic(event):
        characteristic, kind = event["characteristicId"], event["type"]
        respond = {"characteristicId": characteristic, "type": kind, "code": 0}
        peer, writes, reads = (bootloader, bootloader_writes, bootloader_reads) if characteristic in bootloader_writes else (glasses, receiving, sending)
        if kind == "write":
            # The glasses' writes counted by type; the bootloader's by characteristic and type.
            peer.write_types[event.get("writeType") if peer is glasses else (writes[characteristic], event.get("writeType"))] += 1
            peer.write(writes[characteristic], base64.b64decode(event.get("data", "")))
            if event.get("writeType") == "write-without-response":
                return
        elif kind == "read":
            respond["data"] = base64.b64encode(peer.pending[reads[characteristic]].popleft()).decode()
        adapter.send("BluetoothEmulation.simulateCharacteristicOperationResponse", respond)

    chosen = set()

    def on_prompt(event):
        # The prompt is announced twice, and answering it twice crashes the browser.
        if event["id"] in chosen or not event["devices"]:
            return
        chosen.add(event["id"])
        prompts.send("DeviceAccess.selectPrompt", {"id": event["id"], "deviceId": event["devices"][0]["id"]})

    def on_gatt(event):
        # HCI status 0x04 (page timeout): nothing answered, as when the glasses are out of range, or
        # not in their bootloader when the page looks for DfuTarg (which the radio reaches with it).
        code = 0x04 if reach.away and event["type"] == "connection" and event["address"] == ADDRESS else 0
        if bootloader and event["address"] == DFU_ADDRESS and event["type"] == "connection" and not bootloader.connect():
            code = 0x04
        adapter.send("BluetoothEmulation.simulateGATTOperationResponse", {"address": event["address"], "type": event["type"], "code": code})

    adapter.on("BluetoothEmulation.gattOperationReceived", on_gatt)
    adapter.on("BluetoothEmulation.characteristicOperationReceived", on_characteristic)
    adapter.on("BluetoothEmulation.descriptorOperationReceived",
               lambda event: adapter.send("BluetoothEmulation.simulateDescriptorOperationResponse",
                                          {"descriptorId": event["descriptorId"], "type": event["type"], "code": 0}))
    prompts.on("DeviceAccess.deviceRequestPrompted", on_prompt)
    prompts.send("DeviceAccess.enable")
    return adapter


# Reads a TX characteristic `count` times through the page's own device object, so the relay's
# listener sees each value as it would see a notification.
# While the page is still connecting (its services not yet found), nothing is read: the next round tries.
# `name` picks the device (DfuTarg, the bootloader); without it, the glasses.
READ = """async ([service, tx, count, name]) => {
  const device = (await navigator.bluetooth.getDevices()).find((d) => d.gatt.connected && (name ? d.name === name : d.name !== 'DfuTarg'));
  if (!device) return false;
  let characteristic;
  try {
    characteristic = await (await device.gatt.getPrimaryService(service)).getCharacteristic(tx);
  } catch {
    return false;
  }
  for (let i = 0; i < count; i++) await characteristic.readValue();
  return true;
}"""


def carry_until(page, glasses: VirtualGlasses, done, seconds: float, what: str):
    """Delivers what the glasses send until `done()` holds."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:.0f} s; the virtual glasses printed:\n{glasses.output[-3000:]}")
        waiting = [(channel, len(queue)) for channel, queue in glasses.pending.items() if queue]
        if not waiting:
            page.wait_for_timeout(10)  # CDP events (the page's writes) are handled meanwhile
        for channel, count in waiting:
            service, _, tx = dict(services_of(glasses))[channel]
            page.evaluate(READ, [service, tx, count])


@pytest.fixture()
def glasses(stub_server):
    glasses = VirtualGlasses(stub_server.env)
    yield glasses
    glasses.stop()


def test_the_page_relays_real_glasses_bytes_app_upload_and_answer(browser, stub_server, model_stub, context, glasses, tmp_path):
    model_stub.answer, model_stub.delay = ANSWER, 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/glasses")
    expect(page.get_by_role("heading", name="Monocle or Frame over Bluetooth")).to_be_visible()
    adapter = emulate_monocle(browser, page, glasses)
    try:
        page.get_by_role("button", name="Connect glasses").click()
        relay_state = page.locator("section[aria-labelledby=relay-title] [role=status]")
        card = page.locator(".link-card[data-kind=relay][data-glasses=monocle]")

        # Sibyl finds no app on the new glasses and installs its own, every byte through the page.
        started = time.monotonic()
        carry_until(page, glasses, lambda: "tap" in glasses.output.lower() and card.count() > 0
                    and "running" in (card.locator(".link-state").text_content() or ""), 300, "installing the app")
        installed = time.monotonic() - started
        expect(relay_state).to_have_text("Connected: Sibyl is talking to your glasses.")
        expect(page.get_by_role("button", name="Connect glasses")).to_be_hidden()
        expect(page.locator(".monocle-screen")).to_be_hidden()  # no virtual Monocle runs
        assert (glasses.filesystem / "main.py").exists(), "the app reached the glasses' filesystem"
        app_bytes = sum(f.stat().st_size for f in glasses.filesystem.rglob("*.py"))
        assert glasses.written[1] > app_bytes, f"the app went through the page ({glasses.written[1]} bytes written for {app_bytes} bytes of app)"
        expect(card).to_contain_text("Firmware")
        expect(card).to_contain_text("v23.248.0754")
        assert "write-with-response" not in glasses.write_types, f"Monocle's writes go without response: {dict(glasses.write_types)}"

        # The wearer asks aloud; the recording travels through the page; the answer comes back to the glasses.
        before = len(glasses.output)
        glasses.command(f"say {spoken_question(tmp_path)}")
        carry_until(page, glasses, lambda: "Paris" in glasses.output[before:] and card.locator(".last-answer").count() > 0,
                    240, "a spoken question answered on the glasses")
        expect(card.locator(".last-question")).to_contain_text("capital of France")
        expect(card.locator(".last-answer")).to_have_text(ANSWER)
        print(f"\n[glasses] over emulated Web Bluetooth: app installed in {installed:.1f} s "
              f"({glasses.written[1]} bytes written through the page), question answered on the glasses")
        screenshot(page, "glasses-relay")

        page.get_by_role("button", name="Disconnect").click()
        expect(relay_state).to_have_text("Disconnected.")
        expect(page.get_by_role("button", name="Connect glasses")).to_be_visible()
        expect(page.get_by_role("button", name="Disconnect")).to_be_hidden()
        expect(card).to_have_count(0, timeout=30_000)
    finally:
        adapter.send("BluetoothEmulation.disable")


@pytest.fixture()
def frame(stub_server):
    frame = VirtualGlasses(stub_server.env, kind="frame")
    yield frame
    frame.stop()


def test_the_page_relays_a_frame_app_upload_and_answer(browser, stub_server, model_stub, context, frame, tmp_path):
    """The same page with a Frame: it finds Frame's service, reports `"kind":"frame"`, relays the
    notifications on channel 3 and writes Sibyl's packets whole, with response. Sibyl asks the glasses
    for the MTU (the page cannot), installs its Lua app through the page and answers a spoken question.
    The page is at a phone's size (Android's Chrome has Web Bluetooth: phone and glasses, no native app)."""
    model_stub.answer, model_stub.delay = ANSWER, 0.0
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(stub_server.url + "/#/glasses")
    expect(page.get_by_role("heading", name="Monocle or Frame over Bluetooth")).to_be_visible()
    adapter = emulate_monocle(browser, page, frame)
    try:
        page.get_by_role("button", name="Connect glasses").click()
        relay_state = page.locator("section[aria-labelledby=relay-title] [role=status]")
        card = page.locator(".link-card[data-kind=relay][data-glasses=frame]")

        started = time.monotonic()
        carry_until(page, frame, lambda: "tap to ask" in frame.output.lower() and card.count() > 0
                    and "running" in (card.locator(".link-state").text_content() or ""), 300, "installing the Frame app")
        installed = time.monotonic() - started
        expect(relay_state).to_have_text("Connected: Sibyl is talking to your glasses.")
        expect(card.get_by_role("heading", name="Frame (Bluetooth)")).to_be_visible()
        expect(card).to_contain_text("v25.080.0838")
        expect(card.locator(".link-state")).to_contain_text("MTU 247")
        assert frame.packets[:2] == [b"\x03", b"print(frame.bluetooth.max_length())"], "Sibyl asked Frame for the MTU first"
        assert (frame.filesystem / "main.lua").exists(), "the app reached Frame's flash"
        assert max(len(packet) for packet in frame.packets) <= 244, "every packet fits MTU 247 (the MTU Frame printed + 4)"
        assert set(frame.write_types) == {"write-with-response"}, f"Frame's packets are written with response: {dict(frame.write_types)}"

        # Tap, speak, tap: the recording streams through the page; the answer comes back to the glasses.
        question = spoken_question(tmp_path)
        frame.command(f"say {question}")
        before = len(frame.output)
        frame.command("tap")
        carry_until(page, frame, lambda: "listening" in frame.output[before:].lower(), 60, "the glasses listening")
        with wave.open(str(question)) as recording:
            seconds = recording.getnframes() / recording.getframerate()
        deadline = time.monotonic() + seconds + 1.0
        carry_until(page, frame, lambda: time.monotonic() > deadline, seconds + 60, "the recording")
        frame.command("tap")
        carry_until(page, frame, lambda: "Paris" in frame.output[before:] and card.locator(".last-answer").count() > 0,
                    240, "a spoken question answered on Frame")
        expect(card.locator(".last-question")).to_contain_text("capital of France")
        expect(card.locator(".last-answer")).to_have_text(ANSWER)
        print(f"\n[glasses] Frame over emulated Web Bluetooth: app installed in {installed:.1f} s "
              f"({frame.written[FRAME_CHANNEL]} bytes in {len(frame.packets)} packets through the page), question answered on the glasses")
        screenshot(page, "glasses-relay-frame-phone")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the glasses page scrolls sideways on a phone ({width} px)"

        page.get_by_role("button", name="Disconnect").click()
        expect(relay_state).to_have_text("Disconnected.")
        expect(card).to_have_count(0, timeout=30_000)
    finally:
        adapter.send("BluetoothEmulation.disable")


def test_remembered_glasses_reconnect_when_they_come_back(browser, stub_server, model_stub, context, glasses):
    """Glasses the browser was allowed to use are listed (getDevices); when they go out of range the
    page says so and reconnects by itself once they are back, and Sibyl talks to them again."""
    page = context.new_page()
    page.goto(stub_server.url + "/#/glasses")
    expect(page.get_by_role("heading", name="Monocle or Frame over Bluetooth")).to_be_visible()
    reach = Reach()
    adapter = emulate_monocle(browser, page, glasses, reach)
    try:
        expect(page.get_by_label("Reconnect by themselves when they come back in range")).to_be_checked()
        page.get_by_role("button", name="Connect glasses").click()
        relay_state = page.locator("section[aria-labelledby=relay-title] [role=status]")
        card = page.locator(".link-card[data-kind=relay][data-glasses=monocle]")
        running = lambda: card.count() > 0 and "running" in (card.locator(".link-state").text_content() or "")
        carry_until(page, glasses, lambda: "tap" in glasses.output.lower() and running(), 300, "installing the app")
        remembered = page.locator("ul.remembered li")
        expect(remembered).to_have_count(1)
        expect(remembered).to_contain_text("monocle")
        expect(remembered.get_by_role("button", name="Forget monocle")).to_be_visible()

        # Out of range: the link drops, and connecting fails while they are away.
        reach.away = True
        adapter.send("BluetoothEmulation.simulateGATTDisconnection", {"address": ADDRESS})
        expect(relay_state).to_have_text("monocle went out of reach: Sibyl reconnects as soon as they are back.")
        expect(card).to_have_count(0, timeout=30_000)
        screenshot(page, "glasses-awaiting-return")

        # Back in range, offering their services again: the page's next attempt finds them (real
        # glasses are also heard advertising; a simulated advertisement stalls Chromium's emulation).
        reach.away = False
        reach.come_back()
        carry_until(page, glasses, running, 300, "reconnecting by itself")
        expect(relay_state).to_have_text("Connected: Sibyl is talking to your glasses.")

        # Let go on purpose: not reconnected; forgotten: no longer listed.
        page.get_by_role("button", name="Disconnect").click()
        expect(relay_state).to_have_text("Disconnected.")
        remembered.get_by_role("button", name="Forget monocle").click()
        expect(page.locator("ul.remembered")).to_contain_text("None yet")
        expect(card).to_have_count(0, timeout=30_000)
    finally:
        adapter.send("BluetoothEmulation.disable")


def carry_update(page, adapter, glasses: VirtualGlasses, bootloader: VirtualBootloader, reach: Reach, done, seconds: float, what: str):
    """Delivers what the glasses and their bootloader send until `done()` holds, and plays the radio
    while they restart: when the virtual glasses drop their link (into the bootloader, into new
    firmware, after an FPGA image) the emulated Monocle disconnects and is out of reach until they
    run their app again; when the bootloader drops its link (it restarted them) so does DfuTarg."""
    deadline = time.monotonic() + seconds
    asked = 0.0
    bootloader_held = False
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:.0f} s; the virtual glasses printed:\n{glasses.output[-3000:]}")
        if not glasses.link_up and not reach.away:
            reach.away = True
            adapter.send("BluetoothEmulation.simulateGATTDisconnection", {"address": ADDRESS})
        if reach.away and time.monotonic() - asked > 1:
            # Back once they run their app: the emulator connects them to their phone again.
            asked = time.monotonic()
            glasses.socket.send(json.dumps({"type": "connect"}))
        if reach.away and glasses.link_up:
            reach.away = False
            reach.come_back()
        if bootloader.link_up:
            bootloader_held = True
        elif bootloader_held and not bootloader.pending[DFU_CONTROL]:
            # Its last answers first: the bootloader sends them before it restarts the glasses.
            bootloader_held = False
            try:
                adapter.send("BluetoothEmulation.simulateGATTDisconnection", {"address": DFU_ADDRESS})
            except Exception:
                pass  # the page let it go first (Sibyl asked it to, once the image was in)
        waiting = [(channel, len(queue)) for channel, queue in glasses.pending.items() if queue and not reach.away]
        notifications = len(bootloader.pending[DFU_CONTROL])
        if not waiting and not notifications:
            page.wait_for_timeout(10)
        for channel, count in waiting:
            service, _, tx = dict(services_of(glasses))[channel]
            page.evaluate(READ, [service, tx, count, None])
        if notifications:
            page.evaluate(READ, [DFU[0], DFU[1], notifications, "DfuTarg"])


def test_firmware_and_fpga_install_from_the_page(browser, stub_server, model_stub, context, tmp_path):
    """A firmware package and an FPGA image installed from the glasses page, as Brilliant's apps do:
    the files are checked by the server, the glasses restart into their bootloader, which the person
    chooses in the browser's chooser, the firmware goes over Secure DFU through the page (the
    bootloader checks its signature), the glasses come back on it, and the FPGA image follows. One
    progress bar covers both steps."""
    glasses = VirtualGlasses(stub_server.env, extra=(
        "--emulated-bootloader-key", str(DFU_FIXTURES / "test-key-public.pem"), "--emulated-fpga-after-update", "v23.300.0001"))
    bootloader = VirtualBootloader(glasses)
    page = context.new_page()
    page.goto(stub_server.url + "/#/glasses")
    reach = Reach()
    adapter = emulate_monocle(browser, page, glasses, reach, bootloader)
    try:
        page.get_by_role("button", name="Connect glasses").click()
        card = page.locator(".link-card[data-kind=relay][data-glasses=monocle]")
        running = lambda: card.count() > 0 and "running" in (card.locator(".link-state").text_content() or "")
        carry_until(page, glasses, lambda: "tap" in glasses.output.lower() and running(), 300, "installing the app")
        expect(card).to_contain_text("v23.248.0754")

        # A file that is not a firmware package is refused before the glasses are touched.
        form = page.locator("fieldset.update-form")
        expect(form).to_be_visible()
        bogus = tmp_path / "notes.zip"
        bogus.write_text("not a package")
        page.get_by_label("Firmware package (.zip)").set_input_files(str(bogus))
        page.get_by_role("button", name="Install").click()
        expect(page.locator("#toast")).to_have_text(
            "This is not a Nordic DFU package (a zip from `nrfutil pkg generate`): it is not a zip file.")
        assert card.locator(".update-progress").count() == 0

        # The files, chosen as downloaded: the versions come from their names (the firmware's also from its image).
        image = tmp_path / "monocle-fpga-v23.300.0001.bin"
        image.write_bytes(bytes(range(256)) * 16)
        page.get_by_label("Firmware package (.zip)").set_input_files(str(DFU_FIXTURES / "monocle-firmware-test.zip"))
        page.get_by_label("FPGA image (.bin)").set_input_files(str(image))
        expect(page.get_by_label("Its version", exact=True)).to_have_value("v23.300.0001")
        page.get_by_role("button", name="Install").click()

        # The glasses restart into their bootloader: the browser needs the person to choose it.
        choose = page.get_by_role("button", name="Choose the bootloader")
        carry_update(page, adapter, glasses, bootloader, reach, lambda: choose.is_visible(), 120, "the bootloader asked for")
        expect(page.locator("section[aria-labelledby=relay-title] [role=status]")).to_have_text(
            "The glasses wait in their bootloader: choose it to go on.")
        screenshot(page, "glasses-update-bootloader")
        choose.click()

        progress = page.locator(".update-progress progress")
        seen: list[tuple[float, str]] = []

        def installed():
            if progress.count():
                seen.append((float(progress.get_attribute("value") or 0), card.locator(".update-words").text_content() or ""))
            return card.locator(".update-words[data-outcome=done]").count() > 0 and running()

        started = time.monotonic()
        carry_update(page, adapter, glasses, bootloader, reach, installed, 420, "the firmware and FPGA install")
        took = time.monotonic() - started
        expect(card.locator(".update-words")).to_have_text("Installed")
        expect(card.locator(".update-what")).to_have_text("firmware v23.300.1200 · FPGA v23.300.0001")
        expect(page.get_by_label("Firmware package (.zip)")).to_have_value("")
        assert progress.get_attribute("value") == "1"
        expect(card).to_contain_text("v23.300.1200")
        expect(card).to_contain_text("v23.300.0001")
        firmware_steps = [value for value, words in seen if words.startswith("Installing the firmware")]
        fpga_steps = [value for value, words in seen if words.startswith("Writing the FPGA image")]
        assert firmware_steps and max(firmware_steps) <= 0.5, f"the firmware fills the first half of the bar: {seen}"
        assert fpga_steps and min(fpga_steps) >= 0.5, f"the FPGA image fills the second half: {seen}"
        assert bootloader.written[DFU_PACKET] >= 18_000, "the whole image went through the page"
        assert bootloader.write_types[(DFU_PACKET, "write-with-response")] == 0, f"DFU packets go without response: {dict(bootloader.write_types)}"
        assert bootloader.write_types[(DFU_CONTROL, "write-without-response")] == 0, f"the control point is written with response: {dict(bootloader.write_types)}"
        print(f"\n[glasses] firmware ({bootloader.written[DFU_PACKET]} bytes over Secure DFU) and FPGA image installed through the page in {took:.1f} s")
        screenshot(page, "glasses-update-done")
    finally:
        adapter.send("BluetoothEmulation.disable")
        bootloader.socket.close()
        glasses.stop()
