import Foundation
import FrameEmulator
import SibylTestSupport
import Testing

/// The test gave up waiting (a ceiling against hangs, not a speed assertion).
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Everything a virtual Frame notified, kept in order; waits look at notifications after a mark,
/// woken by each notification that comes.
final class Link: Sendable {
    private let received = Observed<[Data]>([])
    private let reader: Task<Void, Never>
    let emulator: FrameEmulator

    init(_ emulator: FrameEmulator) {
        self.emulator = emulator
        let stream = emulator.notifications
        let received = self.received
        reader = Task { for await notification in stream { received.update { $0.append(notification) } } }
    }

    deinit { reader.cancel() }

    /// All notifications so far.
    var all: [Data] { received.value }
    /// A mark: the number of notifications so far.
    var mark: Int { received.value.count }

    /// Waits until `condition` holds for the notifications after `mark`, returning them; the
    /// timeout is a ceiling against hangs, not a speed bound.
    @discardableResult
    func wait(after mark: Int, for what: String, timeout: Duration = .seconds(120),
              until condition: ([Data]) -> Bool) async throws -> [Data] {
        do {
            return try await received.wait(for: what, within: timeout) { all in
                let tail = Array(all.dropFirst(mark))
                return condition(tail) ? tail : nil
            }
        } catch is WaitedInVain {
            throw TimedOut(what: "\(what); got \(received.value.dropFirst(mark).map(Self.describe))")
        }
    }

    /// The first print (non-data) notification after `mark`, as text.
    func print(after mark: Int, timeout: Duration = .seconds(120)) async throws -> String {
        let tail = try await wait(after: mark, for: "a print", timeout: timeout) { $0.contains { $0.first != 0x01 } }
        return String(decoding: tail.first { $0.first != 0x01 }!, as: UTF8.self)
    }

    /// Sends a Lua chunk and returns the next print.
    func lua(_ chunk: String) async throws -> String {
        let start = mark
        try await emulator.send(lua: chunk)
        return try await print(after: start)
    }

    /// `print(expression)` on the Frame.
    func evaluate(_ expression: String) async throws -> String { try await lua("print(\(expression))") }

    /// Runs `statement;print(nil)`: nil back means it succeeded, else the error text after ":1: ".
    func error(of statement: String) async throws -> String? {
        let response = try await lua("\(statement);print(nil)")
        if response == "nil" { return nil }
        guard let range = response.range(of: ":1: ") else { return response }
        return String(response[range.upperBound...])
    }

    /// Writes one data packet (0x01 + payload) and waits for the frame-msg ACK (01 00).
    func sendAcknowledged(_ packet: Data) async throws {
        let start = mark
        try await emulator.write(packet)
        try await wait(after: start, for: "the ACK of \(Self.describe(packet))") { $0.contains(Data([0x01, 0x00])) }
    }

    static func describe(_ data: Data) -> String {
        if data.first == 0x01 { return data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ") + (data.count > 8 ? "…(\(data.count))" : "") }
        return String(decoding: data, as: UTF8.self).debugDescription
    }
}

/// A virtual Frame for tests, on a fresh temporary flash.
enum TestFrame {
    /// Powers on a Frame with the given flash files, connects at `mtu`, runs `body`, powers off.
    static func with(
        files: [String: String] = [:],
        mtu: Int? = 247,
        configure: (inout FrameEmulatorConfiguration) -> Void = { _ in },
        _ body: (FrameEmulator, Link) async throws -> Void
    ) async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        var configuration = FrameEmulatorConfiguration()
        configure(&configuration)
        let emulator = try FrameEmulator(configuration: configuration, flash: flash)
        for (name, text) in files { try emulator.writeFile(name, text: text) }
        let link = Link(emulator)
        try await emulator.powerOn()
        try emulator.connect(mtu: mtu)
        do {
            try await body(emulator, link)
            await emulator.powerOff()
        } catch {
            await emulator.powerOff()
            throw error
        }
    }
}

/// The official frame-msg / frame-ble Python packages (through `SIBYL_FRAME_PYTHON`), used as oracles.
enum FrameOracle {
    static let python = ProcessInfo.processInfo.environment["SIBYL_FRAME_PYTHON"]
    /// Whether oracle tests run: the python is configured, or `SIBYL_REQUIRE_ENGINES=1` makes its absence a failure.
    static let available = python != nil || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "SIBYL_FRAME_PYTHON is not set (scripts/frame/setup.sh prints it)" }
    }

    struct Failed: Error, CustomStringConvertible {
        let status: Int32
        let log: String
        var description: String { "oracle exited with \(status): \(log)" }
    }

    /// Runs `script` with `sys.argv[1]` = a file holding `input` (JSON) and `sys.argv[2]` = where it
    /// writes its JSON answer, which is decoded as `Output`.
    static func run<Input: Encodable, Output: Decodable>(_ script: String, input: Input, as _: Output.Type) async throws -> Output {
        guard let python else { throw Missing() }
        let directory = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appending(path: "input.json")
        let outputURL = directory.appending(path: "output.json")
        let logURL = directory.appending(path: "log.txt")
        try JSONEncoder().encode(input).write(to: inputURL)
        try Data().write(to: logURL)
        let log = try FileHandle(forWritingTo: logURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, inputURL.path, outputURL.path]
        process.standardOutput = log
        process.standardError = log
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try? log.close()
        guard status == 0 else {
            throw Failed(status: status, log: (try? String(contentsOf: logURL, encoding: .utf8)) ?? "")
        }
        return try JSONDecoder().decode(Output.self, from: Data(contentsOf: outputURL))
    }

    /// The directory of frame-msg's device-side Lua files in the oracle's site-packages.
    static func luaDirectory() async throws -> URL {
        struct Answer: Decodable { let path: String }
        let answer = try await run("""
            import frame_msg, os, json, sys
            json.dump({"path": os.path.join(os.path.dirname(frame_msg.__file__), "lua")}, open(sys.argv[2], "w"))
            """, input: [String](), as: Answer.self)
        return URL(fileURLWithPath: answer.path)
    }
}

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
