public import Foundation
import Synchronization

/// Element types a safetensors header may declare.
public enum SafeTensorDType: String, Sendable, CaseIterable {
    case float64 = "F64", float32 = "F32", float16 = "F16", bfloat16 = "BF16"
    case float8E4M3 = "F8_E4M3", float8E5M2 = "F8_E5M2"
    case int64 = "I64", int32 = "I32", int16 = "I16", int8 = "I8"
    case uint64 = "U64", uint32 = "U32", uint16 = "U16", uint8 = "U8", bool = "BOOL"

    /// Bytes per element.
    public var byteCount: Int {
        switch self {
        case .float64, .int64, .uint64: return 8
        case .float32, .int32, .uint32: return 4
        case .float16, .bfloat16, .int16, .uint16: return 2
        case .float8E4M3, .float8E5M2, .int8, .uint8, .bool: return 1
        }
    }
}

/// One tensor as a safetensors header describes it.
public struct SafeTensorInfo: Sendable, Hashable {
    public var name: String
    public var dtype: SafeTensorDType
    public var shape: [Int]
    /// Byte range within the data section that follows the header.
    public var byteRange: Range<Int>

    /// Number of elements (the product of the shape; 1 for a scalar).
    public var elementCount: Int { shape.reduce(1, *) }
}

/// A safetensors file (8-byte little-endian header length, JSON header, raw little-endian
/// tensor data), memory-mapped and read in place.
public final class SafeTensorsFile: Sendable {
    /// Headers larger than this are rejected, as the format's reference reader does.
    public static let maximumHeaderSize = 100_000_000

    /// The file's path.
    public let path: String
    /// Every tensor, by name.
    public let tensors: [String: SafeTensorInfo]
    /// The free-form `__metadata__` map, empty when absent.
    public let metadata: [String: String]

    private let file: MappedFile
    private let dataStart: Int
    /// Copies of tensors whose data is not aligned for direct access; kept alive with the file.
    private let alignedCopies = Mutex<[FloatBuffer]>([])

    /// Maps the file at `url` and validates its header.
    public init(contentsOf url: URL) throws(SafeTensorsError) {
        #if _endian(big)
        throw .unreadable(path: url.path, reason: "big-endian hosts are not supported")
        #else
        path = url.path
        file = try MappedFile(path: url.path)
        let bytes = file.bytes
        guard bytes.count >= 8 else {
            throw .truncated(path: path, reason: "\(bytes.count) bytes, shorter than the 8-byte header length")
        }
        let headerLength = bytes.loadUnaligned(as: UInt64.self).littleEndian
        guard headerLength <= UInt64(Self.maximumHeaderSize) else {
            throw .invalidHeader(path: path, reason: "header length \(headerLength) exceeds \(Self.maximumHeaderSize) bytes")
        }
        guard Int(headerLength) <= bytes.count - 8 else {
            throw .truncated(path: path, reason: "header of \(headerLength) bytes but only \(bytes.count - 8) follow")
        }
        dataStart = 8 + Int(headerLength)
        let header = try Self.parseHeader(
            UnsafeRawBufferPointer(rebasing: bytes[8..<dataStart]),
            dataSize: bytes.count - dataStart,
            path: url.path
        )
        tensors = header.tensors
        metadata = header.metadata
        #endif
    }

    /// The description of one tensor.
    public func info(_ name: String) throws(SafeTensorsError) -> SafeTensorInfo {
        guard let info = tensors[name] else { throw .missingTensor(name: name) }
        return info
    }

    /// The raw bytes of one tensor, in place in the mapping.
    public func bytes(of name: String) throws(SafeTensorsError) -> UnsafeRawBufferPointer {
        let info = try info(name)
        return UnsafeRawBufferPointer(rebasing: file.bytes[(dataStart + info.byteRange.lowerBound)..<(dataStart + info.byteRange.upperBound)])
    }

