/// The vocabulary: token bytes to rank (the rank is the token id) and back.
///
/// Lookups are the encoder's hot path, so this is an open-addressing table keyed by the first
/// eight bytes of a token packed in an integer plus its length: a lookup of a short slice of the
/// text is one unaligned load, one multiply and usually one probe, with no allocation. Longer
/// tokens also compare their remaining bytes against the decoding blob.
final class RankTable: @unchecked Sendable {
    // Everything below is written only during `init` and read-only afterwards, so sharing an
    // instance across threads is safe.

    /// Two words per slot: the packed first bytes, then `length << 32 | rank` (0 marks an empty slot).
    private let slots: UnsafeMutablePointer<UInt64>
    private let slotMask: Int
    private let shift: UInt64
    /// Every token's bytes, back to back, followed by eight bytes of padding for whole-word loads.
    private let blob: UnsafeMutablePointer<UInt8>
    /// Where token `rank`'s bytes start in `blob`; `offsets[rank + 1]` is where they end.
    private let offsets: UnsafeMutablePointer<Int32>
    /// The ranks of the 256 single bytes, which every byte-level vocabulary has.
    let byteRanks: UnsafeMutablePointer<UInt32>
    /// The ranks of all two-byte tokens, indexed by `first << 8 | second` (`absent` where none):
    /// byte-pair merging starts with a lookup of every adjacent pair, and this 256 KB table
    /// answers those without hashing or a likely cache miss in the large table.
    private let pairRanks: UnsafeMutablePointer<UInt32>
    /// How many ranks there are (ranks run from 0 to `count - 1`).
    let count: Int
    /// The length of the longest token, in bytes.
    let maxTokenLength: Int

    static let absent = UInt32.max

