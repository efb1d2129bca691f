import Foundation
import SibylCore
import TestFixtures
import Testing
import TextEmbedding

/// Agreement with sentence-transformers on `shared/fixtures/minilm-reference.json`.
/// Skipped where the shared fixtures are not beside the checkout (they are not part of it).
@Suite(
    .timeLimit(.minutes(10)), .enabled(if: InstalledModel.runs, InstalledModel.skipReason),
    .enabled(if: MiniLMReference.location != nil, "shared/fixtures/minilm-reference.json not found beside the checkout; set SIBYL_FIXTURES")
)
struct MiniLMReferenceTests {
    @Test func fixtureIsPresent() throws {
        let reference = try MiniLMReference.load()
        #expect(reference.items.count >= 20)
    }

    @Test func tokenIDsMatchTheReferenceExactly() throws {
        let embedder = try InstalledModel.embedder()
        for item in try MiniLMReference.load().items {
            #expect(embedder.tokenize(item.text) == item.input_ids, "\(item.text.prefix(60))")
        }
    }

    @Test(arguments: InstalledModel.backends)
    func vectorsMatchTheReferenceInOneBatch(backend: SentenceEmbedder.Backend) async throws {
        let embedder = try InstalledModel.embedder(backend)
        let items = try MiniLMReference.load().items
        let result = try await embedder.embed(items.map(\.text), options: EmbeddingOptions())
        #expect(result.vectors.count == items.count)
        #expect(result.model == "all-MiniLM-L6-v2")
        #expect(result.promptTokens == items.reduce(0) { $0 + $1.input_ids.count })
        for (item, vector) in zip(items, result.vectors) {
            #expect(vector.count == SentenceModel.miniLM.dimension)
            #expect(cosine(vector, item.embedding) >= 0.9999, "\(item.text.prefix(60))")
        }
    }

    @Test(arguments: InstalledModel.backends)
    func vectorsMatchTheReferenceOneByOne(backend: SentenceEmbedder.Backend) async throws {
        let embedder = try InstalledModel.embedder(backend)
        for item in try MiniLMReference.load().items {
            let vector = try await embedder.embed([item.text], options: EmbeddingOptions()).vectors[0]
            #expect(cosine(vector, item.embedding) >= 0.9999, "\(item.text.prefix(60))")
        }
    }

    @Test func exampleSentenceStartsAsDocumented() async throws {
        let embedder = try InstalledModel.embedder()
        let vector = try await embedder.embed(["This is an example sentence"], options: EmbeddingOptions()).vectors[0]
        let expected: [Float] = [0.0677, 0.0635, 0.0487, 0.0793, 0.0374, 0.0027]
        for (value, reference) in zip(vector, expected) {
            #expect(abs(value - reference) < 1e-4)
        }
    }
}
