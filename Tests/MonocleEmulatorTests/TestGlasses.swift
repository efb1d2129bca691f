import Foundation
import Glasses
import LocalEngines
import Monocle
import MonocleEmulator
import Testing

/// A virtual Monocle for tests, on the installed MicroPython interpreter.
///
/// Tests are skipped when the interpreter is missing, unless `SIBYL_REQUIRE_ENGINES=1` (as
/// `scripts/test.sh` sets), which makes its absence a failure.
enum TestGlasses {
    static let layout = EngineLayout()
    static var module: URL { layout.microPythonModule }
    static let available = FileManager.default.fileExists(atPath: layout.microPythonModule.path)
        || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"

    /// Powers on a virtual Monocle with an empty filesystem (or the given files), runs `body`, powers it off.
    static func with<T: Sendable>(
        files: [String: String] = [:],
        configure: (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: (MonocleEmulator) async throws -> T
    ) async throws -> T {
        let filesystem = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-monocle-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: filesystem, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: filesystem) }
        for (name, contents) in files {
            try Data(contents.utf8).write(to: filesystem.appendingPathComponent(name))
        }
        var configuration = EmulatorConfiguration(interpreter: MicroPythonInterpreter(module: module))
        configure(&configuration)
        let emulator = MonocleEmulator(configuration: configuration, filesystem: filesystem)
        try await emulator.powerOn()
        do {
            let result = try await body(emulator)
            await emulator.powerOff()
            return result
        } catch {
            await emulator.powerOff()
            throw error
        }
    }
}

/// Collects what a transport reports, for byte-level tests.
actor TransportRecorder {
    private(set) var serial: [UInt8] = []
    private(set) var data: [Data] = []
    private(set) var events: [GlassesTransportEvent] = []
    private var task: Task<Void, Never>?

    init(_ transport: EmulatorTransport) {
        let stream = transport.events
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncStream<GlassesTransportEvent>) {
        task = Task {
            for await event in stream { self.record(event) }
        }
    }

    private func record(_ event: GlassesTransportEvent) {
        events.append(event)
        switch event {
        case .received(.serial, let bytes): serial.append(contentsOf: bytes)
        case .received(.data, let packet): data.append(packet)
        default: break
        }
    }

    func clear() { serial = [] }

    var serialText: String { String(decoding: serial, as: UTF8.self) }

    /// Waits until the serial output contains `text`; the limit is a ceiling against hangs, not a
    /// speed bound (a loaded two-core machine can hold the interpreter back for many seconds).
    func waitForSerial(_ text: String, timeout: Duration = .seconds(300)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if serialText.contains(text) { return serialText }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw GlassesError.timeout(waitingFor: text.debugDescription + " in \(serialText.debugDescription)", after: timeout)
    }
}
