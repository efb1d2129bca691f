import Foundation
import Knowledge
import Logging
import SibylCore
import VectorIndex

/// A knowledge base whose vectors are searched in Pinecone: collections, documents, passages,
/// their words (BM25) and a copy of their vectors stay in the wrapped store (SQLite or
/// PostgreSQL), and every change to vectors is mirrored to a Pinecone index, one namespace per
/// collection. Retrieval's hybrid fusion is unchanged: dense vectors from Pinecone, BM25 from SQL.
///
/// A document is in both or in neither: its vectors are upserted after it is written, and when
/// that fails it is removed again and the error is thrown. A document that replaces an older
/// version drops the older version's vectors first; should the new ones then fail, the file is in
/// neither (re-adding it puts it back).
public final class PineconeKnowledgeBase: KnowledgeBase {
    public let wrapped: any KnowledgeBase
    public let vectors: PineconeVectorStore
    let logger: Logger

    /// Mirrors `wrapped`'s vectors to `index`; `namespacePrefix` keeps several knowledge bases
    /// apart in one index.
    public init(wrapping wrapped: any KnowledgeBase, index: PineconeIndexClient, namespacePrefix: String = "", logger: Logger = Logger(label: "sibyl.pinecone")) {
        self.wrapped = wrapped
        self.vectors = PineconeVectorStore(index: index, namespacePrefix: namespacePrefix) {
            try await wrapped.collections().map(\.name)
        }
        self.logger = logger
    }

    /// Pinecone: dense search in the collection's namespace (the policy is the embedded index's and does not apply).
    public func vectorStore(policy: IndexPolicy) -> any VectorStore {
        vectors
    }

    /// The name of the collection with this id.
    func collectionName(_ id: Int64) async throws -> String {
        guard let collection = try await wrapped.collections().first(where: { $0.id == id }) else {
            throw KnowledgeError.unknownCollection(String(id))
        }
        return collection.name
    }

    /// How many vectors each collection's namespace holds now (Pinecone's statistics, which may
    /// lag a write by a few seconds), by collection name.
    public func vectorCounts() async throws -> [String: Int] {
        let namespaces = try await vectors.index.describeStats().namespaces ?? [:]
        var counts: [String: Int] = [:]
        for collection in try await wrapped.collections() {
            counts[collection.name] = namespaces[vectors.namespace(for: collection.name)]?.vectorCount ?? 0
        }
        return counts
    }

    /// Copies to Pinecone the vectors of every collection whose namespace holds fewer than its
    /// passages (documents added before the knowledge base moved to this index); upserts are
    /// idempotent, so a copy that stopped half-way is finished by the next. Returns the
    /// collections copied.
    @discardableResult
    public func mirrorMissing() async throws -> [String] {
        let held = try await vectorCounts()
        var copied: [String] = []
        for collection in try await wrapped.collections() {
            let documents = try await wrapped.documents(in: collection.id)
            guard held[collection.name, default: 0] < documents.reduce(0, { $0 + $1.chunkCount }) else { continue }
            for document in documents {
                try await vectors.upsert(try await records(of: document), namespace: collection.name)
            }
            copied.append(collection.name)
            logger.info("pinecone: copied the vectors of \(collection.name) (\(documents.count) documents) to the index")
        }
        return copied
    }

    /// A document's vectors as records of its collection's namespace.
    private func records(of document: StoredDocument) async throws -> [VectorRecord] {
        try await wrapped.vectors(of: document.id).sorted { $0.key < $1.key }.map { VectorRecord(id: $0.key, documentID: document.id, vector: $0.value) }
    }

    // MARK: Writes, mirrored

    @discardableResult
    public func save(_ draft: DocumentDraft, chunks: [ChunkDraft], embeddings: [[Float]], replacing: Int64?) async throws -> StoredDocument {
        let namespace = try await collectionName(draft.collectionID)
        let saved = try await wrapped.save(draft, chunks: chunks, embeddings: embeddings, replacing: replacing)
        do {
            if let replacing { try await vectors.remove(documentID: replacing, namespace: namespace) }
            let stored = try await wrapped.chunks(of: saved.id)
            // Passages are stored in order, so a passage's ordinal is its vector's index.
            let records = stored.filter { embeddings.indices.contains($0.ordinal) }.map { chunk in
                VectorRecord(id: chunk.id, documentID: saved.id, vector: embeddings[chunk.ordinal])
            }
            try await vectors.upsert(records, namespace: namespace)
        } catch {
            logger.warning("pinecone: the vectors of \(draft.path) could not be written; removing the document again")
            do {
                try await wrapped.removeDocument(saved.id)
            } catch let cleanup {
                logger.error("pinecone: document \(saved.id) stays without its vectors: \(cleanup.localizedDescription)")
            }
            throw error
        }
        return saved
    }

