import Foundation
import Knowledge

/// Retrieval quality measured on a BEIR-format set.
public struct RetrievalEvaluation: Sendable {
    public var embeddingModel: String
    public var passages: Int
    public var queries: Int
    public var metrics: [SearchMode: RetrievalMetrics]
    public var elapsed: Duration
}

extension SibylRuntime {
    /// Measures retrieval (nDCG@10, Recall@1, Recall@10, MRR@10) on a BEIR-format set
    /// (corpus.jsonl, queries.jsonl, qrels/test.tsv) with the current embedder and search settings.
    public func evaluateRetrieval(directory: URL, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> RetrievalEvaluation {
        let set = try BEIRSet(directory: directory)
        let setup = try embeddingSetup()
        let evaluator = RetrievalEvaluator(embedder: setup.embedder, embeddingModel: setup.model, options: try retriever().options)
        let started = ContinuousClock.now
        let metrics = try await evaluator.evaluate(set, progress: progress)
        let evaluation = RetrievalEvaluation(embeddingModel: setup.model, passages: set.corpus.count, queries: set.queries.count, metrics: metrics, elapsed: ContinuousClock.now - started)
        log(.info, "eval", "evaluated \(directory.path)", details: Wire.RetrievalEvaluation(evaluation))
        return evaluation
    }
}
