import Foundation
import Testing
import TextEmbedding

/// Writes small safetensors files for the tests.
enum SafeTensorsWriter {
    /// Tensors as (name, dtype, shape, values as floats; I64 tensors get them as integers).
    static func write(
        _ tensors: [(String, String, [Int], [Float])], metadata: [String: String]? = nil,
        headerPadding: Int = 0, to url: URL
    ) throws {
        var data = Data()
        var header: [String: Any] = [:]
        for (name, dtype, shape, values) in tensors {
            let begin = data.count
            for value in values {
                if dtype == "I64" {
                    withUnsafeBytes(of: Int64(value).littleEndian) { data.append(contentsOf: $0) }
                } else {
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
                }
            }
            header[name] = ["dtype": dtype, "shape": shape, "data_offsets": [begin, data.count]]
        }
        if let metadata { header["__metadata__"] = metadata }
        var json = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        json.append(contentsOf: Array(repeating: UInt8(ascii: " "), count: headerPadding))
        try raw(header: json, data: data, to: url)
    }

    /// A file with exactly this header and data.
    static func raw(header: Data, data: Data, declaredHeaderLength: UInt64? = nil, to url: URL) throws {
        var file = Data()
        withUnsafeBytes(of: (declaredHeaderLength ?? UInt64(header.count)).littleEndian) { file.append(contentsOf: $0) }
        file.append(header)
        file.append(data)
        try file.write(to: url)
    }
}

@Suite(.timeLimit(.minutes(10)))
final class SafeTensorsTests {
    let directory: URL
    init() throws { directory = try temporaryDirectory() }
    deinit { try? FileManager.default.removeItem(at: directory) }

    private func file(_ name: String = "t.safetensors") -> URL { directory.appendingPathComponent(name) }

    private func expectError(_ expected: (SafeTensorsError) -> Bool, header: String, data: Data = Data(), declared: UInt64? = nil) throws {
        try SafeTensorsWriter.raw(header: Data(header.utf8), data: data, declaredHeaderLength: declared, to: file())
        #expect {
            _ = try SafeTensorsFile(contentsOf: file())
        } throws: { error in
            guard let error = error as? SafeTensorsError else { return false }
            return expected(error)
        }
    }

    @Test func readsFloatTensorsAndSkipsIntegerOnes() throws {
        try SafeTensorsWriter.write(
            [
                ("ids", "I64", [1, 3], [0, 1, 2]),
                ("weight", "F32", [2, 3], [1, -2, 3.5, 0, 1e-8, -7]),
                ("bias", "F32", [3], [0.25, 0.5, 0.75]),
            ],
            metadata: ["format": "pt"], to: file()
        )
        let tensors = try SafeTensorsFile(contentsOf: file())
        #expect(tensors.tensors.count == 3)
        #expect(tensors.metadata == ["format": "pt"])
        #expect(try tensors.info("weight").shape == [2, 3])
        #expect(try tensors.floatArray("weight") == [1, -2, 3.5, 0, 1e-8, -7])
        #expect(try tensors.floatArray("bias") == [0.25, 0.5, 0.75])
        #expect(try tensors.info("ids").dtype == .int64)
        #expect(throws: SafeTensorsError.unsupportedDType(tensor: "ids", dtype: "I64")) {
            try tensors.floatArray("ids")
        }
        #expect(throws: SafeTensorsError.missingTensor(name: "nope")) {
            try tensors.floatArray("nope")
        }
    }

    @Test func readsTensorsWhoseDataIsNotAligned() throws {
        for padding in 0..<4 {
            try SafeTensorsWriter.write([("w", "F32", [5], [1, 2, 3, 4, 5])], headerPadding: padding, to: file("p\(padding)"))
            #expect(try SafeTensorsFile(contentsOf: file("p\(padding)")).floatArray("w") == [1, 2, 3, 4, 5])
        }
    }

    @Test func missingFile() {
        #expect(throws: SafeTensorsError.fileNotFound(path: file("absent").path)) {
            try SafeTensorsFile(contentsOf: file("absent"))
        }
    }

    @Test func fileShorterThanTheLengthPrefix() throws {
        try Data([1, 2, 3]).write(to: file())
        #expect {
            _ = try SafeTensorsFile(contentsOf: file())
        } throws: { error in
            if case SafeTensorsError.truncated = error { return true }
            return false
        }
    }

    @Test func headerLongerThanTheFile() throws {
        try expectError({ if case .truncated = $0 { return true }; return false }, header: "{}", declared: 4096)
    }

    @Test func absurdHeaderLength() throws {
        try expectError({ if case .invalidHeader = $0 { return true }; return false }, header: "{}", declared: 1 << 40)
    }

    @Test func headerThatIsNotJSON() throws {
        try expectError({ if case .invalidHeader = $0 { return true }; return false }, header: "not json")
        try expectError({ if case .invalidHeader = $0 { return true }; return false }, header: "{\"a\": 1}")
    }

    @Test func unknownDType() throws {
        try expectError(
            { if case .invalidHeader(_, let reason) = $0 { return reason.contains("Q4") }; return false },
            header: #"{"w": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 8]}}"#, data: Data(count: 8)
        )
    }

    @Test func dataBeyondTheEndOfTheFile() throws {
        try expectError(
            { if case .truncated = $0 { return true }; return false },
            header: #"{"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}"#, data: Data(count: 8)
        )
    }

    @Test func shapeThatDisagreesWithTheByteCount() throws {
        try expectError(
            { if case .invalidHeader = $0 { return true }; return false },
            header: #"{"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}"#, data: Data(count: 8)
        )
        try expectError(
            { if case .invalidHeader = $0 { return true }; return false },
            header: #"{"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}"#, data: Data(count: 8)
        )
        try expectError(
            { if case .invalidHeader = $0 { return true }; return false },
            header: #"{"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}"#, data: Data(count: 8)
        )
    }

    @Test func errorsSayWhatToDo() {
        #expect(SafeTensorsError.truncated(path: "/m", reason: "x").description.contains("install the model files again"))
        #expect(MiniLMError.missingFile(path: "/m/vocab.txt").description.contains("SIBYL_MINILM_DIR"))
    }
}
