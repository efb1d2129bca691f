import Foundation
import SibylCore
import Testing
@testable import PineconeVectors

/// The exact requests the clients send, captured through the transport and compared with the
/// checked-in goldens in `Goldens/` (which `scripts/pinecone/spec-check.py` validates against the
/// 2025-10 specs). `SIBYL_UPDATE_GOLDENS=1` rewrites them after an intended change.
@Suite(.timeLimit(.minutes(10)))
struct RequestGoldenTests {
    static let goldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")
    static let update = ProcessInfo.processInfo.environment["SIBYL_UPDATE_GOLDENS"] == "1"

    /// 384 values that print exactly (sixteenths), as MiniLM's vectors are long.
    static let vector384: [Float] = (0..<384).map { Float($0 % 17 - 8) / 16 }

    /// Runs `call` against a recording transport and compares its one request with `Goldens/NAME.json`.
    func expectGolden(_ name: String, operation: String, spec: String, sourceLocation: SourceLocation = #_sourceLocation, _ call: (ScriptedTransport) async throws -> Void) async throws {
        let transport = ScriptedTransport()
        try await call(transport)
        #expect(transport.requests.count == 1, sourceLocation: sourceLocation)
        guard let request = transport.requests.first, let url = URLComponents(string: request.url) else { return }

        #expect(request.headers["Api-Key"] == testKey, sourceLocation: sourceLocation)
        #expect(request.headers["X-Pinecone-Api-Version"] == "2025-10", sourceLocation: sourceLocation)
        #expect(request.headers["Content-Type"] == (request.body == nil ? nil : "application/json"), sourceLocation: sourceLocation)

        var captured: [String: Any] = [
            "operation": operation, "spec": spec, "method": request.method, "path": url.percentEncodedPath,
            "query": (url.queryItems ?? []).map { [$0.name, $0.value ?? ""] },
        ]
        captured["body"] = try request.body.map { try JSONSerialization.jsonObject(with: $0) } ?? NSNull()
        let file = Self.goldens.appendingPathComponent("\(name).json")
        if Self.update {
            try FileManager.default.createDirectory(at: Self.goldens, withIntermediateDirectories: true)
            try JSONSerialization.data(withJSONObject: captured, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]).write(to: file)
            return
        }
        let golden = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? NSDictionary
        #expect(golden == (captured as NSDictionary), "request differs from Goldens/\(name).json (SIBYL_UPDATE_GOLDENS=1 rewrites it)", sourceLocation: sourceLocation)
    }

    func index(_ transport: ScriptedTransport, dimension: Int = 384) -> PineconeIndexClient {
        PineconeIndexClient(baseURL: "https://sibyl-abc123.svc.aped-4627-b74a.pinecone.io", apiKey: testKey, dimension: dimension, transport: transport)
    }

    func control(_ transport: ScriptedTransport) -> PineconeControlClient {
        PineconeControlClient(apiKey: testKey, transport: transport)
    }

    @Test func upsertOfPassages() async throws {
        try await expectGolden("upsert", operation: "upsertVectors", spec: "data") { transport in
            let store = PineconeVectorStore(index: index(transport))
            try await store.upsert([
                VectorRecord(id: 41, documentID: 7, vector: Self.vector384),
                VectorRecord(id: 42, documentID: 7, vector: Self.vector384.reversed()),
            ], namespace: "default")
        }
    }

    @Test func queryWithinADocument() async throws {
        try await expectGolden("query-document", operation: "queryVectors", spec: "data") { transport in
            let store = PineconeVectorStore(index: index(transport))
            _ = try await store.query(Self.vector384, k: 50, namespace: "default", documentID: 7)
        }
    }

    @Test func queryWithMetadataAndValues() async throws {
        try await expectGolden("query-metadata", operation: "queryVectors", spec: "data") { transport in
            _ = try await index(transport, dimension: 3).query(
                vector: [0.5, -0.25, 0.125], topK: 3, namespace: "users/u1/notes",
                filter: .object(["document_id": .object(["$in": .array([.integer(1), .integer(2)])])]), includeMetadata: true, includeValues: true
            )
        }
    }

    @Test func deleteByIDs() async throws {
        try await expectGolden("delete-ids", operation: "deleteVectors", spec: "data") { transport in
            try await PineconeVectorStore(index: index(transport)).remove(ids: [41, 42], namespace: "default")
        }
    }

    @Test func deleteADocument() async throws {
        try await expectGolden("delete-document", operation: "deleteVectors", spec: "data") { transport in
            try await PineconeVectorStore(index: index(transport)).remove(documentID: 7, namespace: "default")
        }
    }

    @Test func deleteACollection() async throws {
        try await expectGolden("delete-all", operation: "deleteVectors", spec: "data") { transport in
            try await PineconeVectorStore(index: index(transport)).removeAll(namespace: "default")
        }
    }

    @Test func fetch() async throws {
        try await expectGolden("fetch", operation: "fetchVectors", spec: "data") { transport in
            _ = try await index(transport).fetch(ids: ["41", "42"], namespace: "users/u1/default")
        }
    }

    @Test func listFirstPage() async throws {
        try await expectGolden("list", operation: "listVectors", spec: "data") { transport in
            _ = try await index(transport).listIDs(namespace: "default", prefix: "4", pageSize: 100)
        }
    }

    @Test func describeStats() async throws {
        try await expectGolden("describe-index-stats", operation: "describeIndexStats", spec: "data") { transport in
            _ = try await index(transport).describeStats()
        }
    }

    @Test func createIndex() async throws {
        try await expectGolden("create-index", operation: "create_index", spec: "control") { transport in
            _ = try? await control(transport).createIndex(PineconeIndexRequest(name: "sibyl", dimension: 384))
        }
    }

    @Test func describeIndex() async throws {
        try await expectGolden("describe-index", operation: "describe_index", spec: "control") { transport in
            _ = try? await control(transport).describeIndex(named: "sibyl")
        }
    }

    @Test func deleteIndex() async throws {
        try await expectGolden("delete-index", operation: "delete_index", spec: "control") { transport in
            try await control(transport).deleteIndex(named: "sibyl")
        }
    }

    @Test func listIndexes() async throws {
        try await expectGolden("list-indexes", operation: "list_indexes", spec: "control") { transport in
            _ = try await control(transport).listIndexes()
        }
    }

    @Test func theKeyIsSentOnlyInItsHeader() async throws {
        let transport = ScriptedTransport()
        try await PineconeVectorStore(index: index(transport)).remove(ids: [1], namespace: "default")
        let request = try #require(transport.requests.first)
        #expect(!request.url.contains(testKey))
        #expect(!String(decoding: request.body ?? Data(), as: UTF8.self).contains(testKey))
    }
}
