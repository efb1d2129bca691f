import Foundation
import Glasses
import LocalEngines
import Monocle
import MonocleEmulator
import SibylTestSupport
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

/// Collects what a transport reports, for byte-level tests; waits are woken by each report.
actor TransportRecorder {
    struct Record: Sendable {
        var serial: [UInt8] = []
        var data: [Data] = []
        var events: [GlassesTransportEvent] = []
        var serialText: String { String(decoding: serial, as: UTF8.self) }
    }

    private nonisolated let record = Observed(Record())

    init(_ transport: EmulatorTransport) {
        let stream = transport.events
        let record = self.record
        Task {
            for await event in stream {
                record.update { record in
                    record.events.append(event)
                    switch event {
                    case .received(.serial, let bytes): record.serial.append(contentsOf: bytes)
                    case .received(.data, let packet): record.data.append(packet)
                    default: break
                    }
                }
            }
        }
    }

    var serial: [UInt8] { record.value.serial }
    var data: [Data] { record.value.data }
    var events: [GlassesTransportEvent] { record.value.events }

    func clear() { record.update { $0.serial = [] } }

    var serialText: String { record.value.serialText }

    /// Waits until the serial output contains `text`; the limit is a ceiling against hangs, not a
    /// speed bound (a loaded two-core machine can hold the interpreter back for many seconds).
    func waitForSerial(_ text: String, timeout: Duration = .seconds(300)) async throws -> String {
        do {
            return try await record.wait(for: text.debugDescription, within: timeout) { $0.serialText.contains(text) }.serialText
        } catch is WaitedInVain {
            throw GlassesError.timeout(waitingFor: text.debugDescription + " in \(serialText.debugDescription)", after: timeout)
        }
    }

    /// Waits until `count` data messages have come.
    func waitForData(count: Int, timeout: Duration = .seconds(300)) async throws -> [Data] {
        do {
            return try await record.wait(for: "\(count) data messages", within: timeout) { $0.data.count >= count }.data
        } catch is WaitedInVain {
            throw GlassesError.timeout(waitingFor: "\(count) data messages, after \(data)", after: timeout)
        }
    }
}
