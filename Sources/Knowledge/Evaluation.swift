import Foundation
import SibylCore

/// A retrieval test set in BEIR's layout: `corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`.
public struct BEIRSet: Sendable {
    public struct Passage: Sendable {
        public var id: String
        public var title: String
        public var text: String
    }

    public var corpus: [Passage]
    /// Query id → text.
    public var queries: [String: String]
    /// Query id → relevant passage id → relevance grade.
    public var judgements: [String: [String: Int]]

    /// Reads a BEIR directory; queries without judgements are left out.
    public init(directory: URL) throws {
        func lines(_ name: String) throws -> [Substring] {
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw EvaluationError.missingFile(url.path) }
            return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
        }
        func object(_ line: Substring, in file: String) throws -> [String: Any] {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                throw EvaluationError.malformed(file: file, line: String(line.prefix(80)))
            }
            return object
        }
        corpus = try lines("corpus.jsonl").map { line in
            let item = try object(line, in: "corpus.jsonl")
            guard let id = item["_id"] as? String, let text = item["text"] as? String else { throw EvaluationError.malformed(file: "corpus.jsonl", line: String(line.prefix(80))) }
            return Passage(id: id, title: item["title"] as? String ?? "", text: text)
        }
        var queries: [String: String] = [:]
        for line in try lines("queries.jsonl") {
            let item = try object(line, in: "queries.jsonl")
            guard let id = item["_id"] as? String, let text = item["text"] as? String else { throw EvaluationError.malformed(file: "queries.jsonl", line: String(line.prefix(80))) }
            queries[id] = text
        }
        var judgements: [String: [String: Int]] = [:]
        for line in try lines("qrels/test.tsv") {
            let columns = line.split(separator: "\t").map(String.init)
            guard columns.count >= 3, let grade = Int(columns[2]) else { continue }  // the header, or a malformed row
            judgements[columns[0], default: [:]][columns[1]] = grade
        }
        self.queries = queries.filter { judgements[$0.key] != nil }
        self.judgements = judgements
        guard !corpus.isEmpty, !self.queries.isEmpty else { throw EvaluationError.empty(directory.path) }
    }
}

/// Retrieval quality, averaged over queries.
public struct RetrievalMetrics: Sendable, Hashable {
    public var ndcgAt10: Double
    public var recallAt1: Double
    public var recallAt10: Double
    /// Mean reciprocal rank of the first relevant passage within the top 10.
    public var mrrAt10: Double
    public var queries: Int
}

/// Problems reading an evaluation set.
public enum EvaluationError: Error, LocalizedError, Equatable {
    case missingFile(String)
    case malformed(file: String, line: String)
    case empty(String)
    case missingAnswerSetPart(String)
    case malformedQuestion(String)
    case unknownSource(question: String, source: String)

    public var errorDescription: String? {
        switch self {
        case .missingAnswerSetPart(let path): "\(path) is missing or empty: an answer set has a documents folder and questions.jsonl."
        case .malformedQuestion(let line): "questions.jsonl has a line that is not a JSON object with \"id\" and \"question\": \(line)"
        case .unknownSource(let question, let source): "Question \(question) names the source \(source), which is not a file in the set's documents folder."
        case .missingFile(let path): "\(path) is missing: a BEIR set has corpus.jsonl, queries.jsonl and qrels/test.tsv."
        case .malformed(let file, let line): "\(file) has a line that is not a JSON object with \"_id\" and \"text\": \(line)"
        case .empty(let path): "\(path) has no passages or no judged queries."
        }
    }
}

/// Scores vector, BM25 and hybrid retrieval on a BEIR set.
///
/// Each passage is stored whole as one chunk (BEIR judges passages, not pieces of them); the
/// embedder reads as much of it as it can, as the reference figures did. (Cutting passages into
/// chunks and ranking each passage by its best chunk was measured too: slightly worse here.)
public struct RetrievalEvaluator: Sendable {
    public let embedder: any Embedder
    public let embeddingModel: String
    public var options: RetrievalOptions

