import Foundation

/// The official frame-msg / frame-ble Python packages (through `SIBYL_FRAME_PYTHON`, the venv
/// `scripts/frame/setup.sh` makes), used as oracles by the Frame suites.
public enum FrameOracle {
    /// The venv's python, when configured.
    public static let python = ProcessInfo.processInfo.environment["SIBYL_FRAME_PYTHON"]
    /// Whether oracle tests run: the python is configured, or `SIBYL_REQUIRE_ENGINES=1` makes its absence a failure.
    public static let available = python != nil || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"

    /// `SIBYL_FRAME_PYTHON` is not set.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "SIBYL_FRAME_PYTHON is not set (scripts/frame/setup.sh prints it)" }
    }

    /// An oracle script failed.
    public struct Failed: Error, CustomStringConvertible {
        public let status: Int32
        public let log: String
        public var description: String { "oracle exited with \(status): \(log)" }
    }

    /// Runs `script` with `sys.argv[1]` = a file holding `input` (JSON) and `sys.argv[2]` = where it
    /// writes its JSON answer, which is decoded as `Output`.
    public static func run<Input: Encodable, Output: Decodable>(_ script: String, input: Input, as _: Output.Type) async throws -> Output {
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
    public static func luaDirectory() async throws -> URL {
        struct Answer: Decodable { let path: String }
        let answer = try await run("""
            import frame_msg, os, json, sys
            json.dump({"path": os.path.join(os.path.dirname(frame_msg.__file__), "lua")}, open(sys.argv[2], "w"))
            """, input: [String](), as: Answer.self)
        return URL(fileURLWithPath: answer.path)
    }
}

extension Data {
    /// Bytes from hex digits, two per byte, as the oracles write them.
    public init(hex: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index < hex.endIndex {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}
