import Foundation
import Testing
@testable import VectorIndex

@Suite("HNSWIndex", .timeLimit(.minutes(10)))
struct HNSWIndexTests {
    @Test("recall@10 is at least 0.95 on 20,000 random 64-d vectors at ef 256")
    func recall() throws {
        let vectors = TestVectors.unit(20_000, dimension: 64, seed: 20)
        let ids = (0..<20_000).map(Int64.init)
        let index = try HNSWIndex(dimension: 64)
        try index.insert(ids: ids, vectors: vectors, threads: 2)
        let queries = TestVectors.unit(200, dimension: 64, seed: 21)
        let exact = try ExactIndex(dimension: 64, ids: ids, vectors: vectors)
        let truth = exact.search(queries, k: 10).map { $0.map { (id: $0.id, score: Double($0.score)) } }
        let recall = TestVectors.recall(index.search(queries, k: 10, ef: 256), truth: truth)
        #expect(recall >= 0.95, "recall@10 \(recall)")
        #expect(index.count == 20_000 && index.deletedCount == 0)
    }

    @Test("the same seed and insertions build the same graph")
    func deterministic() throws {
        let vectors = TestVectors.unit(2_000, dimension: 37, seed: 22)
        let ids = (0..<2_000).map { Int64($0) * 11 }
        let first = try HNSWIndex(dimension: 37, parameters: .init(m: 8, efConstruction: 64))
        let second = try HNSWIndex(dimension: 37, parameters: .init(m: 8, efConstruction: 64))
        try first.insert(ids: ids, vectors: vectors)
        for (id, vector) in zip(ids, vectors) { try second.insert(id: id, vector: vector) }
        #expect(first.serialized() == second.serialized())
        let other = try HNSWIndex(dimension: 37, parameters: .init(m: 8, efConstruction: 64, seed: 99))
        try other.insert(ids: ids, vectors: vectors)
        #expect(other.serialized() != first.serialized())
    }

