import Foundation
import SibylCore
import Synchronization
import VectorIndex

/// How to rank passages for a question.
public enum SearchMode: String, Sendable, CaseIterable, Codable {
    /// Vector and BM25 rankings fused by reciprocal rank.
    case hybrid
    /// Cosine similarity of embeddings.
    case vector
    /// BM25 over the words.
    case lexical
}

/// Settings for retrieval.
public struct RetrievalOptions: Sendable, Hashable {
    /// The `k` of reciprocal-rank fusion: score = Σ weight / (k + rank).
    public var fusionK: Double
    public var vectorWeight: Double
    /// BM25 counts for less (see `RetrievalDefaults.lexicalWeight`).
    public var lexicalWeight: Double
    /// Candidates taken from each ranking before fusion.
    public var candidates: Int
    /// Exact search, HNSW, or chosen by collection size (HNSW from 20,000 passages).
    public var index: IndexChoice
    public var fusion: FusionMethod

    public init(fusionK: Double = 60, vectorWeight: Double = RetrievalDefaults.vectorWeight, lexicalWeight: Double = RetrievalDefaults.lexicalWeight, candidates: Int = 50, index: IndexChoice = .automatic, fusion: FusionMethod = .score) {
        self.fusion = fusion
        self.fusionK = fusionK
        self.vectorWeight = vectorWeight
        self.lexicalWeight = lexicalWeight
        self.candidates = candidates
        self.index = index
    }
}

/// A passage found for a question, with how each ranking saw it.
public struct SearchResult: Sendable, Hashable {
    public var chunk: StoredChunk
    public var document: StoredDocument
    /// The score the results are ordered by (fused, cosine or BM25, by mode).
    public var score: Double
    /// Cosine similarity to the question, when the vector ranking found it.
    public var vectorScore: Double?
    public var vectorRank: Int?
    /// BM25 score, when the lexical ranking found it.
    public var lexicalScore: Double?
    public var lexicalRank: Int?
}

/// Finds the passages that answer a question: vector search, BM25, or both fused.
public final class Retriever: Sendable {
    public let store: any KnowledgeBase
    let embedder: any Embedder
    public let options: RetrievalOptions
    /// Where vectors are searched: the embedded store unless another is given.
    public let vectors: any VectorStore

    public init(store: any KnowledgeBase, embedder: any Embedder, options: RetrievalOptions = RetrievalOptions(), vectors: (any VectorStore)? = nil) {
        self.store = store
        self.embedder = embedder
        self.options = options
        self.vectors = vectors ?? store.vectorStore(policy: IndexPolicy(choice: options.index))
    }

    /// The best passages for a question, best first.
    public func search(_ query: String, mode: SearchMode = .hybrid, collection: String? = nil, documentID: Int64? = nil, limit: Int = 8) async throws -> [SearchResult] {
        var collectionID: Int64?
        var namespace: String?
        if let collection {
            guard let found = try await store.collection(named: collection) else { throw KnowledgeError.unknownCollection(collection) }
            collectionID = found.id
            namespace = found.name
        }
        let depth = max(limit, options.candidates)
        var vectorHits: [(id: Int64, score: Double)] = []
        var lexicalHits: [(chunkID: Int64, score: Double)] = []
        if mode != .lexical {
            let queryVector = try await embedder.embed([query], options: EmbeddingOptions()).vectors.first ?? []
            vectorHits = try await vectors.query(queryVector, k: depth, namespace: namespace, documentID: documentID).map { ($0.id, $0.score) }
        }
        if mode != .vector {
            lexicalHits = try await store.lexicalSearch(query, collectionID: collectionID, documentID: documentID, limit: depth)
        }
        var vectorRanks: [Int64: (rank: Int, score: Double)] = [:]
        for (rank, hit) in vectorHits.enumerated() { vectorRanks[hit.id] = (rank + 1, hit.score) }
        var lexicalRanks: [Int64: (rank: Int, score: Double)] = [:]
        for (rank, hit) in lexicalHits.enumerated() { lexicalRanks[hit.chunkID] = (rank + 1, hit.score) }

        var scored: [(id: Int64, score: Double)]
        switch mode {
        case .vector: scored = vectorHits.map { ($0.id, $0.score) }
        case .lexical: scored = lexicalHits.map { ($0.chunkID, $0.score) }
        case .hybrid:
            var fused: [Int64: Double] = [:]
            // A question that names something (`math.isclose`) only matched passages holding the
            // name: those count as much as the closest meanings.
            let lexicalWeight = FTSQuery.requiredWords(in: query).isEmpty ? options.lexicalWeight : max(options.lexicalWeight, options.vectorWeight)
            switch options.fusion {
            case .rank:
                for (id, value) in vectorRanks { fused[id, default: 0] += options.vectorWeight / (options.fusionK + Double(value.rank)) }
                for (id, value) in lexicalRanks { fused[id, default: 0] += lexicalWeight / (options.fusionK + Double(value.rank)) }
            case .score:
                // Each ranking's candidates are scaled to 0…1 (best = 1, worst = 0), so neither
                // dominates just because its scores are spread more widely.
                for (id, value) in Self.scaled(vectorHits.map { ($0.id, $0.score) }) { fused[id, default: 0] += options.vectorWeight * value }
                for (id, value) in Self.scaled(lexicalHits.map { ($0.chunkID, $0.score) }) { fused[id, default: 0] += lexicalWeight * value }
            }
            scored = fused.map { ($0.key, $0.value) }.sorted { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        }
        scored = Array(scored.prefix(limit))
        let chunks = Dictionary(uniqueKeysWithValues: try await store.chunks(ids: scored.map(\.id)).map { ($0.id, $0) })
        var documents: [Int64: StoredDocument] = [:]
        var results: [SearchResult] = []
        for (id, score) in scored {
            guard let chunk = chunks[id] else { continue }
            if documents[chunk.documentID] == nil { documents[chunk.documentID] = try await store.document(id: chunk.documentID) }
            guard let document = documents[chunk.documentID] else { continue }
            results.append(SearchResult(
                chunk: chunk, document: document, score: score,
                vectorScore: vectorRanks[id]?.score, vectorRank: vectorRanks[id]?.rank,
                lexicalScore: lexicalRanks[id]?.score, lexicalRank: lexicalRanks[id]?.rank
            ))
        }
        return results
    }

    /// Min-max scaling of a ranking's scores.
    static func scaled(_ hits: [(Int64, Double)]) -> [Int64: Double] {
        guard let high = hits.map(\.1).max(), let low = hits.map(\.1).min() else { return [:] }
        let span = high - low
        return Dictionary(hits.map { ($0.0, span > 0 ? ($0.1 - low) / span : 1) }, uniquingKeysWith: max)
    }

}

/// The default vector store: vectors live in the knowledge base's SQLite file (written with their
/// document) and are searched in memory, exactly or with HNSW by collection size.
public final class EmbeddedVectorStore: VectorStore {
    let store: KnowledgeStore
    let policy: IndexPolicy
    private let indexes = Mutex<[Int64?: LoadedIndex]>([:])

