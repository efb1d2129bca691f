import Foundation
import Knowledge
import SibylCore
import Testing
@testable import PineconeVectors

/// Every call against the strict mock (`scripts/pinecone/mock.py`: the 2025-10 specs served with
/// request and response validation, only `Api-Key: test-key`, the version header required). A
/// request the specs do not allow comes back 400 with the validator's message, which fails the test.
@Suite(.timeLimit(.minutes(10)), .enabled(if: PineconeMock.enabled, PineconeMock.skipReason))
struct MockServerTests {
    static let vector: [Float] = [0.5, -0.25, 0.125]

    @Test func everyDataPlaneCallIsAccepted() async throws {
        let index = try PineconeMock.index()
        let upserted = try await index.upsert([
            PineconeVector(id: "1", values: Self.vector, metadata: ["document_id": .integer(10), "tags": .array([.string("a")])]),
            PineconeVector(id: "2", values: Self.vector, metadata: ["document_id": .integer(11)]),
        ], namespace: "docs")
        #expect(upserted == 2)
        let found = try await index.query(vector: Self.vector, topK: 2, namespace: "docs", filter: PineconeVectorStore.filter(documentID: 10), includeMetadata: true, includeValues: true)
        #expect(found.matches.map(\.id) == ["1", "2"])
        #expect(found.matches.first?.metadata?["document_id"]?.integerValue == 10)
        let fetched = try await index.fetch(ids: ["1", "2"], namespace: "docs")
        #expect(Set(fetched.keys) == ["1", "2"])
        try await index.delete(ids: ["1", "2"], namespace: "docs")
        try await index.delete(filter: PineconeVectorStore.filter(documentID: 10), namespace: "docs")
        try await index.deleteAll(namespace: "docs")
        let stats = try await index.describeStats()
        #expect(stats.dimension == 384)
        #expect(stats.namespaces?.keys.sorted() == ["docs", "notes"])
    }

    @Test func listingFollowsPaginationToTheEnd() async throws {
        let ids = try await PineconeMock.index().listIDs(namespace: "docs", pageSize: 2)
        #expect(ids == ["1", "2", "3", "4", "5"], "three pages, joined")
    }

    @Test func theVectorStoreThroughTheMock() async throws {
        let store = PineconeVectorStore(index: try PineconeMock.index(), namespacePrefix: "users/u1/")
        try await store.upsert([VectorRecord(id: 1, documentID: 10, vector: Self.vector)], namespace: "docs")
        #expect(try await store.query(Self.vector, k: 2, namespace: "docs", documentID: 10).map(\.id) == [1, 2])
        try await store.remove(ids: [1], namespace: "docs")
        try await store.remove(documentID: 10, namespace: "docs")
        try await store.removeAll(namespace: "docs")
        // No namespace: the namespaces the statistics list under the prefix (none here).
        #expect(try await store.query(Self.vector, k: 2, namespace: nil, documentID: nil).isEmpty)
        #expect(try await PineconeVectorStore(index: try PineconeMock.index()).query(Self.vector, k: 3, namespace: nil, documentID: nil).count == 3, "docs and notes, merged")
    }

    @Test func theControlPlaneGivesTheHostDataGoesTo() async throws {
        let control = try PineconeMock.control()
        let name = "sibyl-\(UInt32.random(in: 0...UInt32.max))"
        #expect(try await control.indexIfExists(named: name) == nil)
        let created = try await control.createIndex(PineconeIndexRequest(name: name, dimension: 384))
        #expect(created.dimension == 384 && created.metric == "cosine" && created.vectorType == "dense")
        let ready = try await control.waitUntilReady(named: name, timeout: .seconds(10), pollEvery: .milliseconds(50))
        #expect(try await control.listIndexes().contains { $0.name == name })
        let index = control.indexClient(for: ready)
        #expect(index.baseURL == (try PineconeMock.baseURL()), "the data plane is the index's host")
        #expect(index.dimension == 384)
        _ = try await index.describeStats()
        try await control.deleteIndex(named: name)
        #expect(try await control.indexIfExists(named: name) == nil)
        await #expect(throws: PineconeError.self) { try await control.deleteIndex(named: name) }
    }

    @Test func aWrongKeyIsRefused() async throws {
        do {
            _ = try await PineconeMock.index(apiKey: "not-the-key").describeStats()
            Issue.record("expected 401")
        } catch let error as PineconeError {
            #expect(error.status == 401)
            #expect(!error.localizedDescription.contains("not-the-key"))
        }
    }

    @Test func serverErrorsAreRetriedUntilTheStrictMockAnswers() async throws {
        let scenario = "retry-\(UUID().uuidString)"
        try await PineconeMock.script(scenario, #"[{"status": 503}, {"status": 429, "headers": {"Retry-After": "0"}}]"#)
        try await PineconeMock.index(scenario: scenario).upsert([PineconeVector(id: "1", values: Self.vector)], namespace: "docs")
        #expect(try await PineconeMock.statuses(scenario) == [503, 429, 200])
    }

    @Test(arguments: [(400, "3"), (401, "16"), (404, "5"), (429, "8"), (500, "13"), (503, "14")])
    func errorBodiesBecomeTypedErrors(status: Int, code: String) async throws {
        let scenario = "error-\(status)-\(UUID().uuidString)"
        try await PineconeMock.script(scenario, #"[{"status": \#(status)}, {"status": \#(status)}, {"status": \#(status)}]"#)
        do {
            _ = try await PineconeMock.index(scenario: scenario).query(vector: Self.vector, topK: 1, namespace: "docs")
            Issue.record("expected \(status)")
        } catch let PineconeError.api(gotStatus, gotCode, message, operation) {
            #expect(gotStatus == status && gotCode == code && operation == "query")
            #expect(!message.isEmpty)
        }
        let retried = status == 429 || status >= 500
        #expect(try await PineconeMock.statuses(scenario).count == (retried ? 3 : 1))
    }

    @Test func theDecoratorWritesThroughTheMock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pinecone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any KnowledgeBase = try KnowledgeStore(path: directory.appendingPathComponent("knowledge.sqlite").path)
        let base = PineconeKnowledgeBase(wrapping: store, index: try PineconeMock.index())
        let docs = try #require(try await base.collection(named: "docs", create: true))
        let draft = DocumentDraft(collectionID: docs.id, path: "/a.txt", title: nil, format: .text, contentHash: "h", byteCount: 1, pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings())
        let saved = try await base.save(draft, chunks: [ChunkDraft(text: "one", tokenCount: 1, page: nil, headingPath: [], startOffset: 0, endOffset: 3)], embeddings: [Self.vector], replacing: nil)
        try await base.removeDocument(saved.id)
        try await base.deleteCollection(docs.id)
        #expect(try await store.collections().isEmpty)
    }
}
