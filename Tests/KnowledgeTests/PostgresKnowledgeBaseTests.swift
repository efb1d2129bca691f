import Foundation
import PostgresNIO
import SibylCore
import TestDatabase
import Testing
import VectorIndex
@testable import Knowledge
@testable import PostgresStorage

/// What only the shared database has to prove: BM25 in SQL ranks as FTS5 does, owners are kept
/// apart, and instances writing at once lose nothing.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestDatabase.url != nil, "no PostgreSQL to test against (set SIBYL_TEST_DATABASE_URL; scripts/test.sh does)"))
struct PostgresKnowledgeBaseTests {
    /// Passages with repeated, inflected and rare words, names and numbers, of different lengths.
    static let passages = [
        "The capital of France is Paris. Paris is known for the Eiffel tower and for museums.",
        "Running a marathon needs training: runners run long distances weekly and rest between runs.",
        "math.isclose(a, b) returns True when a and b are close; it was added in Python 3.5.",
        "The functools module offers lru_cache, a decorator that caches the results of calls.",
        "statistics.NormalDist models a normal distribution with a mean and a standard deviation.",
        "Bananas are yellow fruit that grow in tropical countries; bananas are rich in potassium.",
        "A kestrel hovers over fields, looking for voles; kestrels nest in old buildings and trees.",
        "Connections to the database are pooled; a pool keeps idle connections for reuse.",
        "Résumé, café and naïve keep their accents in French, but the search folds them away.",
        "Python 3.12 improved error messages and made f-strings more flexible than before.",
        "Generational relational organizations rationalise operational conditioning hopefully.",
        "The tower was finished in 1889 for the World's Fair and is 330 metres tall.",
        "Tokens, tokenizers and tokenization: splitting text into words is the first step.",
        "Idle connections are closed after a timeout, and the pool opens new ones on demand.",
    ]

    static let questions = [
        "What is the capital of France?", "How tall is the Eiffel tower?", "runner training", "In which version of Python was math.isclose added?",
        "What does lru_cache do?", "What does NormalDist do?", "bananas potassium", "Where do kestrels nest?", "connection pool idle timeout",
        "resume cafe naive", "error messages in Python 3.12", "relational organization", "tokenization", "tower", "How do I?", "the", "zzz unknownword",
    ]

    static func draft(_ collection: Int64, _ index: Int) -> DocumentDraft {
        DocumentDraft(collectionID: collection, path: "/docs/\(index).txt", title: nil, format: .text, contentHash: "h\(index)", byteCount: 1,
                      pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings())
    }

    static func chunk(_ text: String) -> ChunkDraft {
        ChunkDraft(text: text, tokenCount: 1, page: nil, headingPath: [], startOffset: 0, endOffset: text.count)
    }

    /// Stores every passage as a document of its own in `collection` (one passage in a second
    /// collection, so collection filters matter) and returns passage id → passage number.
    static func fill(_ store: any KnowledgeBase) async throws -> (ids: [Int64: Int], collection: Int64) {
        let main = try #require(try await store.collection(named: "main", create: true))
        let other = try #require(try await store.collection(named: "other", create: true))
        var ids: [Int64: Int] = [:]
        for (index, text) in passages.enumerated() {
            let collection = index == 7 ? other.id : main.id
            let document = try await store.save(draft(collection, index), chunks: [chunk(text)], embeddings: [[1, 0]], replacing: nil)
            for passage in try await store.chunks(of: document.id) { ids[passage.id] = index }
        }
        return (ids, main.id)
    }

