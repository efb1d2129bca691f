import Assistant
import Foundation
import Knowledge
import PostgresStorage
import SibylApp
import SibylCore
import Synchronization

extension StoresBenchmark {
    /// Retrieval quality on a BEIR set (`scripts/eval/make-python-faq-set.py` makes the Python FAQ
    /// one) with the embedded knowledge base and with PostgreSQL's, the same embeddings and
    /// settings: nDCG@10, Recall@10 and MRR@10 per search mode, side by side. The two should agree
    /// to within 0.002 (BM25 and cosine are computed alike; HNSW and ties may differ).
    func compareRetrieval(setDirectory: String, url: DatabaseURL) async throws {
        let set = try BEIRSet(directory: URL(fileURLWithPath: setDirectory))
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["SIBYL_HOME"] = home.path
        environment["SIBYL_DATABASE_URL"] = nil
        let runtime = try SibylRuntime(environment: environment)
        let setup = try await runtime.documents.embedder()
        let evaluator = RetrievalEvaluator(
            embedder: RememberingEmbedder(wrapping: setup.embedder), embeddingModel: setup.model, options: runtime.documents.retrievalOptions
        )
        say("\nretrieval quality on \(setDirectory): \(set.corpus.count) passages, \(set.queries.count) questions, \(setup.model)")
        let clock = ContinuousClock()
        var start = clock.now
        let embedded = try await evaluator.evaluate(set)
        let embeddedTime = Statistics.seconds(clock.now - start)
        start = clock.now
        let shared = try await PostgresDatabase.with(url: url, maximumConnections: 2) { admin in
            try await admin.withScratchDatabase(prefix: "sibyl_bench") { scoped in
                try await PostgresDatabase.with(url: scoped, maximumConnections: 4) { database in
                    try await database.migrate()
                    return try await evaluator.evaluate(set, in: PostgresKnowledgeBase(database: database))
                }
            }
        }
        let sharedTime = Statistics.seconds(clock.now - start)
        await runtime.shutdown()
        say("mode     │ embedded nDCG@10 R@10   MRR@10 │ PostgreSQL nDCG@10 R@10   MRR@10 │ nDCG difference")
        var worst = 0.0
        for mode in SearchMode.allCases {
            guard let left = embedded[mode], let right = shared[mode] else { continue }
            let difference = right.ndcgAt10 - left.ndcgAt10
            worst = max(worst, abs(difference))
            say(mode.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                + String(format: "│ %16.4f %6.3f %6.3f │ %18.4f %6.3f %6.3f │ %+.4f", left.ndcgAt10, left.recallAt10, left.mrrAt10,
                         right.ndcgAt10, right.recallAt10, right.mrrAt10, difference))
        }
        say(String(format: "largest nDCG@10 difference %.4f (goal ≤ 0.002: %@); storing and searching took %.1f s embedded, %.1f s on PostgreSQL (embeddings computed once)",
                   worst, worst <= 0.002 ? "met" : "not met", embeddedTime, sharedTime))
    }
}

/// An embedder that computes each text once, so that two stores are filled with the same vectors
/// and the second costs no model time.
final class RememberingEmbedder: Embedder {
    let wrapped: any Embedder
    private let known = Mutex<[String: [Float]]>([:])

    init(wrapping embedder: any Embedder) {
        wrapped = embedder
    }

    func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        let missing = known.withLock { known in Array(Set(texts.filter { known[$0] == nil })) }
        if !missing.isEmpty {
            let computed = try await wrapped.embed(missing, options: options)
            known.withLock { known in
                for (text, vector) in zip(missing, computed.vectors) { known[text] = vector }
            }
        }
        let vectors = known.withLock { known in texts.map { known[$0] ?? [] } }
        return EmbeddingResult(vectors: vectors, model: "", promptTokens: nil)
    }
}
