import Foundation
import Knowledge
import PostgresStorage
import SibylCore
import Synchronization

extension StoresBenchmark {
    /// Hybrid search (vectors and BM25, fused) through the retriever on both knowledge bases,
    /// filled with the same synthetic passages: ingest rate, then single-query latency p50/p99.
    func measureHybrid(passages count: Int, url: DatabaseURL) async throws {
        let clock = ContinuousClock()
        var start = clock.now
        let corpus = SyntheticCorpus(count: count, queries: 200, dimension: dimension, seed: seed)
        say(String(format: "\nhybrid search on %d synthetic passages (%d-word Zipf vocabulary, %.0f words each on average, clustered %d-d vectors); made in %.1f s",
                   count, SyntheticCorpus.vocabularySize, corpus.averageWords, dimension, Statistics.seconds(clock.now - start)))
        let embedder = LookupEmbedder(vectors: Dictionary(zip(corpus.questions, corpus.questionVectors), uniquingKeysWith: { first, _ in first }))

        var embeddedTimes = (first: (p50: Double.nan, p99: Double.nan), again: (p50: Double.nan, p99: Double.nan))
        if !postgresOnly {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let embedded = try KnowledgeStore(path: folder.appendingPathComponent("knowledge.sqlite").path)
            start = clock.now
            try await corpus.load(into: embedded)
            let embeddedLoad = Statistics.seconds(clock.now - start)
            say(String(format: "embedded: stored in %.1f s (%.0f passages per second)", embeddedLoad, Double(count) / embeddedLoad))
            embeddedTimes = try await timeQueries(Retriever(store: embedded, embedder: embedder), corpus: corpus)
            say(String(format: "embedded: hybrid search p50 %.2f ms / p99 %.2f ms; asked again: p50 %.2f ms / p99 %.2f ms",
                       embeddedTimes.first.p50, embeddedTimes.first.p99, embeddedTimes.again.p50, embeddedTimes.again.p99))
        }

        let shared = try await PostgresDatabase.with(url: url, maximumConnections: 2) { admin in
            try await admin.withDatabase(kept: keepDatabase, reused: reuseDatabase, prefix: "sibyl_bench") { scoped in
                try await PostgresDatabase.with(url: scoped, maximumConnections: 4) { database in
                    if reuseDatabase != nil {
                        say("PostgreSQL: reusing the database \(scoped.database) as an earlier run left it")
                        return try await timeQueries(Retriever(store: PostgresKnowledgeBase(database: database), embedder: embedder), corpus: corpus)
                    }
                    try await database.migrate()
                    let base = PostgresKnowledgeBase(database: database)
                    // A bulk load: the HNSW index is built once the vectors are in.
                    try await base.prepareVectors(dimension: dimension, index: false)
                    let started = clock.now
                    try await corpus.load(into: base)
                    let load = Statistics.seconds(clock.now - started)
                    let indexed = clock.now
                    try await base.buildVectorIndex(dimension: dimension, memory: Self.graphMemory(count: count, dimension: dimension))
                    say(String(format: "PostgreSQL: stored in %.1f s (%.0f passages per second: passages, words and vectors, a transaction per 1,000); HNSW built and the tables vacuumed in %.1f s",
                               load, Double(count) / load, Statistics.seconds(clock.now - indexed)))
                    return try await timeQueries(Retriever(store: base, embedder: embedder), corpus: corpus)
                }
            }
        }
        say(String(format: "hybrid search, %d questions each timed alone, first asked: embedded p50 %.2f ms / p99 %.2f ms; PostgreSQL p50 %.2f ms / p99 %.2f ms",
                   corpus.questions.count, embeddedTimes.first.p50, embeddedTimes.first.p99, shared.first.p50, shared.first.p99))
        say(String(format: "hybrid search, the same questions asked again: embedded p50 %.2f ms / p99 %.2f ms; PostgreSQL p50 %.2f ms / p99 %.2f ms (goal at 1M passages: ≤ 50 ms)",
                   embeddedTimes.again.p50, embeddedTimes.again.p99, shared.again.p50, shared.again.p99))
    }

    /// `maintenance_work_mem` with room for a whole HNSW graph of `count` vectors: a build that
    /// outgrows it goes on far more slowly.
    static func graphMemory(count: Int, dimension: Int) -> String {
        "\(max(1_024, count * dimension * 4 * 2 / 1_000_000))MB"
    }

