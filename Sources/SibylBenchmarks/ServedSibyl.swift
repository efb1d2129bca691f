import Foundation
import TestFixtures

/// A `sibyl serve` process for benchmarks: the release binary beside this one, on its own data
/// directory, on a free port; its peak memory is read from /proc.
final class ServedSibyl {
    let process = Process()
    let home: URL
    let log: URL
    private(set) var port = 0

    init(environment extra: [String: String]) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-serve-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        log = home.appendingPathComponent("serve.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw BenchmarkFailure(message: "cannot create \(log.path)")
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sibyl")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw BenchmarkFailure(message: "\(binary.path) is missing: swift build -c release --product sibyl")
        }
        process.executableURL = binary
        process.arguments = ["serve", "--port", "0"]
        var environment = ProcessInfo.processInfo.environment
        environment["SIBYL_HOME"] = home.path
        environment.merge(extra) { $1 }
        process.environment = environment
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(300)
        while port == 0, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("is listening on") }),
               let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
               let number = Int(address.split(separator: ":").last ?? "") {
                port = number
            } else {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        guard port != 0 else { throw BenchmarkFailure(message: "sibyl serve did not start; log: \(log.path)") }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Waits until `/readyz` says Sibyl can answer (the local chat engine loaded, where there is one).
    func waitUntilReady(limit: Duration = .seconds(300)) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if (try? await requestJSON(baseURL + "/readyz", method: .GET)) != nil { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchmarkFailure(message: "sibyl serve was not ready within \(limit); log: \(log.path)")
    }

    /// The process's peak resident memory in MB (VmHWM).
    var peakMemoryMB: Double {
        Double(ProcessTable.kilobytes("VmHWM", of: process.processIdentifier) ?? 0) / 1024
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: home)
    }
}
