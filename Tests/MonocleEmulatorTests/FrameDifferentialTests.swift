import Foundation
import FrameEmulator
import FrameGlasses
import FrameOracle
import FrameProtocol
import Glasses
import SibylCore
import Synchronization
import Testing

/// Two independent hosts, one device: Brilliant Labs' official Python host (frame-msg 5.2.1 on
/// frame-ble 1.1.1, `scripts/frame/official_host.py`) and Sibyl's Swift host run the same scenario,
/// each against a fresh virtual Frame, and must leave the same files and screen and bring back the
/// same photo and recording. A Swift host bug cannot then be "confirmed" by a Swift emulator with
/// the same bug: the official host's bytes go through the same emulator.
@Suite(.serialized, .timeLimit(.minutes(15)), .enabled(if: FrameOracle.available, "needs the Frame host libraries' venv (SIBYL_FRAME_PYTHON, from scripts/frame/setup.sh)"))
struct FrameDifferentialTests {
    static let python = FrameOracle.python

    /// The device app both hosts upload: frame-msg's libraries parse the messages; text goes to the
    /// display, capture settings to a photo, code 1 starts the microphone, which the app stops
    /// itself after 2,000 bytes (so both recordings are the same length on the virtual clock).
    static let app = FrameMsgApp.source(
        suffix: ".min", state: "local streaming, stopping, sent = false, false, 0",
        onCode: "if c.value == 1 then audio.start({sample_rate = 8000, bit_depth = 8}); streaming = true; stopping = false; sent = 0 end",
        eachPass: """
            if streaming then
              local n = audio.read_and_send_audio()
              if n == nil then
                streaming = false
              else
                sent = sent + n
                if sent >= 2000 and not stopping then audio.stop(); stopping = true end
              end
            end
            """
    )