    @Test func bm25InSQLRanksAndScoresAsFTS5() async throws {
        let sqlite = try KnowledgeStore.inMemory()
        let embedded = try await Self.fill(sqlite)
        try await TestDatabase.withMigrated { database in
            let postgres = PostgresKnowledgeBase(database: database)
            let shared = try await Self.fill(postgres)
            var compared = 0
            for question in Self.questions {
                for (embeddedCollection, sharedCollection) in [(nil, nil), (embedded.collection, shared.collection)] as [(Int64?, Int64?)] {
                    let expected = try sqlite.lexicalSearch(question, collectionID: embeddedCollection, limit: 20)
                    let found = try await postgres.lexicalSearch(question, collectionID: sharedCollection, documentID: nil, limit: 20)
                    // Same passages with the same scores (ties may come in either order).
                    let want = expected.map { (embedded.ids[$0.chunkID]!, $0.score) }.sorted { $0.0 < $1.0 }
                    let got = found.map { (shared.ids[$0.chunkID]!, $0.score) }.sorted { $0.0 < $1.0 }
                    #expect(want.map(\.0) == got.map(\.0), "\(question): FTS5 \(want), SQL \(got)")
                    for (a, b) in zip(want, got) { #expect(abs(a.1 - b.1) <= 1e-9 * max(1, abs(a.1)), "\(question): \(a) vs \(b)") }
                    #expect(zip(found, found.dropFirst()).allSatisfy { $0.score >= $1.score }, "best first")
                    compared += want.count
                }
            }
            #expect(compared > 40)
            // A passage of one document only.
            let isclose = try #require(shared.ids.first { $0.value == 2 }?.key)
            let document = try #require(try await postgres.chunks(ids: [isclose]).first?.documentID)
            #expect(try await postgres.lexicalSearch("Python", collectionID: nil, documentID: document, limit: 5).map(\.chunkID) == [isclose])
        }
    }

    @Test func ownersSeeOnlyTheirOwnAndScoreByTheirOwnPassages() async throws {
        try await TestDatabase.withMigrated { database in
            let ada = PostgresKnowledgeBase(database: database, owner: "users/1")
            let bo = PostgresKnowledgeBase(database: database, owner: "users/2")
            let adas = try await Self.fill(ada)
            let mine = try #require(try await bo.collection(named: "main", create: true))
            #expect(mine.id != adas.collection)
            try await bo.setEmbedding(model: "m", dimension: 2, for: mine.id)
            try await bo.save(Self.draft(mine.id, 0), chunks: [Self.chunk("Kestrels and bananas in Paris")], embeddings: [[0, 1]], replacing: nil)

            #expect(try await bo.collections().map(\.name) == ["main"])
            #expect(try await bo.documents().count == 1)
            #expect(try await bo.lexicalSearch("bananas", collectionID: nil, documentID: nil, limit: 10).count == 1)
            #expect(try await bo.document(id: try #require(try await ada.documents().first).id) == nil)
            #expect(try await bo.chunks(ids: Array(adas.ids.keys)).isEmpty)
            try await bo.removeDocument(try #require(try await ada.documents().first).id)
            #expect(try await ada.documents().count == Self.passages.count)
            let nearest = try await bo.vectorStore(policy: IndexPolicy()).query([1, 0], k: 10, namespace: nil, documentID: nil)
            #expect(nearest.count == 1)

            // Ada's scores are those of a file holding only her passages.
            let alone = try KnowledgeStore.inMemory()
            let embedded = try await Self.fill(alone)
            let expected = try alone.lexicalSearch("bananas", collectionID: nil, limit: 5).map { (embedded.ids[$0.chunkID]!, $0.score) }
            let found = try await ada.lexicalSearch("bananas", collectionID: nil, documentID: nil, limit: 5).map { (adas.ids[$0.chunkID]!, $0.score) }
            #expect(expected.map(\.0) == found.map(\.0))
            #expect(abs((expected.first?.1 ?? 0) - (found.first?.1 ?? 1)) < 1e-9)

            // An account removed: its knowledge base goes, the other stays.
            try await bo.removeEverything()
            #expect(try await bo.collections().isEmpty)
            #expect(try await bo.documents().isEmpty)
            #expect(try await bo.lexicalSearch("bananas", collectionID: nil, documentID: nil, limit: 10).isEmpty)
            #expect(try await ada.documents().count == Self.passages.count)
        }
    }

    @Test func instancesWritingAtOnceLoseNothing() async throws {
        try await TestDatabase.with { url in
            // Two pools, as two `sibyl serve` instances would have.
            let first = try PostgresDatabase(url: url, maximumConnections: 4)
            let second = try PostgresDatabase(url: url, maximumConnections: 4)
            try await first.migrate()
            let stores = [PostgresKnowledgeBase(database: first), PostgresKnowledgeBase(database: second)]
            let collection = try #require(try await stores[0].collection(named: "shared", create: true))
            #expect(try await stores[1].collection(named: "SHARED", create: true)?.id == collection.id)
            try await stores[0].setEmbedding(model: "m", dimension: 2, for: collection.id)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let store = stores[index % 2]
                    group.addTask {
                        let text = Self.passages[index % Self.passages.count] + " copy \(index)"
                        try await store.save(Self.draft(collection.id, index), chunks: [Self.chunk(text), Self.chunk("tail \(index)")], embeddings: [[1, 0], [0, 1]], replacing: nil)
                    }
                }
                try await group.waitForAll()
            }
            // Remove and write at once as well.
            let documents = try await stores[1].documents(in: collection.id)
            #expect(documents.count == 40)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for document in documents.prefix(10) { group.addTask { try await stores[0].removeDocument(document.id) } }
                for index in 40..<50 {
                    group.addTask { try await stores[1].save(Self.draft(collection.id, index), chunks: [Self.chunk("late kestrel \(index)")], embeddings: [[1, 1]], replacing: nil) }
                }
                try await group.waitForAll()
            }
            #expect(try await stores[0].documents(in: collection.id).count == 40)
            // BM25's totals are what the passages say.
            let rows = try await first.client.query("""
                SELECT (SELECT passages FROM kb_lexical_totals WHERE owner = ''), (SELECT count(*) FROM kb_passage),
                       (SELECT tokens FROM kb_lexical_totals WHERE owner = ''), (SELECT coalesce(sum(lexical_length), 0) FROM kb_passage)::bigint,
                       (SELECT count(*) FROM kb_posting WHERE passage_id NOT IN (SELECT id FROM kb_passage))
                """)
            for try await (passages, counted, tokens, summed, orphans) in rows.decode((Int64, Int64, Int64, Int64, Int64).self) {
                #expect(passages == counted && counted == 70)
                #expect(tokens == summed)
                #expect(orphans == 0, "postings without their passage")
            }
            await first.close()
            await second.close()
        }
    }
}
