import Foundation

/// Reading and writing arrays of little-endian numbers without alignment assumptions.
enum LittleEndianData {
    /// The bytes as consecutive `UInt16` values.
    static func uint16s(_ data: Data) -> [UInt16] {
        data.withUnsafeBytes { raw in
            (0..<(raw.count / 2)).map { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
        }
    }

    /// The bytes as consecutive 32-bit floats.
    static func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }

    /// Floats as little-endian bytes.
    static func bytes(of floats: [Float]) -> Data {
        var data = Data(count: floats.count * 4)
        data.withUnsafeMutableBytes { raw in
            for (index, value) in floats.enumerated() {
                raw.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: 4 * index, as: UInt32.self)
            }
        }
        return data
    }

    /// 16-bit values as little-endian bytes.
    static func bytes(of values: [UInt16]) -> Data {
        var data = Data(count: values.count * 2)
        data.withUnsafeMutableBytes { raw in
            for (index, value) in values.enumerated() {
                raw.storeBytes(of: value.littleEndian, toByteOffset: 2 * index, as: UInt16.self)
            }
        }
        return data
    }

    /// Appends an `Int32`.
    static func append(_ value: Int32, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
