import Foundation
import GRDB
import SibylCore
import VectorIndex

extension KnowledgeStore {
    /// The document stored for a path in a collection.
    public func document(path: String, in collectionID: Int64) throws -> StoredDocument? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM document WHERE collection_id = ? AND path = ?", arguments: [collectionID, path]).map(Self.document)
        }
    }

    /// A document stored under another path with the same content.
    public func document(contentHash: String, in collectionID: Int64) throws -> StoredDocument? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM document WHERE collection_id = ? AND content_hash = ? LIMIT 1", arguments: [collectionID, contentHash]).map(Self.document)
        }
    }

    public func document(id: Int64) throws -> StoredDocument? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM document WHERE id = ?", arguments: [id]).map(Self.document)
        }
    }

    /// Documents, newest first; all collections when none is given.
    public func documents(in collectionID: Int64? = nil) throws -> [StoredDocument] {
        try database.read { db in
            if let collectionID {
                return try Row.fetchAll(db, sql: "SELECT * FROM document WHERE collection_id = ? ORDER BY added_at DESC", arguments: [collectionID]).map(Self.document)
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM document ORDER BY added_at DESC").map(Self.document)
        }
    }

    /// Writes a document with its chunks and vectors in one transaction, replacing `replacing` (the
    /// older version of the same file) in the same transaction.
    @discardableResult
    public func save(_ draft: DocumentDraft, chunks: [ChunkDraft], embeddings: [[Float]], replacing: Int64?) throws -> StoredDocument {
        precondition(chunks.count == embeddings.count, "one vector per chunk")
        return try database.write { db in
            if let replacing { try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [replacing]) }
            let warnings = draft.warnings.isEmpty ? nil : draft.warnings.joined(separator: "\n")
            try db.execute(sql: """
                INSERT INTO document (collection_id, path, title, format, content_hash, byte_count, page_count, token_count,
                    chunk_count, ocr_confidence, warnings, extract_ms, chunk_ms, embed_ms, index_ms, added_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    draft.collectionID, draft.path, draft.title, draft.format.rawValue, draft.contentHash, draft.byteCount,
                    draft.pageCount, chunks.reduce(0) { $0 + $1.tokenCount }, chunks.count, draft.ocrConfidence, warnings,
                    draft.timings.extract.milliseconds, draft.timings.chunk.milliseconds, draft.timings.embed.milliseconds,
                    draft.timings.index.milliseconds, (draft.addedAt ?? Date()).timeIntervalSince1970,
                ])
            let documentID = db.lastInsertedRowID
            let insert = try db.makeStatement(sql: """
                INSERT INTO chunk (document_id, ordinal, text, token_count, page, heading_path, start_offset, end_offset, embedding)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (index, chunk) in chunks.enumerated() {
                try insert.execute(arguments: [
                    documentID, index, chunk.text, chunk.tokenCount, chunk.page, Self.encode(path: chunk.headingPath),
                    chunk.startOffset, chunk.endOffset, VectorCoding.data(embeddings[index]),
                ])
            }
            try db.execute(sql: "DELETE FROM failure WHERE collection_id = ? AND path = ?", arguments: [draft.collectionID, draft.path])
            return try Row.fetchOne(db, sql: "SELECT * FROM document WHERE id = ?", arguments: [documentID]).map(Self.document)!
        }
    }

    /// Records how long writing a document took (known only once it is written).
    public func setIndexTime(_ duration: Duration, for documentID: Int64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE document SET index_ms = ? WHERE id = ?", arguments: [duration.milliseconds, documentID])
        }
    }

    /// Replaces a document's vectors (after a change of embedding model), in one transaction.
    public func replaceEmbeddings(_ vectors: [(chunkID: Int64, vector: [Float])]) throws {
        try database.write { db in
            let update = try db.makeStatement(sql: "UPDATE chunk SET embedding = ? WHERE id = ?")
            for (chunkID, vector) in vectors {
                try update.execute(arguments: [VectorCoding.data(vector), chunkID])
            }
        }
    }

    /// Removes a document and everything it produced.
    public func removeDocument(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [id]) }
    }
}
