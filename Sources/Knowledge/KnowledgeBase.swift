import Foundation
import SibylCore
import VectorIndex

/// Where a knowledge base keeps its collections, documents, passages, their vectors and the words
/// BM25 ranks them by. Two back ends: `KnowledgeStore` (a SQLite file per data directory, the
/// default) and `PostgresKnowledgeBase` (one PostgreSQL that several `sibyl serve` instances share).
///
/// Both keep the same promises: a document is written whole (passages, vectors, words) or not at
/// all; removing a document or a collection removes everything made from it; lexical scores are
/// BM25 with k1 = 1.2 and b = 0.75 over the same tokens (`LexicalTokenizer`), so the two rank alike.
public protocol KnowledgeBase: Sendable {
    /// The collection with this name (names compare without case), made when `create` is set.
    func collection(named name: String, create: Bool) async throws -> KnowledgeCollection?
    /// All collections, by name.
    func collections() async throws -> [KnowledgeCollection]
    /// Records the embedding model a collection's vectors come from.
    func setEmbedding(model: String, dimension: Int, for collectionID: Int64) async throws
    /// Deletes a collection and everything in it.
    func deleteCollection(_ id: Int64) async throws
    /// Gives a collection another name (its documents stay); fails when another collection has
    /// it (`KnowledgeError.collectionExists`).
    func renameCollection(_ id: Int64, to name: String) async throws

    /// The document stored for a path in a collection.
    func document(path: String, in collectionID: Int64) async throws -> StoredDocument?
    /// A document of the collection with this content (SHA-256), under any path.
    func document(contentHash: String, in collectionID: Int64) async throws -> StoredDocument?
    func document(id: Int64) async throws -> StoredDocument?
    /// Documents, newest first; all collections when none is given.
    func documents(in collectionID: Int64?) async throws -> [StoredDocument]
    /// Writes a document with its passages and vectors in one transaction, removing `replacing`
    /// (the older version of the same file) in the same transaction.
    @discardableResult
    func save(_ draft: DocumentDraft, chunks: [ChunkDraft], embeddings: [[Float]], replacing: Int64?) async throws -> StoredDocument
    /// Records how long writing a document took (known only once it is written).
    func setIndexTime(_ duration: Duration, for documentID: Int64) async throws
    /// Replaces passages' vectors (after a change of embedding model), in one transaction.
    func replaceEmbeddings(_ vectors: [(chunkID: Int64, vector: [Float])]) async throws
    /// Removes a document and everything made from it.
    func removeDocument(_ id: Int64) async throws

    /// Records why a file could not be added (replacing an older record for the path).
    func recordFailure(path: String, error: String, in collectionID: Int64) async throws
    /// Files that could not be added, newest first; all collections when none is given.
    func failures(in collectionID: Int64?) async throws -> [IngestFailure]

    /// A document's passages in order.
    func chunks(of documentID: Int64) async throws -> [StoredChunk]
    /// The passage of a document at an ordinal, if there is one.
    func chunk(documentID: Int64, ordinal: Int) async throws -> StoredChunk?
    /// Passages by id (in no particular order).
    func chunks(ids: [Int64]) async throws -> [StoredChunk]
    /// A document's vectors by passage id.
    func vectors(of documentID: Int64) async throws -> [Int64: [Float]]

    /// BM25 matches for a question (see `FTSQuery` for which words count), best first; scores are
    /// positive, higher is better.
    func lexicalSearch(_ query: String, collectionID: Int64?, documentID: Int64?, limit: Int) async throws -> [(chunkID: Int64, score: Double)]

    /// Where this knowledge base's vectors are searched; namespaces are collection names.
    func vectorStore(policy: IndexPolicy) -> any VectorStore
}

extension KnowledgeBase {
    public func collection(named name: String) async throws -> KnowledgeCollection? {
        try await collection(named: name, create: false)
    }

    public func documents() async throws -> [StoredDocument] {
        try await documents(in: nil)
    }

    public func failures() async throws -> [IngestFailure] {
        try await failures(in: nil)
    }
}
