import Foundation
import Testing
@testable import VectorIndex

@Suite("HNSW serialisation", .timeLimit(.minutes(10)))
struct HNSWSerializationTests {
    func makeIndex() throws -> (HNSWIndex, [[Float]]) {
        let vectors = TestVectors.unit(3_000, dimension: 40, seed: 30)
        let index = try HNSWIndex(dimension: 40, parameters: .init(m: 10, efConstruction: 60, efSearch: 48, seed: 7))
        try index.insert(ids: (0..<3_000).map { Int64($0) * 2 + 1 }, vectors: vectors)
        for id in stride(from: Int64(1), to: 6_000, by: 10) { index.remove(id: id) }
        return (index, vectors)
    }

    @Test("a reloaded index searches identically and keeps growing identically")
    func roundTrip() throws {
        let (index, _) = try makeIndex()
        let data = index.serialized()
        let restored = try HNSWIndex(serialized: data)
        #expect(restored.dimension == 40 && restored.parameters == index.parameters)
        #expect(restored.count == index.count && restored.deletedCount == index.deletedCount)
        #expect(restored.serialized() == data)
        let queries = TestVectors.unit(50, dimension: 40, seed: 31)
        for query in queries {
            #expect(restored.search(query, k: 10) == index.search(query, k: 10))
            #expect(restored.search(query, k: 5, ef: 200, filter: { $0 % 3 == 0 }) == index.search(query, k: 5, ef: 200, filter: { $0 % 3 == 0 }))
        }
        let more = TestVectors.unit(200, dimension: 40, seed: 32)
        let moreIDs = (0..<200).map { Int64(10_000 + $0) }
        try index.insert(ids: moreIDs, vectors: more)
        try restored.insert(ids: moreIDs, vectors: more)
        #expect(restored.serialized() == index.serialized())
    }

    @Test("an empty index round-trips")
    func empty() throws {
        let index = try HNSWIndex(dimension: 5)
        let restored = try HNSWIndex(serialized: index.serialized())
        #expect(restored.count == 0 && restored.search([1, 0, 0, 0, 0], k: 3).isEmpty)
    }

    @Test("damaged data is rejected with a typed error")
    func corruption() throws {
        let (index, _) = try makeIndex()
        let data = index.serialized()
        #expect(throws: VectorIndexError.notAnIndex(expected: "HNSW index")) { try HNSWIndex(serialized: Data()) }
        #expect(throws: VectorIndexError.notAnIndex(expected: "HNSW index")) { try HNSWIndex(serialized: Data("not an index at all".utf8)) }

        var flipped = data
        flipped[data.count / 2] ^= 0x10
        #expect {
            try HNSWIndex(serialized: flipped)
        } throws: { error in
            if case .checksumMismatch = error as? VectorIndexError { return true } else { return false }
        }

        #expect(throws: VectorIndexError.self) { try HNSWIndex(serialized: data.prefix(data.count - 100)) }
        #expect(throws: VectorIndexError.self) { try HNSWIndex(serialized: data.prefix(20)) }

        var future = data
        future[8] = 2
        #expect(throws: VectorIndexError.unsupportedVersion(found: 2, supported: HNSWIndex.formatVersion)) {
            try HNSWIndex(serialized: future)
        }

        // A link out of range under a valid checksum: caught by the structural checks.
        var forged = data
        let level0Offset = HNSWIndex.headerSize + 3_000 * (8 + 1 + 1 + 4)
        forged.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: Int32(1).littleEndian, toByteOffset: level0Offset, as: Int32.self)
            bytes.storeBytes(of: Int32(1_000_000).littleEndian, toByteOffset: level0Offset + 4, as: Int32.self)
            let checksum = Checksum.xxh64(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[0..<(bytes.count - 8)]))
            bytes.storeBytes(of: checksum.littleEndian, toByteOffset: bytes.count - 8, as: UInt64.self)
        }
        #expect {
            try HNSWIndex(serialized: forged)
        } throws: { error in
            if case .corrupt = error as? VectorIndexError { return true } else { return false }
        }
    }

    @Test("XXH64 matches the reference implementation")
    func checksum() {
        func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { Checksum.xxh64($0) } }
        #expect(hash([]) == 0xEF46_DB37_51D8_E999)
        #expect(hash(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        #expect(hash((0..<37).map { UInt8($0 * 7 % 251) }) == 0x4788_90C6_0739_0313)
        #expect(hash((0..<1_000).map { UInt8($0 * 7 % 251) }) == 0x023F_D2ED_1FF9_57D5)
    }
}
