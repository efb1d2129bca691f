import Foundation
import SibylCore
import TestDatabase
import Testing
@testable import Knowledge

/// Copying a knowledge base between back ends: whole, checked, and resumable.
@Suite("Knowledge copy", .timeLimit(.minutes(10)))
struct KnowledgeCopyTests {
    /// A data directory's knowledge base: two collections, a replaced document, a failure.
    static func source() async throws -> KnowledgeStore {
        let store = try KnowledgeStore.inMemory()
        let folder = try DocumentFolder()
        let ingestor = makeIngestor(store)
        _ = try await ingestor.ingest([
            try folder.write("paris.txt", "Paris is the capital of France.\n\nThe Eiffel tower was finished in 1889."),
            try folder.write("bananas.txt", "Bananas are yellow fruit.\n\nThey grow in tropical countries and are rich in potassium."),
            try folder.write("broken.bad", "x"),
        ], collection: "notes")
        _ = try await ingestor.ingest([try folder.write("kestrel.txt", "A kestrel hovers over fields looking for voles.")], collection: "Birds")
        return store
    }

    @Test(arguments: KnowledgeBackend.available)
    func aCopyIsWholeCheckedAndSearchesAlike(_ backend: KnowledgeBackend) async throws {
        let source = try await Self.source()
        try await backend.with { destination in
            let report = try await KnowledgeCopy.copy(from: source, to: destination)
            #expect(report.collections == 2 && report.copied == 3 && report.alreadyThere == 0 && report.failures == 1)
            #expect(report.mismatches.isEmpty)
            #expect(report.passages == (try await source.documents()).reduce(0) { $0 + $1.chunkCount })
            #expect(try await destination.collections().map(\.name) == ["Birds", "notes"])
            let notes = try #require(try await destination.collection(named: "notes"))
            #expect(notes.embeddingModel == "hashing-64" && notes.dimension == 64)
            #expect(try await destination.failures().map(\.error) == ["this file is broken"])
            // Same documents (metadata and when they were added), same search results and scores.
            let originals = try await source.documents().sorted { $0.path < $1.path }
            let copies = try await destination.documents().sorted { $0.path < $1.path }
            #expect(originals.map(\.path) == copies.map(\.path))
            for (original, copy) in zip(originals, copies) {
                #expect(original.contentHash == copy.contentHash && original.chunkCount == copy.chunkCount && original.title == copy.title)
                #expect(abs(original.addedAt.timeIntervalSince(copy.addedAt)) < 0.001)
                #expect(try await KnowledgeCopy.fingerprint(of: original, in: source) == KnowledgeCopy.fingerprint(of: copy, in: destination))
            }
            for question in ["capital of France", "potassium bananas", "kestrel voles"] {
                let before = try await Retriever(store: source, embedder: HashingEmbedder()).search(question, limit: 3)
                let after = try await Retriever(store: destination, embedder: HashingEmbedder()).search(question, limit: 3)
                #expect(before.map(\.chunk.text) == after.map(\.chunk.text), "\(question)")
                #expect(zip(before, after).allSatisfy { abs($0.score - $1.score) < 1e-6 }, "\(question)")
            }

            // Again (as after an interruption): nothing copied twice.
            let again = try await KnowledgeCopy.copy(from: source, to: destination)
            #expect(again.copied == 0 && again.alreadyThere == 3 && again.mismatches.isEmpty)
            #expect(try await destination.documents().count == 3)

            // A document that differs in the destination (a half-made copy by other means) is replaced.
            let paris = try #require(copies.first { $0.path.hasSuffix("paris.txt") })
            try await destination.save(
                DocumentDraft(collectionID: notes.id, path: paris.path, title: nil, format: .text, contentHash: paris.contentHash, byteCount: 1,
                              pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings()),
                chunks: [ChunkDraft(text: "something else", tokenCount: 2, page: nil, headingPath: [], startOffset: 0, endOffset: 14)],
                embeddings: [HashingEmbedder().vector("something else")], replacing: paris.id
            )
            let mended = try await KnowledgeCopy.copy(from: source, to: destination)
            #expect(mended.copied == 1 && mended.alreadyThere == 2)
            #expect(try await destination.lexicalSearch("Eiffel", collectionID: nil, documentID: nil, limit: 3).count == 1)
        }
    }

    @Test func aCollectionEmbeddedWithAnotherModelIsRefused() async throws {
        let source = try await Self.source()
        let destination = try KnowledgeStore.inMemory()
        let notes = try #require(try destination.collection(named: "notes", create: true))
        try destination.setEmbedding(model: "other", dimension: 3, for: notes.id)
        await #expect(throws: KnowledgeError.embeddingMismatch(collection: "notes", stored: "other", storedDimension: 3, current: "hashing-64", currentDimension: 64)) {
            _ = try await KnowledgeCopy.copy(from: source, to: destination)
        }
        #expect(try destination.documents(in: notes.id).isEmpty)
    }
}
