import Testing
@testable import VectorIndex

@Suite("ExactIndex", .timeLimit(.minutes(10)))
struct ExactIndexTests {
    /// Checks hits against the reference: same ids in the same order, scores within rounding.
    func expectMatches(_ hits: [SearchHit], _ reference: [(id: Int64, score: Double)], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(hits.map(\.id) == reference.map(\.id), sourceLocation: sourceLocation)
        for (hit, expected) in zip(hits, reference) {
            #expect(abs(Double(hit.score) - expected.score) < 1e-5, sourceLocation: sourceLocation)
        }
    }

    @Test("top-k equals a brute-force scan", arguments: [16, 37, 384])
    func matchesBruteForce(dimension: Int) throws {
        let vectors = TestVectors.unit(1_000, dimension: dimension, seed: 1)
        let ids = (0..<1_000).map { Int64($0 * 3 + 7) }
        let index = try ExactIndex(dimension: dimension, ids: ids, vectors: vectors)
        for query in TestVectors.unit(20, dimension: dimension, seed: 2) {
            expectMatches(index.search(query, k: 10), TestVectors.bruteForce(query, ids: ids, vectors: vectors, k: 10))
        }
    }

    @Test("batched search equals one query at a time, for every tile size")
    func batchedEqualsSingle() throws {
        let vectors = TestVectors.unit(500, dimension: 40, seed: 3)
        let index = try ExactIndex(dimension: 40, ids: (0..<500).map(Int64.init), vectors: vectors)
        for batch in [1, 2, 3, 4, 5, 7, 8, 9, 13, 17] {
            let queries = TestVectors.unit(batch, dimension: 40, seed: UInt64(100 + batch))
            let batched = index.search(queries, k: 7)
            #expect(batched == queries.map { index.search($0, k: 7) })
        }
    }

    @Test("ties rank the lower id first")
    func ties() throws {
        let index = ExactIndex(dimension: 4)
        try index.add(ids: [9, 3, 5, 1, 2], vectors: [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0.5, 0.5, 0, 0]])
        let hits = index.search([1, 0, 0, 0], k: 4)
        #expect(hits == [SearchHit(id: 3, score: 1), SearchHit(id: 5, score: 1), SearchHit(id: 9, score: 1), SearchHit(id: 2, score: 0.5)])
        #expect(index.search([1, 0, 0, 0], k: 2).map(\.id) == [3, 5])
    }

    @Test("k larger than the index, k of zero, and an empty index")
    func edgeCounts() throws {
        let empty = ExactIndex(dimension: 8)
        #expect(empty.search([Float](repeating: 0.1, count: 8), k: 10).isEmpty)
        #expect(empty.search([[Float](repeating: 0.1, count: 8)], k: 3) == [[]])
        let vectors = TestVectors.unit(5, dimension: 8, seed: 4)
        let index = try ExactIndex(dimension: 8, ids: [1, 2, 3, 4, 5], vectors: vectors)
        let query = TestVectors.unit(1, dimension: 8, seed: 5)[0]
        #expect(index.search(query, k: 50).count == 5)
        expectMatches(index.search(query, k: 50), TestVectors.bruteForce(query, ids: [1, 2, 3, 4, 5], vectors: vectors, k: 5))
        #expect(index.search(query, k: 0).isEmpty)
    }

    @Test("removed ids are never returned and the rest still match")
    func removal() throws {
        var vectors = TestVectors.unit(300, dimension: 24, seed: 6)
        var ids = (0..<300).map(Int64.init)
        let index = try ExactIndex(dimension: 24, ids: ids, vectors: vectors)
        for id in stride(from: Int64(0), to: 300, by: 3) { #expect(index.remove(id: id)) }
        #expect(!index.remove(id: 0))
        #expect(index.count == 200)
        let kept = ids.indices.filter { ids[$0] % 3 != 0 }
        vectors = kept.map { vectors[$0] }
        ids = kept.map { ids[$0] }
        for query in TestVectors.unit(10, dimension: 24, seed: 7) {
            let hits = index.search(query, k: 15)
            #expect(hits.allSatisfy { $0.id % 3 != 0 })
            expectMatches(hits, TestVectors.bruteForce(query, ids: ids, vectors: vectors, k: 15))
        }
        #expect(index.vector(id: 1) == vectors[0])
        index.removeAll()
        #expect(index.count == 0 && index.search(vectors[0], k: 3).isEmpty)
    }

    @Test("adding an existing id replaces its vector")
    func replace() throws {
        let index = ExactIndex(dimension: 2)
        try index.add(id: 1, vector: [1, 0])
        try index.add(id: 2, vector: [0, 1])
        try index.add(id: 1, vector: [0, -1])
        #expect(index.count == 2)
        #expect(index.search([0, 1], k: 2) == [SearchHit(id: 2, score: 1), SearchHit(id: 1, score: -1)])
    }

    @Test("predicate and allowed-set filters give the filtered brute force")
    func filters() throws {
        let vectors = TestVectors.unit(2_000, dimension: 32, seed: 8)
        let ids = (0..<2_000).map(Int64.init)
        let index = try ExactIndex(dimension: 32, ids: ids, vectors: vectors)
        let query = TestVectors.unit(1, dimension: 32, seed: 9)[0]
        expectMatches(
            index.search(query, k: 10, filter: { $0 % 7 == 0 }),
            TestVectors.bruteForce(query, ids: ids, vectors: vectors, k: 10, keep: { $0 % 7 == 0 })
        )
        let allowed: Set<Int64> = [5, 17, 230, 1_999, 1_000, 4_000]
        expectMatches(
            index.search(query, k: 10, allowedIDs: allowed),
            TestVectors.bruteForce(query, ids: ids, vectors: vectors, k: 10, keep: allowed.contains)
        )
        #expect(index.search(query, k: 3, allowedIDs: []).isEmpty)
        #expect(index.search(query, k: 3, filter: { _ in false }).isEmpty)
    }

    @Test("several threads give the same results as one")
    func threadsAgree() throws {
        let vectors = TestVectors.unit(20_000, dimension: 64, seed: 10)
        let index = try ExactIndex(dimension: 64, ids: (0..<20_000).map(Int64.init), vectors: vectors, threads: 1)
        let queries = TestVectors.unit(8, dimension: 64, seed: 11)
        let single = index.search(queries, k: 10)
        index.threads = 4
        #expect(index.search(queries, k: 10) == single)
        #expect(queries.map { index.search($0, k: 10) } == single)
    }

    @Test("invalid vectors are rejected with typed errors")
    func invalidVectors() throws {
        let index = ExactIndex(dimension: 3)
        #expect(throws: VectorIndexError.dimensionMismatch(expected: 3, actual: 2)) { try index.add(id: 1, vector: [1, 0]) }
        #expect(throws: VectorIndexError.nonFiniteVector(id: 4)) { try index.add(id: 4, vector: [1, .nan, 0]) }
        #expect(throws: VectorIndexError.countMismatch(ids: 2, vectors: 1)) { try index.add(ids: [1, 2], vectors: [[1, 0, 0]]) }
        #expect(index.count == 0)
    }
}
