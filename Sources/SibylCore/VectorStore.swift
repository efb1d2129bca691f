/// A vector and what retrieval filters it by.
public struct VectorRecord: Sendable, Hashable {
    /// The chunk the vector belongs to.
    public var id: Int64
    public var documentID: Int64
    public var vector: [Float]

    public init(id: Int64, documentID: Int64, vector: [Float]) {
        self.id = id
        self.documentID = documentID
        self.vector = vector
    }
}

/// A nearest-neighbour match.
public struct VectorMatch: Sendable, Hashable {
    public var id: Int64
    /// Inner product with the query (cosine similarity for normalised vectors).
    public var score: Double

    public init(id: Int64, score: Double) {
        self.id = id
        self.score = score
    }
}

/// Where a knowledge base's vectors are searched: embedded (SQLite + in-memory index) by default,
/// or a server such as pgvector or Pinecone. Namespaces are collections.
public protocol VectorStore: Sendable {
    /// Adds or replaces vectors.
    func upsert(_ records: [VectorRecord], namespace: String) async throws
    /// Removes vectors by chunk id.
    func remove(ids: [Int64], namespace: String) async throws
    /// The `k` nearest vectors to `query`, best first; all namespaces when `namespace` is nil.
    func query(_ query: [Float], k: Int, namespace: String?, documentID: Int64?) async throws -> [VectorMatch]
}
