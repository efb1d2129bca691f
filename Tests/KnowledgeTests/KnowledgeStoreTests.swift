import Foundation
import SibylCore
import Testing
@testable import Knowledge

@Suite("Knowledge store")
struct KnowledgeStoreTests {
    func draft(_ collection: Int64, path: String, hash: String = "h1") -> DocumentDraft {
        DocumentDraft(collectionID: collection, path: path, title: "Doc", format: .markdown, contentHash: hash, byteCount: 10,
                      pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings(extract: .milliseconds(5)))
    }

    func chunk(_ text: String, page: Int? = nil) -> ChunkDraft {
        ChunkDraft(text: text, tokenCount: text.split(separator: " ").count, page: page, headingPath: ["A", "B"], startOffset: 0, endOffset: text.count)
    }

    @Test func saveReadSearchAndRemove() throws {
        let store = try KnowledgeStore.inMemory()
        let collection = try #require(try store.collection(named: "default", create: true))
        #expect(try store.collection(named: "DEFAULT")?.id == collection.id)
        let document = try store.save(
            draft(collection.id, path: "/docs/a.md"),
            chunks: [chunk("The capital of France is Paris."), chunk("Bananas are yellow fruit.", page: 2)],
            embeddings: [[1, 0, 0], [0, 1, 0]],
            replacing: nil
        )
        #expect(document.chunkCount == 2)
        #expect(document.tokenCount == 10)
        #expect(document.timings.extract == .milliseconds(5))
        let chunks = try store.chunks(of: document.id)
        #expect(chunks.map(\.ordinal) == [0, 1])
        #expect(chunks[1].page == 2)
        #expect(chunks[0].headingPath == ["A", "B"])
        #expect(chunks[1].location == "page 2, A › B")

        let vectors = try store.vectors(in: collection.id)
        #expect(vectors.map(\.vector) == [[1, 0, 0], [0, 1, 0]])

        let hits = try store.lexicalSearch("What is the capital of France?", collectionID: collection.id, limit: 5)
        #expect(hits.first?.chunkID == chunks[0].id)
        #expect(hits.first.map { $0.score > 0 } == true)
        #expect(try store.lexicalSearch("?!", limit: 5).isEmpty)

        try store.removeDocument(document.id)
        #expect(try store.chunks(of: document.id).isEmpty)
        #expect(try store.vectors(in: collection.id).isEmpty)
        #expect(try store.lexicalSearch("capital France", limit: 5).isEmpty)
    }

    @Test func replacingIsOneStepAndFailuresAreCleared() throws {
        let store = try KnowledgeStore.inMemory()
        let collection = try #require(try store.collection(named: "c", create: true))
        try store.recordFailure(path: "/docs/a.md", error: "boom", in: collection.id)
        #expect(try store.failures(in: collection.id).count == 1)
        let first = try store.save(draft(collection.id, path: "/docs/a.md"), chunks: [chunk("old text")], embeddings: [[1]], replacing: nil)
        #expect(try store.failures(in: collection.id).isEmpty)
        let second = try store.save(draft(collection.id, path: "/docs/a.md", hash: "h2"), chunks: [chunk("new text")], embeddings: [[2]], replacing: first.id)
        #expect(try store.documents(in: collection.id).map(\.id) == [second.id])
        #expect(try store.lexicalSearch("old", limit: 5).isEmpty)
        #expect(try store.document(contentHash: "h2", in: collection.id)?.id == second.id)
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
