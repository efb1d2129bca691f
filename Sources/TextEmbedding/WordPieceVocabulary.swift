public import Foundation

/// A WordPiece vocabulary: one token per line, the id being the line number.
///
/// Lookups take raw UTF-8 bytes and compare them byte for byte (never by Unicode canonical
/// equivalence, as `String` equality would), which is how the reference tokenizer matches them.
/// Continuation pieces (`##x`) live in their own table keyed without the prefix, so the greedy
/// matcher never has to build a prefixed string.
public struct WordPieceVocabulary: Sendable {
    /// The tokens, indexed by id.
    public let tokens: [String]
    /// Where the tokens came from (a path), for error messages.
    public let source: String
    private let words: ByteKeyedTable
    private let continuations: ByteKeyedTable

    /// Reads `vocab.txt`-style text: one token per line, `\n` or `\r\n` line ends.
    public init(contentsOf url: URL) throws(MiniLMError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) {
                throw .missingFile(path: url.path)
            }
            throw .invalidVocabulary(path: url.path, reason: error.localizedDescription)
        }
        // Lines end at "\n" (a preceding "\r" is dropped); splitting bytes rather than `Character`s
        // keeps "\r\n", a single Character, from hiding the line end.
        var lines: [String] = []
        var lineStart = data.startIndex
        for index in data.indices where data[index] == UInt8(ascii: "\n") || index == data.endIndex - 1 {
            var lineEnd = data[index] == UInt8(ascii: "\n") ? index : index + 1
            if lineEnd > lineStart, data[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            guard let line = String(validating: data[lineStart..<lineEnd], as: UTF8.self) else {
                throw .invalidVocabulary(path: url.path, reason: "line \(lines.count + 1) is not UTF-8 text")
            }
            lines.append(line)
            lineStart = index + 1
        }
        guard !lines.isEmpty else {
            throw .invalidVocabulary(path: url.path, reason: "the file is empty")
        }
        self.init(tokens: lines, source: url.path)
    }

    /// A vocabulary from tokens in id order; a repeated token keeps its last id.
    public init(tokens: [String], source: String = "in-memory vocabulary") {
        self.tokens = tokens
        self.source = source
        var words = ByteKeyedTable(capacity: tokens.count)
        var continuations = ByteKeyedTable(capacity: tokens.count)
        for (id, token) in tokens.enumerated() {
            var bytes = Array(token.utf8)
            words.insert(bytes, id: Int32(id))
            if bytes.count > 2, bytes[0] == UInt8(ascii: "#"), bytes[1] == UInt8(ascii: "#") {
                bytes.removeFirst(2)
                continuations.insert(bytes, id: Int32(id))
            }
        }
        self.words = words
        self.continuations = continuations
    }

    /// Number of tokens.
    public var count: Int { tokens.count }

    /// The id of a token given as a string (`"[CLS]"`, `"##ing"`), if present.
    public func id(of token: String) -> Int? {
        var token = token
        return token.withUTF8 { bytes in words.lookup(UnsafeRawBufferPointer(bytes)).map(Int.init) }
    }

    /// The id of a word start (`continuation == false`) or of a `##` piece given without its prefix.
    func id(of bytes: UnsafeRawBufferPointer, continuation: Bool) -> Int32? {
        continuation ? continuations.lookup(bytes) : words.lookup(bytes)
    }
}

/// An open-addressing hash table from byte strings to ids, with all keys in one byte array.
struct ByteKeyedTable: Sendable {
    private var keyBytes: [UInt8] = []
    private var keyStarts: [Int32] = []
    private var keyLengths: [Int32] = []
    private var ids: [Int32] = []
    /// Entry index + 1 per slot; 0 marks an empty slot.
    private var slots: [Int32]
    private let mask: Int

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
    }

    mutating func insert(_ key: [UInt8], id: Int32) {
        let hash = key.withUnsafeBytes(Self.hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot] - 1)
            let matches = key.withUnsafeBytes { self.matches(entry, $0) }
            if matches {
                ids[entry] = id
                return
            }
            slot = (slot + 1) & mask
        }
        keyStarts.append(Int32(keyBytes.count))
        keyLengths.append(Int32(key.count))
        keyBytes.append(contentsOf: key)
        ids.append(id)
        slots[slot] = Int32(ids.count)
    }

    func lookup(_ key: UnsafeRawBufferPointer) -> Int32? {
        var slot = Int(truncatingIfNeeded: Self.hash(key)) & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot] - 1)
            if matches(entry, key) { return ids[entry] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private func matches(_ entry: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let length = Int(keyLengths[entry])
        guard length == key.count else { return false }
        if length == 0 { return true }
        let start = Int(keyStarts[entry])
        return keyBytes.withUnsafeBytes { stored in
            memcmp(stored.baseAddress! + start, key.baseAddress!, length) == 0
        }
    }

    /// FNV-1a, 64-bit.
    private static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash ^ (hash >> 29)
    }
}
