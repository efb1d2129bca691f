import Foundation
import ZIPFoundation

/// A floating-point array read from NumPy's `.npy` format, or from one member of an `.npz` archive.
public struct NumPyArray: Sendable, Hashable {
    /// Dimensions, outermost first.
    public var shape: [Int]
    /// Elements in row-major (C) order, widened or narrowed to `Float`.
    public var values: [Float]

    /// Wraps row-major values.
    public init(shape: [Int], values: [Float]) {
        self.shape = shape
        self.values = values
    }

    /// Problems reading `.npy` / `.npz` data.
    public enum ReadError: Error, Equatable, LocalizedError {
        case notNumPy
        case unsupportedDataType(String)
        case malformedHeader(String)
        case truncated
        case missingArray(key: String, available: [String])

        public var errorDescription: String? {
            switch self {
            case .notNumPy: "Not a NumPy .npy array (bad magic number)."
            case .unsupportedDataType(let descr): "NumPy data type \(descr) is not supported (float16/32/64 only)."
            case .malformedHeader(let header): "Unreadable NumPy header: \(header)"
            case .truncated: "The NumPy array holds fewer bytes than its shape needs."
            case .missingArray(let key, let available):
                "The .npz archive has no array \"\(key)\" (it has: \(available.joined(separator: ", ")))."
            }
        }
    }

    /// Parses a `.npy` file: magic, version, a Python-literal header, then the raw data.
    public init(npy data: Data) throws {
        let bytes = [UInt8](data.prefix(12))
        guard bytes.count >= 10, bytes[0] == 0x93, bytes[1...5].elementsEqual("NUMPY".utf8) else { throw ReadError.notNumPy }
        let major = bytes[6]
        let headerLength: Int
        let headerStart: Int
        if major == 1 {
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
            headerStart = 10
        } else {
            guard bytes.count >= 12 else { throw ReadError.truncated }
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
            headerStart = 12
        }
        guard data.count >= headerStart + headerLength else { throw ReadError.truncated }
        let base = data.startIndex
        let header = String(decoding: data[(base + headerStart)..<(base + headerStart + headerLength)], as: UTF8.self)
        let descr = try Self.field("descr", in: header, opening: "'", closing: "'")
        let fortran = try Self.field("fortran_order", in: header, opening: nil, closing: ",}").trimmingCharacters(in: .whitespaces) == "True"
        let shapeText = try Self.field("shape", in: header, opening: "(", closing: ")")
        let shape = try shapeText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { part in
            guard let value = Int(part) else { throw ReadError.malformedHeader(header) }
            return value
        }
        let count = shape.reduce(1, *)
        let payload = data.dropFirst(headerStart + headerLength)
        let values = try Self.decode(payload, descr: descr, count: count)
        self.init(shape: shape, values: fortran ? Self.rowMajor(fromColumnMajor: values, shape: shape) : values)
    }

    /// Reads one array from an `.npz` archive; `key` is its name without `.npy`.
    public init(npz url: URL, key: String) throws {
        let archive = try Archive(url: url, accessMode: .read)
        guard let entry = archive[key + ".npy"] ?? archive[key] else {
            throw ReadError.missingArray(key: key, available: archive.map { $0.path.replacingOccurrences(of: ".npy", with: "") }.sorted())
        }
        var data = Data()
        _ = try archive.extract(entry) { data.append($0) }
        try self.init(npy: data)
    }

    /// The text of `'key': value` in NumPy's header dictionary.
    private static func field(_ key: String, in header: String, opening: Character?, closing: String) throws -> String {
        guard let keyRange = header.range(of: "'\(key)'") else { throw ReadError.malformedHeader(header) }
        var rest = header[keyRange.upperBound...].drop { $0 == " " || $0 == ":" }
        if let opening {
            guard rest.first == opening else { throw ReadError.malformedHeader(header) }
            rest = rest.dropFirst()
        }
        guard let end = rest.firstIndex(where: { closing.contains($0) }) else { throw ReadError.malformedHeader(header) }
        return String(rest[..<end])
    }

    private static func decode(_ payload: Data, descr: String, count: Int) throws -> [Float] {
        guard let order = descr.first, let width = Int(descr.dropFirst(2)), descr.dropFirst().first == "f" else {
            throw ReadError.unsupportedDataType(descr)
        }
        let bigEndian = order == ">"
        guard [2, 4, 8].contains(width), ["<", ">", "=", "|"].contains(order) else { throw ReadError.unsupportedDataType(descr) }
        guard payload.count >= count * width else { throw ReadError.truncated }
        return payload.withUnsafeBytes { raw in
            (0..<count).map { index -> Float in
                let at = index * width
                switch width {
                case 2:
                    let bits = raw.loadUnaligned(fromByteOffset: at, as: UInt16.self)
                    return HalfFloat.float(fromBits: bigEndian ? UInt16(bigEndian: bits) : UInt16(littleEndian: bits))
                case 4:
                    let bits = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)
                    return Float(bitPattern: bigEndian ? UInt32(bigEndian: bits) : UInt32(littleEndian: bits))
                default:
                    let bits = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                    return Float(Double(bitPattern: bigEndian ? UInt64(bigEndian: bits) : UInt64(littleEndian: bits)))
                }
            }
        }
    }

    private static func rowMajor(fromColumnMajor values: [Float], shape: [Int]) -> [Float] {
        guard shape.count > 1 else { return values }
        var result = [Float](repeating: 0, count: values.count)
        var index = [Int](repeating: 0, count: shape.count)
        for rowMajorOffset in 0..<values.count {
            var columnMajorOffset = 0
            var stride = 1
            for axis in 0..<shape.count {
                columnMajorOffset += index[axis] * stride
                stride *= shape[axis]
            }
            result[rowMajorOffset] = values[columnMajorOffset]
            // Advance the multi-index with the last axis fastest.
            var axis = shape.count - 1
            while axis >= 0 {
                index[axis] += 1
                if index[axis] < shape[axis] { break }
                index[axis] = 0
                axis -= 1
            }
        }
        return result
    }
}
