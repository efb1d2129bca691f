import Foundation
public import Knowledge
public import SibylCore

/// Finds the passages a question should be answered from, or says there are none good enough.
public struct DocumentGrounder: Sendable {
    public let retriever: Retriever
    /// The cosine similarity a passage needs to count as relevant.
    public var threshold: Double
    /// How many passages an answer gets.
    public var passages: Int

    /// A passage's successor in its section at most this long is given along with it: the short
    /// end of a section (a closing "New in version 3.5.", a "See also") belongs to what precedes it.
    public static let tailTokens = 160

    public init(retriever: Retriever, threshold: Double = RetrievalDefaults.threshold, passages: Int = RetrievalDefaults.passages) {
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
        let given = Set(relevant.map(\.chunk.id))
        var citations: [Citation] = []
        for (index, result) in relevant.enumerated() {
            citations.append(Citation(
                number: index + 1,
                documentTitle: result.document.displayName,
                documentPath: result.document.path,
                page: result.chunk.page,
                headingPath: result.chunk.headingPath,
                quote: try await withTail(result.chunk, leaving: given),
                score: result.vectorScore ?? result.score
            ))
        }
        return .grounded(Grounding(citations: citations, language: ReplyLanguage.of(question)), Array(relevant))
    }

    /// The passage's text, followed by its section's short last passage when that comes next
    /// and is not given on its own.
    private func withTail(_ chunk: StoredChunk, leaving given: Set<Int64>) async throws -> String {
        guard let next = try await retriever.store.chunk(documentID: chunk.documentID, ordinal: chunk.ordinal + 1),
              !given.contains(next.id), next.headingPath == chunk.headingPath, next.page == chunk.page,
              next.tokenCount <= Self.tailTokens else { return chunk.text }
        let following = try await retriever.store.chunk(documentID: chunk.documentID, ordinal: chunk.ordinal + 2)
        // Only a section's end: a short passage in the middle of a long section is not its tail.
        if let following, following.headingPath == next.headingPath, following.page == next.page { return chunk.text }
        // Passages overlap by a sentence or two: only what the tail adds.
        let added = next.text.dropFirst(max(0, chunk.endOffset - next.startOffset)).trimmingCharacters(in: .whitespacesAndNewlines)
        return added.isEmpty ? chunk.text : chunk.text + "\n\n" + added
    }

    /// Similar enough by meaning; with words only (no vector ranking), among the top lexical matches.
    private func isRelevant(_ result: SearchResult) -> Bool {
        if let similarity = result.vectorScore { return similarity >= threshold }
        return (result.lexicalRank ?? .max) <= 2
    }
}
