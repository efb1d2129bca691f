import Foundation
import SibylCore
import TestFixtures
import Testing
@testable import TextEmbedding

/// The installed all-mpnet-base-v2 (`sibyl models install embeddings-large`). Its tests are
/// skipped when it is absent, unless `SIBYL_REQUIRE_ENGINES=1`, which makes its absence a failure.
enum InstalledMPNet {
    static let directory = SentenceModel.mpnet.defaultDirectory()
    static let runs = SentenceModel.mpnet.isInstalled(at: directory) || InstalledModel.required
    static let skipReason: Comment = "all-mpnet-base-v2 is not installed (sibyl models install embeddings-large, or $SIBYL_MPNET_DIR)"

    private static let shared: [SentenceEmbedder.Backend: Result<SentenceEmbedder, any Error>] = Dictionary(
        uniqueKeysWithValues: InstalledModel.backends.map { backend in
            (backend, Result { try SentenceEmbedder(modelDirectory: directory, model: .mpnet, threads: 2, backend: backend) })
        }
    )

    static func embedder(_ backend: SentenceEmbedder.Backend) throws -> SentenceEmbedder {
        try shared[backend]!.get()
    }
}

/// `Tests/Fixtures/mpnet-reference.json`, written by scripts/embeddings/mpnet-reference.py with
/// sentence-transformers: texts with their token ids and vectors.
struct MPNetReference: Decodable {
    struct Item: Decodable {
        var text: String
        var input_ids: [Int]
        var embedding: [Float]
    }

    var items: [Item]

    static func load() throws -> MPNetReference {
        let file = try #require(RepositoryFile.locate("Tests/Fixtures/mpnet-reference.json"))
        return try JSONDecoder().decode(MPNetReference.self, from: Data(contentsOf: file))
    }
}

@Suite(.timeLimit(.minutes(10)), .enabled(if: InstalledMPNet.runs, InstalledMPNet.skipReason))
struct MPNetReferenceTests {
    @Test func tokenIDsMatchTheReferenceExactly() throws {
        let embedder = try InstalledMPNet.embedder(.blas)
        let items = try MPNetReference.load().items
        #expect(items.count >= 22)
        #expect(items.contains { $0.input_ids.count == 384 }, "one input is cut at the model's 384 tokens")
        for item in items {
            #expect(embedder.tokenize(item.text) == item.input_ids, "\(item.text.prefix(60))")
        }
    }

    @Test(arguments: InstalledModel.backends)
    func vectorsMatchTheReferenceInOneBatch(backend: SentenceEmbedder.Backend) async throws {
        let embedder = try InstalledMPNet.embedder(backend)
        let items = try MPNetReference.load().items
        let result = try await embedder.embed(items.map(\.text), options: EmbeddingOptions())
        #expect(result.model == "all-mpnet-base-v2")
        #expect(result.promptTokens == items.reduce(0) { $0 + $1.input_ids.count })
        for (item, vector) in zip(items, result.vectors) {
            #expect(vector.count == 768)
            #expect(cosine(vector, item.embedding) >= 0.9999, "\(item.text.prefix(60))")
        }
    }

    @Test(arguments: InstalledModel.backends)
    func vectorsMatchTheReferenceOneByOne(backend: SentenceEmbedder.Backend) async throws {
        let embedder = try InstalledMPNet.embedder(backend)
        for item in try MPNetReference.load().items {
            let vector = try await embedder.embed([item.text], options: EmbeddingOptions()).vectors[0]
            #expect(cosine(vector, item.embedding) >= 0.9999, "\(item.text.prefix(60))")
        }
    }

    @Test func theEmbedderAnswersOnlyForItsOwnModelAndSize() async throws {
        let embedder = try InstalledMPNet.embedder(.blas)
        await #expect(throws: MiniLMError.unsupportedModel("all-MiniLM-L6-v2", runs: "all-mpnet-base-v2")) {
            _ = try await embedder.embed(["x"], options: EmbeddingOptions(model: "all-MiniLM-L6-v2"))
        }
        await #expect(throws: MiniLMError.unsupportedDimensions(384, model: "all-mpnet-base-v2", makes: 768)) {
            _ = try await embedder.embed(["x"], options: EmbeddingOptions(dimensions: 384))
        }
        let named = try await embedder.embed(["x"], options: EmbeddingOptions(model: "sentence-transformers/all-mpnet-base-v2"))
        #expect(named.vectors[0].count == 768)
    }

    @Test func miniLMWeightsAreRefusedAsMPNet() throws {
        #expect(throws: MiniLMError.self) {
            _ = try SentenceEmbedder(modelDirectory: InstalledModel.directory, model: .mpnet, backend: .blas)
        }
    }
}

/// MPNet's relative position buckets (no model needed): the values the reference computes.
struct RelativeBucketTests {
    @Test func bucketsAreExactNearAndLogarithmicFar() {
        func bucket(_ distance: Int) -> Int { EncoderShape.relativeBucket(distance: distance, buckets: 32, maxDistance: 128) }
        // From transformers' MPNetEncoder.relative_position_bucket(distance, 32, 128): keys after
        // the query (distance > 0) fall in the upper half, keys before it in the lower.
        #expect(bucket(0) == 0)
        #expect((1...7).map(bucket) == Array(17...23))
        #expect([8, 11, 12, 16, 22, 23, 32, 45, 64, 90, 127, 128, 500].map(bucket) == [24, 24, 25, 26, 26, 27, 28, 28, 30, 30, 31, 31, 31])
        #expect([-1, -7, -16, -500].map(bucket) == [1, 7, 10, 15])
    }
}
