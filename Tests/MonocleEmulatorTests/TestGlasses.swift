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
    /// Waits looking at what arrives: each is told whenever something does.
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var waiterCount = 0

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
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }

    /// Waits until `condition` holds, looking again whenever something arrives; the limit is a
    /// ceiling against hangs, not a speed bound (a loaded two-core machine can hold the
    /// interpreter back for many seconds).
    func wait(for what: @autoclosure () -> String, timeout: Duration = .seconds(300), until condition: () -> Bool) async throws {
        waiterCount += 1
        let id = waiterCount
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.wake(id)
        }
        defer { timer.cancel() }
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw GlassesError.timeout(waitingFor: what(), after: timeout) }
            await withCheckedContinuation { waiters[id] = $0 }
        }
    }

    private func wake(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    func clear() { serial = [] }

    var serialText: String { String(decoding: serial, as: UTF8.self) }

    /// Waits until the serial output contains `text`.
    func waitForSerial(_ text: String, timeout: Duration = .seconds(300)) async throws -> String {
        try await wait(for: text.debugDescription + " in \(serialText.debugDescription)", timeout: timeout) { serialText.contains(text) }
        return serialText
    }

    /// Waits until `count` data messages have come.
    func waitForData(count: Int, timeout: Duration = .seconds(300)) async throws -> [Data] {
        try await wait(for: "\(count) data messages, after \(data)", timeout: timeout) { data.count >= count }
        return data
    }
}
