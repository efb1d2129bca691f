import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Glasses
import LocalEngines
import SibylApp
import SibylCore

/// `SibylBenchmarks glasses`: Sibyl's Frame app upload, a spoken question on the virtual Frame,
/// and the message packers and chunker against frame-msg's own Python.
struct GlassesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glasses",
        abstract: "Frame: app upload at an MTU, where a spoken question's time goes (local engines), and packing and chunking against frame-msg's Python."
    )

    @Option(help: "Uploads to fresh virtual Frames.") var uploads = 5
    @Option(help: "Spoken questions (after one warm-up); 0 skips them.") var questions = 3
    @Option(help: "The spoken question.") var question = "What is the capital of France?"
    @Option(help: "The link's ATT MTU.") var mtu = 247
    @Option(help: "The Python with frame-msg and frame-ble (scripts/frame/setup.sh prints it); default: SIBYL_FRAME_PYTHON, else ~/.cache/sibyl/venv-frame.")
    var python: String?

    func run() async throws {
        try await upload()
        if questions > 0 { try await spokenQuestions() }
        try packing()
    }

    // MARK: Upload

    func upload() async throws {
        let app = FrameDeviceApp.sibyl()
        var times: [Double] = []
        var writes = 0
        for _ in 0..<uploads {
            try await Self.withFrame { emulator in
                let transport = EmulatorFrameTransport(emulator: emulator, mtu: mtu)
                let connection = GlassesConnection(transport: transport, driver: FrameDriver(app: app))
                // A fresh Frame gets the app; after the link drops and comes back, it is found in place.
                let runs = try await connection.runs(2) { _ in transport.drop(reason: "benchmark") }
                guard runs.count == 2, let time = runs[0].uploadTime, runs[0].uploaded, !runs[1].uploaded else {
                    throw ValidationError("the first connection should upload and the second should not")
                }
                times.append(Statistics.milliseconds(time))
                writes = runs[0].uploadWrites
            }
        }
        print("Sibyl's Frame app: \(app.files.count) files, \(app.byteCount) bytes; MTU \(mtu)")
        print(String(format: "upload: median %.1f ms over %d fresh virtual Frames, %d Lua writes (each acknowledged by a print)", Statistics.median(times), uploads, writes))
    }

    static func withFrame(_ body: (FrameEmulator) async throws -> Void) async throws {
        let flash = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-frame-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: flash) }
        let emulator = try FrameEmulator(flash: flash)
        try await emulator.powerOn()
        do {
            try await body(emulator)
        } catch {
            await emulator.powerOff()
            throw error
        }
        await emulator.powerOff()
    }

    // MARK: A spoken question

    func spokenQuestions() async throws {
        let layout = EngineLayout()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-frame-home-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: [
            "SIBYL_HOME": home.path, "SIBYL_ENGINES": layout.root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
            "SIBYL_CHAT_TEMPERATURE": "0", "SIBYL_CHAT_MAX_TOKENS": "40",
        ])
        let speech = try await EspeakSynthesizer().synthesize(question, options: SpeechOptions(format: .wav, speed: 0.8)).data
        let samples = try AudioResampling.speechPCM16(fromWAV: speech)
        var timings: [GlassesTimings] = []
        try await Self.withFrame { emulator in
            let session = try runtime.glasses.session(transport: EmulatorFrameTransport(emulator: emulator, mtu: mtu), kind: .frame)
            let (events, sink) = AsyncStream<GlassesEvent>.makeStream()
            let serving = Task { await session.run { sink.yield($0) } }
            var iterator = events.makeAsyncIterator()
            while let event = await iterator.next() {
                if case .state(let state) = event, state.isRunning { break }
            }
            for round in 0...questions {
                emulator.setMicrophoneInput(samples: samples, sampleRate: 16_000)
                try await emulator.tap()
                try await Self.waitForScreen(emulator) { $0.contains("Listening") }
                try await Task.sleep(for: .seconds(Double(samples.count) / 16_000 + 0.5))
                try await emulator.tap()
                while let event = await iterator.next() {
                    if case .answered(_, let answer, let measured) = event {
                        if round > 0 { timings.append(measured) }
                        print("  \(round == 0 ? "warm-up" : "question \(round)"): \(answer)")
                        break
                    }
                    if case .failed(_, let detail) = event { throw ValidationError("the question failed: \(detail)") }
                }
            }
            await session.stop()
            serving.cancel()
        }
        await runtime.shutdown()
        func median(_ pick: (GlassesTimings) -> Duration) -> Double { Statistics.median(timings.map { Statistics.milliseconds(pick($0)) }) }
        print("one spoken question on the virtual Frame (median of \(timings.count), ms; the audio transfer includes the \(String(format: "%.1f", Double(samples.count) / 16_000)) s of speech, streamed as it is spoken):")
        print(String(format: "  audio transfer %.1f · conversion %.2f · speech-to-text %.1f · LLM %.1f · display %.2f", median(\.audioTransfer), median(\.audioConversion), median(\.speechToText), median(\.languageModel), median(\.display)))
        let total = median(\.total)
        let overhead = median(\.overhead)
        print(String(format: "  from the end of the recording to the answer shown: %.1f; Sibyl's own overhead %.2f (%.2f %%; goal < 100 ms)", total, overhead, overhead / total * 100))
    }

    static func waitForScreen(_ emulator: FrameEmulator, _ condition: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition((emulator.display.current?.texts ?? []).joined(separator: " ")) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ValidationError("the virtual Frame's display did not change as expected")
    }

    // MARK: Packing and chunking

    func packing() throws {
        let payload = Data((0..<65_535).map { UInt8(truncatingIfNeeded: $0 * 73 + 11) })
        let text = String(repeating: "Paris is the capital of France. ", count: 6)
        let limits = FrameLimits(mtu: mtu)
        let message = try FrameMessage(code: 0x20, payload: payload)
        var packetCount = 0
        let chunk = Self.bestOf(5) { () -> Int in
            for _ in 0..<50 { packetCount = (try? message.writes(limits: limits).count) ?? 0 }
            return 50
        }
        var checksum = 0
        let packText = Self.bestOf(5) { () -> Int in
            for _ in 0..<20_000 { checksum &+= FramePlainText(text, x: 1, y: 1, paletteOffset: 3, spacing: 4).packed().count }
            return 20_000
        }
        let packCapture = Self.bestOf(5) { () -> Int in
            for _ in 0..<20_000 { checksum &+= FrameCaptureSettings(resolution: 720, quality: .high, pan: 0).packed().count }
            return 20_000
        }
        let pythonPath = python ?? ProcessInfo.processInfo.environment["SIBYL_FRAME_PYTHON"]
            ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.cache/sibyl/venv-frame/bin/python")
        guard let script = ReferenceScript.locate("frame_msg_throughput.py") else { throw ValidationError("scripts/bench/frame_msg_throughput.py is missing") }
        let output = try ReferenceScript(python: pythonPath, script: script).run([String(mtu)])
        let reference = try JSONDecoder().decode([String: Double].self, from: output)
        print("packing and chunking, Sibyl (Swift) against frame-msg 5.2.1 / frame-ble 1.1.1 (Python), best of 5, same inputs:")
        func row(_ name: String, _ swift: Double, _ python: Double?) {
            guard let python else { return }
            print(String(format: "  %@: Sibyl %.2f µs, frame-msg %.2f µs (%.1f× faster)", name, swift * 1e6, python * 1e6, python / swift))
        }
        row("a 65,535-byte message into \(packetCount) packets at MTU \(mtu)", chunk, reference["chunk_65535"])
        row("TxPlainText of \(text.utf8.count) bytes", packText, reference["pack_plain_text"])
        row("TxCaptureSettings", packCapture, reference["pack_capture_settings"])
        if checksum == 42 { print("") } // keeps the packing from being optimised away
    }

    /// The fastest of `repeats` runs, in seconds per operation (`body` returns how many it did).
    static func bestOf(_ repeats: Int, _ body: () -> Int) -> Double {
        var best = Double.infinity
        let clock = ContinuousClock()
        for _ in 0..<repeats {
            let start = clock.now
            let count = body()
            best = min(best, Statistics.seconds(clock.now - start) / Double(count))
        }
        return best
    }
}
