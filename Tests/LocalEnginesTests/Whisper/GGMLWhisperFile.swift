import Foundation

/// An independent reader of whisper.cpp's ggml model files, following whisper.cpp's loader.
struct GGMLWhisperFile {
    struct Tensor {
        var name: String
        /// ggml order: innermost dimension first.
        var dims: [Int]
        /// 0 float32, 1 float16.
        var type: Int32
        var data: Data

        var float32Values: [Float] {
            data.withUnsafeBytes { raw in (0..<(raw.count / 4)).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)) } }
        }

        var float16Bits: [UInt16] {
            data.withUnsafeBytes { raw in (0..<(raw.count / 2)).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self) } }
        }
    }

    enum ReadError: Error { case truncated(at: Int), badMagic(Int32) }

    var magic: Int32
    var hyperParameters: [Int32]
    var melRows: Int
    var melColumns: Int
    var mel: [Float]
    var tokens: [Data]
    var tensors: [Tensor]

    subscript(name: String) -> Tensor? { tensors.first { $0.name == name } }

    init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url, options: .alwaysMapped))
    }

    init(data: Data) throws {
        var offset = data.startIndex
        func take(_ count: Int) throws -> Data {
            guard offset + count <= data.endIndex else { throw ReadError.truncated(at: offset) }
            defer { offset += count }
            return data[offset..<(offset + count)]
        }
        func int32() throws -> Int32 {
            try take(4).withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(as: Int32.self)) }
        }
        magic = try int32()
        guard magic == 0x6767_6D6C else { throw ReadError.badMagic(magic) }
        hyperParameters = try (0..<11).map { _ in try int32() }
        let rows = Int(try int32())
        let columns = Int(try int32())
        melRows = rows
        melColumns = columns
        mel = try take(4 * rows * columns).withUnsafeBytes { raw in
            (0..<(rows * columns)).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)) }
        }
        let tokenCount = Int(try int32())
        tokens = try (0..<tokenCount).map { _ in Data(try take(Int(try int32()))) }
        tensors = []
        while offset < data.endIndex {
            let dimensionCount = Int(try int32())
            let nameLength = Int(try int32())
            let type = try int32()
            let dims = try (0..<dimensionCount).map { _ in Int(try int32()) }
            let name = String(decoding: try take(nameLength), as: UTF8.self)
            let bytes = dims.reduce(1, *) * (type == 0 ? 4 : 2)
            tensors.append(Tensor(name: name, dims: dims, type: type, data: try take(bytes)))
        }
    }
}
