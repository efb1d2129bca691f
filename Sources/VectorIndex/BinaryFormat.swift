import Foundation

/// Little-endian writing into, and checked reading from, the serialised forms of the indexes:
/// a magic tag, a format version, a fixed header, arrays copied in bulk, and an XXH64 of
/// everything before it as the last eight bytes.
struct BinaryWriter {
    private(set) var data: Data
    private var offset = 0

    init(capacity: Int) {
        data = Data(count: capacity)
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        let little = value.littleEndian
        withUnsafeBytes(of: little) { bytes in write(bytes) }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        let start = offset
        data.withUnsafeMutableBytes { destination in
            destination.baseAddress!.advanced(by: start).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        offset += bytes.count
    }

    /// `count` elements from `pointer`, little-endian (a bulk copy on little-endian hosts).
    mutating func write<T: FixedWidthInteger>(_ pointer: UnsafePointer<T>, count: Int) {
        #if _endian(little)
        write(UnsafeRawBufferPointer(start: pointer, count: count * MemoryLayout<T>.size))
        #else
        for index in 0..<count { write(pointer[index]) }
        #endif
    }

    /// Floats as their IEEE-754 bit patterns.
    mutating func write(_ pointer: UnsafePointer<Float>, count: Int) {
        pointer.withMemoryRebound(to: UInt32.self, capacity: count) { write($0, count: count) }
    }

    /// Appends the checksum of everything written so far; the data is then complete.
    mutating func finish() -> Data {
        let checksum = data.withUnsafeBytes { Checksum.xxh64(UnsafeRawBufferPointer(rebasing: $0[0..<offset])) }
        write(checksum)
        precondition(offset == data.count, "serialised size computed wrongly")
        return data
    }
}

struct BinaryReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    /// Checks the magic tag, the version and the checksum, and positions after the version.
    init(_ bytes: UnsafeRawBufferPointer, magic: [UInt8], version: UInt32, kind: String) throws(VectorIndexError) {
        self.bytes = bytes
        guard bytes.count >= magic.count + 4, Array(bytes[0..<magic.count]) == magic else {
            throw .notAnIndex(expected: kind)
        }
        offset = magic.count
        let found = try read(UInt32.self)
        guard found == version else { throw .unsupportedVersion(found: found, supported: version) }
        guard bytes.count >= offset + 8 else { throw .truncated(expectedBytes: offset + 8, actualBytes: bytes.count) }
        let end = bytes.count - 8
        let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt64.self))
        let computed = Checksum.xxh64(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
    }

    /// Throws unless `count` more bytes (and the checksum) remain.
    func require(_ count: Int) throws(VectorIndexError) {
        let needed = offset + count + 8
        guard count >= 0, needed <= bytes.count else { throw .truncated(expectedBytes: needed, actualBytes: bytes.count) }
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(VectorIndexError) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw .truncated(expectedBytes: offset + size, actualBytes: bytes.count) }
        let value = T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += size
        return value
    }

    /// `count` elements into `destination`.
    mutating func read<T: FixedWidthInteger>(into destination: UnsafeMutablePointer<T>, count: Int) throws(VectorIndexError) {
        let size = count * MemoryLayout<T>.size
        try require(size)
        #if _endian(little)
        UnsafeMutableRawPointer(destination).copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: size)
        offset += size
        #else
        for index in 0..<count { destination[index] = try read(T.self) }
        #endif
    }

    mutating func read(into destination: UnsafeMutablePointer<Float>, count: Int) throws(VectorIndexError) {
        try destination.withMemoryRebound(to: UInt32.self, capacity: count) { (words) throws(VectorIndexError) in
            try read(into: words, count: count)
        }
    }

    /// Throws unless everything but the checksum has been read.
    func requireEnd() throws(VectorIndexError) {
        guard offset == bytes.count - 8 else {
            throw .corrupt("\(bytes.count - 8 - offset) unexpected bytes after the index")
        }
    }
}

extension Data {
    /// `withUnsafeBytes` for a body that throws `VectorIndexError` (the standard one rethrows
    /// untyped).
    func withBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(VectorIndexError) -> Result
    ) throws(VectorIndexError) -> Result {
        let outcome: Swift.Result<Result, VectorIndexError> = withUnsafeBytes { bytes in
            Swift.Result { () throws(VectorIndexError) in try body(bytes) }
        }
        return try outcome.get()
    }
}
