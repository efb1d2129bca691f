import Foundation
import SibylCore
import TestDatabase
import Testing
import VectorIndex
@testable import Knowledge

@Suite("Ingestion and retrieval", .timeLimit(.minutes(10)))
struct IngestionTests {
    let paris = "Paris is the capital of France. The Eiffel tower stands in Paris."
    let bananas = "Bananas are yellow fruit that grow in tropical countries."

    @Test(arguments: KnowledgeBackend.available)
    func addsSkipsUnchangedReplacesChangedAndDedupes(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let folder = try DocumentFolder()
            let a = try folder.write("a.txt", paris)
            let b = try folder.write("b.txt", bananas)
            let ingestor = makeIngestor(store)
            let first = try await ingestor.ingest([a, b], collection: "notes")
            #expect(first.added.count == 2)
            #expect(first.chunks == 2)

            let second = try await ingestor.ingest([a, b], collection: "notes")
            #expect(second.added.isEmpty && second.unchanged.count == 2)

            try folder.write("a.txt", paris + "\n\nLyon is another French city.")
            let copy = try folder.write("copy-of-b.txt", bananas)
            let third = try await ingestor.ingest([a, copy], collection: "notes")
            #expect(third.replaced.count == 1)
            #expect(third.duplicates.map(\.of) == [b.path])
            let documents = try await store.documents(in: try #require(try await store.collection(named: "notes")).id)
            #expect(documents.count == 2)
            #expect(try await store.lexicalSearch("Lyon", collectionID: nil, documentID: nil, limit: 5).count == 1)
            let collection = try #require(try await store.collection(named: "notes"))
            #expect(collection.embeddingModel == "hashing-64")
            #expect(collection.dimension == 64)
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func aBadFileIsReportedAndTheOthersGoOn(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let folder = try DocumentFolder()
            let good = try folder.write("good.txt", paris)
            let broken = try folder.write("broken.bad", "whatever")
            let empty = try folder.write("empty.txt", "")
            let summary = try await makeIngestor(store).ingest([broken, empty, good], collection: "c")
            #expect(summary.added.map(\.path) == [good.path])
            #expect(summary.failed.map(\.path) == [broken.path, empty.path])
            #expect(summary.failed[0].error == "this file is broken")
            #expect(summary.failed[1].error.contains("No text"))
            #expect(try await store.failures().count == 2)
            // A fixed file clears its failure.
            try folder.write("empty.txt", bananas)
            _ = try await makeIngestor(store).ingest([empty], collection: "c")
            #expect(try await store.failures().map(\.path) == [broken.path])
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func aDifferentEmbeddingModelIsAClearErrorUntilReindexed(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let folder = try DocumentFolder()
            let a = try folder.write("a.txt", paris)
            _ = try await makeIngestor(store).ingest([a], collection: "c")
            let other = HashingEmbedder(model: "hashing-32", dimension: 32)
            let b = try folder.write("b.txt", bananas)
            await #expect(throws: KnowledgeError.embeddingMismatch(collection: "c", stored: "hashing-64", storedDimension: 64, current: "hashing-32", currentDimension: 32)) {
                _ = try await makeIngestor(store, embedder: other).ingest([b], collection: "c")
            }
            let (documents, chunks) = try await makeIngestor(store, embedder: other).reindex(collection: "c")
            #expect(documents == 1 && chunks == 1)
            #expect(try await store.collection(named: "c")?.dimension == 32)
            let vectors = store.vectorStore(policy: IndexPolicy())
            #expect(try await vectors.query(HashingEmbedder(dimension: 32).vector(paris), k: 1, namespace: "c", documentID: nil).first.map { $0.score > 0.99 } == true)
            #expect(try await vectors.query(HashingEmbedder().vector(paris), k: 1, namespace: "c", documentID: nil).isEmpty)
            #expect(try await makeIngestor(store, embedder: other).ingest([b], collection: "c").added.count == 1)
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func embeddingsGoInBatches(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let folder = try DocumentFolder()
            let long = (0..<30).map { "Paragraph \($0) talks about topic number \($0) in some detail here." }.joined(separator: "\n\n")
            let file = try folder.write("long.txt", long)
            let embedder = HashingEmbedder()
            var ingestor = makeIngestor(store, embedder: embedder)
            ingestor.embeddingBatch = 4
            let summary = try await ingestor.ingest([file], collection: "c")
            let chunks = try #require(summary.added.first).chunkCount
            #expect(chunks > 4)
            #expect(embedder.calls.batches.allSatisfy { $0 <= 4 })
            #expect(embedder.calls.batches.reduce(0, +) == chunks)
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func searchModesAndFilters(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let folder = try DocumentFolder()
            let a = try folder.write("france.txt", paris)
            let b = try folder.write("fruit.txt", bananas)
            _ = try await makeIngestor(store).ingest([a], collection: "geo")
            _ = try await makeIngestor(store).ingest([b], collection: "food")
            let retriever = Retriever(store: store, embedder: HashingEmbedder())
            for mode in SearchMode.allCases {
                let results = try await retriever.search("What is the capital of France?", mode: mode, limit: 5)
                #expect(results.first?.document.path == a.path, "\(mode)")
            }
            let hybrid = try await retriever.search("capital of France", limit: 5)
            #expect(hybrid.first?.vectorRank == 1 && hybrid.first?.lexicalRank == 1)
            #expect(try await retriever.search("capital of France", collection: "food", limit: 5).allSatisfy { $0.document.path == b.path })
            await #expect(throws: KnowledgeError.unknownCollection("nope")) { try await retriever.search("x", collection: "nope") }
            let food = try #require(try await store.collection(named: "food"))
            let fruit = try #require(try await store.document(path: b.path, in: food.id))
            let onlyFruit = try await retriever.search("capital of France", documentID: fruit.id, limit: 5)
            #expect(onlyFruit.allSatisfy { $0.document.path == b.path })
        }
    }

    @Test(arguments: KnowledgeBackend.available)
    func rankFusionIsAvailableToo(_ backend: KnowledgeBackend) async throws {
        try await backend.with { store in
            let folder = try DocumentFolder()
            _ = try await makeIngestor(store).ingest([try folder.write("france.txt", paris), try folder.write("fruit.txt", bananas)], collection: "c")
            let retriever = Retriever(store: store, embedder: HashingEmbedder(), options: RetrievalOptions(lexicalWeight: 1, fusion: .rank))
            let results = try await retriever.search("Eiffel tower", limit: 2)
            #expect(results.first?.document.displayName == "france")
            #expect(abs(results[0].score - 2.0 / 61) < 1e-9)
        }
    }

    @Test func discoveryExpandsFoldersAndGlobs() throws {
        let folder = try DocumentFolder()
        try folder.write("a.md", "x")
        try folder.write("sub/b.txt", "x")
        try folder.write("sub/.hidden.txt", "x")
        try folder.write("sub/image.xyz", "x")
        let result = FileDiscovery.files(from: [folder.url.path, folder.url.appendingPathComponent("*.md").path, "/no/such/place"])
        #expect(result.files.map(\.lastPathComponent) == ["a.md", "b.txt"])
        #expect(result.skipped.map(\.lastPathComponent) == ["image.xyz"])
        #expect(result.problems.map(\.input) == ["/no/such/place"])
    }
}
