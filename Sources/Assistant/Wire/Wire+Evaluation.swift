import Foundation
import Knowledge

extension Wire {
    /// Retrieval quality on a test set, per search mode.
    public struct RetrievalEvaluation: Sendable, Hashable, Codable {
        /// The metrics of one search mode.
        public struct Metrics: Sendable, Hashable, Codable {
            public var ndcgAt10: Double
            public var recallAt1: Double
            public var recallAt10: Double
            public var mrrAt10: Double
        }

        public var embeddingModel: String
        public var passages: Int
        public var queries: Int
        public var seconds: Double
        /// By mode: `hybrid`, `vector`, `lexical`.
        public var modes: [String: Metrics]

        public init(_ evaluation: Assistant.RetrievalEvaluation) {
            embeddingModel = evaluation.embeddingModel
            passages = evaluation.passages
            queries = evaluation.queries
            seconds = Double(evaluation.elapsed.milliseconds) / 1000
            modes = Dictionary(uniqueKeysWithValues: evaluation.metrics.map { mode, metrics in
                (mode.rawValue, Metrics(ndcgAt10: metrics.ndcgAt10, recallAt1: metrics.recallAt1, recallAt10: metrics.recallAt10, mrrAt10: metrics.mrrAt10))
            })
        }
    }
}
