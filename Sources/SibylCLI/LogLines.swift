import Dispatch
import Foundation
import Logging
import Synchronization

/// Writes log lines to a file descriptor from a thread of its own.
///
/// A server logs a line per request. Writing each line with its own system call, under a lock,
/// from the threads that answer requests costs a busy server a good part of its throughput; here
/// a caller only appends its line to a buffer. The first line after a quiet spell is written at
/// once; while lines keep coming, the writer gathers them for a few milliseconds between writes,
/// so a busy server pays one system call per batch and wakes no one per line.
final class LogLineWriter: Sendable {
    private struct Queue {
        var bytes: [UInt8] = []
        /// The writer waits for a signal (rather than gathering): the next line must wake it.
        var idle = false
        var writing = false
    }

    private let descriptor: Int32
    private let gathering: Duration
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    init(descriptor: Int32, gathering: Duration = .milliseconds(5)) {
        self.descriptor = descriptor
        self.gathering = gathering
        let thread = Thread { [self] in run() }
        thread.name = "sibyl-log"
        thread.start()
    }

    /// Queues one line (the newline is added).
    func write(_ line: String) {
        let wakeWriter = queue.withLock { queue in
            queue.bytes.append(contentsOf: line.utf8)
            queue.bytes.append(UInt8(ascii: "\n"))
            defer { queue.idle = false }
            return queue.idle
        }
        if wakeWriter { wake.signal() }
    }

    /// Waits until every queued line is written (at most `limit`).
    func flush(limit: Duration = .seconds(2)) {
        let deadline = ContinuousClock.now + limit
        while queue.withLock({ !$0.bytes.isEmpty || $0.writing }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    private func run() {
        let pause = Double(gathering.components.attoseconds) / 1e18 + Double(gathering.components.seconds)
        while true {
            let batch = queue.withLock { queue -> [UInt8] in
                let batch = queue.bytes
                queue.bytes.removeAll(keepingCapacity: true)
                queue.writing = !batch.isEmpty
                queue.idle = batch.isEmpty
                return batch
            }
            if batch.isEmpty {
                wake.wait()
                continue
            }
            batch.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { break }
                    offset += written
                }
            }
            queue.withLock { $0.writing = false }
            Thread.sleep(forTimeInterval: pause)
        }
    }
}

/// Log lines as swift-log's stream handler writes them (`TIME LEVEL LABEL: KEY=VALUE [SOURCE] MESSAGE`),
/// handed to a `LogLineWriter`.
struct LineLogHandler: LogHandler {
    let label: String
    let writer: LogLineWriter
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = Self.timestamp()
        line += " \(event.level) \(label):"
        var all = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        if let error = event.error { all["error.message"] = "\(error)" }
        for key in all.keys.sorted() {
            line += " \(key)=\(all[key]!)"
        }
        line += " [\(event.source)] \(event.message)"
        writer.write(line)
    }

    /// The local time to the second, as `2026-11-24T15:50:07+0000`; made once a second.
    private static let clock = Mutex<(second: Int, text: String)>((-1, ""))

    private static func timestamp() -> String {
        var now = time(nil)
        return clock.withLock { cached in
            if cached.second == now { return cached.text }
            var parts = tm()
            localtime_r(&now, &parts)
            var buffer = [Int8](repeating: 0, count: 32)
            let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
            cached = (now, String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return cached.text
        }
    }
}