    public func replaceEmbeddings(_ replacements: [(chunkID: Int64, vector: [Float])]) async throws {
        guard !replacements.isEmpty else { return }
        // Pinecone first: if it fails, the stored vectors and the collection's model are unchanged,
        // so running the reindex again redoes this document.
        let chunks = try await wrapped.chunks(ids: replacements.map(\.chunkID))
        let documentOf = Dictionary(chunks.map { ($0.id, $0.documentID) }, uniquingKeysWith: { first, _ in first })
        var byNamespace: [String: [VectorRecord]] = [:]
        var namespaceOf: [Int64: String] = [:]
        for (chunkID, vector) in replacements {
            guard let documentID = documentOf[chunkID] else { continue }
            if namespaceOf[documentID] == nil {
                guard let document = try await wrapped.document(id: documentID) else { continue }
                namespaceOf[documentID] = try await collectionName(document.collectionID)
            }
            byNamespace[namespaceOf[documentID]!, default: []].append(VectorRecord(id: chunkID, documentID: documentID, vector: vector))
        }
        for (namespace, records) in byNamespace.sorted(by: { $0.key < $1.key }) {
            try await vectors.upsert(records, namespace: namespace)
        }
        try await wrapped.replaceEmbeddings(replacements)
    }

    public func removeDocument(_ id: Int64) async throws {
        // Vectors first: if Pinecone fails, the document stays whole in both.
        if let document = try await wrapped.document(id: id) {
            try await vectors.remove(documentID: id, namespace: try await collectionName(document.collectionID))
        }
        try await wrapped.removeDocument(id)
    }

    public func deleteCollection(_ id: Int64) async throws {
        if let collection = try await wrapped.collections().first(where: { $0.id == id }) {
            try await vectors.removeAll(namespace: collection.name)
        }
        try await wrapped.deleteCollection(id)
    }

    /// Moves the collection's vectors to the new name's namespace (from the wrapped store's copy),
    /// renames it there, then empties the old namespace. Should the move or the rename fail, the
    /// new namespace is emptied again and nothing has changed.
    public func renameCollection(_ id: Int64, to name: String) async throws {
        let old = try await collectionName(id)
        if let other = try await wrapped.collection(named: name), other.id != id { throw KnowledgeError.collectionExists(name) }
        guard old != name else { return }
        // Namespaces are told apart by case too: even "Docs" for "docs" moves the vectors.
        do {
            for document in try await wrapped.documents(in: id) {
                try await vectors.upsert(try await records(of: document), namespace: name)
            }
            try await wrapped.renameCollection(id, to: name)
        } catch {
            do {
                try await vectors.removeAll(namespace: name)
            } catch let cleanup {
                logger.error("pinecone: namespace \(name) keeps a partial copy of \(old)'s vectors: \(cleanup.localizedDescription)")
            }
            throw error
        }
        do {
            try await vectors.removeAll(namespace: old)
        } catch {
            logger.error("pinecone: the old namespace \(old) still holds the vectors of the collection now named \(name): \(error.localizedDescription)")
        }
    }

    // MARK: Everything else, from the wrapped store

    public func collection(named name: String, create: Bool) async throws -> KnowledgeCollection? {
        try await wrapped.collection(named: name, create: create)
    }

    public func collections() async throws -> [KnowledgeCollection] {
        try await wrapped.collections()
    }

    public func setEmbedding(model: String, dimension: Int, for collectionID: Int64) async throws {
        try await wrapped.setEmbedding(model: model, dimension: dimension, for: collectionID)
    }

    public func document(path: String, in collectionID: Int64) async throws -> StoredDocument? {
        try await wrapped.document(path: path, in: collectionID)
    }

    public func document(contentHash: String, in collectionID: Int64) async throws -> StoredDocument? {
        try await wrapped.document(contentHash: contentHash, in: collectionID)
    }

    public func document(id: Int64) async throws -> StoredDocument? {
        try await wrapped.document(id: id)
    }

    public func documents(in collectionID: Int64?) async throws -> [StoredDocument] {
        try await wrapped.documents(in: collectionID)
    }

    public func setIndexTime(_ duration: Duration, for documentID: Int64) async throws {
        try await wrapped.setIndexTime(duration, for: documentID)
    }

    public func recordFailure(path: String, error: String, in collectionID: Int64) async throws {
        try await wrapped.recordFailure(path: path, error: error, in: collectionID)
    }

    public func failures(in collectionID: Int64?) async throws -> [IngestFailure] {
        try await wrapped.failures(in: collectionID)
    }

    public func chunks(of documentID: Int64) async throws -> [StoredChunk] {
        try await wrapped.chunks(of: documentID)
    }

    public func chunk(documentID: Int64, ordinal: Int) async throws -> StoredChunk? {
        try await wrapped.chunk(documentID: documentID, ordinal: ordinal)
    }

    public func chunks(ids: [Int64]) async throws -> [StoredChunk] {
        try await wrapped.chunks(ids: ids)
    }

    public func vectors(of documentID: Int64) async throws -> [Int64: [Float]] {
        try await wrapped.vectors(of: documentID)
    }

    public func lexicalSearch(_ query: String, collectionID: Int64?, documentID: Int64?, limit: Int) async throws -> [(chunkID: Int64, score: Double)] {
        try await wrapped.lexicalSearch(query, collectionID: collectionID, documentID: documentID, limit: limit)
    }
}
