import Foundation
import FrameEmulator
import FrameOracle
import Testing

/// The official frame-msg 5.2.1 device libraries (`data.lua`, `plain_text.lua`, `code.lua`,
/// `camera.lua`, `audio.lua`, loaded unmodified from the oracle's site-packages) in the emulator,
/// driven by packets from the official frame-ble `send_message` chunker and frame-msg packers.
@Suite("frame-msg device libraries", .timeLimit(.minutes(10)), .enabled(if: FrameOracle.available, "needs SIBYL_FRAME_PYTHON (scripts/frame/setup.sh)"))
struct FrameMsgTests {
    /// A test app in the style of frame-msg's examples: text to the display, code 1/2 starting/stopping
    /// the audio stream, capture settings to a photo; it prints what it received.
    static func app(suffix: String) -> String {
        FrameMsgApp.source(
            suffix: suffix, state: "local streaming = false", afterText: "print('text ' .. #text.string)",
            onCode: """
                if c.value == 1 then audio.start({sample_rate = 8000, bit_depth = 8}); streaming = true end
                if c.value == 2 then audio.stop() end
                print('code ' .. c.value)
                """,
            eachPass: "if streaming and audio.read_and_send_audio() == nil then streaming = false end"
        )
    }

    /// What the oracle produced: packets per message (hex strings with the 0x01 prefix) and a JPEG.
    struct Packets: Decodable {
        let text: [String]
        let textString: String
        let start: [String]
        let stop: [String]
        let capture: [String]
        let captureRaw: [String]
        let jpeg: String
    }

    static let oracle = """
        import asyncio, io, json, sys
        from frame_ble import FrameBle
        from frame_msg import TxPlainText, TxCode, TxCaptureSettings
        from PIL import Image

        class Recorder(FrameBle):
            def __init__(self, mtu):
                super().__init__()
                self.mtu = mtu
                self.packets = []
            def max_data_payload(self):
                return self.mtu - 4
            async def send_data(self, data, show_me=False, await_data=False):
                self.packets.append((b'\\x01' + bytes(data)).hex())

        def packets(mtu, code, payload):
            recorder = Recorder(mtu)
            asyncio.run(recorder.send_message(code, payload))
            return recorder.packets

        mtu = json.load(open(sys.argv[1]))["mtu"]
        text = "Sibyl on Frame: ünïcødé ✓ " + "".join(chr(65 + i % 26) for i in range(560))
        image = Image.new("RGB", (64, 48))
        for x in range(64):
            for y in range(48):
                image.putpixel((x, y), (x * 4, y * 5, (x * y) % 256))
        jpeg = io.BytesIO()
        image.save(jpeg, format="JPEG", quality=90)
        json.dump({
            "text": packets(mtu, 0x0A, TxPlainText(text=text, x=17, y=230, palette_offset=3, spacing=6).pack()),
            "textString": text,
            "start": packets(mtu, 0x0B, TxCode(value=1).pack()),
            "stop": packets(mtu, 0x0B, TxCode(value=2).pack()),
            "capture": packets(mtu, 0x0D, TxCaptureSettings(resolution=512, quality_index=4, pan=0, raw=False).pack()),
            "captureRaw": packets(mtu, 0x0D, TxCaptureSettings(resolution=720, quality_index=2, pan=-40, raw=True).pack()),
            "jpeg": jpeg.getvalue().hex(),
        }, open(sys.argv[2], "w"))
        """