    /// The elements of an F32 tensor, copied into an array.
    public func floatArray(_ name: String) throws(SafeTensorsError) -> [Float] {
        Array(try floats(name))
    }

    /// The elements of an F32 tensor, valid as long as this file object lives.
    ///
    /// Read in place when the data is 4-byte aligned in the file (as files written by the reference
    /// implementation are); otherwise copied once into memory owned by this object.
    func floats(_ name: String) throws(SafeTensorsError) -> UnsafeBufferPointer<Float> {
        let info = try info(name)
        guard info.dtype == .float32 else {
            throw .unsupportedDType(tensor: name, dtype: info.dtype.rawValue)
        }
        let raw = try bytes(of: name)
        let count = info.elementCount
        guard count > 0, let base = raw.baseAddress else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        if Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0 {
            return UnsafeBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: count)
        }
        let copy = FloatBuffer(count: count)
        UnsafeMutableRawPointer(copy.pointer).copyMemory(from: base, byteCount: raw.count)
        alignedCopies.withLock { $0.append(copy) }
        return UnsafeBufferPointer(start: copy.pointer, count: count)
    }
}

extension SafeTensorsFile {
    private struct HeaderEntry: Decodable {
        var dtype: String
        var shape: [Int]
        var data_offsets: [Int]
    }

    /// Decodes the header object, whose keys are tensor names plus the optional `__metadata__`.
    private struct Header: Decodable {
        var entries: [String: HeaderEntry] = [:]
        var metadata: [String: String] = [:]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys {
                if key.stringValue == "__metadata__" {
                    metadata = try container.decode([String: String].self, forKey: key)
                } else {
                    entries[key.stringValue] = try container.decode(HeaderEntry.self, forKey: key)
                }
            }
        }
    }

    private static func parseHeader(
        _ json: UnsafeRawBufferPointer, dataSize: Int, path: String
    ) throws(SafeTensorsError) -> (tensors: [String: SafeTensorInfo], metadata: [String: String]) {
        guard json.first == UInt8(ascii: "{") else {
            throw .invalidHeader(path: path, reason: "the header does not start with a JSON object")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(json))
        } catch {
            throw .invalidHeader(path: path, reason: "malformed JSON header (\(Self.summary(of: error)))")
        }
        var tensors: [String: SafeTensorInfo] = [:]
        for (name, entry) in header.entries {
            guard let dtype = SafeTensorDType(rawValue: entry.dtype) else {
                throw .invalidHeader(path: path, reason: "tensor \(name) has unknown dtype \(entry.dtype)")
            }
            guard entry.data_offsets.count == 2 else {
                throw .invalidHeader(path: path, reason: "tensor \(name) needs two data_offsets")
            }
            let begin = entry.data_offsets[0], end = entry.data_offsets[1]
            guard begin >= 0, begin <= end else {
                throw .invalidHeader(path: path, reason: "tensor \(name) has data_offsets [\(begin), \(end)]")
            }
            guard end <= dataSize else {
                throw .truncated(path: path, reason: "tensor \(name) ends at byte \(end) of a \(dataSize)-byte data section")
            }
            var elements = 1
            for dimension in entry.shape {
                let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
                guard dimension >= 0, !overflow else {
                    throw .invalidHeader(path: path, reason: "tensor \(name) has shape \(entry.shape)")
                }
                elements = product
            }
            let (byteCount, overflow) = elements.multipliedReportingOverflow(by: dtype.byteCount)
            guard !overflow, byteCount == end - begin else {
                throw .invalidHeader(
                    path: path,
                    reason: "tensor \(name) of shape \(entry.shape) and dtype \(dtype.rawValue) needs \(elements) × \(dtype.byteCount) bytes but spans \(end - begin)"
                )
            }
            tensors[name] = SafeTensorInfo(name: name, dtype: dtype, shape: entry.shape, byteRange: begin..<end)
        }
        return (tensors, header.metadata)
    }

    private static func summary(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(key.stringValue) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.debugDescription) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return String(describing: error)
        }
    }
}
