import ArgumentParser
import Assistant
import Foundation
import Glasses
import LocalEngines
import Monocle
import MonocleEmulator
import SibylApp
import SibylCore

/// `SibylBenchmarks monocle`: the device-app upload, and where the time of a spoken question goes.
struct MonocleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monocle",
        abstract: "Upload time and writes for Sibyl's device app, and the time of spoken questions on the virtual Monocle (local engines)."
    )

    @Option(help: "Uploads to fresh virtual glasses.") var uploads = 5
    @Option(help: "Spoken questions (after one warm-up).") var questions = 3
    @Option(help: "The spoken question.") var question = "What is the capital of France?"
    @Option(name: .customLong("write-length"), help: "The link's largest write (ATT MTU − 3).") var writeLength = 253

    /// Connects, waits until the app runs, and disconnects: what the glasses reported and the serial writes.
    func connectUntilRunning(_ glasses: MonocleEmulator, app: DeviceApp) async throws -> (info: GlassesDeviceInfo, writes: Int) {
        await glasses.resetWriteCounts()
        let transport = EmulatorTransport(emulator: glasses, maximumWriteLength: writeLength)
        let connection = GlassesConnection(transport: transport, driver: MonocleDriver(app: app), options: Self.options())
        // Every serial write of the connection precedes `running` (the soft reset is the last).
        var writes = 0
        let runs = try await connection.runs(1) { _ in writes = await glasses.writes[.serial] ?? 0 }
        guard let info = runs.first else { throw ValidationError("the virtual glasses did not come up") }
        return (info, writes)
    }

    func run() async throws {
        let layout = EngineLayout()
        let interpreter = MicroPythonInterpreter(module: layout.microPythonModule)
        guard FileManager.default.fileExists(atPath: interpreter.module.path) else {
            throw ValidationError("Install the emulator and the local engines first: sibyl models install all")
        }
        let app = try DeviceApp.sibyl()
        print("Sibyl's device app: \(app.files.count) file(s), \(app.byteCount) bytes; link write length \(writeLength) bytes")

        // The driver times the upload itself; its writes are those of a first connection to fresh
        // glasses (which uploads) less those of a second one (which finds the app in place).
        var times: [Double] = []
        var writes = 0
        for _ in 0..<uploads {
            try await Self.withGlasses(interpreter: interpreter, writeLength: writeLength) { glasses in
                let fresh = try await connectUntilRunning(glasses, app: app)
                let again = try await connectUntilRunning(glasses, app: app)
                guard let uploadTime = fresh.info.uploadTime, !again.info.uploaded else {
                    throw ValidationError("the first connection should upload and the second should not")
                }
                times.append(Statistics.milliseconds(uploadTime))
                writes = fresh.writes - again.writes
            }
        }
        print(String(format: "upload: median %.1f ms over %d fresh glasses, %d serial writes (each file written and acknowledged by the REPL)", Statistics.median(times), uploads, writes))

        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-monocle-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: [
            "SIBYL_HOME": home.path, "SIBYL_ENGINES": layout.root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
            "SIBYL_CHAT_TEMPERATURE": "0", "SIBYL_CHAT_MAX_TOKENS": "40",
        ])
        let speech = try await EspeakSynthesizer().synthesize(question, options: SpeechOptions(format: .wav, speed: 0.8)).data
        var samples: [GlassesTimings] = []
        try await Self.withGlasses(interpreter: interpreter, writeLength: writeLength) { glasses in
            let session = try runtime.glasses.session(
                transport: EmulatorTransport(emulator: glasses, maximumWriteLength: writeLength), kind: .monocle,
                options: GlassesSessionOptions(connection: Self.options(), monocleApp: app)
            )
            let (answers, sink) = AsyncStream<GlassesEvent>.makeStream()
            let serving = Task { await session.run { sink.yield($0) } }
            _ = try await glasses.waitForScreen(timeout: .seconds(60)) { $0.lines.contains { $0.lowercased().contains("tap") } }
            try await glasses.speak(wav: speech)
            var iterator = answers.makeAsyncIterator()
            for round in 0...questions {
                await glasses.tap()
                while let event = await iterator.next() {
                    if case .answered(_, let answer, let timings) = event {
                        if round > 0 { samples.append(timings) }
                        print("  \(round == 0 ? "warm-up" : "question \(round)"): \(answer)")
                        break
                    }
                    if case .failed(_, let detail) = event { throw ValidationError("the question failed: \(detail)") }
                }
                // Back to "Tap to speak" once the answer is shown.
                let mark = await glasses.displayLog.count
                _ = try await glasses.waitForScreen(after: mark, timeout: .seconds(60)) { $0.lines.contains { $0.lowercased().contains("tap") } }
            }
            await session.stop()
            serving.cancel()
        }
        await runtime.shutdown()
        func median(_ pick: (GlassesTimings) -> Duration) -> Double { Statistics.median(samples.map { Statistics.milliseconds(pick($0)) }) }
        print("one spoken question (median of \(samples.count), ms):")
        print(String(format: "  audio transfer %.1f · conversion %.2f · speech-to-text %.1f · LLM %.1f · display %.2f", median(\.audioTransfer), median(\.audioConversion), median(\.speechToText), median(\.languageModel), median(\.display)))
        let total = median(\.total)
        let overhead = median(\.overhead)
        print(String(format: "  from the end of the recording to the answer sent: %.1f; Sibyl's own overhead %.2f (%.2f %%; goal < 100 ms)", total, overhead, overhead / total * 100))
    }

    static func options() -> GlassesConnection.Options {
        var options = GlassesConnection.Options()
        options.reconnect = false
        return options
    }

    static func withGlasses(
        interpreter: MicroPythonInterpreter, writeLength: Int, realTimeMicrophone: Bool = false, continuousMicrophone: Bool = false,
        _ body: (MonocleEmulator) async throws -> Void
    ) async throws {
        let filesystem = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-glasses-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: filesystem) }
        var configuration = EmulatorConfiguration(interpreter: interpreter)
        configuration.maximumWriteLength = writeLength
        configuration.realTimeMicrophone = realTimeMicrophone
        configuration.continuousMicrophone = continuousMicrophone
        let glasses = MonocleEmulator(configuration: configuration, filesystem: filesystem)
        try await glasses.powerOn()
        do {
            try await body(glasses)
        } catch {
            await glasses.powerOff()
            throw error
        }
        await glasses.powerOff()
    }
}
