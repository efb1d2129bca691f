import Foundation
import Knowledge
import SibylCore
import Testing
import VectorIndex
@testable import PineconeVectors

/// The decorator over a real SQLite knowledge base (in a temporary directory): vectors mirrored
/// to Pinecone, and a document in both or in neither.
@Suite(.timeLimit(.minutes(10)))
struct PineconeKnowledgeBaseTests {
    /// A knowledge base file of its own, removed afterwards.
    func withStore(_ body: (any KnowledgeBase) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pinecone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try KnowledgeStore(path: directory.appendingPathComponent("knowledge.sqlite").path))
    }

    func draft(_ collection: Int64, _ path: String) -> DocumentDraft {
        DocumentDraft(collectionID: collection, path: path, title: nil, format: .text, contentHash: path, byteCount: 1, pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings())
    }

    func chunks(_ texts: [String]) -> [ChunkDraft] {
        texts.map { ChunkDraft(text: $0, tokenCount: 1, page: nil, headingPath: [], startOffset: 0, endOffset: $0.count) }
    }

    func knowledgeBase(_ store: any KnowledgeBase, _ transport: ScriptedTransport, prefix: String = "") -> PineconeKnowledgeBase {
        let index = PineconeIndexClient(baseURL: "http://pinecone.invalid", apiKey: testKey, dimension: 3, transport: transport, retryPolicy: quickRetries)
        return PineconeKnowledgeBase(wrapping: store, index: index, namespacePrefix: prefix)
    }

    @Test func savingADocumentUpsertsItsPassages() async throws {
        try await withStore { store in
            let transport = ScriptedTransport()
            let base = knowledgeBase(store, transport, prefix: "users/u1/")
            let docs = try #require(try await base.collection(named: "docs", create: true))
            let saved = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one", "two"]), embeddings: [[1, 0, 0], [0, 1, 0]], replacing: nil)
            let stored = try await store.chunks(of: saved.id)
            let upsert = try #require(transport.bodies("/vectors/upsert").first)
            #expect(upsert["namespace"] as? String == "users/u1/docs")
            let vectors = try #require(upsert["vectors"] as? [[String: Any]])
            #expect(vectors.map { $0["id"] as? String } == stored.map { String($0.id) })
            #expect(vectors.map { ($0["metadata"] as? [String: Any])?["document_id"] as? Int } == [Int(saved.id), Int(saved.id)])
            #expect(vectors.map { $0["values"] as? [Double] } == [[1, 0, 0], [0, 1, 0]])
            #expect(base.vectorStore(policy: IndexPolicy()) is PineconeVectorStore)
        }
    }

    @Test func aFailedUpsertTakesTheDocumentOutAgain() async throws {
        try await withStore { store in
            let transport = ScriptedTransport([ScriptedTransport.json(400, #"{"code": 3, "message": "Vector dimension 3 does not match", "details": []}"#)])
            let base = knowledgeBase(store, transport)
            let docs = try #require(try await base.collection(named: "docs", create: true))
            await #expect(throws: PineconeError.self) {
                try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one"]), embeddings: [[1, 0, 0]], replacing: nil)
            }
            #expect(try await store.documents().isEmpty, "in neither")
            #expect(try await store.lexicalSearch("one", collectionID: nil, documentID: nil, limit: 5).isEmpty)
        }
    }

    @Test func aPineconeOutageTakesTheDocumentOutAfterTheRetries() async throws {
        try await withStore { store in
            let down = ScriptedTransport.Step.fail(PineconeError.connection("connection refused"))
            let transport = ScriptedTransport([down, down, down])
            let base = knowledgeBase(store, transport)
            let docs = try #require(try await base.collection(named: "docs", create: true))
            await #expect(throws: PineconeError.connection("connection refused")) {
                try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one"]), embeddings: [[1, 0, 0]], replacing: nil)
            }
            #expect(transport.requests.count == 3)
            #expect(try await store.documents().isEmpty)
        }
    }

    @Test func replacingAFileDropsTheOlderVersionsVectors() async throws {
        try await withStore { store in
            let transport = ScriptedTransport()
            let base = knowledgeBase(store, transport)
            let docs = try #require(try await base.collection(named: "docs", create: true))
            let first = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one"]), embeddings: [[1, 0, 0]], replacing: nil)
            let second = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["uno"]), embeddings: [[0, 1, 0]], replacing: first.id)
            let deletes = transport.bodies("/vectors/delete")
            #expect(deletes.count == 1)
            #expect(deletes.first?["namespace"] as? String == "docs")
            #expect(((deletes.first?["filter"] as? [String: Any])?["document_id"] as? [String: Any])?["$eq"] as? Int == Int(first.id))
            #expect(try await store.documents().map(\.id) == [second.id])
        }
    }

    @Test func removingADocumentOrACollectionRemovesItsVectors() async throws {
        try await withStore { store in
            let transport = ScriptedTransport()
            let base = knowledgeBase(store, transport)
            let docs = try #require(try await base.collection(named: "docs", create: true))
            let saved = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one"]), embeddings: [[1, 0, 0]], replacing: nil)
            try await base.removeDocument(saved.id)
            #expect(try await store.documents().isEmpty)
            let byFilter = try #require(transport.bodies("/vectors/delete").last)
            #expect(byFilter["filter"] != nil && byFilter["ids"] == nil)

            try await base.deleteCollection(docs.id)
            let all = try #require(transport.bodies("/vectors/delete").last)
            #expect(all["deleteAll"] as? Bool == true && all["namespace"] as? String == "docs")
            #expect(try await store.collections().isEmpty)
        }
    }

    @Test func renamingACollectionMovesItsVectorsToTheNewNamespace() async throws {
        try await withStore { store in
            let transport = ScriptedTransport()
            let base = knowledgeBase(store, transport, prefix: "users/u1/")
            let docs = try #require(try await base.collection(named: "docs", create: true))
            _ = try #require(try await base.collection(named: "notes", create: true))
            let saved = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one", "two"]), embeddings: [[1, 0, 0], [0, 1, 0]], replacing: nil)
            let ids = try await store.chunks(of: saved.id).map { String($0.id) }

            // A name another collection has (in any case) is refused before anything is sent.
            let before = transport.requests.count
            await #expect(throws: KnowledgeError.collectionExists("Notes")) { try await base.renameCollection(docs.id, to: "Notes") }
            #expect(transport.requests.count == before)

            try await base.renameCollection(docs.id, to: "Handbook")
            let moved = try #require(transport.bodies("/vectors/upsert").last)
            #expect(moved["namespace"] as? String == "users/u1/Handbook")
            #expect((moved["vectors"] as? [[String: Any]])?.map { $0["id"] as? String } == ids)
            let emptied = try #require(transport.bodies("/vectors/delete").last)
            #expect(emptied["deleteAll"] as? Bool == true && emptied["namespace"] as? String == "users/u1/docs")
            #expect(try await store.collections().map(\.name).sorted() == ["Handbook", "notes"])
            #expect(try await store.documents(in: docs.id).map(\.id) == [saved.id])
        }
    }

    @Test func aRenameWhoseVectorsCannotMoveChangesNothing() async throws {
        try await withStore { store in
            let docs = try #require(try await store.collection(named: "docs", create: true))
            _ = try await knowledgeBase(store, ScriptedTransport()).save(draft(docs.id, "/a.txt"), chunks: chunks(["one"]), embeddings: [[1, 0, 0]], replacing: nil)
            let transport = ScriptedTransport([ScriptedTransport.json(401, #"{"code": 16, "message": "Invalid API Key"}"#)])
            await #expect(throws: PineconeError.self) { try await knowledgeBase(store, transport).renameCollection(docs.id, to: "handbook") }
            #expect(try await store.collections().map(\.name) == ["docs"], "still its old name")
            // The half-made copy is cleared; the old namespace is left alone.
            #expect(transport.bodies("/vectors/delete").map { $0["namespace"] as? String } == ["handbook"])
        }
    }

    @Test func vectorsAddedBeforeTheMoveToPineconeAreCopiedOnce() async throws {
        try await withStore { store in
            // Documents embedded in the knowledge base itself, before Pinecone was chosen.
            let docs = try #require(try await store.collection(named: "docs", create: true))
            try await store.setEmbedding(model: "m", dimension: 3, for: docs.id)
            let saved = try await store.save(draft(docs.id, "/a.txt"), chunks: chunks(["one", "two"]), embeddings: [[1, 0, 0], [0, 1, 0]], replacing: nil)
            let transport = ScriptedTransport()
            #expect(try await knowledgeBase(store, transport).mirrorMissing() == ["docs"])
            let copied = try #require(transport.bodies("/vectors/upsert").first)
            #expect(copied["namespace"] as? String == "docs")
            #expect((copied["vectors"] as? [[String: Any]])?.count == saved.chunkCount)
            // An index that holds them already is left alone.
            let full = ScriptedTransport([ScriptedTransport.json(200, #"{"namespaces": {"docs": {"vectorCount": 2}}, "dimension": 3, "totalVectorCount": 2}"#)])
            #expect(try await knowledgeBase(store, full).mirrorMissing().isEmpty)
            #expect(full.bodies("/vectors/upsert").isEmpty)
        }
    }

    @Test func aFailedVectorDeleteKeepsTheDocument() async throws {
        try await withStore { store in
            let transport = ScriptedTransport()
            let base = knowledgeBase(store, transport)
            let docs = try #require(try await base.collection(named: "docs", create: true))
            let saved = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one"]), embeddings: [[1, 0, 0]], replacing: nil)
            let failing = knowledgeBase(store, ScriptedTransport([ScriptedTransport.json(401, #"{"code": 16, "message": "Invalid API Key"}"#)]))
            await #expect(throws: PineconeError.self) { try await failing.removeDocument(saved.id) }
            #expect(try await store.documents().map(\.id) == [saved.id], "still in both")
        }
    }

    @Test func replacedEmbeddingsAreUpsertedByCollection() async throws {
        try await withStore { store in
            let transport = ScriptedTransport()
            let base = knowledgeBase(store, transport)
            let docs = try #require(try await base.collection(named: "docs", create: true))
            let saved = try await base.save(draft(docs.id, "/a.txt"), chunks: chunks(["one", "two"]), embeddings: [[1, 0, 0], [0, 1, 0]], replacing: nil)
            let ids = try await store.chunks(of: saved.id).map(\.id)
            try await base.replaceEmbeddings([(chunkID: ids[0], vector: [0, 0, 1]), (chunkID: ids[1], vector: [0, 1, 1])])
            let upsert = try #require(transport.bodies("/vectors/upsert").last)
            #expect(upsert["namespace"] as? String == "docs")
            #expect((upsert["vectors"] as? [[String: Any]])?.map { $0["values"] as? [Double] } == [[0, 0, 1], [0, 1, 1]])
            #expect(try await store.vectors(of: saved.id)[ids[0]] == [0, 0, 1])
        }
    }

    @Test func searchingEveryCollectionMergesTheirMatches() async throws {
        try await withStore { store in
            let transport = ScriptedTransport([
                ScriptedTransport.json(200, #"{"matches": [{"id": "1", "score": 0.9}, {"id": "2", "score": 0.3}], "namespace": "a"}"#),
                ScriptedTransport.json(200, #"{"matches": [{"id": "3", "score": 0.5}, {"id": "not-a-passage", "score": 0.99}]}"#),
            ])
            let base = knowledgeBase(store, transport)
            _ = try await base.collection(named: "a", create: true)
            _ = try await base.collection(named: "b", create: true)
            let matches = try await base.vectorStore(policy: IndexPolicy()).query([1, 0, 0], k: 2, namespace: nil, documentID: nil)
            #expect(matches.map(\.id) == [1, 3], "best first over both collections; foreign ids skipped")
            #expect(Set(transport.bodies("/query").compactMap { $0["namespace"] as? String }) == ["a", "b"])
        }
    }
}