    /// Builds the table from the tokens' bytes laid end to end in rank order, where token `rank`
    /// spans `bytes[offsets[rank]..<offsets[rank + 1]]`; every token must be distinct.
    init(bytes: [UInt8], offsets tokenOffsets: [Int32]) throws(RankTableError) {
        count = tokenOffsets.count - 1
        var longest = 0
        for rank in 0..<count {
            let length = Int(tokenOffsets[rank + 1] - tokenOffsets[rank])
            guard length > 0 else { throw .emptyToken(rank: rank) }
            longest = max(longest, length)
        }
        maxTokenLength = longest
        let blob = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 8)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { blob.initialize(from: base, count: source.count) }
        }
        (blob + bytes.count).initialize(repeating: 0, count: 8)
        self.blob = blob
        let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: count + 1)
        tokenOffsets.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { offsets.initialize(from: base, count: source.count) }
        }
        self.offsets = offsets
        var capacity = 1024
        while capacity < count * 2 { capacity <<= 1 }
        slotMask = capacity - 1
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        slots = .allocate(capacity: capacity * 2)
        slots.initialize(repeating: 0, count: capacity * 2)
        byteRanks = .allocate(capacity: 256)
        byteRanks.initialize(repeating: Self.absent, count: 256)
        pairRanks = .allocate(capacity: 65536)
        pairRanks.initialize(repeating: Self.absent, count: 65536)

        // From here on `self` is fully initialised, so a throw runs `deinit`, which frees the memory.
        for rank in 0..<count {
            let start = UnsafePointer(blob + Int(offsets[rank]))
            let length = Int(offsets[rank + 1] - offsets[rank])
            if length == 1 { byteRanks[Int(start[0])] = UInt32(rank) }
            if length == 2 { pairRanks[Int(start[0]) << 8 | Int(start[1])] = UInt32(rank) }
            if let existing = lookup(start, length, limit: start + length + 8) {
                throw .duplicateToken(rank: rank, firstRank: Int(existing))
            }
            var slot = Self.slot(hash: Self.hash(start, length), shift: shift)
            while slots[2 * slot + 1] != 0 { slot = (slot + 1) & slotMask }
            slots[2 * slot] = Self.firstWord(start, length)
            slots[2 * slot + 1] = UInt64(length) << 32 | UInt64(rank)
        }
        for byte in 0..<256 where byteRanks[byte] == Self.absent {
            throw .missingByte(UInt8(byte))
        }
    }

    deinit {
        slots.deallocate()
        byteRanks.deallocate()
        pairRanks.deallocate()
        blob.deallocate()
        offsets.deallocate()
    }

    /// The rank of the `length` bytes at `start`, or nil; memory up to `limit` must be readable.
    @inline(__always)
    func lookup(_ start: UnsafePointer<UInt8>, _ length: Int, limit: UnsafePointer<UInt8>) -> UInt32? {
        let rank = rank(start, length, limit: limit)
        return rank == Self.absent ? nil : rank
    }

    /// The rank of the `length` bytes at `start`, or `absent`; memory up to `limit` must be readable.
    @inline(__always)
    func rank(_ start: UnsafePointer<UInt8>, _ length: Int, limit: UnsafePointer<UInt8>) -> UInt32 {
        let word: UInt64
        if length <= 8 {
            word = limit - start >= 8 ? Self.loadWord(start) & Self.mask(length) : Self.firstWord(start, length)
        } else {
            word = Self.loadWord(start)
        }
        let hash = length <= 8 ? Self.mix(word, length) : Self.mix(word ^ Self.loadWord(start + length - 8), length)
        var slot = Self.slot(hash: hash, shift: shift)
        let wanted = UInt64(length) << 32
        while true {
            let meta = slots[2 * slot + 1]
            if meta == 0 { return Self.absent }
            if meta & 0xFFFF_FFFF_0000_0000 == wanted, slots[2 * slot] == word {
                let rank = UInt32(truncatingIfNeeded: meta)
                if length <= 8 || tailMatches(rank: rank, start, length) { return rank }
            }
            slot = (slot + 1) & slotMask
        }
    }

    /// The rank of the two bytes at `start`, or `absent`.
    @inline(__always)
    func pairRank(_ start: UnsafePointer<UInt8>) -> UInt32 {
        pairRanks[Int(start[0]) << 8 | Int(start[1])]
    }

    /// The bytes of token `rank`, or nil when there is no such rank.
    func bytes(of rank: Int) -> UnsafeBufferPointer<UInt8>? {
        guard rank >= 0, rank < count else { return nil }
        let start = Int(offsets[rank])
        return UnsafeBufferPointer(start: blob + start, count: Int(offsets[rank + 1]) - start)
    }

    @inline(__always)
    private func tailMatches(rank: UInt32, _ start: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let stored = UnsafeRawPointer(blob + Int(offsets[Int(rank)]) + 8)
        return memcmpBytes(stored, UnsafeRawPointer(start + 8), length - 8)
    }

    @inline(__always)
    private func memcmpBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        var index = 0
        while index + 8 <= count {
            if a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: index, as: UInt64.self) { return false }
            index += 8
        }
        while index < count {
            if a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) {
                return false
            }
            index += 1
        }
        return true
    }

    private static func hash(_ start: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        // Table building always has padding after the token, so whole-word loads are safe.
        let word = firstWord(start, length)
        return length <= 8 ? mix(word, length) : mix(word ^ loadWord(start + length - 8), length)
    }

    @inline(__always)
    private static func mix(_ word: UInt64, _ length: Int) -> UInt64 {
        (word ^ UInt64(length) &* 0x2545_F491_4F6C_DD1D) &* 0x9E37_79B9_7F4A_7C15
    }

    @inline(__always)
    private static func slot(hash: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: hash &>> shift)
    }

    @inline(__always)
    private static func loadWord(_ start: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
    }

    @inline(__always)
    private static func mask(_ length: Int) -> UInt64 {
        length >= 8 ? ~0 : (1 << UInt64(8 * length)) &- 1
    }

    /// The first `min(length, 8)` bytes packed little-endian, loaded one byte at a time.
    @inline(__always)
    private static func firstWord(_ start: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        var word: UInt64 = 0
        var index = min(length, 8) - 1
        while index >= 0 {
            word = word << 8 | UInt64(start[index])
            index -= 1
        }
        return word
    }
}

/// Why a vocabulary cannot be used.
enum RankTableError: Error {
    case emptyToken(rank: Int)
    case duplicateToken(rank: Int, firstRank: Int)
    case missingByte(UInt8)
}
