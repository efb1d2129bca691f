import Foundation
import Knowledge
import SibylCore

/// Finds the passages a question should be answered from, or says there are none good enough.
public struct DocumentGrounder: Sendable {
    public let retriever: Retriever
    /// The cosine similarity a passage needs to count as relevant.
    public var threshold: Double
    /// How many passages an answer gets.
    public var passages: Int

    /// The similarity a passage needs by default (`docs.threshold`).
    public static let defaultThreshold = 0.3
    /// Passages an answer gets by default (`docs.passages`).
    public static let defaultPassages = 5
    /// Passages an answer from the local chat model gets by default: it reads about 90 prompt
    /// tokens a second on 2 cores. On the python3.11-doc answer set (README) 3 passages kept the
    /// first word within 10 s (median 7.2 s, p90 9.3 s) for 67 % right answers; 5 gave 73 % but
    /// a median of 11.6 s.
    public static let localPassages = 3

    public init(retriever: Retriever, threshold: Double = DocumentGrounder.defaultThreshold, passages: Int = DocumentGrounder.defaultPassages) {
        self.retriever = retriever
        self.threshold = threshold
        self.passages = passages
    }

    public enum Outcome: Sendable {
        /// Relevant passages, numbered as the answer will cite them.
        case grounded(Grounding, [SearchResult])
        /// Nothing scored above the threshold; the closest passages, to show instead of an answer.
        case nothingRelevant(closest: [SearchResult], threshold: Double)
    }

    public func ground(_ question: String, collection: String?, mode: SearchMode = .hybrid) async throws -> Outcome {
        let results = try await retriever.search(question, mode: mode, collection: collection, limit: max(passages * 2, 10))
        let relevant = results.filter { mode == .lexical || isRelevant($0) }.prefix(passages)
        guard !relevant.isEmpty else {
            return .nothingRelevant(closest: Array(results.prefix(3)), threshold: threshold)
        }
        let citations = relevant.enumerated().map { index, result in
            Citation(
                number: index + 1,
                documentTitle: result.document.displayName,
                documentPath: result.document.path,
                page: result.chunk.page,
                headingPath: result.chunk.headingPath,
                quote: result.chunk.text,
                score: result.vectorScore ?? result.score
            )
        }
        return .grounded(Grounding(citations: citations, language: ReplyLanguage.of(question)), Array(relevant))
    }

    /// Similar enough by meaning; with words only (no vector ranking), among the top lexical matches.
    private func isRelevant(_ result: SearchResult) -> Bool {
        if let similarity = result.vectorScore { return similarity >= threshold }
        return (result.lexicalRank ?? .max) <= 2
    }
}
