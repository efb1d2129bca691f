import Testing
import VectorIndex

@Suite("IndexPolicy", .timeLimit(.minutes(10)))
struct IndexPolicyTests {
    @Test("automatic picks exact below the threshold and HNSW from it")
    func automatic() throws {
        let policy = IndexPolicy()
        #expect(policy.resolvedChoice(forCount: 0) == .exact)
        #expect(policy.resolvedChoice(forCount: 19_999) == .exact)
        #expect(policy.resolvedChoice(forCount: 20_000) == .hnsw)
        #expect(IndexPolicy(choice: .exact).resolvedChoice(forCount: 1_000_000) == .exact)
        #expect(IndexPolicy(choice: .hnsw).resolvedChoice(forCount: 10) == .hnsw)
        #expect(try policy.makeIndex(dimension: 8, expectedCount: 100) is ExactIndex)
        #expect(try policy.makeIndex(dimension: 8, expectedCount: 50_000) is HNSWIndex)
    }

    @Test("filtered searches scan few allowed vectors and walk the graph for many")
    func filtered() {
        let policy = IndexPolicy()
        #expect(policy.searchesExactly(allowedCount: 500, totalCount: 1_000_000))
        #expect(policy.searchesExactly(allowedCount: 40_000, totalCount: 1_000_000))
        #expect(!policy.searchesExactly(allowedCount: 50_000, totalCount: 1_000_000))
        #expect(!policy.searchesExactly(allowedCount: 900_000, totalCount: 1_000_000))
        #expect(!IndexPolicy(choice: .hnsw).searchesExactly(allowedCount: 1, totalCount: 1_000_000))
        #expect(IndexPolicy(choice: .exact).searchesExactly(allowedCount: 900_000, totalCount: 1_000_000))
    }

    @Test("both indexes serve the protocol the same way")
    func protocolUse() throws {
        let vectors = TestVectors.unit(100, dimension: 12, seed: 40)
        let ids = (0..<100).map(Int64.init)
        let indexes: [any NearestNeighbourIndex] = [ExactIndex(dimension: 12), try HNSWIndex(dimension: 12)]
        for index in indexes {
            try index.add(ids: ids, vectors: vectors)
            #expect(index.count == 100 && index.contains(id: 7))
            #expect(index.search(vectors[7], k: 1).first?.id == 7)
            #expect(index.search([vectors[7], vectors[9]], k: 1).map { $0.first?.id } == [7, 9])
            #expect(index.remove(id: 7) && !index.contains(id: 7))
            #expect(index.search(vectors[7], k: 3).allSatisfy { $0.id != 7 })
            #expect(index.search(vectors[9], k: 2, allowedIDs: [9, 50]).map(\.id).first == 9)
        }
    }
}
