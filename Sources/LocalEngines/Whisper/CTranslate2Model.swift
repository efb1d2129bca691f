import Foundation

/// The variables of a CTranslate2 `model.bin`, indexed without loading their data.
public struct CTranslate2Model: Sendable {
    /// Element types CTranslate2 stores.
    public enum DataType: UInt8, Sendable {
        case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5

        /// Bytes per element.
        public var width: Int {
            switch self {
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            case .float32, .int32: 4
            }
        }
    }

    /// One named array in the file.
    public struct Variable: Sendable, Hashable {
        /// Its path, such as `encoder/conv1/weight`.
        public var name: String
        /// Dimensions, outermost first (empty for a scalar).
        public var shape: [Int]
        /// How each element is stored.
        public var dataType: DataType
        /// Where its data starts in the file.
        public var offset: UInt64
        public var byteCount: Int

        /// Elements in the array (1 for a scalar).
        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// Problems reading a CTranslate2 model.
    public enum ReadError: Error, Equatable, LocalizedError {
        case truncated(URL)
        case unsupportedVersion(Int)
        case unsupportedDataType(variable: String, code: UInt8)
        case inconsistentSize(variable: String)
        case missingVariable(String)
        case notFloatingPoint(String)

        public var errorDescription: String? {
            switch self {
            case .truncated(let url):
                "\(url.lastPathComponent) ends early: the CTranslate2 model is incomplete (download it again)."
            case .unsupportedVersion(let version):
                "CTranslate2 model format version \(version) is not supported (expected 4 to 6)."
            case .unsupportedDataType(let name, let code):
                "Variable \(name) has an unknown CTranslate2 data type \(code)."
            case .inconsistentSize(let name):
                "Variable \(name) has a byte count that does not match its shape: the model file is damaged."
            case .missingVariable(let name):
                "The CTranslate2 model has no variable \(name)."
            case .notFloatingPoint(let name):
                "Variable \(name) is quantised to integers; convert a float16 or float32 CTranslate2 model instead."
            }
        }
    }

    /// The file the index describes.
    public let url: URL
    /// The binary format version (Whisper models are 5 or later).
    public let binaryVersion: Int
    /// The model specification, such as `WhisperSpec`.
    public let specName: String
    /// The revision of that specification.
    public let specRevision: Int
    /// Variables in file order.
    public let variables: [Variable]
    /// Alternative names and the variables they stand for.
    public let aliases: [String: String]
    private let byName: [String: Variable]

    /// Indexes the model, reading only the headers.
    public init(contentsOf url: URL) throws {
        let reader = try BinaryFileReader(url: url)
        defer { reader.close() }
        self.url = url
        binaryVersion = Int(try reader.u32())
        // Version 4 introduced the data-type byte this reader relies on; Whisper support came later.
        guard (4...6).contains(binaryVersion) else { throw ReadError.unsupportedVersion(binaryVersion) }
        specName = try reader.string()
        specRevision = Int(try reader.u32())
        let count = Int(try reader.u32())
        var variables: [Variable] = []
        variables.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.string()
            let rank = Int(try reader.u8())
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try reader.u32())) }
            let code = try reader.u8()
            guard let type = DataType(rawValue: code) else { throw ReadError.unsupportedDataType(variable: name, code: code) }
            let byteCount = Int(try reader.u32())
            let variable = Variable(name: name, shape: shape, dataType: type, offset: reader.offset, byteCount: byteCount)
            guard variable.elementCount * type.width == byteCount else { throw ReadError.inconsistentSize(variable: name) }
            try reader.skip(byteCount)
            variables.append(variable)
        }
        var aliases: [String: String] = [:]
        if !reader.atEnd {
            let aliasCount = Int(try reader.u32())
            for _ in 0..<aliasCount {
                let alias = try reader.string()
                aliases[alias] = try reader.string()
            }
        }
        self.variables = variables
        self.aliases = aliases
        byName = Dictionary(variables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The variable with this name or alias.
    public func variable(_ name: String) -> Variable? {
        byName[name] ?? aliases[name].flatMap { byName[$0] }
    }

    /// The variable with this name or alias, or an error naming it.
    public func require(_ name: String) throws -> Variable {
        guard let variable = variable(name) else { throw ReadError.missingVariable(name) }
        return variable
    }

    /// Raw little-endian bytes of elements `range` (in row-major order) of a variable.
    public func bytes(of variable: Variable, elements range: Range<Int>? = nil) throws -> Data {
        let range = range ?? 0..<variable.elementCount
        precondition(range.lowerBound >= 0 && range.upperBound <= variable.elementCount, "element range outside \(variable.name)")
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: variable.offset + UInt64(range.lowerBound * variable.dataType.width))
        let length = range.count * variable.dataType.width
        let data = try handle.read(upToCount: length) ?? Data()
        guard data.count == length else { throw ReadError.truncated(url) }
        return data
    }

    /// Elements of a floating-point variable widened to `Float`.
    public func floats(_ variable: Variable, elements range: Range<Int>? = nil) throws -> [Float] {
        let data = try bytes(of: variable, elements: range)
        switch variable.dataType {
        case .float32: return LittleEndianData.floats(data)
        case .float16: return LittleEndianData.uint16s(data).map(HalfFloat.float(fromBits:))
        case .bfloat16: return LittleEndianData.uint16s(data).map(HalfFloat.float(fromBFloat16Bits:))
        case .int8, .int16, .int32: throw ReadError.notFloatingPoint(variable.name)
        }
    }

    /// The value of an integer scalar (such as `encoder/num_heads`), or nil when absent or not an integer.
    public func integer(_ name: String) throws -> Int? {
        guard let variable = variable(name), variable.elementCount == 1 else { return nil }
        let data = try bytes(of: variable)
        switch variable.dataType {
        case .int8: return Int(Int8(bitPattern: data[data.startIndex]))
        case .int16: return Int(Int16(bitPattern: UInt16(data[data.startIndex]) | UInt16(data[data.startIndex + 1]) << 8))
        case .int32: return Int(Int32(littleEndian: data.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        case .float32, .float16, .bfloat16: return nil
        }
    }
}

/// Sequential little-endian reads from a file, for headers interleaved with large skipped blobs.
private final class BinaryFileReader {
    private let handle: FileHandle
    private let url: URL
    private let size: UInt64
    private(set) var offset: UInt64 = 0

    init(url: URL) throws {
        self.url = url
        handle = try FileHandle(forReadingFrom: url)
        size = try handle.seekToEnd()
        try handle.seek(toOffset: 0)
    }

    var atEnd: Bool { offset >= size }

    func close() { try? handle.close() }

    func read(_ count: Int) throws -> Data {
        guard offset + UInt64(count) <= size else { throw CTranslate2Model.ReadError.truncated(url) }
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else { throw CTranslate2Model.ReadError.truncated(url) }
        offset += UInt64(count)
        return data
    }

    func skip(_ count: Int) throws {
        guard offset + UInt64(count) <= size else { throw CTranslate2Model.ReadError.truncated(url) }
        offset += UInt64(count)
        try handle.seek(toOffset: offset)
    }

    func u8() throws -> UInt8 { try read(1)[0] }

    func u32() throws -> UInt32 {
        let bytes = try read(4)
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    /// A u16 length, then that many bytes holding a NUL-terminated UTF-8 string.
    func string() throws -> String {
        let lengthBytes = try read(2)
        let length = Int(lengthBytes[0]) | Int(lengthBytes[1]) << 8
        let bytes = try read(length)
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
