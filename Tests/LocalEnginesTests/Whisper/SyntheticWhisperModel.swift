import Foundation
import ZIPFoundation
@testable import LocalEngines

/// Writes CTranslate2 `model.bin` files byte by byte, as CTranslate2's Python converter lays them out.
struct CTranslate2Writer {
    struct Variable {
        var name: String
        var shape: [Int]
        var type: UInt8
        var data: Data
    }

    var version: UInt32 = 6
    var spec = "WhisperSpec"
    var variables: [Variable] = []
    var aliases: [(String, String)] = []

    mutating func add(_ name: String, shape: [Int], float16 values: [Float]) {
        variables.append(Variable(name: name, shape: shape, type: 4, data: LittleEndianData.bytes(of: values.map(HalfFloat.bits(from:)))))
    }

    mutating func add(_ name: String, shape: [Int], float32 values: [Float]) {
        variables.append(Variable(name: name, shape: shape, type: 0, data: LittleEndianData.bytes(of: values)))
    }

    mutating func add(_ name: String, shape: [Int], bfloat16 values: [Float]) {
        variables.append(Variable(name: name, shape: shape, type: 5, data: LittleEndianData.bytes(of: values.map { UInt16($0.bitPattern >> 16) })))
    }

    mutating func add(_ name: String, int16 value: Int16) {
        variables.append(Variable(name: name, shape: [], type: 2, data: withUnsafeBytes(of: value.littleEndian) { Data($0) }))
    }

    mutating func add(_ name: String, int8 value: Int8) {
        variables.append(Variable(name: name, shape: [], type: 1, data: Data([UInt8(bitPattern: value)])))
    }

    func encoded() -> Data {
        var data = Data()
        func u8(_ value: UInt8) { data.append(value) }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func string(_ text: String) {
            u16(text.utf8.count + 1)
            data.append(contentsOf: Array(text.utf8))
            u8(0)
        }
        u32(Int(version))
        string(spec)
        u32(3)
        u32(variables.count)
        for variable in variables {
            string(variable.name)
            u8(UInt8(variable.shape.count))
            for dimension in variable.shape { u32(dimension) }
            u8(variable.type)
            u32(variable.data.count)
            data.append(variable.data)
        }
        u32(aliases.count)
        for (alias, target) in aliases {
            string(alias)
            string(target)
        }
        return data
    }
}

/// A tiny but complete Whisper model (2 encoder layers, 1 decoder layer, width 4) and its assets.
struct SyntheticWhisperModel {
    static let state = 4
    static let heads = 2
    static let vocabulary = 6
    static let audioContext = 3
    static let textContext = 2
    static let mels = 2
    static let melColumns = 5
    static let ffn = 8

    /// The values each source variable holds, by CTranslate2 name.
    var values: [String: [Float]] = [:]
    var writer = CTranslate2Writer()

    /// Float32 sources whose values are not representable in float16, to exercise rounding.
    static let float32Sources: Set<String> = ["decoder/layer_0/ffn/linear_0/weight", "encoder/layer_1/ffn/layer_norm/gamma"]
    static let bfloat16Sources: Set<String> = ["decoder/layer_0/attention/linear_2/weight"]

    init(keyBias: Float = 0) {
        var counter = 0
        func add(_ name: String, _ shape: [Int], zeroRows: Range<Int>? = nil) {
            counter += 1
            let count = shape.reduce(1, *)
            let rowSize = shape.dropFirst().reduce(1, *)
            var data: [Float]
            if Self.float32Sources.contains(name) {
                data = (0..<count).map { Float(counter) * 0.1 + Float($0) * 0.013 }
            } else {
                // Multiples of 1/16 below 8 are exact in float16 and bfloat16.
                data = (0..<count).map { Float((counter * 7 + $0) % 97) / 16 - 3 }
            }
            if let zeroRows {
                for index in (zeroRows.lowerBound * rowSize)..<(zeroRows.upperBound * rowSize) { data[index] = keyBias }
            }
            values[name] = data
            if Self.float32Sources.contains(name) {
                writer.add(name, shape: shape, float32: data)
            } else if Self.bfloat16Sources.contains(name) {
                writer.add(name, shape: shape, bfloat16: data)
            } else {
                writer.add(name, shape: shape, float16: data)
            }
        }
        let n = Self.state
        func layerNorm(_ prefix: String) {
            add("\(prefix)/gamma", [n])
            add("\(prefix)/beta", [n])
        }
        func linear(_ prefix: String, _ rows: Int, _ columns: Int, zeroBiasRows: Range<Int>? = nil) {
            add("\(prefix)/weight", [rows, columns])
            add("\(prefix)/bias", [rows], zeroRows: zeroBiasRows)
        }
        func feedForward(_ prefix: String) {
            layerNorm("\(prefix)/ffn/layer_norm")
            linear("\(prefix)/ffn/linear_0", Self.ffn, n)
            linear("\(prefix)/ffn/linear_1", n, Self.ffn)
        }
        func selfAttention(_ prefix: String) {
            layerNorm("\(prefix)/self_attention/layer_norm")
            linear("\(prefix)/self_attention/linear_0", 3 * n, n, zeroBiasRows: n..<(2 * n))
            linear("\(prefix)/self_attention/linear_1", n, n)
        }
        // CTranslate2 writes variables sorted by name; the converter must not depend on that order.
        writer.add("decoder/activation", int8: 3)
        add("decoder/embeddings/weight", [Self.vocabulary, n])
        for layer in 0..<1 {
            let prefix = "decoder/layer_\(layer)"
            layerNorm("\(prefix)/attention/layer_norm")
            linear("\(prefix)/attention/linear_0", n, n)
            linear("\(prefix)/attention/linear_1", 2 * n, n, zeroBiasRows: 0..<n)
            linear("\(prefix)/attention/linear_2", n, n)
            feedForward(prefix)
            selfAttention(prefix)
        }
        layerNorm("decoder/layer_norm")
        writer.add("decoder/num_heads", int16: Int16(Self.heads))
        add("decoder/position_encodings/encodings", [Self.textContext, n])
        add("encoder/conv1/bias", [n])
        add("encoder/conv1/weight", [n, Self.mels, 3])
        add("encoder/conv2/bias", [n])
        add("encoder/conv2/weight", [n, n, 3])
        for layer in 0..<2 {
            let prefix = "encoder/layer_\(layer)"
            feedForward(prefix)
            selfAttention(prefix)
        }
        layerNorm("encoder/layer_norm")
        writer.add("encoder/num_heads", int16: Int16(Self.heads))
        add("encoder/position_encodings/encodings", [Self.audioContext, n])
        writer.aliases = [("decoder/projection/weight", "decoder/embeddings/weight")]
    }

