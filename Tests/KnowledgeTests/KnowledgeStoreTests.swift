import Foundation
import SibylCore
import TestDatabase
import Testing
import VectorIndex
@testable import Knowledge

@Suite("Knowledge store", .timeLimit(.minutes(10)))
struct KnowledgeStoreTests {
    func draft(_ collection: Int64, path: String, hash: String = "h1") -> DocumentDraft {
        DocumentDraft(collectionID: collection, path: path, title: "Doc", format: .markdown, contentHash: hash, byteCount: 10,
                      pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings(extract: .milliseconds(5)))
    }

    func chunk(_ text: String, page: Int? = nil) -> ChunkDraft {
        ChunkDraft(text: text, tokenCount: text.split(separator: " ").count, page: page, headingPath: ["A", "B"], startOffset: 0, endOffset: text.count)
    }

    @Test(arguments: KnowledgeBackend.available)
    func saveReadSearchAndRemove(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let collection = try #require(try await store.collection(named: "default", create: true))
            #expect(try await store.collection(named: "DEFAULT")?.id == collection.id)
            #expect(try await store.collection(named: "Default", create: true)?.id == collection.id)
            try await store.setEmbedding(model: "m", dimension: 3, for: collection.id)
            let document = try await store.save(
                draft(collection.id, path: "/docs/a.md"),
                chunks: [chunk("The capital of France is Paris."), chunk("Bananas are yellow fruit.", page: 2)],
                embeddings: [[1, 0, 0], [0, 1, 0]],
                replacing: nil
            )
            #expect(document.chunkCount == 2)
            #expect(document.tokenCount == 10)
            #expect(document.timings.extract == .milliseconds(5))
            #expect(try await store.document(id: document.id) == document)
            #expect(try await store.document(path: "/docs/a.md", in: collection.id) == document)
            let chunks = try await store.chunks(of: document.id)
            #expect(chunks.map(\.ordinal) == [0, 1])
            #expect(chunks[1].page == 2 && chunks[0].page == nil)
            #expect(chunks[0].headingPath == ["A", "B"])
            #expect(chunks[1].location == "page 2, A › B")
            #expect(try await store.chunk(documentID: document.id, ordinal: 1) == chunks[1])
            #expect(try await store.chunk(documentID: document.id, ordinal: 2) == nil)
            #expect(Set(try await store.chunks(ids: chunks.map(\.id).reversed())) == Set(chunks))

            let vectors = store.vectorStore(policy: IndexPolicy())
            let nearest = try await vectors.query([0, 0.9, 0.1], k: 1, namespace: "default", documentID: nil)
            #expect(nearest.map(\.id) == [chunks[1].id])
            #expect(try await vectors.query([1, 0, 0], k: 5, namespace: nil, documentID: document.id).first?.id == chunks[0].id)

            let hits = try await store.lexicalSearch("What is the capital of France?", collectionID: collection.id, documentID: nil, limit: 5)
            #expect(hits.first?.chunkID == chunks[0].id)
            #expect(hits.first.map { $0.score > 0 } == true)
            #expect(try await store.lexicalSearch("?!", collectionID: nil, documentID: nil, limit: 5).isEmpty)

            try await store.removeDocument(document.id)
            #expect(try await store.chunks(of: document.id).isEmpty)
            #expect(try await store.document(id: document.id) == nil)
            #expect(try await vectors.query([1, 0, 0], k: 5, namespace: "default", documentID: nil).isEmpty)
            #expect(try await store.lexicalSearch("capital France", collectionID: nil, documentID: nil, limit: 5).isEmpty)
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func replacingIsOneStepAndFailuresAreCleared(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let collection = try #require(try await store.collection(named: "c", create: true))
            try await store.recordFailure(path: "/docs/a.md", error: "boom", in: collection.id)
            try await store.recordFailure(path: "/docs/a.md", error: "boom again", in: collection.id)
            #expect(try await store.failures(in: collection.id).map(\.error) == ["boom again"])
            let first = try await store.save(draft(collection.id, path: "/docs/a.md"), chunks: [chunk("old text")], embeddings: [[1]], replacing: nil)
            #expect(try await store.failures(in: collection.id).isEmpty)
            let second = try await store.save(draft(collection.id, path: "/docs/a.md", hash: "h2"), chunks: [chunk("new text")], embeddings: [[2]], replacing: first.id)
            #expect(try await store.documents(in: collection.id).map(\.id) == [second.id])
            #expect(try await store.lexicalSearch("old", collectionID: nil, documentID: nil, limit: 5).isEmpty)
            #expect(try await store.lexicalSearch("new", collectionID: nil, documentID: nil, limit: 5).count == 1)
            #expect(try await store.document(contentHash: "h2", in: collection.id)?.id == second.id)
            try await store.setIndexTime(.milliseconds(42), for: second.id)
            #expect(try await store.document(id: second.id)?.timings.index == .milliseconds(42))
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func deletingACollectionTakesEverythingInIt(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let kept = try #require(try await store.collection(named: "kept", create: true))
            let gone = try #require(try await store.collection(named: "gone", create: true))
            try await store.setEmbedding(model: "m", dimension: 2, for: kept.id)
            try await store.setEmbedding(model: "m", dimension: 2, for: gone.id)
            try await store.save(draft(kept.id, path: "/k.md"), chunks: [chunk("kestrels hover")], embeddings: [[1, 0]], replacing: nil)
            try await store.save(draft(gone.id, path: "/g.md"), chunks: [chunk("kestrels nest")], embeddings: [[0, 1]], replacing: nil)
            try await store.recordFailure(path: "/bad.md", error: "no", in: gone.id)
            try await store.deleteCollection(gone.id)
            #expect(try await store.collections().map(\.name) == ["kept"])
            #expect(try await store.documents().map(\.path) == ["/k.md"])
            #expect(try await store.failures().isEmpty)
            #expect(try await store.lexicalSearch("kestrels", collectionID: nil, documentID: nil, limit: 5).count == 1)
            let nearest = try await store.vectorStore(policy: IndexPolicy()).query([0, 1], k: 5, namespace: nil, documentID: nil)
            #expect(nearest.count == 1)
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func renamingACollectionKeepsItsDocumentsAndRefusesATakenName(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let tea = try #require(try await store.collection(named: "tea", create: true))
            _ = try #require(try await store.collection(named: "coffee", create: true))
            try await store.setEmbedding(model: "m", dimension: 2, for: tea.id)
            try await store.save(draft(tea.id, path: "/t.md"), chunks: [chunk("green tea brews cool")], embeddings: [[1, 0]], replacing: nil)
            // The vector index is loaded under the old name first: the new name finds the same vectors.
            let vectors = store.vectorStore(policy: IndexPolicy())
            #expect(try await vectors.query([1, 0], k: 5, namespace: "tea", documentID: nil).count == 1)

            try await store.renameCollection(tea.id, to: "Tea Notes")
            #expect(try await store.collections().map(\.name).sorted() == ["Tea Notes", "coffee"])
            #expect(try await store.collection(named: "tea") == nil)
            #expect(try await store.collection(named: "tea notes")?.id == tea.id, "names compare without case")
            #expect(try await store.documents(in: tea.id).map(\.path) == ["/t.md"])
            #expect(try await vectors.query([1, 0], k: 5, namespace: "Tea Notes", documentID: nil).count == 1)

            await #expect(throws: KnowledgeError.collectionExists("COFFEE")) { try await store.renameCollection(tea.id, to: "COFFEE") }
            // Only its case changes: allowed.
            try await store.renameCollection(tea.id, to: "tea notes")
            #expect(try await store.collection(named: "tea notes")?.name == "tea notes")
            await #expect(throws: KnowledgeError.self) { try await store.renameCollection(9_999, to: "nowhere") }
        }
    }

    @Test func aFileBasedStoreSurvivesReopening() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-knowledge-\(UUID().uuidString)/knowledge.sqlite").path
        do {
            let store = try KnowledgeStore(path: path)
            let collection = try #require(try store.collection(named: "c", create: true))
            try store.setEmbedding(model: "all-MiniLM-L6-v2", dimension: 3, for: collection.id)
            try store.save(draft(collection.id, path: "/x.md"), chunks: [chunk("persisted words")], embeddings: [[0.5, 0.5, 0]], replacing: nil)
        }
        let reopened = try KnowledgeStore(path: path)
        let collection = try #require(try reopened.collection(named: "c"))
        #expect(collection.embeddingModel == "all-MiniLM-L6-v2")
        #expect(collection.dimension == 3)
        #expect(try reopened.vectors(in: collection.id).first?.vector == [0.5, 0.5, 0])
        #expect(try reopened.lexicalSearch("persisted", limit: 1).count == 1)
    }

    @Test func ftsQueriesAreSanitised() {
        // FTS5 operators become plain quoted words, and function words are dropped.
        #expect(FTSQuery.match(for: "What's \"NEAR\" (AND) OR*?") == "\"near\"")
        #expect(FTSQuery.match(for: "How do I?") == "\"do\" OR \"how\"")
        #expect(FTSQuery.match(for: "a ?") == nil)
        #expect(FTSQuery.match(for: "Python 3") == "\"3\" OR \"python\"")
        // Names must be in a passage; the other words still rank it.
        #expect(FTSQuery.match(for: "In which version of Python was math.isclose added?")
            == "(\"isclose\" AND \"math\") AND (\"added\" OR \"isclose\" OR \"math\" OR \"python\" OR \"version\")")
        #expect(FTSQuery.match(for: "Is the password violet-harbor-42?")?.hasPrefix("(\"42\" AND \"harbor\" AND \"violet\") AND (") == true)
        #expect(FTSQuery.match(for: "What does NormalDist do?")?.hasPrefix("(\"normaldist\") AND") == true)
        #expect(FTSQuery.isName("lru_cache") && FTSQuery.isName("math.isclose(a,") && FTSQuery.isName("iPhone15"))
        #expect(!FTSQuery.isName("office.") && !FTSQuery.isName("PDF") && !FTSQuery.isName("3.11") && !FTSQuery.isName("Kestrel"))
        #expect(!FTSQuery.isName("(e.g.") && !FTSQuery.isName("i.e.,"))
    }
}