    public init(store: KnowledgeStore, policy: IndexPolicy = IndexPolicy()) {
        self.store = store
        self.policy = policy
    }

    /// Vectors are written by `KnowledgeStore.save` in the document's transaction; this only drops
    /// the in-memory indexes so the next query sees them.
    public func upsert(_ records: [VectorRecord], namespace: String) async throws {
        invalidate()
    }

    public func remove(ids: [Int64], namespace: String) async throws {
        invalidate()
    }

    public func query(_ query: [Float], k: Int, namespace: String?, documentID: Int64?) async throws -> [VectorMatch] {
        var collectionID: Int64?
        if let namespace {
            guard let collection = try store.collection(named: namespace, create: false) else { throw KnowledgeError.unknownCollection(namespace) }
            collectionID = collection.id
        }
        // Documents added or removed since the index was loaded (here or in another process) make it stale.
        let revision = try store.revision()
        return try index(for: collectionID, revision: revision).search(query, k: k, documentID: documentID).map { VectorMatch(id: $0.id, score: $0.score) }
    }

    /// Forgets loaded vectors (after documents were added or removed in this process).
    public func invalidate() {
        indexes.withLock { $0.removeAll() }
    }

    private func index(for collectionID: Int64?, revision: Int64) throws -> LoadedIndex {
        if let cached = indexes.withLock({ $0[collectionID] }), cached.revision == revision { return cached }
        let index = try LoadedIndex(store: store, collectionID: collectionID, policy: policy, revision: revision)
        indexes.withLock { indexes in
            if let kept = indexes[collectionID], kept.revision > revision { return }
            indexes[collectionID] = index
        }
        return index
    }
}

/// A collection's vectors in memory: exact search for small collections, HNSW for large ones
/// (saved with the collection so it is built once, and rebuilt when the collection changed).
final class LoadedIndex: Sendable {
    private let index: (any NearestNeighbourIndex)?
    private let documentOf: [Int64: Int64]
    /// Which kind was used, for tests and diagnostics.
    let kind: IndexChoice
    /// The knowledge base's revision when the vectors were read.
    let revision: Int64

    init(store: KnowledgeStore, collectionID: Int64?, policy: IndexPolicy, revision: Int64) throws {
        self.revision = revision
        let vectors = try store.vectors(in: collectionID)
        documentOf = Dictionary(uniqueKeysWithValues: vectors.map { ($0.chunkID, $0.documentID) })
        guard let dimension = vectors.first?.vector.count else {
            index = nil
            kind = .exact
            return
        }
        kind = policy.resolvedChoice(forCount: vectors.count)
        let maxID = vectors.map(\.chunkID).max() ?? 0
        if kind == .hnsw, let collectionID, let saved = try store.savedIndex(for: collectionID),
           saved.kind == "hnsw", saved.chunkCount == vectors.count, saved.maxChunkID == maxID,
           let graph = try? HNSWIndex(serialized: saved.data, policy: policy), graph.dimension == dimension {
            index = graph
            return
        }
        let built = try policy.makeIndex(dimension: dimension, expectedCount: vectors.count)
        try built.add(ids: vectors.map(\.chunkID), vectors: vectors.map(\.vector))
        if let graph = built as? HNSWIndex, let collectionID {
            try store.saveIndex(SavedIndex(kind: "hnsw", chunkCount: vectors.count, maxChunkID: maxID, data: graph.serialized()), for: collectionID)
        }
        index = built
    }

    /// Top-k by inner product (vectors are L2-normalised, so this is cosine similarity).
    func search(_ query: [Float], k: Int, documentID: Int64?) -> [(id: Int64, score: Double)] {
        guard let index, query.count == index.dimension, k > 0 else { return [] }
        let hits: [SearchHit]
        if let documentID {
            hits = index.search(query, k: k, allowedIDs: Set(documentOf.filter { $0.value == documentID }.keys))
        } else {
            hits = index.search(query, k: k, filter: nil)
        }
        return hits.map { ($0.id, Double($0.score)) }
    }
}