    @Test("messages from the official chunker are ACKed and parsed; photos and audio stream back",
          arguments: [(247, ""), (23, ""), (247, ".min"), (23, ".min")])
    func roundTrip(mtu: Int, suffix: String) async throws {
        let packets = try await FrameOracle.run(Self.oracle, input: ["mtu": mtu], as: Packets.self)
        let lua = try await FrameOracle.luaDirectory()
        var files = ["frame_app.lua": Self.app(suffix: suffix)]
        for name in FrameMsgApp.libraries {
            // Unmodified: the device sees exactly the wheel's bytes.
            let file = "\(name)\(suffix).lua"
            files[file] = try String(contentsOf: lua.appending(path: file), encoding: .utf8)
        }
        let jpeg = Data(hex: packets.jpeg)
        let pcm = (0..<48000).map { Int16(truncatingIfNeeded: ($0 * 331) % 65536 - 32768) }
        try await TestFrame.with(files: files, mtu: mtu) { emulator, link async throws in
            emulator.setCameraImage(jpeg: jpeg)
            emulator.setMicrophoneInput(samples: pcm)
            let ready = try await link.lua("require('frame_app')")
            try #require(ready == "ready", "\(ready)")

            // Text: every packet ACKed with 01 00, then the parsed fields reach the display.
            var start = link.mark
            let textPackets = packets.text.map { Data(hex: $0) }
            #expect(textPackets.count > 2 && textPackets.allSatisfy { $0.count <= mtu - 3 })
            for packet in textPackets { try await link.sendAcknowledged(packet) }
            #expect(try await link.print(after: start) == "text \(packets.textString.utf8.count)")
            #expect(link.all.dropFirst(start).filter { $0 == Data([0x01, 0x00]) }.count == textPackets.count)
            let shown = try #require(emulator.display.current)
            #expect(shown.drawings == [.text(packets.textString, x: 17, y: 230, color: "RED", paletteOffset: 2, spacing: 6)])

            // Photo: 0x07 chunks then an empty 0x08 reassemble to the configured JPEG.
            let captures = [
                (packets.capture, jpeg, FramePeripherals.Capture(resolution: 512, quality: "VERY_HIGH", pan: 0)),
                (packets.captureRaw, jpeg.dropFirst(623), FramePeripherals.Capture(resolution: 720, quality: "MEDIUM", pan: -40)),
            ]
            for (settings, expected, capture) in captures {
                start = link.mark
                for packet in settings { try await link.sendAcknowledged(Data(hex: packet)) }
                let stream = try await link.wait(after: start, for: "the photo") { $0.contains(Data([0x01, 0x08])) }
                let chunks = stream.filter { $0.count > 2 && $0[0] == 0x01 && $0[1] == 0x07 }
                #expect(chunks.allSatisfy { $0.count <= mtu - 3 })
                #expect(Data(chunks.flatMap { $0.dropFirst(2) }) == Data(expected))
                #expect(emulator.peripherals.lastCapture == capture)
            }

            // Audio: 0x05 chunks of 8 kHz 8-bit samples (every other 16 kHz sample's high byte), then 0x06.
            start = link.mark
            for packet in packets.start { try await link.sendAcknowledged(Data(hex: packet)) }
            try await link.wait(after: start, for: "some audio") { $0.filter { $0.count > 2 && $0[1] == 0x05 }.count >= 4 }
            #expect(emulator.peripherals.microphone?.sampleRate == 8000)
            #expect(emulator.peripherals.microphone?.bitDepth == 8)
            for packet in packets.stop { try await link.sendAcknowledged(Data(hex: packet)) }
            let stream = try await link.wait(after: start, for: "the end of the audio") { $0.contains(Data([0x01, 0x06])) }
            let audio = stream.filter { $0.count > 2 && $0[0] == 0x01 && $0[1] == 0x05 }.flatMap { $0.dropFirst(2) }
            let expected = (0..<audio.count).map { index -> UInt8 in
                let sample = 2 * index < pcm.count ? pcm[2 * index] : 0
                return UInt8(truncatingIfNeeded: sample >> 8)
            }
            #expect(audio.count > 0)
            #expect(audio.elementsEqual(expected))
            #expect(stream.filter { $0.count > 2 && $0[1] == 0x05 }.allSatisfy { $0.count <= mtu - 3 })
        }
    }