    public init(embedder: any Embedder, embeddingModel: String, options: RetrievalOptions = RetrievalOptions()) {
        self.embedder = embedder
        self.embeddingModel = embeddingModel
        self.options = options
    }

    /// Scores each mode over the set, stored in `store` (an empty knowledge base: in memory when
    /// none is given).
    public func evaluate(_ set: BEIRSet, modes: [SearchMode] = SearchMode.allCases, in store: (any KnowledgeBase)? = nil, progress: @Sendable (String) -> Void = { _ in }) async throws -> [SearchMode: RetrievalMetrics] {
        let store = try store ?? KnowledgeStore.inMemory()
        guard let collection = try await store.collection(named: "eval", create: true) else { return [:] }
        progress("Embedding \(set.corpus.count) passages")
        let texts = set.corpus.map { $0.title.isEmpty ? $0.text : "\($0.title)\n\n\($0.text)" }
        var vectors: [[Float]] = []
        for start in stride(from: 0, to: texts.count, by: 64) {
            vectors += try await embedder.embed(Array(texts[start..<min(texts.count, start + 64)]), options: EmbeddingOptions()).vectors
        }
        try await store.setEmbedding(model: embeddingModel, dimension: vectors.first?.count ?? 0, for: collection.id)
        for ((passage, text), vector) in zip(zip(set.corpus, texts), vectors) {
            let draft = DocumentDraft(collectionID: collection.id, path: passage.id, title: passage.title, format: .text, contentHash: passage.id,
                                      byteCount: Int64(text.utf8.count), pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings())
            let chunk = ChunkDraft(text: text, tokenCount: 0, page: nil, headingPath: [], startOffset: 0, endOffset: text.count)
            try await store.save(draft, chunks: [chunk], embeddings: [vector], replacing: nil)
        }
        let retriever = Retriever(store: store, embedder: embedder, options: options)
        var results: [SearchMode: RetrievalMetrics] = [:]
        for mode in modes {
            progress("Searching \(set.queries.count) queries (\(mode.rawValue))")
            var ndcg = 0.0, recall1 = 0.0, recall10 = 0.0, mrr = 0.0
            for (id, query) in set.queries.sorted(by: { $0.key < $1.key }) {
                let ranked = try await retriever.search(query, mode: mode, limit: 10).map(\.document.path)
                let relevant = set.judgements[id] ?? [:]
                (ndcg, recall1, recall10, mrr) = Self.accumulate(ranked: ranked, relevant: relevant, into: (ndcg, recall1, recall10, mrr))
            }
            let count = Double(set.queries.count)
            results[mode] = RetrievalMetrics(ndcgAt10: ndcg / count, recallAt1: recall1 / count, recallAt10: recall10 / count, mrrAt10: mrr / count, queries: set.queries.count)
        }
        return results
    }

    /// Adds one query's scores: nDCG@10 with graded gains (2^g − 1), recall@1/@10 of the relevant set, reciprocal rank.
    static func accumulate(ranked: [String], relevant: [String: Int], into totals: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        let positives = relevant.filter { $0.value > 0 }
        guard !positives.isEmpty else { return totals }
        var dcg = 0.0
        for (rank, id) in ranked.prefix(10).enumerated() {
            if let grade = positives[id] { dcg += (pow(2, Double(grade)) - 1) / log2(Double(rank) + 2) }
        }
        let ideal = positives.values.sorted(by: >).prefix(10).enumerated().reduce(0.0) { $0 + (pow(2, Double($1.element)) - 1) / log2(Double($1.offset) + 2) }
        let hits1 = Double(ranked.prefix(1).filter { positives[$0] != nil }.count)
        let hits10 = Double(ranked.prefix(10).filter { positives[$0] != nil }.count)
        let firstRank = ranked.prefix(10).firstIndex { positives[$0] != nil }
        return (
            totals.0 + (ideal > 0 ? dcg / ideal : 0),
            totals.1 + hits1 / Double(min(positives.count, 1)),
            totals.2 + hits10 / Double(positives.count),
            totals.3 + (firstRank.map { 1 / Double($0 + 1) } ?? 0)
        )
    }
}