    /// Times each question alone (after one untimed search that loads what needs loading), then
    /// all of them once more: the first pass reads what no question read before (from disk, when
    /// the data outgrew the memory loading it left warm), the second what a busy server keeps.
    private func timeQueries(_ retriever: Retriever, corpus: SyntheticCorpus) async throws -> (first: (p50: Double, p99: Double), again: (p50: Double, p99: Double)) {
        let clock = ContinuousClock()
        _ = try await retriever.search(corpus.questions[0], mode: .hybrid, limit: 10)
        var passes: [(p50: Double, p99: Double)] = []
        for _ in 0..<2 {
            var latencies: [Double] = []
            for question in corpus.questions {
                let start = clock.now
                _ = try await retriever.search(question, mode: .hybrid, limit: 10)
                latencies.append(Statistics.milliseconds(clock.now - start))
            }
            passes.append((Statistics.percentile(50, of: latencies), Statistics.percentile(99, of: latencies)))
        }
        return (passes[0], passes[1])
    }
}

extension PostgresDatabase {
    /// Runs `body` with a scratch database, or with the database `kept` names (made afresh and
    /// left for a look afterwards).
    func withDatabase<T>(kept: String?, reused: String? = nil, prefix: String, _ body: (DatabaseURL) async throws -> T) async throws -> T {
        if let reused {
            var scoped = url
            scoped.database = reused
            return try await body(scoped)
        }
        guard let kept else { return try await withScratchDatabase(prefix: prefix, body) }
        try await dropDatabase(kept)
        try await createDatabase(kept)
        var scoped = url
        scoped.database = kept
        return try await body(scoped)
    }
}

/// Passages of made-up words drawn from a Zipf distribution (as words in text are), with
/// clustered vectors, and questions of three to five mid-frequency words (content words, not the
/// commonest ones) with vectors from the same distribution. Seeded: every run sees the same.
struct SyntheticCorpus {
    static let vocabularySize = 30_000
    var texts: [String]
    var vectors: VectorBenchmarkData
    var questions: [String]
    var questionVectors: [[Float]]
    var averageWords: Double

    init(count: Int, queries: Int, dimension: Int, seed: UInt64) {
        var random = BenchmarkRandom(seed: seed &+ 0x7E47)
        let syllables = ["ka", "lo", "mi", "ner", "tu", "sa", "vel", "do", "ri", "pan", "ge", "os", "bri", "tam", "fe", "lun", "cor", "ish", "za", "mo"]
        var words: [String] = []
        var seen = Set<String>()
        while words.count < Self.vocabularySize {
            let length = 1 + Int(random.next() % 4)
            let word = (0..<length).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
            if seen.insert(word).inserted { words.append(word) }
        }
        // Zipf with exponent 1: rank r is drawn with weight 1 / r.
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 1...words.count {
            total += 1 / Double(rank)
            cumulative.append(total)
        }
        func draw(_ random: inout BenchmarkRandom) -> String {
            let target = Double(random.next() % 1_000_000_007) / 1_000_000_007 * total
            var low = 0, high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return words[low]
        }
        var wordCount = 0
        texts = (0..<count).map { _ in
            let length = 60 + Int(random.next() % 120)
            wordCount += length
            return (0..<length).map { _ in draw(&random) }.joined(separator: " ") + "."
        }
        averageWords = Double(wordCount) / Double(max(count, 1))
        let vectors = VectorBenchmarkData.make(.clustered, count: count, queryCount: queries, dimension: dimension, seed: seed)
        self.vectors = vectors
        questions = (0..<queries).map { _ in
            let length = 3 + Int(random.next() % 3)
            return (0..<length).map { _ in words[200 + Int(random.next() % 19_800)] }.joined(separator: " ")
        }
        questionVectors = (0..<queries).map { Array(vectors.queries[($0 * dimension)..<(($0 + 1) * dimension)]) }
    }

    /// Stores the passages as documents of 1,000 passages each.
    func load(into base: any KnowledgeBase) async throws {
        guard let collection = try await base.collection(named: "bench", create: true) else { return }
        try await base.setEmbedding(model: "synthetic", dimension: vectors.dimension, for: collection.id)
        let dimension = vectors.dimension
        for (number, first) in stride(from: 0, to: texts.count, by: 1_000).enumerated() {
            let range = first..<min(first + 1_000, texts.count)
            let draft = DocumentDraft(
                collectionID: collection.id, path: "/bench/\(number).txt", title: nil, format: .text, contentHash: "\(number)", byteCount: 0,
                pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings()
            )
            let chunks = range.map { ChunkDraft(text: texts[$0], tokenCount: 0, page: nil, headingPath: [], startOffset: 0, endOffset: 0) }
            let embeddings = range.map { Array(vectors.base[($0 * dimension)..<(($0 + 1) * dimension)]) }
            try await base.save(draft, chunks: chunks, embeddings: embeddings, replacing: nil)
        }
    }
}

/// An embedder that knows the vector of each benchmark question.
struct LookupEmbedder: Embedder {
    let vectors: [String: [Float]]

    func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        EmbeddingResult(vectors: texts.map { vectors[$0] ?? [] }, model: "synthetic", promptTokens: nil)
    }
}