    @Test("a host that ignores ACKs loses packets in the single data slot")
    func ignoredACKs() async throws {
        let lua = try await FrameOracle.luaDirectory()
        let data = try String(contentsOf: lua.appending(path: "data.lua"), encoding: .utf8)
        // The notification slot stays busy for 50 ms, so each ACK waits in the data callback (with hooks
        // off) while the host keeps writing: later packets replace earlier ones in the single slot.
        try await TestFrame.with(files: ["data.lua": data], configure: { $0.notificationSlotTime = .milliseconds(50) }) { emulator, link async throws in
            let ok = try await link.lua("d = require('data'); print('ok')")
            try #require(ok == "ok", "\(ok)")
            let payload = Data((0..<200).map { UInt8($0) })
            var packets: [Data] = [Data([0x01, 0x0A, 0x00, UInt8(payload.count)]) + payload.prefix(40)]
            for offset in stride(from: 40, to: payload.count, by: 40) { packets.append(Data([0x01, 0x0A]) + payload.dropFirst(offset).prefix(40)) }
            for packet in packets { try await emulator.write(packet) }
            // The REPL answers once the callbacks have run, so every acknowledgement sent is in by
            // then; it waits on the glasses for the radio's slot to be free, or its print is lost.
            #expect(try await link.lua("frame.sleep(0.1) print(d.app_data_block[0x0A] == nil)") == "true")
            let acks = link.all.filter { $0 == Data([0x01, 0x00]) }.count
            #expect(acks < packets.count)
        }
    }
}

/// frame-ble's own file upload (`upload_file_from_string`: escaping, chunking, `print` handshakes)
/// replayed into the emulator's REPL.
@Suite("frame-ble file upload", .timeLimit(.minutes(10)), .enabled(if: FrameOracle.available, "needs SIBYL_FRAME_PYTHON (scripts/frame/setup.sh)"))
struct FileUploadTests {
    struct Input: Encodable { let mtu: Int; let content: String }
    struct Upload: Decodable { let writes: [String] }

    static let content = """
        -- uploaded by frame-ble's upload_file_from_string\r
        local s = 'single \\'quoted\\' and "double" \\\\ backslash'
        local t = "tab\there"
        local long = '\(String(repeating: "0123456789", count: 40))'
        print(#s .. ' ' .. #t .. ' ' .. #long)

        """

    @Test("the official uploader's writes land byte-exact on the flash and the file runs", arguments: [247, 100])
    func upload(mtu: Int) async throws {
        let upload = try await FrameOracle.run("""
            import asyncio, json, sys
            from frame_ble import FrameBle

            class Recorder(FrameBle):
                def __init__(self, mtu):
                    super().__init__()
                    self.mtu = mtu
                    self.writes = []
                def max_lua_payload(self):
                    return self.mtu - 3
                async def send_lua(self, string, show_me=False, await_print=False):
                    self.writes.append(string)
                    return "1"

            arguments = json.load(open(sys.argv[1]))
            recorder = Recorder(arguments["mtu"])
            asyncio.run(recorder.upload_file_from_string(arguments["content"], "up.lua"))
            json.dump({"writes": recorder.writes}, open(sys.argv[2], "w"))
            """, input: Input(mtu: mtu, content: Self.content), as: Upload.self)
        #expect(upload.writes.count > 3)
        try await TestFrame.with(mtu: mtu) { emulator, link async throws in
            // One write in flight, each answered by its print, as the uploader awaits.
            for write in upload.writes {
                let answer = try await link.lua(write)
                #expect(answer == (write.hasPrefix("f:close()") ? "nil" : "1"), "\(write)")
            }
            let expected = Self.content.replacingOccurrences(of: "\r", with: "")
            #expect(emulator.readFile("up.lua") == Data(expected.utf8))
            #expect(try await link.lua("require('up')") == "40 8 400")
        }
    }
}
