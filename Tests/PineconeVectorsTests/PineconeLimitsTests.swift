import Foundation
import SibylCore
import Testing
@testable import PineconeVectors

/// The rules Pinecone's OpenAPI documents leave out (their array limits use string keywords, and
/// metadata is any object), checked before anything is sent.
@Suite(.timeLimit(.minutes(10)))
struct PineconeLimitsTests {
    func expectInvalid(_ body: () throws -> Void, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("expected the request to be refused (\(fragment))", sourceLocation: sourceLocation)
        } catch let PineconeError.invalidRequest(message) {
            #expect(message.contains(fragment), "\(message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func valuesMustBeNonEmptyFiniteAndTheIndexDimension() throws {
        try PineconeLimits.check(values: [0.1, 0.2, 0.3], dimension: 3, id: "1")
        try PineconeLimits.check(values: [0.1], dimension: nil, id: "1")
        expectInvalid({ try PineconeLimits.check(values: [], dimension: 3, id: "1") }, "no values")
        expectInvalid({ try PineconeLimits.check(values: [0.1, 0.2], dimension: 384, id: "7") }, "2 values; the index holds 384-dimensional")
        expectInvalid({ try PineconeLimits.check(values: [0.1, .nan, 0.3], dimension: 3, id: "1") }, "finite")
        expectInvalid({ try PineconeLimits.check(values: [.infinity], dimension: nil, id: nil) }, "the query vector")
        expectInvalid({ try PineconeLimits.check(values: Array(repeating: 0, count: 20_001), dimension: nil, id: "1") }, "at most 20000")
    }

    @Test func idsHaveOneTo512Characters() throws {
        try PineconeLimits.check(id: String(repeating: "a", count: 512))
        expectInvalid({ try PineconeLimits.check(id: "") }, "1 to 512")
        expectInvalid({ try PineconeLimits.check(id: String(repeating: "a", count: 513)) }, "1 to 512")
    }

    @Test func metadataIsFlatAndSmall() throws {
        try PineconeLimits.check(metadata: ["document_id": .integer(4), "title": .string("t"), "draft": .bool(false), "score": .number(0.5), "tags": .array([.string("a")])], id: "1")
        expectInvalid({ try PineconeLimits.check(metadata: ["nested": .object(["a": .integer(1)])], id: "1") }, "metadata 'nested'")
        expectInvalid({ try PineconeLimits.check(metadata: ["mixed": .array([.string("a"), .integer(1)])], id: "1") }, "list of strings")
        expectInvalid({ try PineconeLimits.check(metadata: ["none": .null], id: "1") }, "metadata 'none'")
        expectInvalid({ try PineconeLimits.check(metadata: ["big": .string(String(repeating: "x", count: 41_000))], id: "1") }, "at most 40960")
    }

    @Test func upsertsAreSplitAtAThousandVectors() throws {
        let vectors = (0..<2_500).map { PineconeVector(id: String($0), values: [0.5, 0.25]) }
        let batches = try PineconeLimits.upsertBatches(vectors, namespace: "docs")
        #expect(batches.map(\.count) == [1_000, 1_000, 500])
        #expect(batches.flatMap { $0 }.map(\.id) == vectors.map(\.id), "in order, none lost")
    }

    @Test func upsertsAreSplitAtTwoMegabytes() throws {
        // 1536 values of ~10 characters: about 17 KB a vector, so ~120 fit in 2 MB.
        let values = (0..<1536).map { Float($0) / 1537 + 0.000123 }
        let vectors = (0..<400).map { PineconeVector(id: String($0), values: values, metadata: ["document_id": .integer(1)]) }
        let batches = try PineconeLimits.upsertBatches(vectors, namespace: "docs")
        #expect(batches.count > 1)
        #expect(batches.flatMap { $0 }.count == 400)
        for batch in batches {
            let body = try PineconeConnection.encoder.encode(UpsertRequest(vectors: batch, namespace: "docs"))
            #expect(body.count <= PineconeLimits.maxUpsertBytes)
        }
        #expect(throws: PineconeError.self) {
            try PineconeLimits.upsertBatches(vectors, namespace: "docs", maxBytes: 1_000)
        }
    }

    @Test func indexNames() throws {
        try PineconeLimits.check(indexName: "sibyl")
        try PineconeLimits.check(indexName: "sibyl-2")
        for bad in ["", "Sibyl", "-sibyl", "sibyl-", "si_byl", String(repeating: "a", count: 46)] {
            expectInvalid({ try PineconeLimits.check(indexName: bad) }, "not a valid index name")
        }
    }

    @Test func clientsRefuseBeforeSending() async throws {
        let transport = ScriptedTransport()
        let index = PineconeIndexClient(baseURL: "http://pinecone.invalid", apiKey: testKey, dimension: 3, transport: transport)
        await #expect(throws: PineconeError.self) { try await index.upsert([PineconeVector(id: "1", values: [1, 2])], namespace: "a") }
        await #expect(throws: PineconeError.self) { try await index.query(vector: [1, 2, 3], topK: 0, namespace: "a") }
        await #expect(throws: PineconeError.self) { try await index.query(vector: [1, 2, 3], topK: 10_001, namespace: "a") }
        await #expect(throws: PineconeError.self) { try await index.fetch(ids: ["has space"], namespace: "a") }
        await #expect(throws: PineconeError.self) { try await index.fetch(ids: (0...1_000).map(String.init), namespace: "a") }
        #expect(transport.requests.isEmpty, "nothing was sent")
    }

    @Test func deletesByIdGoInThousands() async throws {
        let transport = ScriptedTransport()
        let index = PineconeIndexClient(baseURL: "http://pinecone.invalid", apiKey: testKey, dimension: 3, transport: transport)
        try await index.delete(ids: (0..<2_001).map(String.init), namespace: "a")
        #expect(transport.bodies("/vectors/delete").map { ($0["ids"] as? [String])?.count } == [1_000, 1_000, 1])
    }

    @Test func aSearchOfEveryCollectionQueriesEachNamespace() async throws {
        let transport = ScriptedTransport()
        let index = PineconeIndexClient(baseURL: "http://pinecone.invalid", apiKey: testKey, dimension: 3, transport: transport)
        let names = (0..<23).map { "c\($0)" }
        let store = PineconeVectorStore(index: index) { names }
        _ = try await store.query([1, 0, 0], k: 5, namespace: nil, documentID: nil)
        #expect(Set(transport.bodies("/query").compactMap { $0["namespace"] as? String }) == Set(names))
    }
}