    /// The mel filter values written to the `.npz`.
    static let melFilters: [Float] = (0..<(mels * melColumns)).map { Float($0) * 0.125 }

    /// Token byte strings of the tiktoken file, including Whisper's empty token written as "=".
    static let tokens: [Data] = [Data("!".utf8), Data(" the".utf8), Data([0xE2, 0x96]), Data()]

    /// Writes `model.bin`, `mel_filters.npz` and `tokens.tiktoken` into `directory`.
    func write(to directory: URL) throws -> (model: URL, mel: URL, tokenizer: URL) {
        let model = directory.appendingPathComponent("model.bin")
        try writer.encoded().write(to: model)
        let mel = directory.appendingPathComponent("mel_filters.npz")
        try NumPyFixtures.npz(at: mel, arrays: [
            "mel_\(Self.mels)": NumPyFixtures.npy(Self.melFilters, shape: [Self.mels, Self.melColumns]),
            "mel_128": NumPyFixtures.npy([0], shape: [1, 1]),
        ])
        let tokenizer = directory.appendingPathComponent("tokens.tiktoken")
        let lines = Self.tokens.enumerated().map { index, bytes in
            "\(bytes.isEmpty ? "=" : bytes.base64EncodedString()) \(index)"
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: tokenizer)
        return (model, mel, tokenizer)
    }
}

/// `.npy` and `.npz` files written the way NumPy writes them.
enum NumPyFixtures {
    static func npy(_ values: [Float], shape: [Int], descr: String = "<f4", fortranOrder: Bool = false, version: UInt8 = 1) -> Data {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(\(shape.map(String.init).joined(separator: ", ")))"
        var header = "{'descr': '\(descr)', 'fortran_order': \(fortranOrder ? "True" : "False"), 'shape': \(shapeText), }"
        let prefix = version == 1 ? 10 : 12
        // NumPy pads the header with spaces so the data starts on a 64-byte boundary, then ends it with a newline.
        while (prefix + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [version, 0])
        if version == 1 {
            withUnsafeBytes(of: UInt16(header.utf8.count).littleEndian) { data.append(contentsOf: $0) }
        } else {
            withUnsafeBytes(of: UInt32(header.utf8.count).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array(header.utf8))
        let width = Int(descr.dropFirst(2)) ?? 4
        let bigEndian = descr.hasPrefix(">")
        for value in values {
            switch width {
            case 2:
                let bits = HalfFloat.bits(from: value)
                withUnsafeBytes(of: bigEndian ? bits.bigEndian : bits.littleEndian) { data.append(contentsOf: $0) }
            case 8:
                let bits = Double(value).bitPattern
                withUnsafeBytes(of: bigEndian ? bits.bigEndian : bits.littleEndian) { data.append(contentsOf: $0) }
            default:
                let bits = value.bitPattern
                withUnsafeBytes(of: bigEndian ? bits.bigEndian : bits.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return data
    }

    static func npz(at url: URL, arrays: [String: Data], compressed: Bool = true) throws {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for (key, data) in arrays.sorted(by: { $0.key < $1.key }) {
            try archive.addEntry(
                with: key + ".npy", type: .file, uncompressedSize: Int64(data.count),
                compressionMethod: compressed ? .deflate : .none
            ) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
    }
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
