import Foundation
import SibylCore
import TestDatabase
import Testing
@testable import PostgresStorage

/// Vectors in pgvector against the test PostgreSQL: the HNSW answer against an exact scan,
/// namespaces, the document filter, replacing and removing, and what the store refuses.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestDatabase.url != nil, "no PostgreSQL to test against (set SIBYL_TEST_DATABASE_URL; scripts/test.sh does)"))
struct PgVectorStoreTests {
    /// Unit vectors around a few centres, as sentence embeddings fall (seeded, so repeatable).
    static func clustered(_ count: Int, dimension: Int, seed: UInt64) -> [[Float]] {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001) / 1_000_000 - 1
        }
        let centres = (0..<8).map { _ in (0..<dimension).map { _ in next() } }
        return (0..<count).map { index in
            let centre = centres[index % centres.count]
            let vector = centre.map { $0 + 0.35 * next() }
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / norm }
        }
    }

    static func exactTop(_ k: Int, of query: [Float], in vectors: [[Float]]) -> [Int64] {
        var scored: [(id: Int64, score: Double)] = []
        for (index, vector) in vectors.enumerated() {
            var dot = 0.0
            for (a, b) in zip(vector, query) { dot += Double(a) * Double(b) }
            scored.append((Int64(index), dot))
        }
        return scored.sorted { $0.score > $1.score }.prefix(k).map(\.id)
    }

    @Test func nearestNeighboursMatchAnExactScan() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            try await database.migrate()
            let store = try PgVectorStore(database: database, dimension: 64)
            try await store.prepare()
            try await store.prepare()  // a second time is harmless
            let vectors = Self.clustered(1_200, dimension: 64, seed: 7)
            try await store.upsert(vectors.enumerated().map { VectorRecord(id: Int64($0.offset), documentID: Int64($0.offset / 100), vector: $0.element) }, namespace: "docs")
            let queries = Self.clustered(20, dimension: 64, seed: 99)
            var found = 0
            for query in queries {
                let matches = try await store.query(query, k: 10, namespace: "docs", documentID: nil)
                #expect(matches.count == 10)
                #expect(zip(matches, matches.dropFirst()).allSatisfy { $0.score >= $1.score }, "best first")
                found += Set(matches.map(\.id)).intersection(Self.exactTop(10, of: query, in: vectors)).count
            }
            let recall = Double(found) / Double(queries.count * 10)
            #expect(recall >= 0.95, "recall@10 \(recall)")
            // The score is the cosine similarity: a stored vector finds itself at 1.
            let itself = try await store.query(vectors[42], k: 1, namespace: "docs", documentID: nil)
            #expect(itself.first?.id == 42)
            #expect(abs((itself.first?.score ?? 0) - 1) < 1e-4)
            await database.close()
        }
    }

    @Test func namespacesDocumentsReplacementAndRemoval() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            try await database.migrate()
            let store = try PgVectorStore(database: database, dimension: 3)
            try await store.prepare()
            try await store.upsert([
                VectorRecord(id: 1, documentID: 10, vector: [1, 0, 0]),
                VectorRecord(id: 2, documentID: 10, vector: [0, 1, 0]),
                VectorRecord(id: 3, documentID: 11, vector: [0.9, 0.1, 0]),
            ], namespace: "a")
            try await store.upsert([VectorRecord(id: 1, documentID: 20, vector: [0, 0, 1])], namespace: "b")
            #expect(try await store.query([1, 0, 0], k: 5, namespace: "a", documentID: nil).map(\.id) == [1, 3, 2])
            #expect(try await store.query([1, 0, 0], k: 5, namespace: "b", documentID: nil).map(\.id) == [1], "another collection's vectors stay apart")
            #expect(try await store.query([1, 0, 0], k: 5, namespace: "a", documentID: 11).map(\.id) == [3])
            #expect(try await store.query([1, 0, 0], k: 10, namespace: nil, documentID: nil).count == 4, "no namespace: every collection")
            // The same id again replaces its vector.
            try await store.upsert([VectorRecord(id: 1, documentID: 10, vector: [0, 1, 0])], namespace: "a")
            #expect(try await store.query([1, 0, 0], k: 1, namespace: "a", documentID: nil).map(\.id) == [3])
            try await store.remove(ids: [3], namespace: "a")
            try await store.remove(documentID: 20, namespace: "b")
            #expect(try await store.query([1, 0, 0], k: 5, namespace: "a", documentID: nil).map(\.id).sorted() == [1, 2])
            #expect(try await store.query([1, 0, 0], k: 5, namespace: "b", documentID: nil).isEmpty)
            await database.close()
        }
    }

    @Test func aStoreWithItsOwnEFLeavesTheConnectionAsItFoundIt() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url, maximumConnections: 1, searchEF: 64)
            let store = try PgVectorStore(database: database, dimension: 3, efSearch: 200)
            try await store.prepare()
            try await store.upsert([VectorRecord(id: 1, documentID: 1, vector: [1, 0, 0])], namespace: "a")
            #expect(try await store.query([1, 0, 0], k: 1, namespace: "a", documentID: nil).map(\.id) == [1])
            for try await value in try await database.client.query("SHOW hnsw.ef_search").decode(String.self) {
                #expect(value == "64", "the one pooled connection is back at the database's ef")
            }
            await database.close()
        }
    }

    @Test func vectorsOfTheWrongLengthAreRefusedPlainly() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            let store = try PgVectorStore(database: database, dimension: 3)
            try await store.prepare()
            await #expect(throws: VectorStoreError.wrongLength(id: 5, got: 2, expected: 3)) {
                try await store.upsert([VectorRecord(id: 5, documentID: 1, vector: [1, 2])], namespace: "a")
            }
            await #expect(throws: VectorStoreError.wrongLength(id: nil, got: 4, expected: 3)) {
                _ = try await store.query([1, 2, 3, 4], k: 1, namespace: nil, documentID: nil)
            }
            #expect(throws: VectorStoreError.badDimension(0)) { try PgVectorStore(database: database, dimension: 0) }
            await database.close()
        }
    }
}
