import Foundation
import FrameOracle
import Testing

/// The bytes Brilliant Labs' Python host libraries (frame-msg 5.2.1, frame-ble 1.1.1) produce for
/// the inputs of `scripts/frame/vectors.py`, made fresh by running that script with the pinned
/// venv's python (`SIBYL_FRAME_PYTHON`, from `scripts/frame/setup.sh`).
struct OracleVectors: Decodable {
    struct Packed: Decodable {
        let fields: [String: Field]
        let packed: String
    }
    enum Field: Decodable {
        case int(Int), double(Double), bool(Bool), string(String)
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Int.self) { self = .int(value) }
            else if let value = try? container.decode(Double.self) { self = .double(value) }
            else { self = .string(try container.decode(String.self)) }
        }
        var int: Int { if case .int(let value) = self { value } else { -1 } }
        var double: Double { switch self { case .double(let value): value; case .int(let value): Double(value); default: .nan } }
        var bool: Bool { if case .bool(let value) = self { value } else { false } }
        var string: String { if case .string(let value) = self { value } else { "" } }
    }
    struct Message: Decodable {
        let mtu: Int
        let code: Int
        let size: Int
        let writes: [String]
    }
    struct WAV: Decodable {
        let bits: Int
        let rate: Int
        let pcm: String
        let wav: String
    }
    struct Stream: Decodable {
        let notifications: [String]
        let assembled: String
    }

    let plain_text: [Packed]
    let capture: [Packed]
    let auto_exposure: [Packed]
    let manual_exposure: [Packed]
    let sprite_coords: [Packed]
    let code: [Packed]
    let sprite: [Packed]
    let wav: [WAV]
    let messages: [Message]
    let streams: [String: Stream]

    static func load() async throws -> OracleVectors {
        let python = try #require(FrameOracle.python, "SIBYL_FRAME_PYTHON is not set: run scripts/frame/setup.sh and export the python it prints")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/frame/vectors.py").standardized
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-frame-vectors-\(UUID().uuidString).json")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path]
        process.standardOutput = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try handle.close()
        #expect(status == 0, "scripts/frame/vectors.py failed")
        return try JSONDecoder().decode(OracleVectors.self, from: Data(contentsOf: output))
    }
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