    static let text = "Sibyl and frame-msg agree: ünïcødé ✓ " + String(repeating: "0123456789", count: 30)
    static let capture = (resolution: 512, quality: 3, pan: -20)
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 * 29 + 5) & 0xFE }) + Data([0xFF, 0xD9])
    static let samples = (0..<16_000).map { Int16(truncatingIfNeeded: ($0 * 977) % 40_000 - 20_000) }

    struct Outcome {
        var jpeg: Data
        var wav: Data
        var files: [String: Data]
        var screen: FrameDisplayFrame?
    }

    /// A fresh virtual Frame on the virtual clock, with the camera and microphone inputs set.
    static func withFrame(_ body: (FrameEmulator) async throws -> Outcome) async throws -> Outcome {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-differential-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        var configuration = FrameEmulatorConfiguration()
        configuration.clock = .virtual
        let emulator = try FrameEmulator(configuration: configuration, flash: flash)
        try await emulator.powerOn()
        emulator.setCameraImage(jpeg: jpeg)
        emulator.setMicrophoneInput(samples: samples, sampleRate: 16_000)
        do {
            var outcome = try await body(emulator)
            for name in emulator.fileNames() { outcome.files[name] = emulator.readFile(name) }
            outcome.screen = emulator.display.current
            await emulator.powerOff()
            return outcome
        } catch {
            await emulator.powerOff()
            throw error
        }
    }

    /// The official host, through this process's pipes to the virtual Frame.
    static func officialHost(mtu: Int) async throws -> Outcome {
        let python = try #require(python, "SIBYL_FRAME_PYTHON is not set")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/frame/official_host.py").standardized
        let arguments: [String: Any] = [
            "mtu": mtu, "app": app, "text": text,
            "capture": ["resolution": capture.resolution, "quality_index": capture.quality, "pan": capture.pan],
        ]
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: arguments), as: UTF8.self)
        // A host that dies mid-run must not take this process with it through a write to its pipe.
        signal(SIGPIPE, SIG_IGN)
        return try await withFrame { emulator in
            try emulator.connect(mtu: mtu)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script.path, argument]
            let toHost = Pipe()
            let fromHost = Pipe()
            let errors = FileManager.default.temporaryDirectory.appending(path: "sibyl-official-host-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: errors) }
            process.standardInput = toHost
            process.standardOutput = fromHost
            process.standardError = try FileHandle(forWritingTo: errors)
            let (lines, sink) = AsyncStream<String>.makeStream()
            let pending = Mutex(Data())
            PipeDrain.start(fromHost.fileHandleForReading, chunk: { chunk in
                let complete = pending.withLock { buffer -> [String] in
                    buffer.append(chunk)
                    var found: [String] = []
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        found.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                        buffer = Data(buffer[buffer.index(after: newline)...])
                    }
                    return found
                }
                for line in complete { sink.yield(line) }
            }, ended: { sink.finish() })
            let input = toHost.fileHandleForWriting
            let notifications = emulator.notifications
            let forwarding = Task {
                for await notification in notifications {
                    try? input.write(contentsOf: Data("N \(notification.map { String(format: "%02x", $0) }.joined())\n".utf8))
                }
            }
            try process.run()
            // A ceiling against a host that hangs; it does not bound how fast the host works.
            let watchdog = Task {
                try? await Task.sleep(for: .seconds(600))
                if process.isRunning { process.terminate() }
            }
            var result: [String: Any]?
            // Read until the host's output ends.
            for await line in lines {
                if line.hasPrefix("W "), result == nil {
                    try await emulator.write(Data(hex: String(line.dropFirst(2))))
                    try input.write(contentsOf: Data("A\n".utf8))
                } else if line.hasPrefix("R ") {
                    result = try JSONSerialization.jsonObject(with: Data(line.dropFirst(2).utf8)) as? [String: Any]
                    // Nothing more goes to the host: it is about to exit.
                    forwarding.cancel()
                    try? input.close()
                }
            }
            watchdog.cancel()
            forwarding.cancel()
            try? input.close()
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            let answer = try #require(result, "the official host ended without a result: \(log.suffix(1500))")
            #expect((answer["prints"] as? [String])?.contains("ready") == true, "the app said it was ready to the official host")
            return Outcome(jpeg: Data(hex: answer["jpeg"] as? String ?? ""), wav: Data(hex: answer["wav"] as? String ?? ""), files: [:])
        }
    }

    /// Sibyl's host: a connection with Frame's driver uploads the same files and starts the app, then the
    /// same messages go out and the streams are assembled by Sibyl's code.
    static func sibylHost(mtu: Int, lua: URL) async throws -> Outcome {
        var files = [FrameDeviceApp.File(name: "frame_app.lua", contents: Data(app.utf8))]
        for name in FrameMsgApp.libraries {
            files.append(FrameDeviceApp.File(name: "\(name).min.lua", contents: try Data(contentsOf: lua.appending(path: "\(name).min.lua"))))
        }
        let deviceApp = try FrameDeviceApp(files: files, entry: "frame_app", readyLine: "ready")
        return try await withFrame { emulator in
            let transport = EmulatorFrameTransport(emulator: emulator, mtu: mtu)
            var options = GlassesConnection.Options.fast
            options.reconnect = false
            let driver = FrameDriver(app: deviceApp, options: .fast, wearer: nil)
            let data = FrameConnectionTests.AppData(driver)
            return try await GlassesConnection(transport: transport, driver: driver, options: options).serve { observer in
                _ = try await observer.running()
                try await driver.send(FrameMessage(code: 0x0A, FramePlainText(text, x: 17, y: 230, paletteOffset: 3, spacing: 6)))
                try await driver.send(FrameMessage(code: 0x0D, FrameCaptureSettings(resolution: capture.resolution, quality: FrameCameraQuality(rawValue: capture.quality)!, pan: capture.pan)))
                let jpeg = try await observer.until("the photo") { data.stream(.photo()) }
                try await driver.send(FrameMessage(code: 0x0B, FrameCode(1)))
                let pcm = try await observer.until("the recording") { data.stream(.audio()) }
                return Outcome(jpeg: jpeg, wav: FrameAudio.wav(pcm: pcm, sampleRate: 8000, bitsPerSample: 8), files: [:])
            }
        }
    }

    @Test(arguments: [247, 100])
    func theOfficialHostAndSibylsLeaveTheSameStateAndReceiveTheSameBytes(mtu: Int) async throws {
        let lua = try await FrameOracle.luaDirectory()
        let official = try await Self.officialHost(mtu: mtu)
        let sibyl = try await Self.sibylHost(mtu: mtu, lua: lua)
        // The same files on the flash: frame-ble's escaping and chunking and Sibyl's write the same bytes
        // (Sibyl adds its version file).
        let uploaded = ["frame_app.lua"] + FrameMsgApp.libraries.map { "\($0).min.lua" }
        for name in uploaded {
            #expect(official.files[name] != nil && official.files[name] == sibyl.files[name], "\(name)")
        }
        #expect(Set(sibyl.files.keys).subtracting(official.files.keys) == ["sibyl_version.lua"])
        // The same screen: the text message parsed and drawn identically.
        #expect(official.screen != nil && official.screen == sibyl.screen)
        #expect(official.screen?.texts == [Self.text])
        // The same photo and recording, byte for byte.
        #expect(official.jpeg == Self.jpeg)
        #expect(sibyl.jpeg == official.jpeg)
        #expect(official.wav.count >= 44 + 2000)
        #expect(sibyl.wav == official.wav)
    }
}