    @Test("deleted ids are never returned, before and after compaction")
    func deletes() throws {
        let vectors = TestVectors.unit(3_000, dimension: 32, seed: 23)
        let ids = (0..<3_000).map(Int64.init)
        let index = try HNSWIndex(dimension: 32, parameters: .init(m: 12, efConstruction: 100))
        try index.insert(ids: ids, vectors: vectors)
        let removed = Set(ids.filter { $0 % 10 < 3 })
        for id in removed { #expect(index.remove(id: id)) }
        #expect(!index.remove(id: 0))
        #expect(index.count == 2_100 && index.deletedCount == 900)
        let queries = TestVectors.unit(100, dimension: 32, seed: 24) + removed.prefix(20).map { vectors[Int($0)] }
        let liveIDs = ids.filter { !removed.contains($0) }
        let liveVectors = liveIDs.map { vectors[Int($0)] }
        let truth = queries.map { TestVectors.bruteForce($0, ids: liveIDs, vectors: liveVectors, k: 20) }
        for ef in [20, 100] {
            let results = index.search(queries, k: 20, ef: ef)
            #expect(results.allSatisfy { $0.count == 20 && $0.allSatisfy { !removed.contains($0.id) } })
        }
        #expect(TestVectors.recall(index.search(queries, k: 20, ef: 100), truth: truth) > 0.95)
        index.compact()
        #expect(index.count == 2_100 && index.deletedCount == 0)
        let results = index.search(queries, k: 20, ef: 100)
        #expect(results.allSatisfy { $0.allSatisfy { !removed.contains($0.id) } })
        #expect(TestVectors.recall(results, truth: truth) > 0.95)
        #expect(index.vector(id: 5) == vectors[5] && index.vector(id: 1) == nil)
    }

    @Test("re-inserting an id replaces its vector")
    func replace() throws {
        let index = try HNSWIndex(dimension: 2)
        try index.insert(ids: [1, 2, 3], vectors: [[1, 0], [0, 1], [-1, 0]])
        try index.insert(id: 1, vector: [0, -1])
        #expect(index.count == 3 && index.deletedCount == 1)
        #expect(index.search([0, -1], k: 1) == [SearchHit(id: 1, score: 1)])
        // Ids 1 and 2 now tie at 0: the lower id ranks first.
        #expect(index.search([1, 0], k: 3).map(\.id) == [1, 2, 3])
    }

    @Test("small and empty graphs")
    func smallGraphs() throws {
        let index = try HNSWIndex(dimension: 3)
        #expect(index.search([1, 0, 0], k: 5).isEmpty)
        try index.insert(id: 42, vector: [0, 1, 0])
        #expect(index.search([0, 1, 0], k: 5) == [SearchHit(id: 42, score: 1)])
        index.remove(id: 42)
        #expect(index.search([0, 1, 0], k: 5).isEmpty)
        #expect(index.search([[0, 1, 0], [1, 0, 0]], k: 2) == [[], []])
    }

    @Test("filters: a small allowed set and a rare predicate are answered exactly")
    func filters() throws {
        let vectors = TestVectors.unit(30_000, dimension: 16, seed: 25)
        let ids = (0..<30_000).map(Int64.init)
        let index = try HNSWIndex(dimension: 16, parameters: .init(m: 8, efConstruction: 40))
        try index.insert(ids: ids, vectors: vectors, threads: 2)
        let query = TestVectors.unit(1, dimension: 16, seed: 26)[0]
        let allowed = Set(ids.filter { $0 % 97 == 5 })
        let exact = TestVectors.bruteForce(query, ids: ids, vectors: vectors, k: 10, keep: allowed.contains)
        #expect(index.search(query, k: 10, allowedIDs: allowed).map(\.id) == exact.map(\.id))
        #expect(index.search(query, k: 10, filter: { $0 % 97 == 5 }).map(\.id) == exact.map(\.id))
        #expect(index.search(query, k: 10, filter: { $0 == 12_345 }).map(\.id) == [12_345])

        // Half the collection: the graph walk, filtered, still finds nearly all of the true top 10.
        let even = TestVectors.bruteForce(query, ids: ids, vectors: vectors, k: 10, keep: { $0 % 2 == 0 })
        let walked = index.search(query, k: 10, ef: 200, filter: { $0 % 2 == 0 })
        #expect(walked.allSatisfy { $0.id % 2 == 0 })
        #expect(Set(walked.map(\.id)).intersection(even.map(\.id)).count >= 9)
        let graphOnly = try HNSWIndex(dimension: 16, parameters: .init(m: 8, efConstruction: 40), policy: IndexPolicy(choice: .hnsw))
        try graphOnly.insert(ids: Array(ids.prefix(2_000)), vectors: Array(vectors.prefix(2_000)))
        #expect(graphOnly.search(query, k: 5, allowedIDs: [3, 4, 5]).map(\.id).sorted() == [3, 4, 5])
    }

    @Test("concurrent searches from several tasks agree with sequential ones")
    func concurrentSearches() async throws {
        let vectors = TestVectors.unit(5_000, dimension: 48, seed: 27)
        let index = try HNSWIndex(dimension: 48, parameters: .init(m: 12, efConstruction: 80))
        try index.insert(ids: (0..<5_000).map(Int64.init), vectors: vectors)
        let queries = TestVectors.unit(64, dimension: 48, seed: 28)
        let expected = queries.map { index.search($0, k: 10, ef: 64) }
        let results = await withTaskGroup(of: (Int, [[SearchHit]]).self) { group in
            for task in 0..<8 {
                group.addTask {
                    (task, (0..<queries.count).map { index.search(queries[($0 + task * 7) % queries.count], k: 10, ef: 64) })
                }
            }
            var all: [(Int, [[SearchHit]])] = []
            for await result in group { all.append(result) }
            return all
        }
        for (task, hits) in results {
            for (offset, found) in hits.enumerated() {
                #expect(found == expected[(offset + task * 7) % queries.count])
            }
        }
        #expect(index.search(queries, k: 10, ef: 64, threads: 4) == expected)
    }

    @Test("invalid parameters and vectors throw typed errors")
    func invalidInput() throws {
        #expect(throws: VectorIndexError.self) { try HNSWIndex(dimension: 0) }
        #expect(throws: VectorIndexError.self) { try HNSWIndex(dimension: 4, parameters: .init(m: 1)) }
        let index = try HNSWIndex(dimension: 4)
        #expect(throws: VectorIndexError.dimensionMismatch(expected: 4, actual: 3)) { try index.insert(id: 1, vector: [1, 0, 0]) }
        #expect(throws: VectorIndexError.nonFiniteVector(id: 2)) { try index.insert(id: 2, vector: [1, 0, .infinity, 0]) }
        #expect(index.count == 0)
    }
}
